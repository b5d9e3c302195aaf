; [leaf-call] (graph form): the host function that launches 'pipe' also
; calls its leaf 'consume' directly, where no instance id means anything
; (the backends went on and compiled it).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [leaf-call] function 'run_pipe', node 'pipe/consume': the leaf function 'hpvm.node.pipe.consume' is called from 'run_pipe'
; CHECK-NOT: error

@hpvm.graph.pipe = private unnamed_addr constant [5 x i8] c"pipe\00"
@llvm.compiler.used = appending global [2 x ptr] [ptr @hpvm.node.pipe.produce, ptr @hpvm.node.pipe.consume], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define void @run_pipe(ptr %x, ptr %t, ptr %y, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.pipe, ptr %x, ptr %t, ptr %y, i64 %n, i64 %bytes)
  call void @hpvm.node.pipe.consume(ptr %t, ptr %y, i64 %n, i64 %bytes)
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
!1 = !{!"hpvm.node", !"name", !"pipe", !"kind", !"internal", !"params", !2, !"children", !9, !"edges", !30, !"bindings", !32}
!2 = !{!3, !4, !5, !6, !7}
!3 = !{!"buffer", !"x", !"in", !8}
!4 = !{!"buffer", !"t", !"out", !8}
!5 = !{!"buffer", !"y", !"out", !8}
!6 = !{!"value", !"n", !"i64"}
!7 = !{!"value", !"bytes", !"i64"}
!8 = !{!"param", i32 4}
!9 = !{!10, !20}
!10 = !{!"hpvm.node", !"name", !"produce", !"kind", !"leaf", !"function", ptr @hpvm.node.pipe.produce, !"dims", !11, !"params", !13}
!11 = !{!12}
!12 = !{!"param", i32 3}
!13 = !{!14, !15, !17, !6, !7}
!14 = !{!"buffer", !"x", !"in", !8}
!15 = !{!"buffer", !"t", !"out", !8}
!17 = !{!"value", !"k", !"i32"}
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
