; [marker]: hpvm.after on a top-level region (graphs launch in program order;
; hpvm.after may only name earlier siblings inside a graph).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'top_after', node 'second':
; CHECK-SAME: hpvm.after

@.name.first = private unnamed_addr constant [6 x i8] c"first\00"
@.name.second = private unnamed_addr constant [7 x i8] c"second\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @top_after(ptr noalias %x, ptr noalias %y) {
entry:
  %t1 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.first),
      "hpvm.out"(ptr %x, i64 4) ]
  store i32 1, ptr %x, align 4
  call void @llvm.directive.region.exit(token %t1)
  %t2 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.second),
      "hpvm.out"(ptr %y, i64 4), "hpvm.after"(token %t1) ]
  store i32 2, ptr %y, align 4
  call void @llvm.directive.region.exit(token %t2)
  ret void
}
