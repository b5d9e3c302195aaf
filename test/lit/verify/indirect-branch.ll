; [indirect-branch]: a leaf that takes block addresses and branches through
; one ('goto *p' in C). EXTRACT would move the blocks into the leaf's own
; function while the addresses still named the enclosing one (it used to
; write IR that does not parse, with exit status 0).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; RUN: not %hpvm-opt --extract -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [indirect-branch] function 'f', node 'leaf': block addresses and indirect branches ('goto *p', asm goto) cannot be moved into a node's function
; CHECK-NOT: error

@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %l
l:
  %i = phi i64 [ 0, %entry ], [ %i.next, %b2 ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e
b:
  %p = getelementptr inbounds float, ptr %x, i64 %i
  %odd = trunc i64 %i to i1
  %target = select i1 %odd, ptr blockaddress(@f, %b1), ptr blockaddress(@f, %b2)
  indirectbr ptr %target, [label %b1, label %b2]
b1:
  store float 1.0, ptr %p, align 4
  br label %b2
b2:
  %i.next = add nsw i64 %i, 1
  br label %l
e:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
