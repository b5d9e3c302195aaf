; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* Integers of 8, 16 and 64 bits, signed and unsigned, a _Bool parameter,
;      doubles. Two kernels, so that each one's parameters fit in 128 bytes of
;      push constants. */
;   #include <stdint.h>
;   void narrow(const int8_t *a, const int16_t *b, const uint8_t *u, int16_t *o2,
;               uint8_t *o3, int n, int16_t s) {
;   #pragma hpvm parallel for in(a[0:n], b[0:n], u[0:n]) out(o2[0:n], o3[0:n]) name(narrow)
;     for (int i = 0; i < n; i++) {
;       o2[i] = (int16_t)(b[i] * s + (b[i] >> 2));
;       o3[i] = (uint8_t)(a[i] ^ u[i]) / 3;
;     }
;   }
;
;   void wide(const int8_t *a, const int64_t *c, const uint8_t *u,
;             const double *d, int64_t *o, double *od, int n, _Bool flag) {
;   #pragma hpvm parallel for in(a[0:n], c[0:n], u[0:n], d[0:n]) out(o[0:n], od[0:n]) name(wide)
;     for (int i = 0; i < n; i++) {
;       int64_t x = a[i] * c[i] + c[i] / (u[i] + 1) - c[i] % 7 + (c[i] >> 3) +
;                   (int64_t)((uint64_t)c[i] >> 5);
;       if (flag)
;         x = -x;
;       o[i] = x < 0 ? -x : x;
;       od[i] = d[i] * 0.5 + (double)x - (double)(u[i] % 5);
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [7 x i8] c"narrow\00", align 1
@.str.1 = private unnamed_addr constant [5 x i8] c"wide\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @narrow(ptr noundef %a, ptr noundef %b, ptr noundef %u, ptr noundef %o2, ptr noundef %o3, i32 noundef %n, i16 noundef signext %s) #0 {
entry:
  %a.bytes = sext i32 %n to i64
  %b.bytes = shl nsw i64 %a.bytes, 1
  %narrow.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes, ptr %b, i64 %b.bytes, ptr %u, i64 %a.bytes), "hpvm.out"(ptr %o2, i64 %b.bytes, ptr %o3, i64 %a.bytes) ]
  %cmp54 = icmp slt i32 0, %n
  br i1 %cmp54, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds i16, ptr %b, i64 %indvars.iv
  %0 = load i16, ptr %arrayidx, align 2
  %mul16 = mul i16 %0, %s
  %shr = ashr i16 %0, 2
  %add20 = add i16 %mul16, %shr
  %arrayidx23 = getelementptr inbounds i16, ptr %o2, i64 %indvars.iv
  store i16 %add20, ptr %arrayidx23, align 2
  %arrayidx25 = getelementptr inbounds i8, ptr %a, i64 %indvars.iv
  %1 = load i8, ptr %arrayidx25, align 1
  %arrayidx28 = getelementptr inbounds i8, ptr %u, i64 %indvars.iv
  %2 = load i8, ptr %arrayidx28, align 1
  %xor = xor i8 %1, %2
  %3 = udiv i8 %xor, 3
  %arrayidx34 = getelementptr inbounds i8, ptr %o3, i64 %indvars.iv
  store i8 %3, ptr %arrayidx34, align 1
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !7

for.end:                                          ; preds = %for.body, %entry
  call void @llvm.directive.region.exit(token %narrow.region)
  ret void
}

; Function Attrs: noinline nounwind uwtable
define dso_local void @wide(ptr noundef %a, ptr noundef %c, ptr noundef %u, ptr noundef %d, ptr noundef %o, ptr noundef %od, i32 noundef %n, i1 noundef zeroext %flag) #0 {
entry:
  %a.bytes = sext i32 %n to i64
  %c.bytes = shl nsw i64 %a.bytes, 3
  %wide.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.1), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes, ptr %c, i64 %c.bytes, ptr %u, i64 %a.bytes, ptr %d, i64 %c.bytes), "hpvm.out"(ptr %o, i64 %c.bytes, ptr %od, i64 %c.bytes) ]
  %cmp90 = icmp slt i32 0, %n
  br i1 %cmp90, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds i8, ptr %a, i64 %indvars.iv
  %0 = load i8, ptr %arrayidx, align 1
  %conv17 = sext i8 %0 to i64
  %arrayidx19 = getelementptr inbounds i64, ptr %c, i64 %indvars.iv
  %1 = load i64, ptr %arrayidx19, align 8
  %mul20 = mul nsw i64 %1, %conv17
  %arrayidx24 = getelementptr inbounds i8, ptr %u, i64 %indvars.iv
  %2 = load i8, ptr %arrayidx24, align 1
  %conv25 = zext i8 %2 to i64
  %add26 = add nuw nsw i64 %conv25, 1
  %div = sdiv i64 %1, %add26
  %add28 = add nsw i64 %mul20, %div
  %rem = srem i64 %1, 7
  %sub = sub nsw i64 %add28, %rem
  %shr = ashr i64 %1, 3
  %add33 = add nsw i64 %sub, %shr
  %shr36 = lshr i64 %1, 5
  %add37 = add nsw i64 %add33, %shr36
  %sub38 = sub nsw i64 0, %add37
  %spec.select = select i1 %flag, i64 %sub38, i64 %add37
  %cmp39 = icmp slt i64 %spec.select, 0
  %sub41 = sub nsw i64 0, %spec.select
  %cond = select i1 %cmp39, i64 %sub41, i64 %spec.select
  %arrayidx43 = getelementptr inbounds i64, ptr %o, i64 %indvars.iv
  store i64 %cond, ptr %arrayidx43, align 8
  %arrayidx45 = getelementptr inbounds double, ptr %d, i64 %indvars.iv
  %3 = load double, ptr %arrayidx45, align 8
  %conv47 = sitofp i64 %spec.select to double
  %4 = call double @llvm.fmuladd.f64(double %3, double 5.000000e-01, double %conv47)
  %5 = load i8, ptr %arrayidx24, align 1
  %6 = urem i8 %5, 5
  %conv52 = uitofp nneg i8 %6 to double
  %sub53 = fsub double %4, %conv52
  %arrayidx55 = getelementptr inbounds double, ptr %od, i64 %indvars.iv
  store double %sub53, ptr %arrayidx55, align 8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !9

for.end:                                          ; preds = %for.body, %entry
  call void @llvm.directive.region.exit(token %wide.region)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

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
