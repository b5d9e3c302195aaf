; When a pass reports a broken rule, hpvm-opt exits 1, writes no output file
; and does not crash (EXTRACT of a region whose leaf writes its input).
; RUN: rm -f %t.out.ll
; RUN: not %hpvm-opt --extract %s -S -o %t.out.ll 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
; RUN: not ls %t.out.ll
; CHECK: hpvm-opt: error: [write-to-input] function 'in_place', node 'incr':

@.name.incr = private unnamed_addr constant [5 x i8] c"incr\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @in_place(ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.incr),
      "hpvm.in"(ptr %a, i64 4) ]
  %v = load i32, ptr %a, align 4
  %v1 = add i32 %v, 1
  store i32 %v1, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
