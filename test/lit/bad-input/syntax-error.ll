; A .ll file with a syntax error (a use of an undefined value): the parser's
; diagnostic with file and line, exit status non-zero, no crash.
; RUN: not %hpvm-opt --verify %s -disable-output 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
; CHECK: syntax-error.ll:{{[0-9]+}}:{{[0-9]+}}: error:

define i32 @f(i32 %x) {
entry:
  %y = add i32 %x, %undefined_value
  ret i32 %y
}
