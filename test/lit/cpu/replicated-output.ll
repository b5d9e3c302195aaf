; A replicated leaf with an output: every instance would write the same
; outs[k], so the CPU backend refuses it, naming the node.
; RUN: not %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %s -S -o %t.ll 2>&1 | FileCheck %s

declare i64 @hpvm.instance.id(i32, i32) nounwind willreturn memory(none)

define internal i64 @hpvm.node.g.ids(i64 %n) {
  %id = call i64 @hpvm.instance.id(i32 0, i32 0)
  ret i64 %id
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"params", !2, !"children", !4, !"bindings", !10}
!10 = !{!11}
!11 = !{i32 0, i32 0, !"param", i32 0}
!2 = !{!3}
!3 = !{!"value", !"n", !"i64"}
!4 = !{!5}
!5 = !{!"hpvm.node", !"name", !"ids", !"kind", !"leaf", !"function", ptr @hpvm.node.g.ids, !"dims", !6, !"params", !2, !"outputs", !8}
!6 = !{!7}
!7 = !{!"param", i32 0}
!8 = !{!9}
!9 = !{!"id", !"i64"}

; CHECK: hpvm-backend: error: node 'g/ids': a replicated leaf with outputs is not supported on the cpu
