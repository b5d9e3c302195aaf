; [marker]: hpvm.after names a region that is not an earlier sibling (here
; the enclosing region 'root' itself).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [marker] function 'after_parent', node '{{.*}}child':
; CHECK-SAME: hpvm.after

@.name.root = private unnamed_addr constant [5 x i8] c"root\00"
@.name.child = private unnamed_addr constant [6 x i8] c"child\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @after_parent(ptr %x) {
entry:
  %t.r = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.root),
      "hpvm.out"(ptr %x, i64 4) ]
  %t.c = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.child),
      "hpvm.out"(ptr %x, i64 4), "hpvm.after"(token %t.r) ]
  store i32 1, ptr %x, align 4
  call void @llvm.directive.region.exit(token %t.c)
  call void @llvm.directive.region.exit(token %t.r)
  ret void
}
