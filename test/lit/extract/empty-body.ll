; A replicated leaf whose loop LLVM deleted because it did nothing (what the
; C frontend's simplification makes of an empty `parallel for` body): the
; node keeps its dims and gets an empty leaf function. A leaf that has lost
; its loop but still writes memory is not canonical (see
; verify/parallel-loop-no-loop.ll).
; RUN: %hpvm-opt --extract --verify %s -S -o - | FileCheck %s

@.name.empty = private unnamed_addr constant [6 x i8] c"empty\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @empty(i64 %n) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.empty),
      "hpvm.dims"(i64 %n) ]
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; CHECK: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.empty, i64 %n)
; CHECK: define internal void @hpvm.node.empty(i64 %n)
; CHECK-NEXT: entry:
; CHECK-NEXT: ret void
; CHECK: !{!"hpvm.node", !"name", !"empty", !"kind", !"leaf", !"function", ptr @hpvm.node.empty, !"dims"
