; A loop nothing leaves, reached from inside a parallel loop: the optimiser
; leaves them where the rest of the path cannot matter (a random program's
; `for (c = 0; c < (v & 7); c++) v |= f(...)` became one). It is not a second
; outermost loop of the nest (that was the error: "found 2 outermost
; loops"), an edge into it is no exit, its call no write outside the
; innermost loop, and the leaf keeps it as it is: an instance that gets
; there never ends, as in the region.
; RUN: %hpvm-opt --verify --extract %s -S -o - | FileCheck %s
; A loop nothing leaves is still no parallel loop of the nest:
; RUN: sed 's/hpvm.dims"(i64 %%n)/hpvm.dims"(i64 %%n, i64 %%n)/' %s > %t.2d.ll
; RUN: not %hpvm-opt --verify -disable-output %t.2d.ll 2>&1 | FileCheck %s --check-prefix=TWO
; TWO: error: [parallel-loop] function 'k', node 'k': loop 'for.body' (dim 0) must contain exactly one loop (dim 1); found 0

; CHECK-LABEL: define internal void @hpvm.node.k(
; CHECK: br i1 %spins, label %spin, label %next
; CHECK: spin:
; CHECK-NEXT: call i32 @f()
; CHECK-NEXT: br label %spin

@.name.k = private unnamed_addr constant [2 x i8] c"k\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare i32 @f()

define void @k(ptr %in, ptr %o, i64 %n) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.k),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %in, i64 4096), "hpvm.out"(ptr %o, i64 4096) ]
  %guard = icmp slt i64 0, %n
  br i1 %guard, label %for.body, label %for.end

for.body:
  %i = phi i64 [ %inc, %next ], [ 0, %entry ]
  %p = getelementptr inbounds i32, ptr %in, i64 %i
  %x = load i32, ptr %p, align 4
  %low = and i32 %x, 7
  %spins = icmp ne i32 %low, 0
  br i1 %spins, label %spin, label %next

spin:
  %r = call i32 @f()
  br label %spin

next:
  %dst = getelementptr inbounds i32, ptr %o, i64 %i
  store i32 %x, ptr %dst, align 4
  %inc = add nuw nsw i64 %i, 1
  %more = icmp ne i64 %inc, %n
  br i1 %more, label %for.body, label %for.end

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
