; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* Nested loops with break and continue at two depths. */
;   void nested(const int *a, const int *b, int *out, int n, int m) {
;   #pragma hpvm parallel for in(a[0:n*m], b[0:64]) out(out[0:n]) name(nested)
;     for (int i = 0; i < n; i++) {
;       int acc = 0;
;       for (int j = 0; j < m; j++) {
;         int v = a[i * m + j];
;         if (v < 0)
;           break;
;         if (v % 3 == 0)
;           continue;
;         for (int k = 0; k < v && k < 64; k++) {
;           if (b[k] == 5)
;             break;
;           if (b[k] < 0)
;             continue;
;           acc += b[k] * v;
;         }
;       }
;       out[i] = acc;
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [7 x i8] c"nested\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @nested(ptr noundef %a, ptr noundef %b, ptr noundef %out, i32 noundef %n, i32 noundef %m) #0 {
entry:
  %mul = mul nsw i32 %n, %m
  %conv = sext i32 %mul to i64
  %a.bytes = shl nsw i64 %conv, 2
  %conv2 = sext i32 %n to i64
  %out.bytes = shl nsw i64 %conv2, 2
  %nested.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes, ptr %b, i64 256), "hpvm.out"(ptr %out, i64 %out.bytes) ]
  %cmp81 = icmp slt i32 0, %n
  br i1 %cmp81, label %for.cond6.preheader.lr.ph, label %for.end47

for.cond6.preheader.lr.ph:                        ; preds = %entry
  %cmp776 = icmp slt i32 0, %m
  %0 = sext i32 %m to i64
  %wide.trip.count91 = zext i32 %n to i64
  br label %for.cond6.preheader

for.cond6.preheader:                              ; preds = %for.cond6.preheader.lr.ph, %for.end42
  %indvars.iv88 = phi i64 [ 0, %for.cond6.preheader.lr.ph ], [ %indvars.iv.next89, %for.end42 ]
  %1 = mul nsw i64 %indvars.iv88, %0
  br i1 %cmp776, label %for.body9.lr.ph, label %for.end42

for.body9.lr.ph:                                  ; preds = %for.cond6.preheader
  %wide.trip.count86 = zext i32 %m to i64
  br label %for.body9

for.body9:                                        ; preds = %for.body9.lr.ph, %for.inc40
  %indvars.iv83 = phi i64 [ 0, %for.body9.lr.ph ], [ %indvars.iv.next84, %for.inc40 ]
  %acc.077 = phi i32 [ 0, %for.body9.lr.ph ], [ %acc.3, %for.inc40 ]
  %2 = add nsw i64 %1, %indvars.iv83
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %2
  %3 = load i32, ptr %arrayidx, align 4
  %cmp12 = icmp slt i32 %3, 0
  br i1 %cmp12, label %for.end42, label %if.end

if.end:                                           ; preds = %for.body9
  %rem = urem i32 %3, 3
  %cmp14 = icmp ne i32 %rem, 0
  %cmp1972 = icmp slt i32 0, %3
  %or.cond = and i1 %cmp14, %cmp1972
  br i1 %or.cond, label %for.body23.lr.ph, label %for.inc40

for.body23.lr.ph:                                 ; preds = %if.end
  %4 = add i32 %3, -1
  %umin = call i32 @llvm.umin.i32(i32 %4, i32 63)
  %5 = add nuw nsw i32 %umin, 1
  %wide.trip.count = zext i32 %5 to i64
  br label %for.body23

for.body23:                                       ; preds = %for.body23.lr.ph, %if.end29
  %indvars.iv = phi i64 [ 0, %for.body23.lr.ph ], [ %indvars.iv.next, %if.end29 ]
  %acc.173 = phi i32 [ %acc.077, %for.body23.lr.ph ], [ %acc.2, %if.end29 ]
  %arrayidx25 = getelementptr inbounds i32, ptr %b, i64 %indvars.iv
  %6 = load i32, ptr %arrayidx25, align 4
  %cmp26 = icmp eq i32 %6, 5
  br i1 %cmp26, label %for.inc40, label %if.end29

if.end29:                                         ; preds = %for.body23
  %cmp32 = icmp slt i32 %6, 0
  %mul38 = mul nuw nsw i32 %6, %3
  %add39 = add nsw i32 %acc.173, %mul38
  %acc.2 = select i1 %cmp32, i32 %acc.173, i32 %add39
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body23, label %for.inc40, !llvm.loop !7

for.inc40:                                        ; preds = %for.body23, %if.end29, %if.end
  %acc.3 = phi i32 [ %acc.077, %if.end ], [ %acc.173, %for.body23 ], [ %acc.2, %if.end29 ]
  %indvars.iv.next84 = add nuw nsw i64 %indvars.iv83, 1
  %exitcond87 = icmp ne i64 %indvars.iv.next84, %wide.trip.count86
  br i1 %exitcond87, label %for.body9, label %for.end42, !llvm.loop !9

for.end42:                                        ; preds = %for.inc40, %for.body9, %for.cond6.preheader
  %acc.0.lcssa = phi i32 [ 0, %for.cond6.preheader ], [ %acc.077, %for.body9 ], [ %acc.3, %for.inc40 ]
  %arrayidx44 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv88
  store i32 %acc.0.lcssa, ptr %arrayidx44, align 4
  %indvars.iv.next89 = add nuw nsw i64 %indvars.iv88, 1
  %exitcond92 = icmp ne i64 %indvars.iv.next89, %wide.trip.count91
  br i1 %exitcond92, label %for.cond6.preheader, label %for.end47, !llvm.loop !10

for.end47:                                        ; preds = %for.end42, %entry
  call void @llvm.directive.region.exit(token %nested.region)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.umin.i32(i32, i32) #1

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
