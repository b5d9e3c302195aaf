; [parallel-loop]: the loop's induction variable starts at 1,
; not 0 (it runs n-1 times while dims says n).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'from_one', node 'ones':

@.name.ones = private unnamed_addr constant [5 x i8] c"ones\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @from_one(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.ones),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 1, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
