; [write-to-input]: a write other than a store (llvm.memset) through %a, which
; the leaf names only in hpvm.in.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [write-to-input] function 'clear_input', node 'clear':
; CHECK-NEXT: at: {{.*}}call void @llvm.memset

@.name.clear = private unnamed_addr constant [6 x i8] c"clear\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg)

define void @clear_input(ptr noalias %a, ptr noalias %b) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.clear),
      "hpvm.in"(ptr %a, i64 64), "hpvm.out"(ptr %b, i64 4) ]
  %v = load i32, ptr %a, align 4
  store i32 %v, ptr %b, align 4
  call void @llvm.memset.p0.i64(ptr align 4 %a, i8 0, i64 64, i1 false)
  call void @llvm.directive.region.exit(token %t)
  ret void
}
