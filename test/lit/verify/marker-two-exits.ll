; [marker]: a region entry with two exits, one on each side of a branch.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'two_exits', node 'split':

@.name.split = private unnamed_addr constant [6 x i8] c"split\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @two_exits(ptr %a, i1 %c) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.split),
      "hpvm.out"(ptr %a, i64 4) ]
  br i1 %c, label %then, label %else

then:
  store i32 1, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  br label %done

else:
  store i32 2, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  br label %done

done:
  ret void
}
