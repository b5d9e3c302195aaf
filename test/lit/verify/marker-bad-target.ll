; [marker]: "hpvm.target" takes one i32 mask; an i64 operand is malformed.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'wide_mask', node 'one':
; CHECK-SAME: hpvm.target

@.name.one = private unnamed_addr constant [4 x i8] c"one\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @wide_mask(ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.one),
      "hpvm.out"(ptr %a, i64 4), "hpvm.target"(i64 1) ]
  store i32 1, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
