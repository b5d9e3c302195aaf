; EXTRACT of a 2-D leaf whose body has its own sequential loop (a k-reduction
; of a matrix product) and a branch (negative sums clamped to 0): the parallel
; loops become instance ids (0,0) and (0,1); the inner loop and its
; loop-carried sum stay in the leaf.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.matmul = private unnamed_addr constant [7 x i8] c"matmul\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; c[i*m + j] = sum_k a[i*p + k] * b[k*m + j];  relu: if (sum < 0) sum = 0
define void @matmul(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n, i64 %m, i64 %p) {
entry:
  %np = mul nsw i64 %n, %p
  %abytes = shl i64 %np, 2
  %pm = mul nsw i64 %p, %m
  %bbytes = shl i64 %pm, 2
  %nm = mul nsw i64 %n, %m
  %cbytes = shl i64 %nm, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.matmul),
      "hpvm.dims"(i64 %n, i64 %m),
      "hpvm.in"(ptr %a, i64 %abytes, ptr %b, i64 %bbytes),
      "hpvm.out"(ptr %c, i64 %cbytes),
      "hpvm.value"(i64 %p) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %n
  br i1 %ci, label %i.body, label %i.end

i.body:
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.latch ]
  %cj = icmp slt i64 %j, %m
  br i1 %cj, label %k.pre, label %i.latch

k.pre:
  br label %k.cond

k.cond:
  %k = phi i64 [ 0, %k.pre ], [ %k.next, %k.body ]
  %acc = phi i32 [ 0, %k.pre ], [ %acc.next, %k.body ]
  %ck = icmp slt i64 %k, %p
  br i1 %ck, label %k.body, label %k.end

k.body:
  %ip = mul nsw i64 %i, %p
  %ia = add nsw i64 %ip, %k
  %pa = getelementptr inbounds i32, ptr %a, i64 %ia
  %va = load i32, ptr %pa, align 4
  %km = mul nsw i64 %k, %m
  %ib = add nsw i64 %km, %j
  %pb = getelementptr inbounds i32, ptr %b, i64 %ib
  %vb = load i32, ptr %pb, align 4
  %prod = mul i32 %va, %vb
  %acc.next = add i32 %acc, %prod
  %k.next = add nuw nsw i64 %k, 1
  br label %k.cond

k.end:
  %neg = icmp slt i32 %acc, 0
  br i1 %neg, label %clamp, label %store

clamp:
  br label %store

store:
  %res = phi i32 [ 0, %clamp ], [ %acc, %k.end ]
  %im = mul nsw i64 %i, %m
  %ic = add nsw i64 %im, %j
  %pc = getelementptr inbounds i32, ptr %c, i64 %ic
  store i32 %res, ptr %pc, align 4
  br label %j.latch

j.latch:
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond

i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; LEAF-LABEL: define internal void @hpvm.node.matmul(
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 1)
; LEAF: %k = phi i64 [ 0,
; LEAF-NEXT: %acc = phi i32 [ 0,
; LEAF: icmp slt i64 %k, %p
; LEAF: icmp slt i32 %acc, 0
; LEAF: store i32
; LEAF: ret void

; META-DAG: !{!"hpvm.node", !"name", !"matmul", !"kind", !"leaf", !"function", ptr @hpvm.node.matmul, !"dims", ![[D:[0-9]+]],
; META-DAG: ![[D]] = !{![[D0:[0-9]+]], ![[D1:[0-9]+]]}
; META-DAG: !{!"value", !"p", !"i64"}
