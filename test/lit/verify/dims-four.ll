; [dims]: four replication extents (at most three are allowed), even with a
; matching four-deep loop nest.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [dims] function 'four_d', node 'zero4':

@.name.zero4 = private unnamed_addr constant [6 x i8] c"zero4\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; a[((i*2 + j)*2 + k)*2 + l] = 0 over 2x2x2x2
define void @four_d(ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.zero4),
      "hpvm.dims"(i64 2, i64 2, i64 2, i64 2),
      "hpvm.out"(ptr %a, i64 64) ]
  br label %i.cond
i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, 2
  br i1 %ci, label %i.body, label %i.end
i.body:
  br label %j.cond
j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.latch ]
  %cj = icmp slt i64 %j, 2
  br i1 %cj, label %j.body, label %i.latch
j.body:
  br label %k.cond
k.cond:
  %k = phi i64 [ 0, %j.body ], [ %k.next, %k.latch ]
  %ck = icmp slt i64 %k, 2
  br i1 %ck, label %k.body, label %j.latch
k.body:
  br label %l.cond
l.cond:
  %l = phi i64 [ 0, %k.body ], [ %l.next, %l.body ]
  %cl = icmp slt i64 %l, 2
  br i1 %cl, label %l.body, label %k.latch
l.body:
  %x1 = shl i64 %i, 1
  %x2 = add i64 %x1, %j
  %x3 = shl i64 %x2, 1
  %x4 = add i64 %x3, %k
  %x5 = shl i64 %x4, 1
  %idx = add i64 %x5, %l
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  store i32 0, ptr %p, align 4
  %l.next = add nuw nsw i64 %l, 1
  br label %l.cond
k.latch:
  %k.next = add nuw nsw i64 %k, 1
  br label %k.cond
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
