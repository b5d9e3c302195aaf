; [dims]: an extent wider than 64 bits (i128).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [dims] function 'wide', node 'fill':

@.name.fill = private unnamed_addr constant [5 x i8] c"fill\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @wide(ptr %a, i128 %n) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.fill),
      "hpvm.dims"(i128 %n), "hpvm.out"(ptr %a, i64 64) ]
  br label %for.cond

for.cond:
  %i = phi i128 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i128 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %i64 = trunc i128 %i to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %i64
  store i32 0, ptr %p, align 4
  %i.next = add nuw nsw i128 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
