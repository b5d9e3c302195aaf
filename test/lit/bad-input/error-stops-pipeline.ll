; A broken rule stops the HPVM passes that follow in the pipeline: EXTRACT
; reports [write-to-input], so the hpvm-print after it prints nothing.
; RUN: not %hpvm-opt --extract --print -disable-output %s 2> %t.err | count 0
; RUN: FileCheck %s < %t.err --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
; CHECK: hpvm-opt: error: [write-to-input] function 'in_place', node 'incr':

@.name.incr = private unnamed_addr constant [5 x i8] c"incr\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @in_place(ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.incr),
      "hpvm.in"(ptr %a, i64 4) ]
  %v = load i32, ptr %a, align 4
  %v1 = add i32 %v, 1
  store i32 %v1, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
