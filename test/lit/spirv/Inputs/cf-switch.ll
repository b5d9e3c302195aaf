; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* A switch with shared cases, fall-through and a default. */
;   void sw(const int *a, int *out, int n) {
;   #pragma hpvm parallel for in(a[0:n]) out(out[0:n]) name(sw)
;     for (int i = 0; i < n; i++) {
;       int v = a[i], r;
;       switch (v & 15) {
;       case 0: r = 10; break;
;       case 1: r = v * 3; break;
;       case 2:
;       case 3: r = v - 7; break;
;       case 5: v = -v; /* fall through */
;       case 6: r = v ^ 0x55; break;
;       case 9: r = a[(i + 1) % n]; break;
;       default: r = 0;
;       }
;       out[i] = r;
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [3 x i8] c"sw\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @sw(ptr noundef %a, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %a.bytes = shl nsw i64 %conv, 2
  %sw.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes), "hpvm.out"(ptr %out, i64 %a.bytes) ]
  %cmp32 = icmp slt i32 0, %n
  br i1 %cmp32, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %0 = zext i32 %n to i64
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %sw.epilog
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %sw.epilog ]
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %indvars.iv
  %1 = load i32, ptr %arrayidx, align 4
  %and = and i32 %1, 15
  switch i32 %and, label %sw.default [
    i32 0, label %sw.epilog
    i32 1, label %sw.bb5
    i32 2, label %sw.bb7
    i32 3, label %sw.bb7
    i32 5, label %sw.bb8
    i32 6, label %sw.bb10
    i32 9, label %sw.bb11
  ]

sw.bb5:                                           ; preds = %for.body
  %mul6 = mul nsw i32 %1, 3
  br label %sw.epilog

sw.bb7:                                           ; preds = %for.body, %for.body
  %sub = add nsw i32 %1, -7
  br label %sw.epilog

sw.bb8:                                           ; preds = %for.body
  %sub9 = sub nsw i32 0, %1
  br label %sw.bb10

sw.bb10:                                          ; preds = %for.body, %sw.bb8
  %v.0 = phi i32 [ %1, %for.body ], [ %sub9, %sw.bb8 ]
  %xor = xor i32 %v.0, 85
  br label %sw.epilog

sw.bb11:                                          ; preds = %for.body
  %2 = add nuw nsw i64 %indvars.iv, 1
  %3 = icmp eq i64 %2, %0
  %4 = trunc nuw nsw i64 %2 to i32
  %iv.rem = select i1 %3, i32 0, i32 %4
  %idxprom13 = zext nneg i32 %iv.rem to i64
  %arrayidx14 = getelementptr inbounds i32, ptr %a, i64 %idxprom13
  %5 = load i32, ptr %arrayidx14, align 4
  br label %sw.epilog

sw.default:                                       ; preds = %for.body
  br label %sw.epilog

sw.epilog:                                        ; preds = %for.body, %sw.default, %sw.bb11, %sw.bb10, %sw.bb7, %sw.bb5
  %r.0 = phi i32 [ 0, %sw.default ], [ %5, %sw.bb11 ], [ %xor, %sw.bb10 ], [ %sub, %sw.bb7 ], [ %mul6, %sw.bb5 ], [ 10, %for.body ]
  %arrayidx16 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  store i32 %r.0, ptr %arrayidx16, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !7

for.end:                                          ; preds = %sw.epilog, %entry
  call void @llvm.directive.region.exit(token %sw.region)
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
