; A 2-D leaf (5-point stencil): two wrapper loops, the first id over
; [begin, end) clamped to its extent, the second over its whole extent; only
; the inner one is marked parallel and vectorised (8 floats, five neighbour
; loads), the outer one only makes progress.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.g.ll -S -o - | FileCheck %s --check-prefix=O0

@.name.stencil = private unnamed_addr constant [8 x i8] c"stencil\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; out[(i+1)*m + j+1] = 0.2 * (centre + north + south + west + east)
define void @stencil(ptr %in, ptr %out, i64 %n, i64 %m) {
entry:
  %ni = add nsw i64 %n, -2
  %mj = add nsw i64 %m, -2
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.stencil),
      "hpvm.dims"(i64 %ni, i64 %mj),
      "hpvm.in"(ptr %in, i64 %bytes),
      "hpvm.out"(ptr %out, i64 %bytes),
      "hpvm.value"(i64 %m) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %ni
  br i1 %ci, label %i.body, label %i.end

i.body:
  %row = add nuw nsw i64 %i, 1
  %rowoff = mul nsw i64 %row, %m
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.body ]
  %cj = icmp slt i64 %j, %mj
  br i1 %cj, label %j.body, label %i.latch

j.body:
  %col = add nuw nsw i64 %j, 1
  %idx = add nsw i64 %rowoff, %col
  %p.c = getelementptr inbounds float, ptr %in, i64 %idx
  %v.c = load float, ptr %p.c, align 4
  %idx.n = sub nsw i64 %idx, %m
  %p.n = getelementptr inbounds float, ptr %in, i64 %idx.n
  %v.n = load float, ptr %p.n, align 4
  %idx.s = add nsw i64 %idx, %m
  %p.s = getelementptr inbounds float, ptr %in, i64 %idx.s
  %v.s = load float, ptr %p.s, align 4
  %p.w = getelementptr inbounds float, ptr %p.c, i64 -1
  %v.w = load float, ptr %p.w, align 4
  %p.e = getelementptr inbounds float, ptr %p.c, i64 1
  %v.e = load float, ptr %p.e, align 4
  %s1 = fadd float %v.c, %v.n
  %s2 = fadd float %s1, %v.s
  %s3 = fadd float %s2, %v.w
  %s4 = fadd float %s3, %v.e
  %r = fmul float %s4, 0x3FC99999A0000000
  %p.o = getelementptr inbounds float, ptr %out, i64 %idx
  store float %r, ptr %p.o, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond

i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; CHECK-LABEL: define void @hpvm.cpu.stencil(
; CHECK:         %end.clamped = tail call i64 @llvm.smin.i64(i64 %end, i64 %ni)
; CHECK:       vector.body:
; CHECK-COUNT-5: load <8 x float>
; CHECK:         fmul <8 x float>
; CHECK:         store <8 x float>
; CHECK:         br i1 {{.*}}, label %middle.block, label %vector.body, !llvm.loop [[VLOOP:![0-9]+]]
; CHECK:       middle.block:
; The scalar remainder of the inner loop, and the outer loop's latch.
; CHECK-DAG:     fmul float
; CHECK-DAG:     icmp eq i64 %{{.*}}, %mj
; CHECK-DAG:     icmp eq i64 %{{.*}}, %end.clamped
; CHECK-DAG:     br i1 %{{.*}}, label %exit, label %i0, !llvm.loop [[OLOOP:![0-9]+]]
; CHECK:         ret void
; CHECK-DAG:   [[VLOOP]] = distinct !{[[VLOOP]], [[MP:![0-9]+]], [[PA:![0-9]+]], [[IL:![0-9]+]], [[ISVEC:![0-9]+]], {{.*}}}
; CHECK-DAG:   [[OLOOP]] = distinct !{[[OLOOP]], [[MP]]}
; CHECK-DAG:   [[MP]] = !{!"llvm.loop.mustprogress"}
; CHECK-DAG:   [[PA]] = !{!"llvm.loop.parallel_accesses", !{{[0-9]+}}}

; O0-LABEL: define void @hpvm.cpu.stencil(
; O0:         %[[M:.*]] = load i64, ptr %mj.addr
; O0:         %end.clamped = call i64 @llvm.smin.i64(i64 %end, i64 %ni)
; O0:         %[[R0:.*]] = icmp slt i64 %begin.clamped, %end.clamped
; O0-NEXT:    %[[R1:.*]] = icmp slt i64 0, %mj
; O0-NEXT:    %[[RANGE:.*]] = and i1 %[[R0]], %[[R1]]
; O0-NEXT:    br i1 %[[RANGE]], label %instances, label %exit
; O0:       i0:
; O0-NEXT:    %[[I0:.*]] = phi i64 [ %begin.clamped, %instances ], [ %i0.next, %i0.latch ]
; O0-NEXT:    br label %i1
; O0:       i1:
; O0-NEXT:    %[[I1:.*]] = phi i64 [ 0, %i0 ], [ %i1.next, %i1.latch ]
; O0:         store float {{.*}}, !llvm.access.group ![[AG:[0-9]+]]
; O0:       i0.latch:
; O0:         br i1 %{{.*}}, label %i0, label %exit, !llvm.loop ![[OUTER:[0-9]+]]
; O0:       i1.latch:
; O0-NEXT:    %i1.next = add nsw i64 %[[I1]], 1
; O0-NEXT:    %[[MORE:.*]] = icmp slt i64 %i1.next, %mj
; O0-NEXT:    br i1 %[[MORE]], label %i1, label %i0.latch, !llvm.loop ![[INNER:[0-9]+]]
; O0-DAG:   ![[OUTER]] = distinct !{![[OUTER]], ![[MP:[0-9]+]]}
; O0-DAG:   ![[INNER]] = distinct !{![[INNER]], ![[MP]], ![[PA:[0-9]+]], ![[IL:[0-9]+]], ![[VE:[0-9]+]]}
; O0-DAG:   ![[PA]] = !{!"llvm.loop.parallel_accesses", ![[AG]]}
