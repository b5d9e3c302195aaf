; [marker]: a region entry with no exit.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'open_region', node 'open':

@.name.open = private unnamed_addr constant [5 x i8] c"open\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @open_region(ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.open),
      "hpvm.out"(ptr %a, i64 4) ]
  store i32 1, ptr %a, align 4
  ret void
}
