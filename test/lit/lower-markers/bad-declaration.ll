; The marker functions must have the signatures of hpvm.h.
; RUN: not %hpvm-opt --lower-markers %s -disable-output 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] __hpvm_region_begin must be declared as void *__hpvm_region_begin(const char *, ...)

@.str = private unnamed_addr constant [2 x i8] c"k\00"

declare ptr @__hpvm_region_begin(ptr, i32)
declare void @__hpvm_region_end(ptr)

define void @f() {
  %h = call ptr @__hpvm_region_begin(ptr @.str, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}
