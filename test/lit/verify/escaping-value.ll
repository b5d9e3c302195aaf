; [escaping-value]: a value computed inside the region (%sum) is used after
; the exit marker.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [escaping-value] function 'leaky', node 'add2':

@.name.add2 = private unnamed_addr constant [5 x i8] c"add2\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define i32 @leaky(ptr noalias %a, ptr noalias %b) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.add2),
      "hpvm.in"(ptr %a, i64 8), "hpvm.out"(ptr %b, i64 4) ]
  %x = load i32, ptr %a, align 4
  %p1 = getelementptr inbounds i32, ptr %a, i64 1
  %y = load i32, ptr %p1, align 4
  %sum = add i32 %x, %y
  store i32 %sum, ptr %b, align 4
  call void @llvm.directive.region.exit(token %t)
  ret i32 %sum
}
