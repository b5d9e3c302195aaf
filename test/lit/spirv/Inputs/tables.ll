; Region form made by `hpvm-clang -emit-hpvm-ir -S` from this C:
;
;   /* Constant tables (globals): one the optimiser folds away once the loop
;      over it is unrolled, one indexed by data; and a private array (an alloca
;      SROA cannot split) written and read with run-time indices. */
;   static const float weights[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
;   static const short squares[16] = {0,  1,  4,  9,   16,  25,  36,  49,
;                                     64, 81, 100, 121, 144, 169, 196, 225};
;
;   void blur(const float *in, float *out, int n) {
;   #pragma hpvm parallel for in(in[0:n]) out(out[0:n]) name(blur)
;     for (int i = 0; i < n; i++) {
;       float acc = 0;
;       for (int k = -2; k <= 2; k++) {
;         int j = i + k;
;         if (j >= 0 && j < n)
;           acc += weights[k + 2] * in[j];
;       }
;       out[i] = acc;
;     }
;   }
;
;   void lut(const int *in, int *out, int n) {
;   #pragma hpvm parallel for in(in[0:n]) out(out[0:n]) name(lut)
;     for (int i = 0; i < n; i++)
;       out[i] = squares[in[i] & 15] - squares[(in[i] >> 4) & 15];
;   }
;
;   void mode(const int *in, int *out, int n) {
;   #pragma hpvm parallel for in(in[0:n]) out(out[0:n]) name(mode)
;     for (int i = 0; i < n; i++) {
;       int hist[8] = {0};
;       for (int k = 0; k < 16; k++)
;         hist[(in[i] >> k) & 7]++;
;       int best = 0;
;       for (int k = 1; k < 8; k++)
;         if (hist[k] > hist[best])
;           best = k;
;       out[i] = best;
;     }
;   }
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [5 x i8] c"blur\00", align 1
@weights = internal constant [5 x float] [float 0x3FB99999A0000000, float 0x3FC99999A0000000, float 0x3FD99999A0000000, float 0x3FC99999A0000000, float 0x3FB99999A0000000], align 16
@.str.1 = private unnamed_addr constant [4 x i8] c"lut\00", align 1
@squares = internal constant [16 x i16] [i16 0, i16 1, i16 4, i16 9, i16 16, i16 25, i16 36, i16 49, i16 64, i16 81, i16 100, i16 121, i16 144, i16 169, i16 196, i16 225], align 16
@.str.2 = private unnamed_addr constant [5 x i8] c"mode\00", align 1

; Function Attrs: noinline nounwind uwtable
define dso_local void @blur(ptr noundef %in, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %in.bytes = shl nsw i64 %conv, 2
  %blur.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes) ]
  %cmp40 = icmp slt i32 0, %n
  br i1 %cmp40, label %for.cond5.preheader.lr.ph, label %for.end22

for.cond5.preheader.lr.ph:                        ; preds = %entry
  %0 = sext i32 %n to i64
  %wide.trip.count = zext i32 %n to i64
  br label %for.cond5.preheader

for.cond5.preheader:                              ; preds = %for.cond5.preheader.lr.ph, %for.end
  %indvars.iv44 = phi i64 [ 0, %for.cond5.preheader.lr.ph ], [ %indvars.iv.next45, %for.end ]
  br label %for.body8

for.body8:                                        ; preds = %for.cond5.preheader, %for.inc
  %indvars.iv = phi i64 [ -2, %for.cond5.preheader ], [ %indvars.iv.next, %for.inc ]
  %acc.038 = phi float [ 0.000000e+00, %for.cond5.preheader ], [ %acc.1, %for.inc ]
  %1 = add nsw i64 %indvars.iv44, %indvars.iv
  %cmp10 = icmp sgt i64 %1, -1
  %cmp12 = icmp slt i64 %1, %0
  %or.cond = and i1 %cmp10, %cmp12
  br i1 %or.cond, label %if.then, label %for.inc

if.then:                                          ; preds = %for.body8
  %2 = add nsw i64 %indvars.iv, 2
  %arrayidx = getelementptr inbounds [5 x float], ptr @weights, i64 0, i64 %2
  %3 = load float, ptr %arrayidx, align 4
  %arrayidx16 = getelementptr inbounds float, ptr %in, i64 %1
  %4 = load float, ptr %arrayidx16, align 4
  %5 = call float @llvm.fmuladd.f32(float %3, float %4, float %acc.038)
  br label %for.inc

for.inc:                                          ; preds = %for.body8, %if.then
  %acc.1 = phi float [ %5, %if.then ], [ %acc.038, %for.body8 ]
  %indvars.iv.next = add nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, 3
  br i1 %exitcond, label %for.body8, label %for.end, !llvm.loop !7

for.end:                                          ; preds = %for.inc
  %acc.0.lcssa = phi float [ %acc.1, %for.inc ]
  %arrayidx19 = getelementptr inbounds float, ptr %out, i64 %indvars.iv44
  store float %acc.0.lcssa, ptr %arrayidx19, align 4
  %indvars.iv.next45 = add nuw nsw i64 %indvars.iv44, 1
  %exitcond46 = icmp ne i64 %indvars.iv.next45, %wide.trip.count
  br i1 %exitcond46, label %for.cond5.preheader, label %for.end22, !llvm.loop !9

