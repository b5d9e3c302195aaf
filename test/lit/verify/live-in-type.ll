; [live-in-type]: the leaf uses a <4 x float> from before the graph; no node
; parameter can have a vector type.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [live-in-type] function 'vector_live_in', node 'spread':

@.name.spread = private unnamed_addr constant [7 x i8] c"spread\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; x[i] = v[i % 4]
define void @vector_live_in(ptr %x, <4 x float> %v, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.spread),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %x, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %k = trunc i64 %i to i32
  %k3 = and i32 %k, 3
  %f = extractelement <4 x float> %v, i32 %k3
  %p = getelementptr inbounds float, ptr %x, i64 %i
  store float %f, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
