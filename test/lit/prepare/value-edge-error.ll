; PREPARE reports a value edge (it has no region form) as an error naming
; the graph, exits non-zero and does not crash. The graph itself is well formed
; (the value edge binds 'total'), so no [binding] error may be reported.
; RUN: not %hpvm-opt --prepare -disable-output %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="[binding]"
; CHECK: hpvm-opt: error: [{{[a-z-]+}}] {{.*}}vals

@hpvm.graph.vals = private unnamed_addr constant [5 x i8] c"vals\00"
@llvm.compiler.used = appending global [2 x ptr] [ptr @hpvm.node.vals.reduce, ptr @hpvm.node.vals.report], section "llvm.metadata"

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
!4 = !{!"buffer", !"out", !"out", i64 8}
!5 = !{!6, !10}
!6 = !{!"hpvm.node", !"name", !"reduce", !"kind", !"leaf", !"function", ptr @hpvm.node.vals.reduce, !"params", !7, !"outputs", !8}
!7 = !{!3}
!8 = !{!9}
!9 = !{!"sum", !"i64"}
!10 = !{!"hpvm.node", !"name", !"report", !"kind", !"leaf", !"function", ptr @hpvm.node.vals.report, !"params", !11}
!11 = !{!4, !12}
!12 = !{!"value", !"total", !"i64"}
!20 = !{!21}
!21 = !{!"value", i32 0, i32 0, i32 1, i32 1}
!22 = !{!23, !24}
!23 = !{i32 0, i32 0, !"param", i32 0}
!24 = !{i32 1, i32 0, !"param", i32 1}
