; Vulkan modules keep C's infinities, NaNs and signed zeros: each declares
; SignedZeroInfNanPreserve for the float widths it uses, and arithmetic with
; a constant zero, which lavapipe folds even so (x * 0.0 -> 0.0, x + 0.0 ->
; x, 0.0 / x -> 0.0, ...), is written without that operand. frem takes the
; dividend's sign and keeps a finite dividend over an infinite divisor.
; OpenCL keeps IEEE semantics by default: none of it there.
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -S -o - | FileCheck %s --check-prefix=CL
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -o %t.cl.spv
; RUN: %spirv-val --target-env opencl2.1 %t.cl.spv

; CHECK: OpCapability SignedZeroInfNanPreserve
; CHECK: OpExecutionMode %{{.*}} SignedZeroInfNanPreserve 32
; CHECK-NEXT: OpExecutionMode %{{.*}} SignedZeroInfNanPreserve 64
; fmod(y, 0.0) is a NaN constant.
; CHECK: %nan_i = OpConstant %double 0x1.8p+1024
; CHECK: %x_i = OpLoad %float
; No float operation on a zero constant from here on.
; CHECK-NOT: {{OpF(Mul|Add|Sub|Div|Rem) %(float|double) .*%(float|double)_n?0[[:space:]]}}
; x * 0.0: x - x (+0.0 or NaN) with x's sign.
; CHECK: [[XX:%[0-9]+]] = OpFSub %float %x_i %x_i
; CHECK-NEXT: [[XXB:%[0-9]+]] = OpBitcast %uint [[XX]]
; CHECK-NEXT: [[MAG:%[0-9]+]] = OpBitwiseAnd %uint [[XXB]] %uint_2147483647
; CHECK-NEXT: [[XB:%[0-9]+]] = OpBitcast %uint %x_i
; CHECK-NEXT: [[SIGN:%[0-9]+]] = OpBitwiseAnd %uint [[XB]] %uint_2147483648
; CHECK-NEXT: [[BITS:%[0-9]+]] = OpBitwiseOr %uint [[MAG]] [[SIGN]]
; CHECK-NEXT: %prod_i = OpBitcast %float [[BITS]]
; -0.0 * x flips the sign.
; CHECK: OpBitwiseXor %uint %{{[0-9]+}} %uint_2147483648
; CHECK: %nprod_i = OpBitcast %float
; x + 0.0 selects +0.0 for -0.0.
; CHECK: [[NZ:%[0-9]+]] = OpIEqual %bool %{{[0-9]+}} %uint_2147483648
; CHECK-NEXT: %sum_i = OpSelect %float [[NZ]] %float_0 %x_i
; 0.0 - x: the negation, then as x + 0.0.
; CHECK: [[NEG:%[0-9]+]] = OpFNegate %float %x_i
; CHECK: %neg_i = OpSelect %float %{{[0-9]+}} %float_0 [[NEG]]
; x / 0.0 is x * inf.
; CHECK: %quot_i = OpFMul %float %x_i %float_0x1p_128
; 0.0 / x: NaN where x is NaN or zero, else zero with x's sign.
; CHECK: [[BAD:%[0-9]+]] = OpFUnordEqual %bool %x_i %float_0
; CHECK-NEXT: %inv_i = OpSelect %float [[BAD]] %float_0x1_8p_128 %{{[0-9]+}}
; frem by a variable: C's sign and infinite divisors.
; CHECK: OpFRem %double %wide_i %y_i
; CHECK: OpIsInf %bool %y_i
; CHECK: %rem_i = OpSelect %double %{{[0-9]+}} %wide_i
; fmod(y, 0.0) is NaN.
; CHECK: OpStore %{{[0-9]+}} %nan_i

; CL-NOT: SignedZeroInfNanPreserve
; CL: OpFMul %float %x_i %float_0
; CL: OpFRem %double %wide_i %y_i
; CL: OpFunctionEnd

declare i64 @hpvm.instance.id(i32, i32) memory(none)
declare double @fmod(double, double)
define internal void @hpvm.node.k(ptr %f, ptr %d, i64 %n) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pf = getelementptr inbounds float, ptr %f, i64 %i
  %x = load float, ptr %pf, align 4
  %prod = fmul float %x, 0.0
  %p1 = getelementptr inbounds float, ptr %pf, i64 1
  store float %prod, ptr %p1, align 4
  %nprod = fmul float -0.0, %x
  %p2 = getelementptr inbounds float, ptr %pf, i64 2
  store float %nprod, ptr %p2, align 4
  %sum = fadd float %x, 0.0
  %p3 = getelementptr inbounds float, ptr %pf, i64 3
  store float %sum, ptr %p3, align 4
  %neg = fsub float 0.0, %x
  %p4 = getelementptr inbounds float, ptr %pf, i64 4
  store float %neg, ptr %p4, align 4
  %quot = fdiv float %x, 0.0
  %p5 = getelementptr inbounds float, ptr %pf, i64 5
  store float %quot, ptr %p5, align 4
  %inv = fdiv float 0.0, %x
  %p6 = getelementptr inbounds float, ptr %pf, i64 6
  store float %inv, ptr %p6, align 4
  %pd = getelementptr inbounds double, ptr %d, i64 %i
  %y = load double, ptr %pd, align 8
  %wide = fpext float %x to double
  %rem = frem double %wide, %y
  store double %rem, ptr %pd, align 8
  %nan = call double @fmod(double %y, double 0.0)
  %pd1 = getelementptr inbounds double, ptr %pd, i64 1
  store double %nan, ptr %pd1, align 8
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 2}
!4 = !{!5, !7, !6}
!5 = !{!"buffer", !"f", !"inout", i64 4096}
!7 = !{!"buffer", !"d", !"inout", i64 8192}
!6 = !{!"value", !"n", !"i64"}
