; Graph-form input is checked by the graph-form verifier first; its
; diagnostics come out as hpvm-backend errors (exit status 1), here a leaf
; whose function is missing and metadata that does not decode.
; RUN: split-file %s %t
; RUN: not %hpvm-backend --target=cpu -mcpu=haswell %t/missing.ll -S -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING
; RUN: not %hpvm-backend --target=cpu -mcpu=haswell %t/garbled.ll -S -o %t.out 2>&1 | FileCheck %s --check-prefix=GARBLED

; MISSING: hpvm-backend: error: [leaf-function] {{.*}}'gone'
; GARBLED: hpvm-backend: error: [metadata]

;--- missing.ll
declare void @hpvm.node.gone(ptr)
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"gone", !1}
!1 = !{!"hpvm.node", !"name", !"gone", !"kind", !"leaf", !"function", ptr @hpvm.node.gone, !"params", !2}
!2 = !{!3}
!3 = !{!"buffer", !"a", !"in", i64 16}

;--- garbled.ll
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"g", !"not a node"}
