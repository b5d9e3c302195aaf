; [launch] (graph form): a leaf function that launches a graph. A node runs
; as many instances, on devices; only host code launches (hpvm-clang caught
; this in C, the graph-form verifier did not).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [launch] function 'hpvm.node.pipe.produce', node 'pipe/produce': a leaf function launches a graph; launches belong to host code, not to nodes
; CHECK-NOT: error

@hpvm.graph.pipe = private unnamed_addr constant [5 x i8] c"pipe\00"
@llvm.compiler.used = appending global [2 x ptr] [ptr @hpvm.node.pipe.produce, ptr @hpvm.node.pipe.consume], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

; t[i] = x[i] * k; then y[i] = t[i] + 1
define void @run_pipe(ptr %x, ptr %t, ptr %y, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.pipe, ptr %x, ptr %t, ptr %y, i64 %n, i64 %bytes)
  ret void
}

define internal void @hpvm.node.pipe.produce(ptr %x, ptr %t, i32 %k, i64 %n, i64 %bytes) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %px = getelementptr inbounds i32, ptr %x, i64 %i
  %v = load i32, ptr %px, align 4
  %r = mul i32 %v, %k
  %pt = getelementptr inbounds i32, ptr %t, i64 %i
  store i32 %r, ptr %pt, align 4
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.pipe, ptr %x, ptr %t, ptr %t, i64 %n, i64 %bytes)
  ret void
}

define internal void @hpvm.node.pipe.consume(ptr %t, ptr %y, i64 %n, i64 %bytes) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pt = getelementptr inbounds i32, ptr %t, i64 %i
  %v = load i32, ptr %pt, align 4
  %r = add i32 %v, 1
  %py = getelementptr inbounds i32, ptr %y, i64 %i
  store i32 %r, ptr %py, align 4
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"pipe", !1}
; root: params x t y (buffers of 'bytes' = param 4 bytes), n, bytes
!1 = !{!"hpvm.node", !"name", !"pipe", !"kind", !"internal", !"params", !2, !"children", !9, !"edges", !30, !"bindings", !32}
!2 = !{!3, !4, !5, !6, !7}
!3 = !{!"buffer", !"x", !"in", !8}
!4 = !{!"buffer", !"t", !"out", !8}
!5 = !{!"buffer", !"y", !"out", !8}
!6 = !{!"value", !"n", !"i64"}
!7 = !{!"value", !"bytes", !"i64"}
!8 = !{!"param", i32 4}
!9 = !{!10, !20}
; produce: dims [n = param 3], params x t k n bytes
!10 = !{!"hpvm.node", !"name", !"produce", !"kind", !"leaf", !"function", ptr @hpvm.node.pipe.produce, !"dims", !11, !"params", !13}
!11 = !{!12}
!12 = !{!"param", i32 3}
!13 = !{!14, !15, !17, !6, !7}
!14 = !{!"buffer", !"x", !"in", !8}
!15 = !{!"buffer", !"t", !"out", !8}
!17 = !{!"value", !"k", !"i32"}
; consume: dims [n = param 2], params t y n bytes
!20 = !{!"hpvm.node", !"name", !"consume", !"kind", !"leaf", !"function", ptr @hpvm.node.pipe.consume, !"dims", !21, !"params", !23}
!21 = !{!22}
!22 = !{!"param", i32 2}
!23 = !{!24, !25, !6, !7}
!24 = !{!"buffer", !"t", !"in", !26}
!25 = !{!"buffer", !"y", !"out", !26}
!26 = !{!"param", i32 3}
!30 = !{!31}
!31 = !{!"dep", i32 0, i32 1}
!32 = !{!33, !34, !35, !36, !37, !38, !39, !40, !41}
!33 = !{i32 0, i32 0, !"param", i32 0}
!34 = !{i32 0, i32 1, !"param", i32 1}
!35 = !{i32 0, i32 2, !"const", i64 3}
!36 = !{i32 0, i32 3, !"param", i32 3}
!37 = !{i32 0, i32 4, !"param", i32 4}
!38 = !{i32 1, i32 0, !"param", i32 1}
!39 = !{i32 1, i32 1, !"param", i32 2}
!40 = !{i32 1, i32 2, !"param", i32 3}
!41 = !{i32 1, i32 3, !"param", i32 4}
