; Math intrinsics the NVPTX target cannot lower, in the forms optimisers
; leave them: vectors go to libdevice lane by lane, halves are computed in
; float, llvm.powi and llvm.lround take libdevice's int-argument and
; 64-bit-result functions. Whatever LLVM lowers itself stays (llvm.sqrt on
; halves, llvm.minimum, llvm.copysign).
; REQUIRES: libdevice
; RUN: %hpvm-backend --target=nvptx %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=nvptx %s -o %t.ptx
; RUN: %if ptxas %{ %ptxas-each -arch=sm_80 %t.ptx %}

declare i64 @hpvm.instance.id(i32, i32) memory(none)
declare <2 x float> @llvm.exp.v2f32(<2 x float>)
declare half @llvm.sin.f16(half)
declare half @llvm.sqrt.f16(half)
declare double @llvm.powi.f64.i32(double, i32)
declare i64 @llvm.lround.i64.f32(float)
declare float @llvm.minimum.f32(float, float)
declare float @llvm.copysign.f32(float, float)

define internal void @hpvm.node.k(ptr %a, ptr %h, ptr %d, ptr %l, i64 %n) {
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr inbounds <2 x float>, ptr %a, i64 %i
  %va = load <2 x float>, ptr %pa, align 8
  %ea = call <2 x float> @llvm.exp.v2f32(<2 x float> %va)
  store <2 x float> %ea, ptr %pa, align 8
  %ph = getelementptr inbounds half, ptr %h, i64 %i
  %vh = load half, ptr %ph, align 2
  %sh = call half @llvm.sin.f16(half %vh)
  %qh = call half @llvm.sqrt.f16(half %sh)
  store half %qh, ptr %ph, align 2
  %pd = getelementptr inbounds double, ptr %d, i64 %i
  %vd = load double, ptr %pd, align 8
  %ti = trunc i64 %i to i32
  %wd = call double @llvm.powi.f64.i32(double %vd, i32 %ti)
  store double %wd, ptr %pd, align 8
  %f = extractelement <2 x float> %va, i32 0
  %m = call float @llvm.minimum.f32(float %f, float 1.0)
  %c = call float @llvm.copysign.f32(float %m, float -1.0)
  %r = call i64 @llvm.lround.i64.f32(float %c)
  %pl = getelementptr inbounds i64, ptr %l, i64 %i
  store i64 %r, ptr %pl, align 8
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 4}
!4 = !{!5, !6, !7, !8, !9}
!5 = !{!"buffer", !"a", !"inout", i64 4096}
!6 = !{!"buffer", !"h", !"inout", i64 4096}
!7 = !{!"buffer", !"d", !"inout", i64 4096}
!8 = !{!"buffer", !"l", !"out", i64 4096}
!9 = !{!"value", !"n", !"i64"}

; CHECK:     .visible .entry hpvm_nvptx_k(
; CHECK-NOT: .extern
; Two lanes of __nv_expf.
; CHECK-COUNT-2: ex2.approx
; The half sine in float (__nv_sinf's argument reduction by pi/2), back to
; half for the native square root.
; CHECK:     cvt.f32.f16 %[[X:f[0-9]+]],
; CHECK:     fma.rn.f32 %{{f[0-9]+}}, %{{f[0-9]+}}, 0fBFC90FDA, %[[X]];
; CHECK:     cvt.rn.f16.f32
; CHECK:     sqrt.rn.f32
; CHECK:     min.NaN.f32
; __nv_llroundf: values beyond 2^63 are out of range.
; CHECK:     setp.ltu.f32 %{{p[0-9]+}}, %{{f[0-9]+}}, 0f5F000000;
