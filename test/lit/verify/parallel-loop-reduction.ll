; [parallel-loop]: a loop-carried value (%acc, a running sum) that is not an
; affine function of the induction variable: the iterations are not
; independent instances.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'prefix_sum', node 'scan':

@.name.scan = private unnamed_addr constant [5 x i8] c"scan\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; b[i] = a[0] + ... + a[i]
define void @prefix_sum(ptr noalias %a, ptr noalias %b, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.scan),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %pa, align 4
  %acc.next = add i32 %acc, %v
  %pb = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 %acc.next, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
