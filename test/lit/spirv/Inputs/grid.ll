; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* Two and three dims: the last dim is x. */
;   void grid(const float *a, float *c, int n, int m) {
;   #pragma hpvm parallel for collapse(2) in(a[0:n*m]) out(c[0:n*m]) name(grid)
;     for (int i = 0; i < n; i++)
;       for (int j = 0; j < m; j++)
;         c[i * m + j] = a[i * m + j] * 2 + i - j;
;   }
;
;   void cube(int *c, int n, int m, int p) {
;   #pragma hpvm parallel for collapse(3) out(c[0:n*m*p]) name(cube)
;     for (int i = 0; i < n; i++)
;       for (int j = 0; j < m; j++)
;         for (int k = 0; k < p; k++)
;           c[(i * m + j) * p + k] = i * 10000 + j * 100 + k;
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [5 x i8] c"grid\00", align 1
@.str.1 = private unnamed_addr constant [5 x i8] c"cube\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @grid(ptr noundef %a, ptr noundef %c, i32 noundef %n, i32 noundef %m) #0 {
entry:
  %mul = mul nsw i32 %n, %m
  %conv = sext i32 %mul to i64
  %a.bytes = shl nsw i64 %conv, 2
  %grid.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n, i32 %m), "hpvm.in"(ptr %a, i64 %a.bytes), "hpvm.out"(ptr %c, i64 %a.bytes) ]
  %cmp43 = icmp slt i32 0, %n
  br i1 %cmp43, label %for.cond7.preheader.lr.ph, label %for.end22

for.cond7.preheader.lr.ph:                        ; preds = %entry
  %cmp841 = icmp slt i32 0, %m
  %0 = sext i32 %m to i64
  %wide.trip.count49 = zext i32 %n to i64
  br label %for.cond7.preheader

for.cond7.preheader:                              ; preds = %for.cond7.preheader.lr.ph, %for.inc20
  %indvars.iv46 = phi i64 [ 0, %for.cond7.preheader.lr.ph ], [ %indvars.iv.next47, %for.inc20 ]
  br i1 %cmp841, label %for.body10.lr.ph, label %for.inc20

for.body10.lr.ph:                                 ; preds = %for.cond7.preheader
  %1 = mul nsw i64 %indvars.iv46, %0
  %2 = trunc nuw nsw i64 %indvars.iv46 to i32
  %conv14 = uitofp nneg i32 %2 to float
  %wide.trip.count = zext i32 %m to i64
  br label %for.body10

for.body10:                                       ; preds = %for.body10.lr.ph, %for.body10
  %indvars.iv = phi i64 [ 0, %for.body10.lr.ph ], [ %indvars.iv.next, %for.body10 ]
  %3 = add nsw i64 %1, %indvars.iv
  %arrayidx = getelementptr inbounds float, ptr %a, i64 %3
  %4 = load float, ptr %arrayidx, align 4
  %5 = call float @llvm.fmuladd.f32(float %4, float 2.000000e+00, float %conv14)
  %6 = trunc nuw nsw i64 %indvars.iv to i32
  %conv15 = uitofp nneg i32 %6 to float
  %sub = fsub float %5, %conv15
  %arrayidx19 = getelementptr inbounds float, ptr %c, i64 %3
  store float %sub, ptr %arrayidx19, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body10, label %for.inc20, !llvm.loop !7

for.inc20:                                        ; preds = %for.body10, %for.cond7.preheader
  %indvars.iv.next47 = add nuw nsw i64 %indvars.iv46, 1
  %exitcond50 = icmp ne i64 %indvars.iv.next47, %wide.trip.count49
  br i1 %exitcond50, label %for.cond7.preheader, label %for.end22, !llvm.loop !9

for.end22:                                        ; preds = %for.inc20, %entry
  call void @llvm.directive.region.exit(token %grid.region)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #1

