; A hand-written graph-form module with a replicated internal root 'blocks'
; (nb instances) whose replicated leaf 'threads' (T instances) reads its own
; instance id and its parent's: y[b*T + t] = x[b*T + t] + b. It passes
; hpvm-verify and is printed back unchanged.
; RUN: %hpvm-opt --verify -S < %s > %t.1.ll
; RUN: %hpvm-opt --verify -S < %t.1.ll > %t.2.ll
; RUN: diff %t.1.ll %t.2.ll
; RUN: FileCheck %s < %t.1.ll
; CHECK: call i64 @hpvm.instance.id(i32 1, i32 0)
; CHECK: !{!"hpvm.node", !"name", !"blocks", !"kind", !"internal", !"dims",

@hpvm.graph.blocks = private unnamed_addr constant [7 x i8] c"blocks\00"
@llvm.compiler.used = appending global [1 x ptr] [ptr @hpvm.node.blocks.threads], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define void @blocked(ptr %x, ptr %y, i64 %nb, i64 %T) {
entry:
  %n = mul nsw i64 %nb, %T
  %bytes = shl i64 %n, 2
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.blocks, ptr %x, ptr %y, i64 %nb, i64 %T, i64 %bytes)
  ret void
}

define internal void @hpvm.node.blocks.threads(ptr %x, ptr %y, i64 %T, i64 %bytes) {
entry:
  %t = call i64 @hpvm.instance.id(i32 0, i32 0)
  %b = call i64 @hpvm.instance.id(i32 1, i32 0)
  %base = mul nsw i64 %b, %T
  %idx = add nsw i64 %base, %t
  %px = getelementptr inbounds i32, ptr %x, i64 %idx
  %vx = load i32, ptr %px, align 4
  %b32 = trunc i64 %b to i32
  %r = add i32 %vx, %b32
  %py = getelementptr inbounds i32, ptr %y, i64 %idx
  store i32 %r, ptr %py, align 4
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"blocks", !1}
; blocks: dims [nb = param 2], params x y nb T bytes
!1 = !{!"hpvm.node", !"name", !"blocks", !"kind", !"internal", !"dims", !2, !"params", !4, !"children", !10, !"bindings", !20}
!2 = !{!3}
!3 = !{!"param", i32 2}
!4 = !{!5, !6, !7, !8, !9}
!5 = !{!"buffer", !"x", !"in", !30}
!6 = !{!"buffer", !"y", !"out", !30}
!7 = !{!"value", !"nb", !"i64"}
!8 = !{!"value", !"T", !"i64"}
!9 = !{!"value", !"bytes", !"i64"}
!30 = !{!"param", i32 4}
; threads: dims [T = param 2], params x y T bytes
!10 = !{!11}
!11 = !{!"hpvm.node", !"name", !"threads", !"kind", !"leaf", !"function", ptr @hpvm.node.blocks.threads, !"dims", !12, !"params", !13}
!12 = !{!3}
!13 = !{!14, !15, !8, !9}
!14 = !{!"buffer", !"x", !"in", !31}
!15 = !{!"buffer", !"y", !"out", !31}
!31 = !{!"param", i32 3}
!20 = !{!21, !22, !23, !24}
!21 = !{i32 0, i32 0, !"param", i32 0}
!22 = !{i32 0, i32 1, !"param", i32 1}
!23 = !{i32 0, i32 2, !"param", i32 3}
!24 = !{i32 0, i32 3, !"param", i32 4}
