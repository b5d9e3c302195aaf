; [parallel-loop]: hpvm.dims has two extents but the body is a single loop.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'shallow', node 'rows':

@.name.rows = private unnamed_addr constant [5 x i8] c"rows\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @shallow(ptr %a, i64 %n, i64 %m) {
entry:
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rows),
      "hpvm.dims"(i64 %n, i64 %m), "hpvm.out"(ptr %a, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idx = mul nsw i64 %i, %m
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  store i32 1, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
