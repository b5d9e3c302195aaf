; [marker]: the region markers declared with other types than LLVM gives
; them, and an HPVM operand bundle on an ordinary call, are errors (they
; used to be taken on trust: the first extracted, the second was ignored).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; RUN: sed -e 's/declare ptr @llvm.directive.region.entry()/declare token @llvm.directive.region.entry()/' -e 's/declare void @llvm.directive.region.exit(ptr)/declare void @llvm.directive.region.exit(token)/' -e 's/call ptr @llvm/call token @llvm/' -e 's/region.exit(ptr %%t)/region.exit(token %%t)/' %s | not %hpvm-opt --verify -disable-output - 2>&1 | FileCheck %s --check-prefix=STRAY
; CHECK: hpvm-opt: error: [marker] 'llvm.directive.region.entry' must be declared 'token ()', not 'ptr ()'
; CHECK: hpvm-opt: error: [marker] 'llvm.directive.region.exit' must be declared 'void (token)', not 'void (ptr)'
; STRAY: hpvm-opt: error: [marker] function 'stray': operand bundle 'hpvm.node' on a call that is not a region entry
; STRAY-NOT: error

@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"
declare ptr @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(ptr)
declare void @g(ptr)

define void @f(ptr %x) {
entry:
  %t = call ptr @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.inout"(ptr %x, i64 4) ]
  store float 1.0, ptr %x
  call void @llvm.directive.region.exit(ptr %t)
  ret void
}

define void @stray(ptr %x) {
entry:
  call void @g(ptr %x) [ "hpvm.node"(ptr @.leaf) ]
  ret void
}
