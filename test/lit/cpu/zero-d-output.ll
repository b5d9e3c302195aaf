; A leaf without dims (one instance) that has outputs, in graph form (region
; form has no outputs): the wrapper runs it once per id in [begin, end)
; (the runtime passes [0, 1)) and stores its results to outs[k], an i1 as a
; one-byte C bool. There are no instances to run in parallel, so the loop
; gets no parallel-access metadata.
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %s -S -o - | FileCheck %s --check-prefix=O3

define internal { i64, i1 } @hpvm.node.stats(ptr %a, i64 %bytes, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %neg = phi i1 [ false, %entry ], [ %neg.next, %loop ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %p, align 4
  %v64 = sext i32 %v to i64
  %sum.next = add i64 %sum, %v64
  %isneg = icmp slt i32 %v, 0
  %neg.next = or i1 %neg, %isneg
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  %s = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %g = phi i1 [ false, %entry ], [ %neg.next, %loop ]
  %r0 = insertvalue { i64, i1 } undef, i64 %s, 0
  %r1 = insertvalue { i64, i1 } %r0, i1 %g, 1
  ret { i64, i1 } %r1
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"stats", !1}
!1 = !{!"hpvm.node", !"name", !"stats", !"kind", !"leaf", !"function", ptr @hpvm.node.stats, !"params", !2, !"outputs", !6}
!2 = !{!3, !5, !9}
!3 = !{!"buffer", !"a", !"in", !4}
!4 = !{!"param", i32 1}
!5 = !{!"value", !"bytes", !"i64"}
!9 = !{!"value", !"n", !"i64"}
!6 = !{!7, !8}
!7 = !{!"sum", !"i64"}
!8 = !{!"negative", !"i1"}

; CHECK-LABEL: define void @hpvm.cpu.stats(ptr %args, ptr %outs, ptr %dims, ptr %outer_ids, i64 %begin, i64 %end)
; CHECK-NOT:     smin
; CHECK:         %[[NONEMPTY:.*]] = icmp slt i64 %begin, %end
; CHECK-NEXT:    br i1 %[[NONEMPTY]], label %instances, label %exit
; CHECK:       i0:
; CHECK-NEXT:    %[[I:.*]] = phi i64 [ %begin, %instances ], [ %i0.next, %i0.latch ]
; CHECK:         %[[RES:.*]] = insertvalue { i64, i1 } %{{.*}}, i1 %{{.*}}, 1
; CHECK:         %[[SUM:.*]] = extractvalue { i64, i1 } %[[RES]], 0
; CHECK-NEXT:    %[[S0:.*]] = getelementptr inbounds ptr, ptr %outs, i64 0
; CHECK-NEXT:    %sum.dst = load ptr, ptr %[[S0]], align 8
; CHECK-NEXT:    store i64 %[[SUM]], ptr %sum.dst, align 8
; CHECK-NEXT:    %[[NEG:.*]] = extractvalue { i64, i1 } %[[RES]], 1
; CHECK-NEXT:    %[[S1:.*]] = getelementptr inbounds ptr, ptr %outs, i64 1
; CHECK-NEXT:    %negative.dst = load ptr, ptr %[[S1]], align 8
; CHECK-NEXT:    %[[BYTE:.*]] = zext i1 %[[NEG]] to i8
; CHECK-NEXT:    store i8 %[[BYTE]], ptr %negative.dst, align 1
; CHECK:       i0.latch:
; CHECK:         br i1 %{{.*}}, label %i0, label %exit, !llvm.loop ![[LOOP:[0-9]+]]
; CHECK-NOT:   llvm.access.group
; CHECK:       ![[LOOP]] = distinct !{![[LOOP]], ![[MP:[0-9]+]]}
; CHECK-NEXT:  ![[MP]] = !{!"llvm.loop.mustprogress"}
; CHECK-NOT:   parallel_accesses

; O3-LABEL: define void @hpvm.cpu.stats(
; O3:         store i64 %{{.*}}, ptr %sum.dst
; O3:         store i8 %{{.*}}, ptr %negative.dst
