; VALUE operands went through C's default argument promotions; the pass
; strips fpext from float and sext/zext from i1/i8/i16 so that the bundle
; names the value the body uses. Wider integers and doubles stay as they are.
; RUN: %hpvm-opt --lower-markers %s -S | FileCheck %s

@.str = private unnamed_addr constant [6 x i8] c"scale\00"

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

define void @scale(ptr %x, float %f, i16 %s, i8 %c, i1 %flag, i32 %w, double %d, i64 %n) {
entry:
  %fd = fpext float %f to double
  %si = sext i16 %s to i32
  %ci = zext i8 %c to i32
  %bi = zext i1 %flag to i32
  %bytes = shl i64 %n, 2
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str,
      i32 4, ptr %x, i64 %bytes,
      i32 5, double %fd, i32 5, i32 %si, i32 5, i32 %ci, i32 5, i32 %bi,
      i32 5, i32 %w, i32 5, double %d, i32 0)
  %v = load float, ptr %x, align 4
  %m = fmul float %v, %f
  store float %m, ptr %x, align 4
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.inout"(ptr %x, i64 %bytes), "hpvm.value"(float %f, i16 %s, i8 %c, i1 %flag, i32 %w, double %d) ]
