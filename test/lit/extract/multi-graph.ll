; EXTRACT of two top-level regions in one function: two graphs, two launches
; in program order, two entries in !hpvm.graphs.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.scale = private unnamed_addr constant [6 x i8] c"scale\00"
@.name.offset = private unnamed_addr constant [7 x i8] c"offset\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; b[i] = 3 * a[i]; then c[i] = b[i] + 1
define void @two_graphs(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t1 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.scale),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %l1.cond

l1.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %l1.body ]
  %c1 = icmp slt i64 %i, %n
  br i1 %c1, label %l1.body, label %l1.end

l1.body:
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %m = fmul float %va, 3.000000e+00
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  store float %m, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %l1.cond

l1.end:
  call void @llvm.directive.region.exit(token %t1)
  %t2 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.offset),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %b, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %l2.cond

l2.cond:
  %k = phi i64 [ 0, %l1.end ], [ %k.next, %l2.body ]
  %c2 = icmp slt i64 %k, %n
  br i1 %c2, label %l2.body, label %l2.end

l2.body:
  %pb2 = getelementptr inbounds float, ptr %b, i64 %k
  %vb = load float, ptr %pb2, align 4
  %s = fadd float %vb, 1.000000e+00
  %pc = getelementptr inbounds float, ptr %c, i64 %k
  store float %s, ptr %pc, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %l2.cond

l2.end:
  call void @llvm.directive.region.exit(token %t2)
  ret void
}

; HOST-DAG: @hpvm.graph.scale = private {{.*}}constant [6 x i8] c"scale\00"
; HOST-DAG: @hpvm.graph.offset = private {{.*}}constant [7 x i8] c"offset\00"
; HOST-LABEL: define void @two_graphs(
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.scale, ptr %a, ptr %b,
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.offset, ptr %b, ptr %c,
; HOST: ret void
; HOST-DAG: define internal void @hpvm.node.scale(
; HOST-DAG: define internal void @hpvm.node.offset(

; META: !hpvm.graphs = !{![[G1:[0-9]+]], ![[G2:[0-9]+]]}
; META-DAG: ![[G1]] = !{!"hpvm.graph", !"scale", ![[R1:[0-9]+]]}
; META-DAG: ![[G2]] = !{!"hpvm.graph", !"offset", ![[R2:[0-9]+]]}
; META-DAG: ![[R1]] = !{!"hpvm.node", !"name", !"scale", !"kind", !"leaf", !"function", ptr @hpvm.node.scale,
; META-DAG: ![[R2]] = !{!"hpvm.node", !"name", !"offset", !"kind", !"leaf", !"function", ptr @hpvm.node.offset,
