; [parallel-loop]: the node's extent is the 64-bit %n, but its loop counts in
; 32 bits up to (i32)%n: for n of 2^32 or more the loop runs other
; iterations than the node's instances (it used to be accepted, the
; truncation taken as a match). A 32-bit loop whose 64-bit extent is a
; 32-bit value extended (@ok, what C's `int i < int m` gives) stays valid.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'bad', node 'leaf': loop 'l' (dim 0) runs {{.*}} times but the node's dims[0] is %n
; CHECK-NOT: error

@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @bad(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %n32 = trunc i64 %n to i32
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %l
l:
  %i = phi i32 [ 0, %entry ], [ %i.next, %b ]
  %c = icmp slt i32 %i, %n32
  br i1 %c, label %b, label %e
b:
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %i64
  store float 1.0, ptr %p, align 4
  %i.next = add nsw i32 %i, 1
  br label %l
e:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

define void @ok(ptr %x, i32 %m) {
entry:
  %n = sext i32 %m to i64
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %l
l:
  %i = phi i32 [ 0, %entry ], [ %i.next, %b ]
  %c = icmp slt i32 %i, %m
  br i1 %c, label %b, label %e
b:
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %i64
  store float 1.0, ptr %p, align 4
  %i.next = add nsw i32 %i, 1
  br label %l
e:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
