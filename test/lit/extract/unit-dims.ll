; LLVM folds a loop that runs once into its body, so a dim of extent 1 may
; have no loop. (a) dims (1): no loop at all, the body is the one instance;
; (b) dims (8, 1): the inner loop is gone, the outer one is dim 0; (c) dims
; (1, 8): the outer loop is gone, the loop left is dim 1, and its ids are
; dim 1's. A dim of extent 1 whose loop is still there keeps it (d).
; RUN: %hpvm-opt --extract %s -S -o - | FileCheck %s

@.name.one = private unnamed_addr constant [4 x i8] c"one\00"
@.name.rows = private unnamed_addr constant [5 x i8] c"rows\00"
@.name.cols = private unnamed_addr constant [5 x i8] c"cols\00"
@.name.kept = private unnamed_addr constant [5 x i8] c"kept\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @one(ptr noalias %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.one),
      "hpvm.dims"(i64 1), "hpvm.out"(ptr %a, i64 4) ]
  store float 5.0, ptr %a, align 4
  call void @llvm.directive.region.exit(token %t)
  ret void
}
; CHECK-LABEL: define internal void @hpvm.node.one(ptr
; CHECK-NOT: hpvm.instance.id
; CHECK: store float 5.000000e+00
; CHECK: ret void

define void @rows(ptr noalias %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rows),
      "hpvm.dims"(i64 8, i64 1), "hpvm.out"(ptr %a, i64 32) ]
  br label %i.cond
i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.body ]
  %c = icmp slt i64 %i, 8
  br i1 %c, label %i.body, label %i.end
i.body:
  %p = getelementptr inbounds float, ptr %a, i64 %i
  store float 1.0, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond
i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
; CHECK-LABEL: define internal void @hpvm.node.rows(ptr
; CHECK: %id0 = call i64 @hpvm.instance.id(i32 0, i32 0)
; CHECK-NOT: hpvm.instance.id
; CHECK: ret void

define void @cols(ptr noalias %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.cols),
      "hpvm.dims"(i64 1, i64 8), "hpvm.out"(ptr %a, i64 32) ]
  br label %j.cond
j.cond:
  %j = phi i64 [ 0, %entry ], [ %j.next, %j.body ]
  %c = icmp slt i64 %j, 8
  br i1 %c, label %j.body, label %j.end
j.body:
  %p = getelementptr inbounds float, ptr %a, i64 %j
  store float 2.0, ptr %p, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond
j.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
; CHECK-LABEL: define internal void @hpvm.node.cols(ptr
; CHECK: %id1 = call i64 @hpvm.instance.id(i32 0, i32 1)
; CHECK-NOT: hpvm.instance.id
; CHECK: ret void

define void @kept(ptr noalias %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.kept),
      "hpvm.dims"(i64 1), "hpvm.out"(ptr %a, i64 4) ]
  br label %k.cond
k.cond:
  %k = phi i64 [ 0, %entry ], [ %k.next, %k.body ]
  %c = icmp slt i64 %k, 1
  br i1 %c, label %k.body, label %k.end
k.body:
  %p = getelementptr inbounds float, ptr %a, i64 %k
  store float 3.0, ptr %p, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %k.cond
k.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
; CHECK-LABEL: define internal void @hpvm.node.kept(ptr
; CHECK: %id0 = call i64 @hpvm.instance.id(i32 0, i32 0)
; CHECK: store float 3.000000e+00
