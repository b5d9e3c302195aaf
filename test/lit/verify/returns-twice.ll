; [returns-twice]: a leaf that calls a setjmp-like function (returns_twice),
; as hand-written IR or a C library the frontend does not know may do.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [returns-twice] function 'f', node 'leaf': a call that may return twice
; CHECK-NOT: error

@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"
@env = global [200 x i8] zeroinitializer
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare i32 @my_setjmp(ptr) returns_twice

define void @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %l
l:
  %i = phi i64 [ 0, %entry ], [ %i.next, %b ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e
b:
  %r = call i32 @my_setjmp(ptr @env)
  %v = sitofp i32 %r to float
  %p = getelementptr inbounds float, ptr %x, i64 %i
  store float %v, ptr %p, align 4
  %i.next = add nsw i64 %i, 1
  br label %l
e:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
