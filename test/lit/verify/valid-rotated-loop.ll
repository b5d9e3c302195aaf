; Positive: the rotated, guarded loop that LLVM's -O1 function pipeline makes
; of a canonical vector-add region (loop-rotate + simplifycfg) still passes
; hpvm-verify.
; RUN: %hpvm-opt --verify -disable-output %s 2>&1 | count 0

@.name.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @vadd(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.vadd), "hpvm.dims"(i64 %n), "hpvm.in"(ptr %a, i64 %bytes, ptr %b, i64 %bytes), "hpvm.out"(ptr %c, i64 %bytes) ]
  %cmp1 = icmp sgt i64 %n, 0
  br i1 %cmp1, label %for.body, label %for.end

for.body:                                         ; preds = %entry, %for.body
  %i2 = phi i64 [ %i.next, %for.body ], [ 0, %entry ]
  %pa = getelementptr inbounds float, ptr %a, i64 %i2
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i64 %i2
  %vb = load float, ptr %pb, align 4
  %sum = fadd float %va, %vb
  %pc = getelementptr inbounds float, ptr %c, i64 %i2
  store float %sum, ptr %pc, align 4
  %i.next = add nuw nsw i64 %i2, 1
  %exitcond = icmp ne i64 %i.next, %n
  br i1 %exitcond, label %for.body, label %for.end

for.end:                                          ; preds = %for.body, %entry
  call void @llvm.directive.region.exit(token %t)
  ret void
}
