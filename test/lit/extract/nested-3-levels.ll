; EXTRACT of a three-level hierarchy: internal root 'outer' holds internal
; 'middle' (holding leaf 'inner') and leaf 'tail'. Leaf functions are named by
; their path; 'tail' depends on 'middle' through buffer %b.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.outer = private unnamed_addr constant [6 x i8] c"outer\00"
@.name.middle = private unnamed_addr constant [7 x i8] c"middle\00"
@.name.inner = private unnamed_addr constant [6 x i8] c"inner\00"
@.name.tail = private unnamed_addr constant [5 x i8] c"tail\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; b[i] = a[i] * a[i]; then c[i] = b[i] - 1
define void @nested(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t.outer = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.outer),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes, ptr %c, i64 %bytes),
      "hpvm.value"(i64 %n) ]
  %t.middle = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.middle),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes),
      "hpvm.value"(i64 %n) ]
  %t.inner = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.inner),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %l1.cond

l1.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %l1.body ]
  %c1 = icmp slt i64 %i, %n
  br i1 %c1, label %l1.body, label %l1.end

l1.body:
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %va = load i32, ptr %pa, align 4
  %sq = mul i32 %va, %va
  %pb = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 %sq, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %l1.cond

l1.end:
  call void @llvm.directive.region.exit(token %t.inner)
  call void @llvm.directive.region.exit(token %t.middle)
  %t.tail = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.tail),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %b, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %l2.cond

l2.cond:
  %k = phi i64 [ 0, %l1.end ], [ %k.next, %l2.body ]
  %c2 = icmp slt i64 %k, %n
  br i1 %c2, label %l2.body, label %l2.end

l2.body:
  %pb2 = getelementptr inbounds i32, ptr %b, i64 %k
  %vb = load i32, ptr %pb2, align 4
  %d = sub i32 %vb, 1
  %pc = getelementptr inbounds i32, ptr %c, i64 %k
  store i32 %d, ptr %pc, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %l2.cond

l2.end:
  call void @llvm.directive.region.exit(token %t.tail)
  call void @llvm.directive.region.exit(token %t.outer)
  ret void
}

; HOST-LABEL: define void @nested(
; HOST-NOT: llvm.directive.region
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.outer,
; HOST-NOT: @hpvm.launch
; HOST: ret void

; LEAF-LABEL: define internal void @hpvm.node.outer.middle.inner(
; LEAF: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF: mul i32
; LEAF: ret void
; LEAF-LABEL: define internal void @hpvm.node.outer.tail(
; LEAF: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF: sub i32
; LEAF: ret void

; META: !hpvm.graphs = !{![[G:[0-9]+]]}
; META-DAG: ![[G]] = !{!"hpvm.graph", !"outer", ![[ROOT:[0-9]+]]}
; META-DAG: ![[ROOT]] = !{!"hpvm.node", !"name", !"outer", !"kind", !"internal", {{.*}}!"children", ![[CH:[0-9]+]], !"edges", ![[EDGES:[0-9]+]]
; META-DAG: ![[CH]] = !{![[MID:[0-9]+]], ![[TAIL:[0-9]+]]}
; META-DAG: ![[MID]] = !{!"hpvm.node", !"name", !"middle", !"kind", !"internal", {{.*}}!"children", ![[CH2:[0-9]+]]
; META-DAG: ![[CH2]] = !{![[INNER:[0-9]+]]}
; META-DAG: ![[INNER]] = !{!"hpvm.node", !"name", !"inner", !"kind", !"leaf", !"function", ptr @hpvm.node.outer.middle.inner, !"dims",
; META-DAG: ![[TAIL]] = !{!"hpvm.node", !"name", !"tail", !"kind", !"leaf", !"function", ptr @hpvm.node.outer.tail, !"dims",
; META-DAG: ![[EDGES]] = !{![[E0:[0-9]+]]}
; META-DAG: ![[E0]] = !{!"dep", i32 0, i32 1}
