; EXTRACT of a 2-D replicated leaf (5-point stencil over the interior points):
; the leaf reads instance ids (0,0) and (0,1); the dims are the two computed
; interior extents; the row length %m is passed with hpvm.value.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.stencil = private unnamed_addr constant [8 x i8] c"stencil\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; out[(i+1)*m + j+1] = 0.2 * (centre + north + south + west + east)
define void @stencil(ptr noalias %in, ptr noalias %out, i64 %n, i64 %m) {
entry:
  %ni = add nsw i64 %n, -2
  %mj = add nsw i64 %m, -2
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.stencil),
      "hpvm.dims"(i64 %ni, i64 %mj),
      "hpvm.in"(ptr %in, i64 %bytes),
      "hpvm.out"(ptr %out, i64 %bytes),
      "hpvm.value"(i64 %m) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %ni
  br i1 %ci, label %i.body, label %i.end

i.body:
  %row = add nuw nsw i64 %i, 1
  %rowoff = mul nsw i64 %row, %m
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.body ]
  %cj = icmp slt i64 %j, %mj
  br i1 %cj, label %j.body, label %i.latch

j.body:
  %col = add nuw nsw i64 %j, 1
  %idx = add nsw i64 %rowoff, %col
  %p.c = getelementptr inbounds float, ptr %in, i64 %idx
  %v.c = load float, ptr %p.c, align 4
  %idx.n = sub nsw i64 %idx, %m
  %p.n = getelementptr inbounds float, ptr %in, i64 %idx.n
  %v.n = load float, ptr %p.n, align 4
  %idx.s = add nsw i64 %idx, %m
  %p.s = getelementptr inbounds float, ptr %in, i64 %idx.s
  %v.s = load float, ptr %p.s, align 4
  %p.w = getelementptr inbounds float, ptr %p.c, i64 -1
  %v.w = load float, ptr %p.w, align 4
  %p.e = getelementptr inbounds float, ptr %p.c, i64 1
  %v.e = load float, ptr %p.e, align 4
  %s1 = fadd float %v.c, %v.n
  %s2 = fadd float %s1, %v.s
  %s3 = fadd float %s2, %v.w
  %s4 = fadd float %s3, %v.e
  %r = fmul float %s4, 0x3FC99999A0000000
  %p.o = getelementptr inbounds float, ptr %out, i64 %idx
  store float %r, ptr %p.o, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond

i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; HOST-LABEL: define void @stencil(
; HOST-NOT: llvm.directive.region
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.stencil, ptr %in, ptr %out,
; HOST-NOT: llvm.directive.region
; HOST-NOT: fmul
; HOST: ret void

; LEAF-LABEL: define internal void @hpvm.node.stencil(ptr {{[^,]*}}, ptr {{[^,]*}}, i64
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 1)
; LEAF-DAG: fmul float
; LEAF-DAG: store float
; LEAF: ret void

; META: !hpvm.graphs = !{![[G:[0-9]+]]}
; META-DAG: ![[G]] = !{!"hpvm.graph", !"stencil", ![[ROOT:[0-9]+]]}
; META-DAG: ![[ROOT]] = !{!"hpvm.node", !"name", !"stencil", !"kind", !"leaf", !"function", ptr @hpvm.node.stencil, !"dims", ![[DIMS:[0-9]+]], !"params",
; META-DAG: ![[DIMS]] = !{![[D0:[0-9]+]], ![[D1:[0-9]+]]}
; META-DAG: ![[D0]] = !{!"param", i32 {{[0-9]+}}}
; META-DAG: ![[D1]] = !{!"param", i32 {{[0-9]+}}}
; META-DAG: !{!"buffer", !"in", !"in", !{{[0-9]+}}}
; META-DAG: !{!"buffer", !"out", !"out", !{{[0-9]+}}, ![[ROWS:[0-9]+]]}
; META-DAG: ![[ROWS]] = !{!"writes-rows", !{{[0-9]+}}, !{{[0-9]+}}, !{{[0-9]+}}, !{{[0-9]+}}}
; META-DAG: !{!"value", !"m", !"i64"}
