; An extent loses only the integer extensions that keep its value as the
; runtime reads it (signed, at its width): sext, and zext of a value known
; not to be negative (nneg). A plain zext of an i32 stays: `unsigned n` of
; 3000000000 is 3000000000 instances, not a negative i32.
; RUN: %hpvm-opt --lower-markers %s -S | FileCheck %s

@.a = private unnamed_addr constant [2 x i8] c"a\00"
@.b = private unnamed_addr constant [2 x i8] c"b\00"
@.c = private unnamed_addr constant [2 x i8] c"c\00"

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

define void @signed(ptr %x, i32 %n) {
entry:
  %n64 = sext i32 %n to i64
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.a, i32 1, i32 1, i64 %n64, i32 3, ptr %x, i64 %n64, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}
; CHECK-LABEL: define void @signed(
; CHECK: "hpvm.dims"(i32 %n)

define void @nonnegative(ptr %x, i32 %n) {
entry:
  %n64 = zext nneg i32 %n to i64
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.b, i32 1, i32 1, i64 %n64, i32 3, ptr %x, i64 %n64, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}
; CHECK-LABEL: define void @nonnegative(
; CHECK: "hpvm.dims"(i32 %n)

define void @unsigned(ptr %x, i32 %n) {
entry:
  %n64 = zext i32 %n to i64
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.c, i32 1, i32 1, i64 %n64, i32 3, ptr %x, i64 %n64, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}
; CHECK-LABEL: define void @unsigned(
; CHECK-NOT: "hpvm.dims"(i32
; CHECK: "hpvm.dims"(i64 %n64)
