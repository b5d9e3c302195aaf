; An error at an instruction without a source location (here the phi of a
; value the loop carries, which the parallel-loop rule rejects) takes the
; location of the nearest located instruction in its block, so that a C
; program's error still says file:line:col.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'f', node 'leaf': loop 'l' (dim 0) carries a value from one iteration to the next
; CHECK-NEXT: at:  %acc = phi i32 [ 1, %entry ], [ %acc.next, %b ] (prog.c:12:7)

@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @f(ptr %x, i64 %n) !dbg !5 {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ], !dbg !8
  br label %l
l:
  %i = phi i64 [ 0, %entry ], [ %i.next, %b ]
  %acc = phi i32 [ 1, %entry ], [ %acc.next, %b ]
  %c = icmp slt i64 %i, %n, !dbg !9
  br i1 %c, label %b, label %e, !dbg !9
b:
  %acc.next = mul i32 %acc, 3, !dbg !10
  %p = getelementptr inbounds i32, ptr %x, i64 %i, !dbg !10
  store i32 %acc.next, ptr %p, align 4, !dbg !10
  %i.next = add nsw i64 %i, 1, !dbg !9
  br label %l, !dbg !9
e:
  call void @llvm.directive.region.exit(token %t), !dbg !8
  ret void, !dbg !8
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "prog.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 10, type: !6, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 11, column: 1, scope: !5)
!9 = !DILocation(line: 12, column: 7, scope: !5)
!10 = !DILocation(line: 13, column: 5, scope: !5)
