; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* libm on floats through GLSL.std.450 / OpenCL.std, and the double
;      functions GLSL.std.450 has for every width. */
;   #include <math.h>
;   void math(const float *a, const double *d, float *o, double *od, int n) {
;   #pragma hpvm parallel for in(a[0:n], d[0:n]) out(o[0:n], od[0:n]) name(math)
;     for (int i = 0; i < n; i++) {
;       float x = a[i];
;       o[i] = sqrtf(fabsf(x)) + expf(x * 0.1f) + logf(fabsf(x) + 2.0f) +
;              powf(fabsf(x), 1.5f) + fminf(x, 0.5f) + fmaxf(x, -0.5f) +
;              floorf(x) + ceilf(x) + roundf(x) + truncf(x) + sinf(x) + cosf(x) +
;              tanhf(x) + log10f(fabsf(x) + 3) + exp2f(x * 0.1f) +
;              log2f(fabsf(x) + 4) + fmodf(x, 0.7f) + copysignf(1.0f, x) +
;              atan2f(x, 2.0f);
;       double y = d[i];
;       od[i] = sqrt(fabs(y)) + floor(y) + ceil(y) + fmin(y, 1.0) + fmax(y, 2.0) +
;               fma(y, y, 1.0) + trunc(y) + round(y);
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [5 x i8] c"math\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @math(ptr noundef %a, ptr noundef %d, ptr noundef %o, ptr noundef %od, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %a.bytes = shl nsw i64 %conv, 2
  %d.bytes = shl nsw i64 %conv, 3
  %math.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes, ptr %d, i64 %d.bytes), "hpvm.out"(ptr %o, i64 %a.bytes, ptr %od, i64 %d.bytes) ]
  %cmp100 = icmp slt i32 0, %n
  br i1 %cmp100, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds float, ptr %a, i64 %indvars.iv
  %0 = load float, ptr %arrayidx, align 4
  %1 = call float @llvm.fabs.f32(float %0)
  %call11 = call float @sqrtf(float noundef %1) #3
  %mul12 = fmul float %0, 0x3FB99999A0000000
  %call13 = call float @expf(float noundef %mul12) #3
  %add14 = fadd float %call11, %call13
  %add15 = fadd float %1, 2.000000e+00
  %call16 = call float @logf(float noundef %add15) #3
  %add17 = fadd float %add14, %call16
  %call18 = call float @powf(float noundef %1, float noundef 1.500000e+00) #3
  %add19 = fadd float %add17, %call18
  %2 = call float @llvm.minnum.f32(float %0, float 5.000000e-01)
  %add20 = fadd float %add19, %2
  %3 = call float @llvm.maxnum.f32(float %0, float -5.000000e-01)
  %add21 = fadd float %add20, %3
  %4 = call float @llvm.floor.f32(float %0)
  %add22 = fadd float %add21, %4
  %5 = call float @llvm.ceil.f32(float %0)
  %add23 = fadd float %add22, %5
  %6 = call float @llvm.round.f32(float %0)
  %add24 = fadd float %add23, %6
  %7 = call float @llvm.trunc.f32(float %0)
  %add25 = fadd float %add24, %7
  %call26 = call float @sinf(float noundef %0) #3
  %add27 = fadd float %add25, %call26
  %call28 = call float @cosf(float noundef %0) #3
  %add29 = fadd float %add27, %call28
  %call30 = call float @tanhf(float noundef %0) #3
  %add31 = fadd float %add29, %call30
  %add32 = fadd float %1, 3.000000e+00
  %call33 = call float @log10f(float noundef %add32) #3
  %add34 = fadd float %add31, %call33
  %call36 = call float @exp2f(float noundef %mul12) #3
  %add37 = fadd float %add34, %call36
  %add38 = fadd float %1, 4.000000e+00
  %call39 = call float @log2f(float noundef %add38) #3
  %add40 = fadd float %add37, %call39
  %call41 = call float @fmodf(float noundef %0, float noundef 0x3FE6666660000000) #3
  %add42 = fadd float %add40, %call41
  %8 = call float @llvm.copysign.f32(float 1.000000e+00, float %0)
  %add43 = fadd float %add42, %8
  %call44 = call float @atan2f(float noundef %0, float noundef 2.000000e+00) #3
  %add45 = fadd float %add43, %call44
  %arrayidx47 = getelementptr inbounds float, ptr %o, i64 %indvars.iv
  store float %add45, ptr %arrayidx47, align 4
  %arrayidx49 = getelementptr inbounds double, ptr %d, i64 %indvars.iv
  %9 = load double, ptr %arrayidx49, align 8
  %10 = call double @llvm.fabs.f64(double %9)
  %call50 = call double @sqrt(double noundef %10) #3
  %11 = call double @llvm.floor.f64(double %9)
  %add51 = fadd double %call50, %11
  %12 = call double @llvm.ceil.f64(double %9)
  %add52 = fadd double %add51, %12
  %13 = call double @llvm.minnum.f64(double %9, double 1.000000e+00)
  %add53 = fadd double %add52, %13
  %14 = call double @llvm.maxnum.f64(double %9, double 2.000000e+00)
  %add54 = fadd double %add53, %14
  %15 = call double @llvm.fma.f64(double %9, double %9, double 1.000000e+00)
  %add55 = fadd double %add54, %15
  %16 = call double @llvm.trunc.f64(double %9)
  %add56 = fadd double %add55, %16
  %17 = call double @llvm.round.f64(double %9)
  %add57 = fadd double %add56, %17
  %arrayidx59 = getelementptr inbounds double, ptr %od, i64 %indvars.iv
  store double %add57, ptr %arrayidx59, align 8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !7

for.end:                                          ; preds = %for.body, %entry
  call void @llvm.directive.region.exit(token %math.region)
  ret void
}

; Function Attrs: nounwind
declare float @sqrtf(float noundef) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fabs.f32(float) #2

; Function Attrs: nounwind
declare float @expf(float noundef) #1

; Function Attrs: nounwind
declare float @logf(float noundef) #1

; Function Attrs: nounwind
declare float @powf(float noundef, float noundef) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.minnum.f32(float, float) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maxnum.f32(float, float) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.floor.f32(float) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.ceil.f32(float) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.round.f32(float) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.trunc.f32(float) #2

; Function Attrs: nounwind
declare float @sinf(float noundef) #1

; Function Attrs: nounwind
declare float @cosf(float noundef) #1

; Function Attrs: nounwind
declare float @tanhf(float noundef) #1

; Function Attrs: nounwind
declare float @log10f(float noundef) #1

; Function Attrs: nounwind
declare float @exp2f(float noundef) #1

; Function Attrs: nounwind
declare float @log2f(float noundef) #1

; Function Attrs: nounwind
declare float @fmodf(float noundef, float noundef) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.copysign.f32(float, float) #2

; Function Attrs: nounwind
declare float @atan2f(float noundef, float noundef) #1

; Function Attrs: nounwind
declare double @sqrt(double noundef) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fabs.f64(double) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.floor.f64(double) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.ceil.f64(double) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.minnum.f64(double, double) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.maxnum.f64(double, double) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fma.f64(double, double, double) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.trunc.f64(double) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.round.f64(double) #2

declare token @llvm.directive.region.entry()

declare void @llvm.directive.region.exit(token)

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}
!llvm.ident = !{!6}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.mustprogress"}
