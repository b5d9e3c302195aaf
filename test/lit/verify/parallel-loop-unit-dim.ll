; [parallel-loop]: a dim of extent 1 may have lost its loop, but the loop
; left must still fit the next dim: dims (1, 8) with a loop of 4 is wrong.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'short', node 'cols': loop 'j.cond' (dim 1) runs 4 times but the node's dims[1] is 8

@.name.cols = private unnamed_addr constant [5 x i8] c"cols\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @short(ptr noalias %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.cols),
      "hpvm.dims"(i64 1, i64 8), "hpvm.out"(ptr %a, i64 32) ]
  br label %j.cond
j.cond:
  %j = phi i64 [ 0, %entry ], [ %j.next, %j.body ]
  %c = icmp slt i64 %j, 4
  br i1 %c, label %j.body, label %j.end
j.body:
  %p = getelementptr inbounds float, ptr %a, i64 %j
  store float 2.0, ptr %p, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond
j.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
