; EXTRACT with constant dims and constant buffer sizes (a 64x32 transpose):
; the extents stay constants in the metadata and the leaf takes no values.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.transpose = private unnamed_addr constant [10 x i8] c"transpose\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; b[i*32 + j] = a[j*64 + i], a is 32x64, b is 64x32 (8192 bytes each)
define void @transpose(ptr noalias %a, ptr noalias %b) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.transpose),
      "hpvm.dims"(i64 64, i64 32),
      "hpvm.in"(ptr %a, i64 8192),
      "hpvm.out"(ptr %b, i64 8192) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, 64
  br i1 %ci, label %i.body, label %i.end

i.body:
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.body ]
  %cj = icmp slt i64 %j, 32
  br i1 %cj, label %j.body, label %i.latch

j.body:
  %src.row = mul nuw nsw i64 %j, 64
  %src = add nuw nsw i64 %src.row, %i
  %pa = getelementptr inbounds float, ptr %a, i64 %src
  %v = load float, ptr %pa, align 4
  %dst.row = mul nuw nsw i64 %i, 32
  %dst = add nuw nsw i64 %dst.row, %j
  %pb = getelementptr inbounds float, ptr %b, i64 %dst
  store float %v, ptr %pb, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond

i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; HOST-LABEL: define void @transpose(
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.transpose, ptr %a, ptr %b)
; HOST: ret void

; LEAF-LABEL: define internal void @hpvm.node.transpose(ptr {{[^,)]*}}, ptr {{[^,)]*}})
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 1)
; LEAF: ret void

; META: !hpvm.graphs = !{![[G:[0-9]+]]}
; META-DAG: ![[G]] = !{!"hpvm.graph", !"transpose", ![[ROOT:[0-9]+]]}
; META-DAG: ![[ROOT]] = !{!"hpvm.node", !"name", !"transpose", !"kind", !"leaf", !"function", ptr @hpvm.node.transpose, !"dims", ![[DIMS:[0-9]+]], !"params", ![[PARAMS:[0-9]+]]
; META-DAG: ![[DIMS]] = !{i64 64, i64 32}
; META-DAG: ![[PARAMS]] = !{![[PA:[0-9]+]], ![[PB:[0-9]+]]}
; META-DAG: ![[PA]] = !{!"buffer", !"a", !"in", i64 8192}
; META-DAG: ![[PB]] = !{!"buffer", !"b", !"out", i64 8192, !"writes-all"}
