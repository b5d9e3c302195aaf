; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* Reductions, which the C frontend turns into atomics on the shared
;      variables: integer add and min as atomic instructions, float add and max
;      and the double product as compare-and-swap loops. */
;   void reduce(const float *f, const int *v, int n, float *fout, long *lout,
;               int *iout, double *dout) {
;     long sum = 0;
;     float fsum = 0, fmx = -1e30f;
;     double prod = 1;
;     int lo = 1 << 30;
;   #pragma hpvm parallel for in(f[0:n], v[0:n]) reduction(+: sum, fsum) reduction(*: prod) reduction(min: lo) reduction(max: fmx) name(reduce)
;     for (int i = 0; i < n; i++) {
;       sum += v[i];
;       fsum += f[i];
;       prod *= 1.0001;
;       lo = v[i] < lo ? v[i] : lo;
;       fmx = f[i] > fmx ? f[i] : fmx;
;     }
;     fout[0] = fsum;
;     fout[1] = fmx;
;     *lout = sum;
;     *iout = lo;
;     *dout = prod;
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [7 x i8] c"reduce\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @reduce(ptr noundef %f, ptr noundef %v, i32 noundef %n, ptr noundef %fout, ptr noundef %lout, ptr noundef %iout, ptr noundef %dout) #0 {
entry:
  %sum = alloca i64, align 8
  %fsum = alloca float, align 4
  %fmx = alloca float, align 4
  %prod = alloca double, align 8
  %lo = alloca i32, align 4
  store i64 0, ptr %sum, align 8
  store float 0.000000e+00, ptr %fsum, align 4
  store float 0xC6293E5940000000, ptr %fmx, align 4
  store double 1.000000e+00, ptr %prod, align 8
  store i32 1073741824, ptr %lo, align 4
  %conv = sext i32 %n to i64
  %f.bytes = shl nsw i64 %conv, 2
  %reduce.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %f, i64 %f.bytes, ptr %v, i64 %f.bytes), "hpvm.inout"(ptr %sum, i64 8, ptr %fsum, i64 4, ptr %prod, i64 8, ptr %lo, i64 4, ptr %fmx, i64 4) ]
  %cmp70 = icmp slt i32 0, %n
  br i1 %cmp70, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %do.end36
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %do.end36 ]
  %0 = load atomic i32, ptr %lo monotonic, align 4
  %1 = load atomic i32, ptr %fmx monotonic, align 4
  %2 = bitcast i32 %1 to float
  %arrayidx = getelementptr inbounds i32, ptr %v, i64 %indvars.iv
  %3 = load i32, ptr %arrayidx, align 4
  %conv10 = sext i32 %3 to i64
  %arrayidx13 = getelementptr inbounds float, ptr %f, i64 %indvars.iv
  %4 = load float, ptr %arrayidx13, align 4
  %add14 = fadd float %4, 0.000000e+00
  %cmp18 = icmp slt i32 %3, %0
  %5 = load float, ptr %arrayidx13, align 4
  %cmp24 = fcmp ogt float %5, %2
  %6 = atomicrmw add ptr %sum, i64 %conv10 monotonic, align 8
  %7 = atomicrmw fadd ptr %fsum, float %add14 monotonic, align 4
  %8 = load atomic i64, ptr %prod monotonic, align 8
  %9 = bitcast i64 %8 to double
  br label %do.body34

do.body34:                                        ; preds = %do.body34, %for.body
  %__hpvm_old.0 = phi double [ %9, %for.body ], [ %__hpvm_old.1, %do.body34 ]
  %mul35 = fmul double %__hpvm_old.0, 1.000100e+00
  %10 = bitcast double %__hpvm_old.0 to i64
  %11 = bitcast double %mul35 to i64
  %12 = cmpxchg ptr %prod, i64 %10, i64 %11 monotonic monotonic, align 8
  %13 = extractvalue { i64, i1 } %12, 1
  %14 = extractvalue { i64, i1 } %12, 0
  %15 = bitcast i64 %14 to double
  %__hpvm_old.1 = select i1 %13, double %__hpvm_old.0, double %15
  br i1 %13, label %do.end36, label %do.body34, !llvm.loop !7

do.end36:                                         ; preds = %do.body34
  %cond = select i1 %cmp18, i32 %3, i32 %0
  %cond31 = select i1 %cmp24, float %5, float %2
  %16 = atomicrmw min ptr %lo, i32 %cond monotonic, align 4
  %17 = atomicrmw fmax ptr %fmx, float %cond31 monotonic, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !9

for.end:                                          ; preds = %do.end36, %entry
  call void @llvm.directive.region.exit(token %reduce.region)
  %18 = load float, ptr %fsum, align 4
  store float %18, ptr %fout, align 4
  %19 = load float, ptr %fmx, align 4
  %arrayidx42 = getelementptr inbounds i8, ptr %fout, i64 4
  store float %19, ptr %arrayidx42, align 4
  %20 = load i64, ptr %sum, align 8
  store i64 %20, ptr %lout, align 8
  %21 = load i32, ptr %lo, align 4
  store i32 %21, ptr %iout, align 4
  %22 = load double, ptr %prod, align 8
  store double %22, ptr %dout, align 8
  ret void
}

declare token @llvm.directive.region.entry()

declare void @llvm.directive.region.exit(token)

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

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
!9 = distinct !{!9, !8}
