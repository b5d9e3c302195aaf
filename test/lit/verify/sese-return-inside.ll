; [sese]: a return inside the region.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [sese] function 'ret_inside', node 'guarded':

@.name.guarded = private unnamed_addr constant [8 x i8] c"guarded\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @ret_inside(ptr %a, i1 %skip) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.guarded),
      "hpvm.out"(ptr %a, i64 4) ]
  br i1 %skip, label %early, label %work

early:
  ret void

work:
  store i32 7, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
