; Positive: a module without regions or graphs is trivially valid.
; RUN: %hpvm-opt --verify -disable-output %s 2>&1 | count 0

define i32 @plain(i32 %x) {
entry:
  %y = add i32 %x, 1
  ret i32 %y
}
