; Every float operation rounds on its own unless LLVM says it may be
; contracted. SPIR-V lets a Vulkan driver fuse `a * b + c` or fold
; `(int)(float)i` back to `i` unless the result is NoContraction, and Mesa's
; compiler does the latter: lavapipe returned exact integers that C rounds
; through float (found by test/random). So arithmetic and conversions carry
; NoContraction, except where the instruction has the `contract` flag.
; OpenCL's environment has no such decoration (it needs Shader).
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s --check-prefix=CONTRACT
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -S -o - | FileCheck %s --check-prefix=CL
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -o %t.cl.spv
; RUN: %spirv-val --target-env opencl2.1 %t.cl.spv

; (Values are named after the IR's, with _i: the leaf is inlined.)
; CHECK-DAG: OpDecorate %asfloat_i NoContraction
; CHECK-DAG: OpDecorate %back_i NoContraction
; CHECK-DAG: OpDecorate %fromu_i NoContraction
; CHECK-DAG: OpDecorate %tou_i NoContraction
; CHECK-DAG: OpDecorate %prod_i NoContraction
; CHECK-DAG: OpDecorate %sum_i NoContraction
; CHECK-DAG: OpDecorate %diff_i NoContraction
; CHECK-DAG: OpDecorate %quot_i NoContraction
; CHECK-DAG: OpDecorate %wide_i NoContraction
; CHECK-DAG: OpDecorate %narrow_i NoContraction
; CHECK: %asfloat_i = OpConvertSToF %float
; CHECK-NEXT: %back_i = OpConvertFToS %uint %asfloat_i
; CHECK: %prod_i = OpFMul %float
; CHECK-NEXT: %sum_i = OpFAdd %float %b_i %prod_i
; CHECK: %quot_i = OpFDiv %float %diff_i

; CONTRACT-NOT: OpDecorate %cprod_i NoContraction
; CONTRACT: %cprod_i = OpFMul %float %b_i %quot_i

; CL-NOT: NoContraction
; CL: OpFunctionEnd

declare i64 @hpvm.instance.id(i32, i32) memory(none)
define internal void @hpvm.node.k(ptr %a, ptr %f, ptr %d, i64 %n) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %x = load i32, ptr %pa, align 4
  %asfloat = sitofp i32 %x to float
  %back = fptosi float %asfloat to i32
  %fromu = uitofp i32 %back to float
  %tou = fptoui float %fromu to i32
  store i32 %tou, ptr %pa, align 4
  %pf = getelementptr inbounds float, ptr %f, i64 %i
  %b = load float, ptr %pf, align 4
  %prod = fmul float %b, %asfloat
  %sum = fadd float %prod, %b
  %diff = fsub float %sum, %fromu
  %quot = fdiv float %diff, 3.0
  %cprod = fmul contract float %quot, %b
  store float %cprod, ptr %pf, align 4
  %pd = getelementptr inbounds double, ptr %d, i64 %i
  %wide = fpext float %cprod to double
  %y = load double, ptr %pd, align 8
  %z = fadd double %wide, %y
  store double %z, ptr %pd, align 8
  %narrow = fptrunc double %z to float
  store float %narrow, ptr %pf, align 4
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 3}
!4 = !{!5, !7, !8, !6}
!5 = !{!"buffer", !"a", !"inout", i64 4096}
!7 = !{!"buffer", !"f", !"inout", i64 4096}
!8 = !{!"buffer", !"d", !"inout", i64 8192}
!6 = !{!"value", !"n", !"i64"}
