; EXTRACT of a function whose only marker is an exit with no entry: a [marker]
; error, exit status 1, no crash.
; RUN: not %hpvm-opt --extract %s -disable-output 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
; CHECK: hpvm-opt: error: [marker] function 'lonely_exit'

declare void @llvm.directive.region.exit(token)

define void @lonely_exit() {
entry:
  call void @llvm.directive.region.exit(token none)
  ret void
}
