; [binding] (region form): child 'inner' names buffer %b (in hpvm.in) that its
; parent 'outer' does not name; the same SSA pointer must appear in both.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [binding] function 'parent_misses_named', node '{{.*(outer|inner)}}':

@.name.outer = private unnamed_addr constant [6 x i8] c"outer\00"
@.name.inner = private unnamed_addr constant [6 x i8] c"inner\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; c[i] = a[i] (the child also names %b, without using it)
define void @parent_misses_named(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t.o = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.outer),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes),
      "hpvm.value"(i64 %n) ]
  %t.i = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.inner),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes, ptr %b, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  store float %va, ptr %pc, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t.i)
  call void @llvm.directive.region.exit(token %t.o)
  ret void
}
