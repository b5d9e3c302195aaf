; [dims]: a constant extent of 2^64 - 1 instances (instance ids are signed
; 64-bit on every target: at most 2^63 - 1).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [dims] {{.*}}'vadd{{.*}}dim 0 has 18446744073709551615 instances; at most 2^63 - 1 are allowed

@hpvm.graph.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"
@llvm.compiler.used = appending global [1 x ptr] [ptr @hpvm.node.vadd], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define void @vadd(ptr %a, ptr %b, ptr %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c, i64 %n, i64 %bytes)
  ret void
}

define internal void @hpvm.node.vadd(ptr %a, ptr %b, ptr %c, i64 %n, i64 %bytes) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %vb = load float, ptr %pb, align 4
  %sum = fadd float %va, %vb
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  store float %sum, ptr %pc, align 4
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"vadd", !1}
!1 = !{!"hpvm.node", !"name", !"vadd", !"kind", !"leaf", !"function", ptr @hpvm.node.vadd, !"dims", !2, !"params", !10, !"targets", !"cpu,nvptx,spirv"}
!2 = !{i64 -1}
!3 = !{!"param", i32 3}
!4 = !{!"param", i32 4}
!10 = !{!11, !12, !13, !14, !15}
!11 = !{!"buffer", !"a", !"in", !4}
!12 = !{!"buffer", !"b", !"in", !4}
!13 = !{!"buffer", !"c", !"out", !4}
!14 = !{!"value", !"n", !"i64"}
!15 = !{!"value", !"bytes", !"i64"}
