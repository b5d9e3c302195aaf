; [binding]: a child names x + r*r floats, a section of its parent's buffer,
; but one whose start is not affine in the parent's instance id, so it cannot
; be a section offset (docs/ir.md §1); nor is it one of the parent's buffers.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [binding] function 'squares', node 'rows': node 'fill' names buffer {{.*}}%row{{.*}}, which is not one of the buffers of its parent, nor a section of one that starts at an offset affine in the instance ids of its ancestors

@.name.rows = private unnamed_addr constant [5 x i8] c"rows\00"
@.name.fill = private unnamed_addr constant [5 x i8] c"fill\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @squares(ptr noalias %x, i64 %R, i64 %n) {
entry:
  %bytes = shl i64 %R, 8
  %t.o = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rows),
      "hpvm.dims"(i64 %R), "hpvm.out"(ptr %x, i64 %bytes) ]
  br label %r.cond

r.cond:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %rc = icmp slt i64 %r, %R
  br i1 %rc, label %r.body, label %r.end

r.body:
  %sq = mul nsw i64 %r, %r
  %row = getelementptr inbounds float, ptr %x, i64 %sq
  %t.i = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.fill),
      "hpvm.out"(ptr %row, i64 4) ]
  store float 1.0, ptr %row, align 4
  call void @llvm.directive.region.exit(token %t.i)
  br label %r.latch

r.latch:
  %r.next = add nuw nsw i64 %r, 1
  br label %r.cond

r.end:
  call void @llvm.directive.region.exit(token %t.o)
  ret void
}