; Function Attrs: noinline nounwind uwtable
define dso_local void @cube(ptr noundef %c, i32 noundef %n, i32 noundef %m, i32 noundef %p) #0 {
entry:
  %mul = mul nsw i32 %n, %m
  %mul1 = mul nsw i32 %mul, %p
  %conv = sext i32 %mul1 to i64
  %c.bytes = shl nsw i64 %conv, 2
  %cube.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.1), "hpvm.dims"(i32 %n, i32 %m, i32 %p), "hpvm.out"(ptr %c, i64 %c.bytes) ]
  %cmp48 = icmp slt i32 0, %n
  br i1 %cmp48, label %for.cond4.preheader.lr.ph, label %for.end25

for.cond4.preheader.lr.ph:                        ; preds = %entry
  %cmp546 = icmp slt i32 0, %m
  %cmp944 = icmp slt i32 0, %p
  %0 = sext i32 %p to i64
  %1 = sext i32 %m to i64
  %wide.trip.count64 = zext i32 %n to i64
  br label %for.cond4.preheader

for.cond4.preheader:                              ; preds = %for.cond4.preheader.lr.ph, %for.inc23
  %indvars.iv60 = phi i64 [ 0, %for.cond4.preheader.lr.ph ], [ %indvars.iv.next61, %for.inc23 ]
  br i1 %cmp546, label %for.cond8.preheader.lr.ph, label %for.inc23

for.cond8.preheader.lr.ph:                        ; preds = %for.cond4.preheader
  %2 = mul nuw nsw i64 %indvars.iv60, 10000
  %3 = mul nsw i64 %indvars.iv60, %1
  %wide.trip.count58 = zext i32 %m to i64
  br label %for.cond8.preheader

for.cond8.preheader:                              ; preds = %for.cond8.preheader.lr.ph, %for.inc20
  %indvars.iv52 = phi i64 [ 0, %for.cond8.preheader.lr.ph ], [ %indvars.iv.next53, %for.inc20 ]
  br i1 %cmp944, label %for.body11.lr.ph, label %for.inc20

for.body11.lr.ph:                                 ; preds = %for.cond8.preheader
  %4 = mul nuw nsw i64 %indvars.iv52, 100
  %5 = add nuw nsw i64 %2, %4
  %6 = add nsw i64 %3, %indvars.iv52
  %7 = mul nsw i64 %6, %0
  %wide.trip.count = zext i32 %p to i64
  br label %for.body11

for.body11:                                       ; preds = %for.body11.lr.ph, %for.body11
  %indvars.iv = phi i64 [ 0, %for.body11.lr.ph ], [ %indvars.iv.next, %for.body11 ]
  %8 = add nuw nsw i64 %5, %indvars.iv
  %9 = add nsw i64 %7, %indvars.iv
  %arrayidx = getelementptr inbounds i32, ptr %c, i64 %9
  %10 = trunc nsw i64 %8 to i32
  store i32 %10, ptr %arrayidx, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body11, label %for.inc20, !llvm.loop !10

for.inc20:                                        ; preds = %for.body11, %for.cond8.preheader
  %indvars.iv.next53 = add nuw nsw i64 %indvars.iv52, 1
  %exitcond59 = icmp ne i64 %indvars.iv.next53, %wide.trip.count58
  br i1 %exitcond59, label %for.cond8.preheader, label %for.inc23, !llvm.loop !11

for.inc23:                                        ; preds = %for.inc20, %for.cond4.preheader
  %indvars.iv.next61 = add nuw nsw i64 %indvars.iv60, 1
  %exitcond65 = icmp ne i64 %indvars.iv.next61, %wide.trip.count64
  br i1 %exitcond65, label %for.cond4.preheader, label %for.end25, !llvm.loop !12

for.end25:                                        ; preds = %for.inc23, %entry
  call void @llvm.directive.region.exit(token %cube.region)
  ret void
}

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
!10 = distinct !{!10, !8}
!11 = distinct !{!11, !8}
!12 = distinct !{!12, !8}
