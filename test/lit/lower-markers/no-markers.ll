; A module without markers is left as it is.
; RUN: %hpvm-opt --lower-markers %s -S | FileCheck %s
; CHECK: define i32 @plain(i32 %x)
; CHECK-NEXT: ret i32 %x
; CHECK-NOT: llvm.directive
define i32 @plain(i32 %x) {
  ret i32 %x
}
