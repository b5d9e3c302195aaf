; [unnamed-pointer]: the leaf writes a mutable global (@hits), which is
; neither a named buffer, a private alloca nor a constant global.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [unnamed-pointer] function 'global_write', node 'count':

@.name.count = private unnamed_addr constant [6 x i8] c"count\00"
@hits = global i64 0

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @global_write(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.count),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 0, ptr %p, align 4
  store i64 %i, ptr @hits, align 8
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
