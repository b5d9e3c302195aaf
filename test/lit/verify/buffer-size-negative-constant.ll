; [buffer-size]: a negative constant byte size.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [buffer-size] function 'negative', node 'fill': buffer %a has byte size i64 -64, which is negative

@.name.fill = private unnamed_addr constant [5 x i8] c"fill\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @negative(ptr %a, i64 %n) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.fill),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 -64) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 0, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
