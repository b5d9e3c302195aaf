; [parallel-loop]: the loop runs %m times but hpvm.dims says %n.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'other_bound', node 'bounded':

@.name.bounded = private unnamed_addr constant [8 x i8] c"bounded\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @other_bound(ptr %a, i64 %n, i64 %m) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.bounded),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %m
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
