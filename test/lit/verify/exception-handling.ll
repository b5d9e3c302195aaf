; [exception-handling]: a leaf whose loop body invokes a function that may
; throw and has a landing pad (C++ try/catch inside a node). EXTRACT used to
; move the pad into a function without a personality: "internal error: the
; result is not valid LLVM IR". The error names the pad's line.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; RUN: not %hpvm-opt --extract -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [exception-handling] function 'f', node 'leaf': exception handling (invoke, landing pads
; CHECK-NEXT: at: invoke void @may_throw
; CHECK: (eh.c:7:5)
; CHECK-NOT: error

@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare void @may_throw(ptr)
declare i32 @__gxx_personality_v0(...)

define void @f(ptr %x, i64 %n) personality ptr @__gxx_personality_v0 !dbg !5 {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %l
l:
  %i = phi i64 [ 0, %entry ], [ %i.next, %b2 ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e
b:
  %p = getelementptr inbounds float, ptr %x, i64 %i
  invoke void @may_throw(ptr %p) to label %b2 unwind label %lp, !dbg !8
lp:
  %lpv = landingpad { ptr, i32 } cleanup
  store float 0.0, ptr %p, align 4
  br label %b2
b2:
  %i.next = add nsw i64 %i, 1
  br label %l
e:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "eh.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 7, column: 5, scope: !5)
