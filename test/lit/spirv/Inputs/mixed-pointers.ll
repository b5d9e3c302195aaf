; Region form made by `hpvm-clang -O2 -emit-hpvm-ir -S` from this C:
;
;   /* Loads and stores through a pointer that points into a buffer or into a
;      private array (a constant table, a local array indexed at run time),
;      depending on the path: InstCombine turns `c ? in[j] : tab[k]` into one
;      load of a phi of the two addresses. */
;   static const int tab[13] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377};
;   static const int squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};
;
;   void buffer_or_table(const int *in, int *out, int n) {
;   #pragma hpvm parallel for in(in[0:n]) out(out[0:n]) name(buffer_or_table)
;     for (int i = 0; i < n; i++)
;       out[i] = in[i] > 0 ? in[(i * 7) % n] : tab[(unsigned)in[i] % 13u];
;   }
;
;   void two_tables(const int *in, int *out, int n) {
;   #pragma hpvm parallel for in(in[0:n]) out(out[0:n]) name(two_tables)
;     for (int i = 0; i < n; i++)
;       out[i] = in[i] & 1 ? tab[(unsigned)in[i] % 13u] : squares[in[i] & 7];
;   }
;
;   void store_either(const int *in, int *out, int n) {
;   #pragma hpvm parallel for in(in[0:n]) out(out[0:n]) name(store_either)
;     for (int i = 0; i < n; i++) {
;       int local[4] = {in[i], 1, 2, 3};
;       int *p = in[i] < 0 ? &out[i] : &local[in[i] & 3];
;       *p = 7;
;       out[i] = local[(in[i] >> 2) & 3] + (in[i] < 0 ? out[i] : 0);
;     }
;   }
;
;   void table_or_buffer_base(const int *in, int *out, int n) {
;   #pragma hpvm parallel for in(in[0:n]) out(out[0:n]) name(table_or_buffer_base)
;     for (int i = 0; i < n; i++) {
;       const int *base = in[i] > 0 ? in : squares;
;       out[i] = base[(i + 3) & 7] + base[i & 7];
;     }
;   }

; ModuleID = 'mixed.c'
source_filename = "mixed.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [16 x i8] c"buffer_or_table\00", align 1
@tab = internal constant [13 x i32] [i32 1, i32 2, i32 3, i32 5, i32 8, i32 13, i32 21, i32 34, i32 55, i32 89, i32 144, i32 233, i32 377], align 16
@.str.1 = private unnamed_addr constant [11 x i8] c"two_tables\00", align 1
@squares = internal constant [8 x i32] [i32 0, i32 1, i32 4, i32 9, i32 16, i32 25, i32 36, i32 49], align 16
@.str.2 = private unnamed_addr constant [13 x i8] c"store_either\00", align 1
@.str.3 = private unnamed_addr constant [21 x i8] c"table_or_buffer_base\00", align 1

; Function Attrs: nounwind uwtable
define dso_local void @buffer_or_table(ptr noundef %in, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %in.bytes = shl nsw i64 %conv, 2
  %buffer_or_table.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes) ]
  %cmp30 = icmp slt i32 0, %n
  br i1 %cmp30, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %cond.end
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %cond.end ]
  %arrayidx = getelementptr inbounds i32, ptr %in, i64 %indvars.iv
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !6
  %cmp5 = icmp sgt i32 %0, 0
  br i1 %cmp5, label %cond.true, label %cond.false

cond.true:                                        ; preds = %for.body
  %1 = mul nuw nsw i64 %indvars.iv, 7
  %2 = trunc nuw i64 %1 to i32
  %rem = srem i32 %2, %n
  %idxprom8 = zext nneg i32 %rem to i64
  %arrayidx9 = getelementptr inbounds i32, ptr %in, i64 %idxprom8
  br label %cond.end

cond.false:                                       ; preds = %for.body
  %rem12 = urem i32 %0, 13
  %idxprom13 = zext nneg i32 %rem12 to i64
  %arrayidx14 = getelementptr inbounds [13 x i32], ptr @tab, i64 0, i64 %idxprom13
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond.in = phi ptr [ %arrayidx9, %cond.true ], [ %arrayidx14, %cond.false ]
  %cond = load i32, ptr %cond.in, align 4, !tbaa !6
  %arrayidx16 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  store i32 %cond, ptr %arrayidx16, align 4, !tbaa !6
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !10

for.end:                                          ; preds = %cond.end, %entry
  call void @llvm.directive.region.exit(token %buffer_or_table.region)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define dso_local void @two_tables(ptr noundef %in, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %in.bytes = shl nsw i64 %conv, 2
  %two_tables.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.1), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes) ]
  %cmp28 = icmp slt i32 0, %n
  br i1 %cmp28, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %cond.end
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %cond.end ]
  %arrayidx = getelementptr inbounds i32, ptr %in, i64 %indvars.iv
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !6
  %and = and i32 %0, 1
  %tobool.not = icmp eq i32 %and, 0
  br i1 %tobool.not, label %cond.false, label %cond.true

cond.true:                                        ; preds = %for.body
  %rem = urem i32 %0, 13
  %idxprom7 = zext nneg i32 %rem to i64
  %arrayidx8 = getelementptr inbounds [13 x i32], ptr @tab, i64 0, i64 %idxprom7
  br label %cond.end

cond.false:                                       ; preds = %for.body
  %and11 = and i32 %0, 6
  %idxprom12 = zext nneg i32 %and11 to i64
  %arrayidx13 = getelementptr inbounds [8 x i32], ptr @squares, i64 0, i64 %idxprom12
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond.in = phi ptr [ %arrayidx8, %cond.true ], [ %arrayidx13, %cond.false ]
  %cond = load i32, ptr %cond.in, align 4, !tbaa !6
  %arrayidx15 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  store i32 %cond, ptr %arrayidx15, align 4, !tbaa !6
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !12

