; [dynamic-extent]: the byte size of a buffer of child 'cols' depends on the
; instance id %r of its enclosing node 'rows'.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [dynamic-extent] function 'growing_buffer',
; CHECK-SAME: node '{{.*}}cols'

@.name.rows = private unnamed_addr constant [5 x i8] c"rows\00"
@.name.cols = private unnamed_addr constant [5 x i8] c"cols\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; a[r*m + c] = 2, child r claiming only rows 0..r of a
define void @growing_buffer(ptr %a, i64 %n, i64 %m) {
entry:
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 2
  %t.r = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rows),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes), "hpvm.value"(i64 %m) ]
  br label %r.cond

r.cond:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %cr = icmp slt i64 %r, %n
  br i1 %cr, label %r.body, label %r.end

r.body:
  %r1 = add nuw nsw i64 %r, 1
  %r1m = mul nsw i64 %r1, %m
  %rbytes = shl i64 %r1m, 2
  %t.c = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.cols),
      "hpvm.dims"(i64 %m), "hpvm.out"(ptr %a, i64 %rbytes) ]
  br label %c.cond

c.cond:
  %c = phi i64 [ 0, %r.body ], [ %c.next, %c.body ]
  %cc = icmp slt i64 %c, %m
  br i1 %cc, label %c.body, label %c.end

c.body:
  %row = mul nsw i64 %r, %m
  %idx = add nsw i64 %row, %c
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  store i32 2, ptr %p, align 4
  %c.next = add nuw nsw i64 %c, 1
  br label %c.cond

c.end:
  call void @llvm.directive.region.exit(token %t.c)
  br label %r.latch

r.latch:
  %r.next = add nuw nsw i64 %r, 1
  br label %r.cond

r.end:
  call void @llvm.directive.region.exit(token %t.r)
  ret void
}
