; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* A search loop with three ways out besides running to its end. */
;   void multiexit(const int *a, int *out, int n, int m) {
;   #pragma hpvm parallel for in(a[0:n*m]) out(out[0:n]) name(multiexit)
;     for (int i = 0; i < n; i++) {
;       int found = -1;
;       int j = 0;
;       while (j < m) {
;         int v = a[i * m + j];
;         if (v == 42) { found = j; break; }
;         if (v == 7) { found = -2 - j; break; }
;         if (v < 0) { found = v; break; }
;         j++;
;       }
;       out[i] = found;
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [10 x i8] c"multiexit\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @multiexit(ptr noundef %a, ptr noundef %out, i32 noundef %n, i32 noundef %m) #0 {
entry:
  %mul = mul nsw i32 %n, %m
  %conv = sext i32 %mul to i64
  %a.bytes = shl nsw i64 %conv, 2
  %conv2 = sext i32 %n to i64
  %out.bytes = shl nsw i64 %conv2, 2
  %multiexit.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes), "hpvm.out"(ptr %out, i64 %out.bytes) ]
  %cmp45 = icmp slt i32 0, %n
  br i1 %cmp45, label %while.cond.preheader.lr.ph, label %for.end

while.cond.preheader.lr.ph:                       ; preds = %entry
  %cmp641 = icmp slt i32 0, %m
  %0 = sext i32 %m to i64
  %wide.trip.count51 = zext i32 %n to i64
  br label %while.cond.preheader

while.cond.preheader:                             ; preds = %while.cond.preheader.lr.ph, %while.end
  %indvars.iv48 = phi i64 [ 0, %while.cond.preheader.lr.ph ], [ %indvars.iv.next49, %while.end ]
  br i1 %cmp641, label %while.body.lr.ph, label %while.end

while.body.lr.ph:                                 ; preds = %while.cond.preheader
  %1 = mul nsw i64 %indvars.iv48, %0
  %wide.trip.count = zext i32 %m to i64
  br label %while.body

while.body:                                       ; preds = %while.body.lr.ph, %if.end19
  %indvars.iv = phi i64 [ 0, %while.body.lr.ph ], [ %indvars.iv.next, %if.end19 ]
  %2 = add nsw i64 %1, %indvars.iv
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %2
  %3 = load i32, ptr %arrayidx, align 4
  switch i32 %3, label %if.end15 [
    i32 42, label %while.body.while.end.loopexit_crit_edge
    i32 7, label %if.then14
  ]

if.then14:                                        ; preds = %while.body
  %j.0.lcssa40.wide = phi i64 [ %indvars.iv, %while.body ]
  %4 = trunc nuw nsw i64 %j.0.lcssa40.wide to i32
  %sub = sub nuw nsw i32 -2, %4
  br label %while.end

if.end15:                                         ; preds = %while.body
  %cmp16 = icmp slt i32 %3, 0
  br i1 %cmp16, label %while.end, label %if.end19

if.end19:                                         ; preds = %if.end15
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %while.body, label %while.end, !llvm.loop !7

while.body.while.end.loopexit_crit_edge:          ; preds = %while.body
  %split43.wide = phi i64 [ %indvars.iv, %while.body ]
  %5 = trunc nuw nsw i64 %split43.wide to i32
  br label %while.end

while.end:                                        ; preds = %while.cond.preheader, %while.body.while.end.loopexit_crit_edge, %if.end19, %if.end15, %if.then14
  %found.0 = phi i32 [ %sub, %if.then14 ], [ %5, %while.body.while.end.loopexit_crit_edge ], [ -1, %while.cond.preheader ], [ -1, %if.end19 ], [ %3, %if.end15 ]
  %arrayidx21 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv48
  store i32 %found.0, ptr %arrayidx21, align 4
  %indvars.iv.next49 = add nuw nsw i64 %indvars.iv48, 1
  %exitcond52 = icmp ne i64 %indvars.iv.next49, %wide.trip.count51
  br i1 %exitcond52, label %while.cond.preheader, label %for.end, !llvm.loop !9

for.end:                                          ; preds = %while.end, %entry
  call void @llvm.directive.region.exit(token %multiexit.region)
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
