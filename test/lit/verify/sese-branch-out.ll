; [sese]: a branch out of the region: the loop leaves early, past the exit
; marker, when it meets a negative element.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [sese] function 'early_out', node 'clamp':

@.name.clamp = private unnamed_addr constant [6 x i8] c"clamp\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @early_out(ptr noalias %a, ptr noalias %b, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.clamp),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.inc ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %pa, align 4
  %neg = icmp slt i32 %v, 0
  br i1 %neg, label %bail, label %for.inc

for.inc:
  %pb = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 %v, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  br label %bail

bail:
  ret void
}
