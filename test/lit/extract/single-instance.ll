; EXTRACT of a leaf without hpvm.dims (one instance, no loop): the leaf
; reads no instance id and its node has no dims.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.init = private unnamed_addr constant [5 x i8] c"init\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; acc[0] = 0; acc[1] = 1
define void @init(ptr noalias %acc) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.init),
      "hpvm.out"(ptr %acc, i64 16) ]
  store i64 0, ptr %acc, align 8
  %p1 = getelementptr inbounds i64, ptr %acc, i64 1
  store i64 1, ptr %p1, align 8
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; LEAF-LABEL: define internal void @hpvm.node.init(ptr
; LEAF-NOT: @hpvm.instance.id
; LEAF: store i64 0
; LEAF: store i64 1
; LEAF: ret void

; META-DAG: !{!"hpvm.node", !"name", !"init", !"kind", !"leaf", !"function", ptr @hpvm.node.init, !"params", ![[P:[0-9]+]]
; META-DAG: ![[P]] = !{![[B:[0-9]+]]}
; META-DAG: ![[B]] = !{!"buffer", !"acc", !"out", i64 16, !{{[0-9]+}}}
