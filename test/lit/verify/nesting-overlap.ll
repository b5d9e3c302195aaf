; [nesting]: region 'second' starts inside 'first' but ends after it.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [nesting] function 'overlap',
; CHECK-SAME: node '{{.*(first|second)}}'

@.name.first = private unnamed_addr constant [6 x i8] c"first\00"
@.name.second = private unnamed_addr constant [7 x i8] c"second\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @overlap(ptr noalias %a, ptr noalias %b) {
entry:
  %t1 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.first),
      "hpvm.out"(ptr %a, i64 4, ptr %b, i64 4) ]
  store i32 1, ptr %a, align 4
  %t2 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.second),
      "hpvm.out"(ptr %b, i64 4) ]
  store i32 2, ptr %b, align 4
  call void @llvm.directive.region.exit(token %t1)
  call void @llvm.directive.region.exit(token %t2)
  ret void
}
