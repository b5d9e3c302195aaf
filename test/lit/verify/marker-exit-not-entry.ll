; [marker]: a region exit whose token is not the result of a region entry
; (here 'token none'); the region 'one' itself is well formed.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'stray_exit'

@.name.one = private unnamed_addr constant [4 x i8] c"one\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @stray_exit(ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.one),
      "hpvm.out"(ptr %a, i64 4) ]
  store i32 1, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  call void @llvm.directive.region.exit(token none)
  ret void
}
