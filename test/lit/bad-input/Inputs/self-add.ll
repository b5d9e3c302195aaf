; An instruction that uses itself outside a phi: the cycle hung SCEV.
define void @f(i32 %n) {
entry:
  br label %body
body:
  %x = add i32 %x, 1
  br label %body
}
