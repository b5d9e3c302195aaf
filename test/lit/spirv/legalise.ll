; "Legalising" what SPIR-V or the emitter lacks: vector operations
; (shufflevector, extractelement with a run-time index) become scalars, a
; memcpy of a struct becomes loads and stores of the widest integer its size
; and alignment allow, half is Float16 (Vulkan; StorageBuffer16BitAccess for
; its loads and stores), and `unreachable` returns.
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; RUN: not %hpvm-backend --target=spirv --spirv-flavour=opencl %s -S -o %t.out 2>&1 | FileCheck %s --check-prefix=CL
; CL: error: node 'k' (leaf function '@hpvm.node.k'): the spirv backend (opencl) cannot compile the type half in the OpenCL environment

; CHECK:      OpCapability Float16
; CHECK:      OpCapability StorageBuffer16BitAccess
; CHECK-NOT:  OpTypeVector %float
; The <4 x float> load, one float at a time.
; CHECK-COUNT-4: OpLoad %float %{{[0-9]+}} Aligned
; CHECK:      OpLoad %half %{{[0-9]+}} Aligned 2
; CHECK:      OpFMul %half
; The 24-byte struct copy.
; CHECK-COUNT-3: OpLoad %ulong %{{[0-9]+}} Aligned 8
; CHECK-NOT:  OpUnreachable
; CHECK:      OpReturn

declare i64 @hpvm.instance.id(i32, i32) memory(none)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
%struct.S = type { i32, float, i8, double }
define internal void @hpvm.node.k(ptr %a, ptr %h, ptr %s, i64 %n) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %p = getelementptr inbounds <4 x float>, ptr %a, i64 %i
  %v = load <4 x float>, ptr %p, align 16
  %w = shufflevector <4 x float> %v, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %sum = fadd <4 x float> %v, %w
  %idx = trunc i64 %i to i32
  %k = and i32 %idx, 3
  %e = extractelement <4 x float> %sum, i32 %k
  %sum2 = insertelement <4 x float> %sum, float %e, i32 0
  store <4 x float> %sum2, ptr %p, align 16
  %ph = getelementptr inbounds half, ptr %h, i64 %i
  %hv = load half, ptr %ph, align 2
  %hw = fmul half %hv, 0xH4000
  store half %hw, ptr %ph, align 2
  %ps = getelementptr inbounds %struct.S, ptr %s, i64 %i
  %pd = getelementptr inbounds %struct.S, ptr %s, i64 0
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %ps, ptr align 8 %pd, i64 24, i1 false)
  %c = fcmp olt float %e, 0.0
  br i1 %c, label %bad, label %ok
bad:
  unreachable
ok:
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 3}
!4 = !{!5, !7, !8, !6}
!5 = !{!"buffer", !"a", !"inout", i64 4096}
!7 = !{!"buffer", !"h", !"inout", i64 4096}
!8 = !{!"buffer", !"s", !"inout", i64 4096}
!6 = !{!"value", !"n", !"i64"}
