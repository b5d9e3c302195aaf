; A 3-D leaf: three wrapper loops (first id over [begin, end), the others
; over [0, d1) and [0, d2)), all three ids replaced, the innermost loop
; vectorised and the two outer ones only marked to make progress.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.g.ll -S -o - | FileCheck %s --check-prefix=O0

@.name.scale3 = private unnamed_addr constant [7 x i8] c"scale3\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; c[(i*d1 + j)*d2 + k] = 2 * a[(i*d1 + j)*d2 + k]
define void @scale3(ptr %a, ptr %c, i64 %d0, i64 %d1, i64 %d2) {
entry:
  %p01 = mul nsw i64 %d0, %d1
  %p012 = mul nsw i64 %p01, %d2
  %bytes = shl i64 %p012, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.scale3),
      "hpvm.dims"(i64 %d0, i64 %d1, i64 %d2),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %d0
  br i1 %ci, label %i.body, label %i.end

i.body:
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.latch ]
  %cj = icmp slt i64 %j, %d1
  br i1 %cj, label %j.body, label %i.latch

j.body:
  br label %k.cond

k.cond:
  %k = phi i64 [ 0, %j.body ], [ %k.next, %k.body ]
  %ck = icmp slt i64 %k, %d2
  br i1 %ck, label %k.body, label %j.latch

k.body:
  %ij = mul nsw i64 %i, %d1
  %ij2 = add nsw i64 %ij, %j
  %ijk1 = mul nsw i64 %ij2, %d2
  %idx = add nsw i64 %ijk1, %k
  %pa = getelementptr inbounds float, ptr %a, i64 %idx
  %va = load float, ptr %pa, align 4
  %r = fmul float %va, 2.000000e+00
  %pc = getelementptr inbounds float, ptr %c, i64 %idx
  store float %r, ptr %pc, align 4
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

; CHECK-LABEL: define void @hpvm.cpu.scale3(
; CHECK-NOT:   @hpvm.instance.id
; CHECK:       vector.body:
; CHECK:         load <8 x float>
; CHECK:         fmul <8 x float>
; CHECK:         store <8 x float>
; CHECK:         ret void

; O0-LABEL: define void @hpvm.cpu.scale3(
; O0:         %end.clamped = call i64 @llvm.smin.i64(i64 %end, i64 %d0)
; O0:         icmp slt i64 %begin.clamped, %end.clamped
; O0:         icmp slt i64 0, %d1
; O0:         icmp slt i64 0, %d2
; O0:       i0:
; O0-NEXT:    %[[I:.*]] = phi i64 [ %begin.clamped, %instances ]
; O0:       i1:
; O0-NEXT:    %[[J:.*]] = phi i64 [ 0, %i0 ]
; O0:       i2:
; O0-NEXT:    %[[K:.*]] = phi i64 [ 0, %i1 ]
; O0-NOT:     @hpvm.instance.id
; O0:         mul nsw i64 %[[I]], %d1
; O0-NEXT:    add nsw i64 %{{.*}}, %[[J]]
; O0:         add nsw i64 %{{.*}}, %[[K]]
; O0:         store float {{.*}}, !llvm.access.group ![[AG:[0-9]+]]
; O0:       i0.latch:
; O0:         br i1 %{{.*}}, label %i0, label %exit, !llvm.loop ![[L0:[0-9]+]]
; O0:       i1.latch:
; O0:         br i1 %{{.*}}, label %i1, label %i0.latch, !llvm.loop ![[L1:[0-9]+]]
; O0:       i2.latch:
; O0:         br i1 %{{.*}}, label %i2, label %i1.latch, !llvm.loop ![[L2:[0-9]+]]
; O0-DAG:   ![[L0]] = distinct !{![[L0]], ![[MP:[0-9]+]]}
; O0-DAG:   ![[L1]] = distinct !{![[L1]], ![[MP]]}
; O0-DAG:   ![[L2]] = distinct !{![[L2]], ![[MP]], ![[PA:[0-9]+]], ![[IL:[0-9]+]], ![[VE:[0-9]+]]}
; O0-DAG:   ![[PA]] = !{!"llvm.loop.parallel_accesses", ![[AG]]}
; O0-DAG:   ![[IL]] = !{!"hpvm.cpu.instance_loop"}
; O0-DAG:   ![[VE]] = !{!"llvm.loop.vectorize.enable", i1 true}
