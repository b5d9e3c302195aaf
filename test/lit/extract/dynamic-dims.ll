; EXTRACT with dims computed at run time before the region (rows = len / cols):
; each extent becomes a reference to an integer value parameter of the node,
; and the launch passes the computed values.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.rowscale = private unnamed_addr constant [9 x i8] c"rowscale\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; x[r*cols + c] *= (r + 1), for a len-element array viewed as rows x cols
define void @rowscale(ptr noalias %x, i64 %len, i64 %cols) {
entry:
  %rows = sdiv i64 %len, %cols
  %bytes = shl i64 %len, 3
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rowscale),
      "hpvm.dims"(i64 %rows, i64 %cols),
      "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %r.cond

r.cond:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %cr = icmp slt i64 %r, %rows
  br i1 %cr, label %r.body, label %r.end

r.body:
  %rowoff = mul nsw i64 %r, %cols
  %r1 = add nuw nsw i64 %r, 1
  %f = sitofp i64 %r1 to double
  br label %c.cond

c.cond:
  %c = phi i64 [ 0, %r.body ], [ %c.next, %c.body ]
  %cc = icmp slt i64 %c, %cols
  br i1 %cc, label %c.body, label %r.latch

c.body:
  %idx = add nsw i64 %rowoff, %c
  %p = getelementptr inbounds double, ptr %x, i64 %idx
  %v = load double, ptr %p, align 8
  %v2 = fmul double %v, %f
  store double %v2, ptr %p, align 8
  %c.next = add nuw nsw i64 %c, 1
  br label %c.cond

r.latch:
  %r.next = add nuw nsw i64 %r, 1
  br label %r.cond

r.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; HOST-LABEL: define void @rowscale(
; HOST: %rows = sdiv i64 %len, %cols
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.rowscale, ptr %x,
; HOST-SAME: i64 %rows
; HOST: ret void

; META: !hpvm.graphs = !{![[G:[0-9]+]]}
; META-DAG: ![[G]] = !{!"hpvm.graph", !"rowscale", ![[ROOT:[0-9]+]]}
; META-DAG: ![[ROOT]] = !{!"hpvm.node", !"name", !"rowscale", !"kind", !"leaf", !"function", ptr @hpvm.node.rowscale, !"dims", ![[DIMS:[0-9]+]],
; META-DAG: ![[DIMS]] = !{![[D0:[0-9]+]], ![[D1:[0-9]+]]}
; META-DAG: ![[D0]] = !{!"param", i32 {{[0-9]+}}}
; META-DAG: ![[D1]] = !{!"param", i32 {{[0-9]+}}}
; META-DAG: !{!"buffer", !"x", !"inout", !{{[0-9]+}}}
; META-DAG: !{!"value", !"rows", !"i64"}
; META-DAG: !{!"value", !"cols", !"i64"}
