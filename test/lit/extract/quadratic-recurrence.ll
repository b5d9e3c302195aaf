; A header phi that is a second-order recurrence of the instance id: the
; simplification pipeline strength-reduces `i * (i + 1) / 2` (or `i * i`)
; into q += d; d += 1 (here in i3, from a random program's `(i*i) & 7`).
; It is a function of the instance id, not a value carried between
; instances: the leaf computes it from the id as c0 + c1*i + c2*i*(i-1)/2,
; halving the even factor so that the width stays the phi's (it used to
; fail with "carries a value from one iteration to the next").
; A recurrence that is not a polynomial of the id is still an error:
; verify/parallel-loop-reduction.ll, verify/parallel-loop-cubic.ll.
; RUN: %hpvm-opt --verify --extract %s -S -o - | FileCheck %s

; CHECK-LABEL: define internal void @hpvm.node.k(
; CHECK-NOT: phi i3
; CHECK: %hpvm.pairs = select i1
; CHECK: %hpvm.quadratic = add i3
; CHECK: store i8

@.name.k = private unnamed_addr constant [2 x i8] c"k\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @k(ptr %o, i64 %n) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.k),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %o, i64 4096) ]
  %guard = icmp slt i64 0, %n
  br i1 %guard, label %for.body, label %for.end

for.body:
  %i = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %q = phi i3 [ %q.next, %for.body ], [ -1, %entry ]
  %d = phi i3 [ %d.next, %for.body ], [ -1, %entry ]
  %q.next = add i3 %q, %d
  %d.next = add i3 %d, -2
  %v = zext i3 %q to i8
  %dst = getelementptr inbounds i8, ptr %o, i64 %i
  store i8 %v, ptr %dst, align 1
  %inc = add nuw nsw i64 %i, 1
  %more = icmp ne i64 %inc, %n
  br i1 %more, label %for.body, label %for.end

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
