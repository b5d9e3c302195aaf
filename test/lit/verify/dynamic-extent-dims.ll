; [dynamic-extent]: the dims of child 'tri' depend on the instance id %r of
; its enclosing node 'rows' (a triangular nest: row r has r+1 columns).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [dynamic-extent] function 'triangle',
; CHECK-SAME: node '{{.*}}tri'

@.name.rows = private unnamed_addr constant [5 x i8] c"rows\00"
@.name.tri = private unnamed_addr constant [4 x i8] c"tri\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; a[r*n + c] = 1 for c <= r
define void @triangle(ptr %a, i64 %n) {
entry:
  %nn = mul nsw i64 %n, %n
  %bytes = shl i64 %nn, 2
  %t.r = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rows),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %a, i64 %bytes) ]
  br label %r.cond

r.cond:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %cr = icmp slt i64 %r, %n
  br i1 %cr, label %r.body, label %r.end

r.body:
  %r1 = add nuw nsw i64 %r, 1
  %t.c = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.tri),
      "hpvm.dims"(i64 %r1), "hpvm.out"(ptr %a, i64 %bytes) ]
  br label %c.cond

c.cond:
  %c = phi i64 [ 0, %r.body ], [ %c.next, %c.body ]
  %cc = icmp slt i64 %c, %r1
  br i1 %cc, label %c.body, label %c.end

c.body:
  %row = mul nsw i64 %r, %n
  %idx = add nsw i64 %row, %c
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  store i32 1, ptr %p, align 4
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
