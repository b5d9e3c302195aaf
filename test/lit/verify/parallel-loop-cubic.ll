; [parallel-loop]: a third-order recurrence of the induction variable (the
; sum of the sums of i) is a polynomial of the instance id too, but the
; extractor computes only affine and quadratic ones from the id
; (extract/quadratic-recurrence.ll): an error rather than a wrong leaf.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'k', node 'k': loop 'for.body' (dim 0) carries a value from one iteration to the next that is not a function of the instance id

@.name.k = private unnamed_addr constant [2 x i8] c"k\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @k(ptr %o, i64 %n) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.k),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %o, i64 8192) ]
  %guard = icmp slt i64 0, %n
  br i1 %guard, label %for.body, label %for.end

for.body:
  %i = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %c = phi i64 [ %c.next, %for.body ], [ 0, %entry ]
  %q = phi i64 [ %q.next, %for.body ], [ 0, %entry ]
  %c.next = add i64 %c, %q
  %q.next = add i64 %q, %i
  %dst = getelementptr inbounds i64, ptr %o, i64 %i
  store i64 %c, ptr %dst, align 8
  %inc = add nuw nsw i64 %i, 1
  %more = icmp ne i64 %inc, %n
  br i1 %more, label %for.body, label %for.end

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
