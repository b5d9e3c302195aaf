; The optimiser merges neighbouring stores into a private array into one
; wider store (`uint16_t t[2] = {x, y}` became `store i32` in random seed
; 693), and neighbouring loads into one wider load. A SPIR-V array has one
; element type, so the preparation splits such accesses into the array's
; narrowest element, little-endian; lifetime markers on the array go. The
; values are checked by CTest's random.seed-693 on Vulkan.
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv

; CHECK: OpTypeInt 16 0
; CHECK-NOT: error
; CHECK: OpFunctionEnd

declare i64 @hpvm.instance.id(i32, i32) memory(none)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
define internal void @hpvm.node.k(ptr %a, i64 %n) {
entry:
  %t = alloca [2 x i16], align 2
  %u = alloca [2 x i16], align 4
  call void @llvm.lifetime.start.p0(i64 4, ptr %t)
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  ; t = {10114, 33332} as one i32
  store i32 -2110511230, ptr %t, align 2
  %k = and i64 %i, 1
  %pk = getelementptr inbounds i16, ptr %t, i64 %k
  %e = load i16, ptr %pk, align 2
  ; u written by elements, read as one i32
  %u1 = getelementptr inbounds i16, ptr %u, i64 1
  %lo = trunc i64 %i to i16
  store i16 %lo, ptr %u, align 4
  store i16 %e, ptr %u1, align 2
  %w = load i32, ptr %u, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %t)
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %w, ptr %p, align 4
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
