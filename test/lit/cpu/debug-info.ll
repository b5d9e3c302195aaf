; A leaf with debug information keeps it: the wrapper gets an artificial
; subprogram (in the leaf's compile unit and file) so that the inlined body's
; source locations stay valid, and they reach the object's line table. A
; helper with debug information called from a leaf without it loses its
; locations instead (a function without a subprogram cannot hold them).
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %s -filetype=obj -o %t.o
; RUN: llvm-dwarfdump --debug-info --debug-line %t.o | FileCheck %s --check-prefix=DWARF

declare i64 @hpvm.instance.id(i32, i32) nounwind willreturn memory(none)

define internal void @hpvm.node.twice(ptr %a, i64 %bytes, i64 %n) !dbg !5 {
entry:
  %id = call i64 @hpvm.instance.id(i32 0, i32 0), !dbg !8
  %p = getelementptr inbounds float, ptr %a, i64 %id, !dbg !9
  %v = load float, ptr %p, align 4, !dbg !9
  %r = fmul float %v, 2.0, !dbg !9
  store float %r, ptr %p, align 4, !dbg !9
  ret void, !dbg !10
}

define internal float @helper(float %x) !dbg !11 {
  %r = fadd float %x, 1.0, !dbg !12
  ret float %r, !dbg !12
}

define internal void @hpvm.node.nodebug(ptr %a, i64 %bytes, i64 %n) {
entry:
  %id = call i64 @hpvm.instance.id(i32 0, i32 0)
  %p = getelementptr inbounds float, ptr %a, i64 %id
  %v = load float, ptr %p, align 4
  %r = call float @helper(float %v)
  store float %r, ptr %p, align 4
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!hpvm.graphs = !{!20, !30}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "twice.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "twice", scope: !1, file: !1, line: 10, type: !6, scopeLine: 10, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 11, column: 3, scope: !5)
!9 = !DILocation(line: 12, column: 10, scope: !5)
!10 = !DILocation(line: 13, column: 1, scope: !5)
!11 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 2, type: !6, scopeLine: 2, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!12 = !DILocation(line: 3, column: 5, scope: !11)

!20 = !{!"hpvm.graph", !"twice", !21}
!21 = !{!"hpvm.node", !"name", !"twice", !"kind", !"leaf", !"function", ptr @hpvm.node.twice, !"dims", !22, !"params", !24}
!22 = !{!23}
!23 = !{!"param", i32 2}
!24 = !{!25, !27, !28}
!25 = !{!"buffer", !"a", !"inout", !26}
!26 = !{!"param", i32 1}
!27 = !{!"value", !"bytes", !"i64"}
!28 = !{!"value", !"n", !"i64"}
!30 = !{!"hpvm.graph", !"nodebug", !31}
!31 = !{!"hpvm.node", !"name", !"nodebug", !"kind", !"leaf", !"function", ptr @hpvm.node.nodebug, !"dims", !22, !"params", !24}

; CHECK:       define void @hpvm.cpu.twice({{.*}} !dbg ![[SP:[0-9]+]] {
; CHECK:         fmul <8 x float> {{.*}}, !dbg ![[LOC:[0-9]+]]
; CHECK-LABEL: define void @hpvm.cpu.nodebug(
; CHECK-NOT:     !dbg
; CHECK:         ret void
; CHECK-DAG:   ![[SP]] = distinct !DISubprogram(name: "hpvm.cpu.twice", linkageName: "hpvm.cpu.twice", scope: ![[FILE:[0-9]+]], file: ![[FILE]], line: 10, {{.*}}flags: DIFlagArtificial | DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized
; CHECK-DAG:   ![[FILE]] = !DIFile(filename: "twice.c", directory: "/src")
; CHECK-DAG:   ![[LOC]] = !DILocation(line: 12, column: 10, scope: ![[LEAFSP:[0-9]+]], inlinedAt:

; DWARF: DW_AT_name ("hpvm.cpu.twice")
; DWARF: /src/twice.c
; DWARF: {{^0x[0-9a-f]+ +12 +10 }}
