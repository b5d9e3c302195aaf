; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* Early returns: a helper leaves from inside its loop, the body skips the
;      rest of the instance with continue. */
;   static float settle(float x, const float *lim) {
;     for (int k = 0; k < 100; k++) {
;       if (x > lim[0])
;         return (float)k;
;       if (x == lim[1])
;         return -x;
;       x = x * 2 + 1;
;     }
;     return x;
;   }
;
;   void early(const float *a, const float *lim, float *out, int n) {
;   #pragma hpvm parallel for in(a[0:n], lim[0:2]) out(out[0:n]) name(early)
;     for (int i = 0; i < n; i++) {
;       out[i] = -1;
;       if (a[i] < 0)
;         continue;
;       out[i] = settle(a[i], lim);
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [6 x i8] c"early\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @early(ptr noundef %a, ptr noundef %lim, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %a.bytes = shl nsw i64 %conv, 2
  %early.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes, ptr %lim, i64 8), "hpvm.out"(ptr %out, i64 %a.bytes) ]
  %cmp27 = icmp slt i32 0, %n
  br i1 %cmp27, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  %arrayidx = getelementptr inbounds float, ptr %out, i64 %indvars.iv
  store float -1.000000e+00, ptr %arrayidx, align 4
  %arrayidx6 = getelementptr inbounds float, ptr %a, i64 %indvars.iv
  %0 = load float, ptr %arrayidx6, align 4
  %cmp7 = fcmp olt float %0, 0.000000e+00
  br i1 %cmp7, label %for.inc, label %if.end

if.end:                                           ; preds = %for.body
  %call11 = call float @settle(float noundef %0, ptr noundef %lim)
  store float %call11, ptr %arrayidx, align 4
  br label %for.inc

for.inc:                                          ; preds = %for.body, %if.end
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !7

for.end:                                          ; preds = %for.inc, %entry
  call void @llvm.directive.region.exit(token %early.region)
  ret void
}

; Function Attrs: noinline nounwind uwtable
define internal float @settle(float noundef %x, ptr noundef %lim) #0 {
entry:
  %retval = alloca float, align 4
  %x.addr = alloca float, align 4
  %lim.addr = alloca ptr, align 8
  %k = alloca i32, align 4
  store float %x, ptr %x.addr, align 4
  store ptr %lim, ptr %lim.addr, align 8
  store i32 0, ptr %k, align 4
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %k, align 4
  %cmp = icmp slt i32 %0, 100
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  %1 = load float, ptr %x.addr, align 4
  %2 = load ptr, ptr %lim.addr, align 8
  %arrayidx = getelementptr inbounds float, ptr %2, i64 0
  %3 = load float, ptr %arrayidx, align 4
  %cmp1 = fcmp ogt float %1, %3
  br i1 %cmp1, label %if.then, label %if.end

if.then:                                          ; preds = %for.body
  %4 = load i32, ptr %k, align 4
  %conv = sitofp i32 %4 to float
  store float %conv, ptr %retval, align 4
  br label %return

if.end:                                           ; preds = %for.body
  %5 = load float, ptr %x.addr, align 4
  %6 = load ptr, ptr %lim.addr, align 8
  %arrayidx2 = getelementptr inbounds float, ptr %6, i64 1
  %7 = load float, ptr %arrayidx2, align 4
  %cmp3 = fcmp oeq float %5, %7
  br i1 %cmp3, label %if.then5, label %if.end6

if.then5:                                         ; preds = %if.end
  %8 = load float, ptr %x.addr, align 4
  %fneg = fneg float %8
  store float %fneg, ptr %retval, align 4
  br label %return

if.end6:                                          ; preds = %if.end
  %9 = load float, ptr %x.addr, align 4
  %10 = call float @llvm.fmuladd.f32(float %9, float 2.000000e+00, float 1.000000e+00)
  store float %10, ptr %x.addr, align 4
  br label %for.inc

for.inc:                                          ; preds = %if.end6
  %11 = load i32, ptr %k, align 4
  %inc = add nsw i32 %11, 1
  store i32 %inc, ptr %k, align 4
  br label %for.cond, !llvm.loop !9

for.end:                                          ; preds = %for.cond
  %12 = load float, ptr %x.addr, align 4
  store float %12, ptr %retval, align 4
  br label %return

return:                                           ; preds = %for.end, %if.then5, %if.then
  %13 = load float, ptr %retval, align 4
  ret float %13
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #1

declare token @llvm.directive.region.entry()

declare void @llvm.directive.region.exit(token)

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

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
