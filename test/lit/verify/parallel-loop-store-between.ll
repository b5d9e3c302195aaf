; [parallel-loop]: code between the loops of a 2-D nest writes memory (the
; row header store); only computing and loading is allowed there.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'row_header', node 'grid':

@.name.grid = private unnamed_addr constant [5 x i8] c"grid\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @row_header(ptr noalias %a, ptr noalias %h, i64 %n, i64 %m) {
entry:
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 2
  %hbytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.grid),
      "hpvm.dims"(i64 %n, i64 %m),
      "hpvm.out"(ptr %a, i64 %bytes, ptr %h, i64 %hbytes) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %n
  br i1 %ci, label %i.body, label %i.end

i.body:
  %ph = getelementptr inbounds i32, ptr %h, i64 %i
  store i32 -1, ptr %ph, align 4
  %rowoff = mul nsw i64 %i, %m
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.body ]
  %cj = icmp slt i64 %j, %m
  br i1 %cj, label %j.body, label %i.latch

j.body:
  %idx = add nsw i64 %rowoff, %j
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  store i32 0, ptr %p, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond

i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
