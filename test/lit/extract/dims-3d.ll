; EXTRACT of a 3-D replicated leaf: three instance ids (0,0) (0,1) (0,2),
; outermost loop first, and three dims in the metadata.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.scale3 = private unnamed_addr constant [7 x i8] c"scale3\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; c[(i*d1 + j)*d2 + k] = 2 * a[(i*d1 + j)*d2 + k]
define void @scale3(ptr noalias %a, ptr noalias %c, i64 %d0, i64 %d1, i64 %d2) {
entry:
  %p01 = mul nsw i64 %d0, %d1
  %p012 = mul nsw i64 %p01, %d2
  %bytes = shl i64 %p012, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.scale3),
      "hpvm.dims"(i64 %d0, i64 %d1, i64 %d2),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %d0
  br i1 %ci, label %i.body, label %i.end

i.body:
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.latch ]
  %cj = icmp slt i64 %j, %d1
  br i1 %cj, label %j.body, label %i.latch

j.body:
  br label %k.cond

k.cond:
  %k = phi i64 [ 0, %j.body ], [ %k.next, %k.body ]
  %ck = icmp slt i64 %k, %d2
  br i1 %ck, label %k.body, label %j.latch

k.body:
  %ij = mul nsw i64 %i, %d1
  %ij2 = add nsw i64 %ij, %j
  %ijk1 = mul nsw i64 %ij2, %d2
  %idx = add nsw i64 %ijk1, %k
  %pa = getelementptr inbounds float, ptr %a, i64 %idx
  %va = load float, ptr %pa, align 4
  %r = fmul float %va, 2.000000e+00
  %pc = getelementptr inbounds float, ptr %c, i64 %idx
  store float %r, ptr %pc, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %k.cond

j.latch:
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond

i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; LEAF-LABEL: define internal void @hpvm.node.scale3(
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 1)
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 2)
; LEAF-DAG: store float
; LEAF: ret void

; META: !hpvm.graphs = !{![[G:[0-9]+]]}
; META-DAG: ![[G]] = !{!"hpvm.graph", !"scale3", ![[ROOT:[0-9]+]]}
; META-DAG: ![[ROOT]] = !{!"hpvm.node", !"name", !"scale3", !"kind", !"leaf", !"function", ptr @hpvm.node.scale3, !"dims", ![[DIMS:[0-9]+]],
; META-DAG: ![[DIMS]] = !{![[D0:[0-9]+]], ![[D1:[0-9]+]], ![[D2:[0-9]+]]}
; META-DAG: !{!"value", !"d0", !"i64"}
; META-DAG: !{!"value", !"d1", !"i64"}
; META-DAG: !{!"value", !"d2", !"i64"}
