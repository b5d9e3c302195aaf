; A phi in the entry block (no predecessors to take values from).
define void @f(ptr %x, i64 %n) {
entry:
  %p = phi i64 [ 0, %entry ]
  store i64 %p, ptr %x
  ret void
}
