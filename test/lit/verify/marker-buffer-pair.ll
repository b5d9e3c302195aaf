; [marker]: a buffer bundle whose operands are not (ptr, i64) pairs: the byte
; size of %a is missing.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'half_pair', node 'copy':
; CHECK-SAME: hpvm.in

@.name.copy = private unnamed_addr constant [5 x i8] c"copy\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @half_pair(ptr noalias %a, ptr noalias %b) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.copy),
      "hpvm.in"(ptr %a),
      "hpvm.out"(ptr %b, i64 4) ]
  %v = load i32, ptr %a, align 4
  store i32 %v, ptr %b, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
