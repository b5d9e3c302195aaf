; [parallel-loop]: a replicated leaf (hpvm.dims) whose body has no loop.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'no_loop', node 'flat':

@.name.flat = private unnamed_addr constant [5 x i8] c"flat\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @no_loop(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.flat),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes) ]
  store i32 1, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
