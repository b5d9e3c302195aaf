; EXTRACT of a value named in hpvm.value but computed inside the graph (from
; the enclosing node's instance id, docs/ir.md §2.4): it is no parameter; the
; leaf recomputes it from instance id (1,0).
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: %hpvm-opt --print -disable-output %t.ll | FileCheck %s --check-prefix=GRAPH --implicit-check-not=rowoff

@.name.rows = private unnamed_addr constant [5 x i8] c"rows\00"
@.name.cols = private unnamed_addr constant [5 x i8] c"cols\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; a[r*m + c] = c - r
define void @named_inside(ptr noalias %a, i64 %n, i64 %m) {
entry:
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 3
  %tok.r = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rows),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes), "hpvm.value"(i64 %m) ]
  br label %r.cond

r.cond:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %cr = icmp slt i64 %r, %n
  br i1 %cr, label %r.body, label %r.end

r.body:
  %rowoff = mul nsw i64 %r, %m
  %tok.c = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.cols),
      "hpvm.dims"(i64 %m), "hpvm.out"(ptr %a, i64 %bytes), "hpvm.value"(i64 %rowoff) ]
  br label %c.cond

c.cond:
  %c = phi i64 [ 0, %r.body ], [ %c.next, %c.body ]
  %cc = icmp slt i64 %c, %m
  br i1 %cc, label %c.body, label %c.end

c.body:
  %idx = add nsw i64 %rowoff, %c
  %d = sub nsw i64 %c, %r
  %p = getelementptr inbounds i64, ptr %a, i64 %idx
  store i64 %d, ptr %p, align 8
  %c.next = add nuw nsw i64 %c, 1
  br label %c.cond

c.end:
  call void @llvm.directive.region.exit(token %tok.c)
  br label %r.latch

r.latch:
  %r.next = add nuw nsw i64 %r, 1
  br label %r.cond

r.end:
  call void @llvm.directive.region.exit(token %tok.r)
  ret void
}

; LEAF-LABEL: define internal void @hpvm.node.rows.cols(
; LEAF-DAG: call i64 @hpvm.instance.id(i32 1, i32 0)
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF-DAG: store i64
; LEAF: ret void

; GRAPH: internal rows dims [n]
; GRAPH: leaf cols dims [m]
