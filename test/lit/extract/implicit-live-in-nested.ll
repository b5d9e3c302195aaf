; EXTRACT of a scalar (%scale) that a nested leaf uses without naming it
; (docs/ir.md §2.4): it becomes a value parameter of the leaf and of every
; ancestor, bound on the way down, and the launch passes it.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: %hpvm-opt --print -disable-output %t.ll | FileCheck %s --check-prefix=GRAPH

@.name.outer = private unnamed_addr constant [6 x i8] c"outer\00"
@.name.inner = private unnamed_addr constant [6 x i8] c"inner\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; y[i] = x[i] * scale
define void @nested_scale(ptr noalias %x, ptr noalias %y, float %scale, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t.o = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.outer),
      "hpvm.in"(ptr %x, i64 %bytes), "hpvm.out"(ptr %y, i64 %bytes),
      "hpvm.value"(i64 %n) ]
  %t.i = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.inner),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %x, i64 %bytes), "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %px, align 4
  %r = fmul float %v, %scale
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %r, ptr %py, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t.i)
  call void @llvm.directive.region.exit(token %t.o)
  ret void
}

; HOST-LABEL: define void @nested_scale(
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.outer, ptr %x, ptr %y,
; HOST-SAME: float %scale

; LEAF-LABEL: define internal void @hpvm.node.outer.inner(
; LEAF-SAME: float
; LEAF: fmul float

; GRAPH: internal outer
; GRAPH: param scale: f32
; GRAPH: leaf inner
; GRAPH: param scale: f32
; GRAPH: bind inner.scale <- scale