for.end:                                          ; preds = %cond.end, %entry
  call void @llvm.directive.region.exit(token %two_tables.region)
  ret void
}

; Function Attrs: nounwind uwtable
define dso_local void @store_either(ptr noundef %in, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %local = alloca [4 x i32], align 16
  %conv = sext i32 %n to i64
  %in.bytes = shl nsw i64 %conv, 2
  %store_either.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.2), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes) ]
  %cmp55 = icmp slt i32 0, %n
  br i1 %cmp55, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %arrayinit.element = getelementptr inbounds i8, ptr %local, i64 4
  %arrayinit.element5 = getelementptr inbounds i8, ptr %local, i64 8
  %arrayinit.element6 = getelementptr inbounds i8, ptr %local, i64 12
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %cond.end30
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %cond.end30 ]
  call void @llvm.lifetime.start.p0(i64 16, ptr nonnull %local) #2
  %arrayidx = getelementptr inbounds i32, ptr %in, i64 %indvars.iv
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !6
  store i32 %0, ptr %local, align 4, !tbaa !6
  store i32 1, ptr %arrayinit.element, align 4, !tbaa !6
  store i32 2, ptr %arrayinit.element5, align 4, !tbaa !6
  store i32 3, ptr %arrayinit.element6, align 4, !tbaa !6
  %1 = load i32, ptr %arrayidx, align 4, !tbaa !6
  %cmp9 = icmp slt i32 %1, 0
  %arrayidx12 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  %and = and i32 %1, 3
  %idxprom15 = zext nneg i32 %and to i64
  %arrayidx16 = getelementptr inbounds [4 x i32], ptr %local, i64 0, i64 %idxprom15
  %cond = select i1 %cmp9, ptr %arrayidx12, ptr %arrayidx16
  store i32 7, ptr %cond, align 4, !tbaa !6
  %2 = load i32, ptr %arrayidx, align 4, !tbaa !6
  %shr = lshr i32 %2, 2
  %and19 = and i32 %shr, 3
  %idxprom20 = zext nneg i32 %and19 to i64
  %arrayidx21 = getelementptr inbounds [4 x i32], ptr %local, i64 0, i64 %idxprom20
  %3 = load i32, ptr %arrayidx21, align 4, !tbaa !6
  %cmp24 = icmp slt i32 %2, 0
  br i1 %cmp24, label %cond.true26, label %cond.end30

cond.true26:                                      ; preds = %for.body
  %arrayidx28 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  %4 = load i32, ptr %arrayidx28, align 4, !tbaa !6
  br label %cond.end30

cond.end30:                                       ; preds = %for.body, %cond.true26
  %cond31 = phi i32 [ %4, %cond.true26 ], [ 0, %for.body ]
  %add32 = add nsw i32 %3, %cond31
  %arrayidx34 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  store i32 %add32, ptr %arrayidx34, align 4, !tbaa !6
  call void @llvm.lifetime.end.p0(i64 16, ptr nonnull %local) #2
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !13

for.end:                                          ; preds = %cond.end30, %entry
  call void @llvm.directive.region.exit(token %store_either.region)
  ret void
}

; Function Attrs: nounwind uwtable
define dso_local void @table_or_buffer_base(ptr noundef %in, ptr noundef %out, i32 noundef %n) #0 {
entry:
  %conv = sext i32 %n to i64
  %in.bytes = shl nsw i64 %conv, 2
  %table_or_buffer_base.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.3), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes) ]
  %cmp28 = icmp slt i32 0, %n
  br i1 %cmp28, label %for.body.lr.ph, label %for.end

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds i32, ptr %in, i64 %indvars.iv
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !6
  %cmp5 = icmp sgt i32 %0, 0
  %in.squares = select i1 %cmp5, ptr %in, ptr @squares
  %1 = add nuw nsw i64 %indvars.iv, 3
  %2 = trunc nuw nsw i64 %1 to i32
  %and = and i32 %2, 7
  %idxprom8 = zext nneg i32 %and to i64
  %arrayidx9 = getelementptr inbounds i32, ptr %in.squares, i64 %idxprom8
  %3 = load i32, ptr %arrayidx9, align 4, !tbaa !6
  %4 = trunc nuw nsw i64 %indvars.iv to i32
  %and10 = and i32 %4, 7
  %idxprom11 = zext nneg i32 %and10 to i64
  %arrayidx12 = getelementptr inbounds i32, ptr %in.squares, i64 %idxprom11
  %5 = load i32, ptr %arrayidx12, align 4, !tbaa !6
  %add13 = add nsw i32 %3, %5
  %arrayidx15 = getelementptr inbounds i32, ptr %out, i64 %indvars.iv
  store i32 %add13, ptr %arrayidx15, align 4, !tbaa !6
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond, label %for.body, label %for.end, !llvm.loop !14

for.end:                                          ; preds = %for.body, %entry
  call void @llvm.directive.region.exit(token %table_or_buffer_base.region)
  ret void
}

declare token @llvm.directive.region.entry()

declare void @llvm.directive.region.exit(token)

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3, !4}
!llvm.ident = !{!5}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!6 = !{!7, !7, i64 0}
!7 = !{!"int", !8, i64 0}
!8 = !{!"omnipotent char", !9, i64 0}
!9 = !{!"Simple C/C++ TBAA"}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.mustprogress"}
!12 = distinct !{!12, !11}
!13 = distinct !{!13, !11}
!14 = distinct !{!14, !11}
