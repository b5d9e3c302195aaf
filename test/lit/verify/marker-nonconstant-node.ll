; [marker]: the "hpvm.node" operand is not a constant C string (here a
; function argument).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'dyn_name'
; CHECK-SAME: hpvm.node

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @dyn_name(ptr %name, ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr %name),
      "hpvm.out"(ptr %a, i64 4) ]
  store i32 0, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
