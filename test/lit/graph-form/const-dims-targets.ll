; A hand-written graph-form module with constant dims and byte sizes and a
; restricted target set ("cpu,nvptx"). It passes hpvm-verify and is printed
; back unchanged.
; RUN: %hpvm-opt --verify -S < %s > %t.1.ll
; RUN: %hpvm-opt --verify -S < %t.1.ll > %t.2.ll
; RUN: diff %t.1.ll %t.2.ll
; RUN: FileCheck %s < %t.1.ll
; CHECK: !{!"hpvm.node", !"name", !"transpose", {{.*}}!"targets", !"cpu,nvptx"}
; CHECK: !{i64 64, i64 32}

@hpvm.graph.transpose = private unnamed_addr constant [10 x i8] c"transpose\00"
@llvm.compiler.used = appending global [1 x ptr] [ptr @hpvm.node.transpose], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define void @transpose(ptr %a, ptr %b) {
entry:
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.transpose, ptr %a, ptr %b)
  ret void
}

; b[i*32 + j] = a[j*64 + i]
define internal void @hpvm.node.transpose(ptr %a, ptr %b) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %j = call i64 @hpvm.instance.id(i32 0, i32 1)
  %src.row = mul nuw nsw i64 %j, 64
  %src = add nuw nsw i64 %src.row, %i
  %pa = getelementptr inbounds float, ptr %a, i64 %src
  %v = load float, ptr %pa, align 4
  %dst.row = mul nuw nsw i64 %i, 32
  %dst = add nuw nsw i64 %dst.row, %j
  %pb = getelementptr inbounds float, ptr %b, i64 %dst
  store float %v, ptr %pb, align 4
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"transpose", !1}
!1 = !{!"hpvm.node", !"name", !"transpose", !"kind", !"leaf", !"function", ptr @hpvm.node.transpose, !"dims", !2, !"params", !3, !"targets", !"cpu,nvptx"}
!2 = !{i64 64, i64 32}
!3 = !{!4, !5}
!4 = !{!"buffer", !"a", !"in", i64 8192}
!5 = !{!"buffer", !"b", !"out", i64 8192}
