; A phi naming a block that is not a predecessor.
define i32 @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %v = phi i32 [ 1, %a ], [ 2, %entry ]
  ret i32 %v
}
