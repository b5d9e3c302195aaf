; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* Integers of 8, 16 and 64 bits (signed and unsigned), a bool-like value
;      parameter and doubles. */
;   #include <stdint.h>
;   void types(const int8_t *a, const int16_t *b, const int64_t *c,
;              const uint8_t *u, const double *d, int64_t *o, int16_t *o2,
;              uint8_t *o3, double *od, int n, int16_t s, _Bool flag) {
;   #pragma hpvm parallel for in(a[0:n], b[0:n], c[0:n], u[0:n], d[0:n]) out(o[0:n], o2[0:n], o3[0:n], od[0:n]) name(types)
;     for (int i = 0; i < n; i++) {
;       int64_t x = a[i] * (int64_t)b[i] + c[i] / (u[i] + 1) - c[i] % 7 +
;                   (c[i] >> 3) + (int64_t)((uint64_t)c[i] >> 5);
;       if (flag)
;         x = -x;
;       o[i] = x < 0 ? -x : x;
;       o2[i] = (int16_t)(b[i] * s + (b[i] >> 2));
;       o3[i] = (uint8_t)(a[i] ^ u[i]) / 3;
;       od[i] = d[i] * 0.5 + (double)x - (double)(u[i] % 5);
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [6 x i8] c"types\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @types(ptr noundef %a, ptr noundef %b, ptr noundef %c, ptr noundef %u, ptr noundef %d, ptr noundef %o, ptr noundef %o2, ptr noundef %o3, ptr noundef %od, i32 noundef %n, i16 noundef signext %s, i1 noundef zeroext %flag) #0 {
entry:
  %a.bytes = sext i32 %n to i64
  %b.bytes = shl nsw i64 %a.bytes, 1
  %c.bytes = shl nsw i64 %a.bytes, 3
  %types.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes, ptr %b, i64 %b.bytes, ptr %c, i64 %c.bytes, ptr %u, i64 %a.bytes, ptr %d, i64 %c.bytes), "hpvm.out"(ptr %o, i64 %c.bytes, ptr %o2, i64 %b.bytes, ptr %o3, i64 %a.bytes, ptr %od, i64 %c.bytes) ]
  %cmp140 = icmp slt i32 0, %n
  br i1 %cmp140, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds i8, ptr %a, i64 %indvars.iv
  %0 = load i8, ptr %arrayidx, align 1
  %conv26 = sext i8 %0 to i64
  %arrayidx28 = getelementptr inbounds i16, ptr %b, i64 %indvars.iv
  %1 = load i16, ptr %arrayidx28, align 2
  %conv29 = sext i16 %1 to i64
  %mul30 = mul nsw i64 %conv26, %conv29
  %arrayidx32 = getelementptr inbounds i64, ptr %c, i64 %indvars.iv
  %2 = load i64, ptr %arrayidx32, align 8
  %arrayidx34 = getelementptr inbounds i8, ptr %u, i64 %indvars.iv
  %3 = load i8, ptr %arrayidx34, align 1
  %conv35 = zext i8 %3 to i64
  %add36 = add nuw nsw i64 %conv35, 1
  %div = sdiv i64 %2, %add36
  %add38 = add nsw i64 %mul30, %div
  %rem = srem i64 %2, 7
  %sub = sub nsw i64 %add38, %rem
  %shr = ashr i64 %2, 3
  %add43 = add nsw i64 %sub, %shr
  %shr46 = lshr i64 %2, 5
  %add47 = add nsw i64 %add43, %shr46
  %sub48 = sub nsw i64 0, %add47
  %spec.select = select i1 %flag, i64 %sub48, i64 %add47
  %cmp49 = icmp slt i64 %spec.select, 0
  %sub51 = sub nsw i64 0, %spec.select
  %cond = select i1 %cmp49, i64 %sub51, i64 %spec.select
  %arrayidx53 = getelementptr inbounds i64, ptr %o, i64 %indvars.iv
  store i64 %cond, ptr %arrayidx53, align 8
  %4 = load i16, ptr %arrayidx28, align 2
  %mul58 = mul i16 %4, %s
  %shr62 = ashr i16 %4, 2
  %add63 = add i16 %mul58, %shr62
  %arrayidx66 = getelementptr inbounds i16, ptr %o2, i64 %indvars.iv
  store i16 %add63, ptr %arrayidx66, align 2
  %5 = load i8, ptr %arrayidx, align 1
  %6 = load i8, ptr %arrayidx34, align 1
  %xor = xor i8 %5, %6
  %7 = udiv i8 %xor, 3
  %arrayidx78 = getelementptr inbounds i8, ptr %o3, i64 %indvars.iv
  store i8 %7, ptr %arrayidx78, align 1
  %arrayidx80 = getelementptr inbounds double, ptr %d, i64 %indvars.iv
  %8 = load double, ptr %arrayidx80, align 8
  %conv82 = sitofp i64 %spec.select to double
  %9 = call double @llvm.fmuladd.f64(double %8, double 5.000000e-01, double %conv82)
  %10 = load i8, ptr %arrayidx34, align 1
  %11 = urem i8 %10, 5
  %conv87 = uitofp nneg i8 %11 to double
  %sub88 = fsub double %9, %conv87
  %arrayidx90 = getelementptr inbounds double, ptr %od, i64 %indvars.iv
  store double %sub88, ptr %arrayidx90, align 8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !7

for.end:                                          ; preds = %for.body, %entry
  call void @llvm.directive.region.exit(token %types.region)
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
