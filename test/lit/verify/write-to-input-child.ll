; [write-to-input]: child 'inner' names %a as hpvm.out (and writes it) while
; its parent 'outer' names %a only as hpvm.in.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [write-to-input] function 'child_writes',
; CHECK-SAME: node '{{.*(outer|inner)}}'

@.name.outer = private unnamed_addr constant [6 x i8] c"outer\00"
@.name.inner = private unnamed_addr constant [6 x i8] c"inner\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @child_writes(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t.o = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.outer),
      "hpvm.in"(ptr %a, i64 %bytes), "hpvm.value"(i64 %n) ]
  %t.i = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.inner),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes) ]
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
  call void @llvm.directive.region.exit(token %t.i)
  call void @llvm.directive.region.exit(token %t.o)
  ret void
}
