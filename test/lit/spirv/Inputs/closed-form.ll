; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* LLVM replaces the inner loop by its closed form, computed in i33 (an
;      integer width SPIR-V lacks): sum(k, k < v) = (v-1)(v-2)/2 + v - 1. */
;   void tri(const int *a, int *out, int n) {
;   #pragma hpvm parallel for in(a[0:n]) out(out[0:n]) name(tri)
;     for (int i = 0; i < n; i++) {
;       int acc = 0;
;       for (int k = 0; k < a[i]; k++)
;         acc += k;
;       out[i] = acc;
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [4 x i8] c"tri\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @tri(ptr noundef %a, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %a.bytes = shl nsw i64 %conv, 2
  %tri.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes), "hpvm.out"(ptr %out, i64 %a.bytes) ]
  %cmp30 = icmp slt i32 0, %n
  br i1 %cmp30, label %for.cond5.preheader.lr.ph, label %for.end14

for.cond5.preheader.lr.ph:                        ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.cond5.preheader

for.cond5.preheader:                              ; preds = %for.cond5.preheader.lr.ph, %for.end
  %indvars.iv = phi i64 [ 0, %for.cond5.preheader.lr.ph ], [ %indvars.iv.next, %for.end ]
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %indvars.iv
  %0 = load i32, ptr %arrayidx, align 4
  %cmp626 = icmp slt i32 0, %0
  br i1 %cmp626, label %for.inc.lr.ph, label %for.end

for.inc.lr.ph:                                    ; preds = %for.cond5.preheader
  %1 = load i32, ptr %arrayidx, align 4
  %smax = call i32 @llvm.smax.i32(i32 %1, i32 1)
  %2 = add nsw i32 %smax, -1
  %3 = zext nneg i32 %2 to i33
  %4 = add nsw i32 %smax, -2
  %5 = zext i32 %4 to i33
  %6 = mul i33 %3, %5
  %7 = lshr i33 %6, 1
  %8 = trunc i33 %7 to i32
  br label %for.inc

for.inc:                                          ; preds = %for.inc.lr.ph, %for.inc
  %k.028 = phi i32 [ 0, %for.inc.lr.ph ], [ %inc, %for.inc ]
  %inc = add nuw nsw i32 %k.028, 1
  %exitcond = icmp ne i32 %inc, %smax
  br i1 %exitcond, label %for.inc, label %for.cond5.for.end_crit_edge, !llvm.loop !7

for.cond5.for.end_crit_edge:                      ; preds = %for.inc
  %9 = add i32 %smax, -1
  %10 = add i32 %9, %8
  br label %for.end

for.end:                                          ; preds = %for.cond5.for.end_crit_edge, %for.cond5.preheader
  %acc.0.lcssa = phi i32 [ %10, %for.cond5.for.end_crit_edge ], [ 0, %for.cond5.preheader ]
  %arrayidx11 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  store i32 %acc.0.lcssa, ptr %arrayidx11, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond32 = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond32, label %for.cond5.preheader, label %for.end14, !llvm.loop !9

for.end14:                                        ; preds = %for.end, %entry
  call void @llvm.directive.region.exit(token %tri.region)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smax.i32(i32, i32) #1

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
