; Induction-variable rewriting writes closed forms such as i*(i+1)/2 in an
; integer one bit wider than the value (i65 for an i64 sum), which SPIR-V
; cannot declare. Only the low 64 bits are used: the preparation narrows
; them (InstCombine this form; AggressiveInstCombine, which takes whole
; expression trees under a truncation, the one of random seed 171, checked
; by CTest's random.seed-171). Integers that are really wider stay an
; error: errors.test, I128.
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv

; CHECK-NOT: OpTypeInt 65
; CHECK: OpIMul
; CHECK: OpFunctionEnd

declare i64 @hpvm.instance.id(i32, i32) memory(none)
define internal void @hpvm.node.k(ptr %a, i64 %n) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %p, align 4
  %small = and i32 %v, 2
  %w = zext nneg i32 %small to i65
  %x = or disjoint i65 %w, 4
  %y = add nuw nsw i65 %w, 3
  %m = mul nuw nsw i65 %x, %y
  %t = trunc nuw nsw i65 %m to i64
  %h = lshr exact i64 %t, 1
  %r = trunc i64 %h to i32
  store i32 %r, ptr %p, align 4
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 1}
!4 = !{!5, !6}
!5 = !{!"buffer", !"a", !"inout", i64 4096}
!6 = !{!"value", !"n", !"i64"}
