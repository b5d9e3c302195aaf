; ModuleID = 'test/lit/differential/vadd.ll'
source_filename = "test/lit/differential/vadd.ll"

@llvm.compiler.used = appending global [1 x ptr] [ptr @hpvm.node.vadd], section "llvm.metadata"
@hpvm.graph.vadd = private unnamed_addr constant [5 x i8] c"vadd\00", align 1

define void @kernel_vadd(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c, i64 %bytes, i64 %n)
  ret void
}

define internal void @hpvm.node.vadd(ptr %a, ptr %b, ptr %c, i64 %bytes, i64 %n) {
entry:
  %id0 = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr inbounds float, ptr %a, i64 %id0
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i64 %id0
  %vb = load float, ptr %pb, align 4
  %sum = fadd float %va, %vb
  %pc = getelementptr inbounds float, ptr %c, i64 %id0
  store float %sum, ptr %pc, align 4
  ret void
}

; Function Attrs: nounwind speculatable willreturn memory(none)
declare i64 @hpvm.instance.id(i32, i32) #0

declare void @hpvm.launch(ptr, ...)

attributes #0 = { nounwind speculatable willreturn memory(none) }

!hpvm.graphs = !{!0}

!0 = !{!"hpvm.graph", !"vadd", !1}
!1 = !{!"hpvm.node", !"name", !"vadd", !"kind", !"leaf", !"function", ptr @hpvm.node.vadd, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 4}
!4 = !{!5, !7, !8, !9, !10}
!5 = !{!"buffer", !"a", !"in", !6}
!6 = !{!"param", i32 3}
!7 = !{!"buffer", !"b", !"in", !6}
!8 = !{!"buffer", !"c", !"out", !6, !"writes-all"}
!9 = !{!"value", !"bytes", !"i64"}
!10 = !{!"value", !"n", !"i64"}
