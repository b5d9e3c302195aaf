; A loop nothing leaves, entered through a block of its own (a preheader)
; from inside a parallel loop (random seed 594: the edge into the
; preheader was taken for a second exit, "a parallel loop may not break").
; The block is on the way into the loop: part of the body, as the loop is.
; RUN: %hpvm-opt --verify --extract %s -S -o - | FileCheck %s
; A block that goes on anywhere else is still an exit:
; RUN: sed 's/br label %%spin ; into the loop/br label %%for.end/' %s > %t.exit.ll
; RUN: not %hpvm-opt --verify -disable-output %t.exit.ll 2>&1 | FileCheck %s --check-prefix=EXIT
; EXIT: error: [parallel-loop] function 'k', node 'k': loop 'for.body' (dim 0) has more than one exit; a parallel loop may not break

; CHECK-LABEL: define internal void @hpvm.node.k(
; CHECK: br i1 %spins, label %spin.ph, label %next
; CHECK: spin.ph:
; CHECK-NEXT: br label %spin{{$}}
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
  br i1 %spins, label %spin.ph, label %next

spin.ph:
  br label %spin ; into the loop

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
