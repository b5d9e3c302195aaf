; A hand-written graph-form module with node outputs, a value edge and a
; streaming edge (capacity 4): leaf 'reduce' returns its single output 'sum'
; (i64), which feeds 'report' by value and 'drain' through a stream. It passes
; hpvm-verify, is printed back unchanged, and hpvm-print shows both edges.
; RUN: %hpvm-opt --verify -S < %s > %t.1.ll
; RUN: %hpvm-opt --verify -S < %t.1.ll > %t.2.ll
; RUN: diff %t.1.ll %t.2.ll
; RUN: %hpvm-opt --print -disable-output %s | FileCheck %s
; CHECK: leaf reduce
; CHECK-NEXT: param a: buffer in bytes 16
; CHECK-NEXT: output sum: i64
; CHECK: edge value reduce.sum -> report.total
; CHECK-NEXT: edge stream reduce.sum -> drain.drained capacity 4

@hpvm.graph.vals = private unnamed_addr constant [5 x i8] c"vals\00"
@llvm.compiler.used = appending global [3 x ptr] [ptr @hpvm.node.vals.reduce, ptr @hpvm.node.vals.report, ptr @hpvm.node.vals.drain], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)

define void @run_vals(ptr %a, ptr %out) {
entry:
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vals, ptr %a, ptr %out)
  ret void
}

; sum = a[0] + a[1] (returned as the node's output)
define internal i64 @hpvm.node.vals.reduce(ptr %a) {
entry:
  %x = load i64, ptr %a, align 8
  %p1 = getelementptr inbounds i64, ptr %a, i64 1
  %y = load i64, ptr %p1, align 8
  %s = add i64 %x, %y
  ret i64 %s
}

; out[1] = drained
define internal void @hpvm.node.vals.drain(ptr %out, i64 %drained) {
entry:
  %p = getelementptr inbounds i64, ptr %out, i64 1
  store i64 %drained, ptr %p, align 8
  ret void
}

; out[0] = total
define internal void @hpvm.node.vals.report(ptr %out, i64 %total) {
entry:
  store i64 %total, ptr %out, align 8
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"vals", !1}
!1 = !{!"hpvm.node", !"name", !"vals", !"kind", !"internal", !"params", !2, !"children", !5, !"edges", !20, !"bindings", !22}
!2 = !{!3, !4}
!3 = !{!"buffer", !"a", !"in", i64 16}
!4 = !{!"buffer", !"out", !"out", i64 16}
!5 = !{!6, !10, !13}
!13 = !{!"hpvm.node", !"name", !"drain", !"kind", !"leaf", !"function", ptr @hpvm.node.vals.drain, !"params", !14}
!14 = !{!4, !15}
!15 = !{!"value", !"drained", !"i64"}
!6 = !{!"hpvm.node", !"name", !"reduce", !"kind", !"leaf", !"function", ptr @hpvm.node.vals.reduce, !"params", !7, !"outputs", !8}
!7 = !{!3}
!8 = !{!9}
!9 = !{!"sum", !"i64"}
!10 = !{!"hpvm.node", !"name", !"report", !"kind", !"leaf", !"function", ptr @hpvm.node.vals.report, !"params", !11}
!11 = !{!4, !12}
!12 = !{!"value", !"total", !"i64"}
!20 = !{!21, !25}
!25 = !{!"stream", i32 0, i32 0, i32 2, i32 1, i32 4}
!21 = !{!"value", i32 0, i32 0, i32 1, i32 1}
!22 = !{!23, !24, !26}
!26 = !{i32 2, i32 0, !"param", i32 1}
!23 = !{i32 0, i32 0, !"param", i32 0}
!24 = !{i32 1, i32 0, !"param", i32 1}