for.end22:                                        ; preds = %for.end, %entry
  call void @llvm.directive.region.exit(token %blur.region)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #1

; Function Attrs: noinline nounwind uwtable
define dso_local void @lut(ptr noundef %in, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %in.bytes = shl nsw i64 %conv, 2
  %lut.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.1), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes) ]
  %cmp26 = icmp slt i32 0, %n
  br i1 %cmp26, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds i32, ptr %in, i64 %indvars.iv
  %0 = load i32, ptr %arrayidx, align 4
  %and = and i32 %0, 15
  %idxprom5 = zext nneg i32 %and to i64
  %arrayidx6 = getelementptr inbounds [16 x i16], ptr @squares, i64 0, i64 %idxprom5
  %1 = load i16, ptr %arrayidx6, align 2
  %conv7 = sext i16 %1 to i32
  %shr = lshr i32 %0, 4
  %and10 = and i32 %shr, 15
  %idxprom11 = zext nneg i32 %and10 to i64
  %arrayidx12 = getelementptr inbounds [16 x i16], ptr @squares, i64 0, i64 %idxprom11
  %2 = load i16, ptr %arrayidx12, align 2
  %conv13 = sext i16 %2 to i32
  %sub = sub nsw i32 %conv7, %conv13
  %arrayidx15 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  store i32 %sub, ptr %arrayidx15, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !10

for.end:                                          ; preds = %for.body, %entry
  call void @llvm.directive.region.exit(token %lut.region)
  ret void
}

; Function Attrs: noinline nounwind uwtable
define dso_local void @mode(ptr noundef %in, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %hist = alloca [8 x i32], align 16
  %conv = sext i32 %n to i64
  %in.bytes = shl nsw i64 %conv, 2
  %mode.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.2), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes) ]
  %cmp48 = icmp slt i32 0, %n
  br i1 %cmp48, label %for.body.lr.ph, label %for.end30

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.end25
  %indvars.iv51 = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next52, %for.end25 ]
  call void @llvm.memset.p0.i64(ptr noundef nonnull align 16 dereferenceable(32) %hist, i8 0, i64 32, i1 false)
  %arrayidx = getelementptr inbounds i32, ptr %in, i64 %indvars.iv51
  %0 = load i32, ptr %arrayidx, align 4
  br label %for.body8

for.body8:                                        ; preds = %for.body, %for.body8
  %k.045 = phi i32 [ 0, %for.body ], [ %inc11, %for.body8 ]
  %shr = ashr i32 %0, %k.045
  %and = and i32 %shr, 7
  %idxprom9 = zext nneg i32 %and to i64
  %arrayidx10 = getelementptr inbounds [8 x i32], ptr %hist, i64 0, i64 %idxprom9
  %1 = load i32, ptr %arrayidx10, align 4
  %inc = add nsw i32 %1, 1
  store i32 %inc, ptr %arrayidx10, align 4
  %inc11 = add nuw nsw i32 %k.045, 1
  %exitcond = icmp ne i32 %inc11, 16
  br i1 %exitcond, label %for.body8, label %for.body16, !llvm.loop !11

for.body16:                                       ; preds = %for.body8, %for.body16
  %indvars.iv = phi i64 [ %indvars.iv.next, %for.body16 ], [ 1, %for.body8 ]
  %best.046 = phi i32 [ %spec.select, %for.body16 ], [ 0, %for.body8 ]
  %arrayidx18 = getelementptr inbounds [8 x i32], ptr %hist, i64 0, i64 %indvars.iv
  %2 = load i32, ptr %arrayidx18, align 4
  %idxprom19 = sext i32 %best.046 to i64
  %arrayidx20 = getelementptr inbounds [8 x i32], ptr %hist, i64 0, i64 %idxprom19
  %3 = load i32, ptr %arrayidx20, align 4
  %cmp21 = icmp sgt i32 %2, %3
  %4 = trunc nuw nsw i64 %indvars.iv to i32
  %spec.select = select i1 %cmp21, i32 %4, i32 %best.046
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond50 = icmp ne i64 %indvars.iv.next, 8
  br i1 %exitcond50, label %for.body16, label %for.end25, !llvm.loop !12

for.end25:                                        ; preds = %for.body16
  %best.0.lcssa = phi i32 [ %spec.select, %for.body16 ]
  %arrayidx27 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv51
  store i32 %best.0.lcssa, ptr %arrayidx27, align 4
  %indvars.iv.next52 = add nuw nsw i64 %indvars.iv51, 1
  %exitcond53 = icmp ne i64 %indvars.iv.next52, %wide.trip.count
  br i1 %exitcond53, label %for.body, label %for.end30, !llvm.loop !13

for.end30:                                        ; preds = %for.end25, %entry
  call void @llvm.directive.region.exit(token %mode.region)
  ret void
}

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #2

declare token @llvm.directive.region.entry()

declare void @llvm.directive.region.exit(token)

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nounwind willreturn memory(argmem: write) }

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
!13 = distinct !{!13, !8}
