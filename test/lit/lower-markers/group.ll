; The marker tag GROUP (10: a count, then the extents) on a leaf region
; becomes an "hpvm.group" bundle, and EXTRACT makes the node a work-group
; leaf: each instance a work-group of that many work-items (Node::Group; the
; extents become parameters like dims do). On a region with child regions
; it is an error (rule "group"), and so are more than 3 extents, a GROUP
; twice, and an extent computed inside the graph.
; RUN: %hpvm-opt --lower-markers %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %hpvm-opt --verify --extract --print %t.ll -disable-output | FileCheck %s --check-prefix=GRAPH
; RUN: %hpvm-opt --extract %t.ll -S -o - | FileCheck %s --check-prefix=META
; RUN: sed '/@.outer,/s/, i32 0)$/, i32 10, i32 1, i64 4, i32 0)/' %s > %t.internal.ll
; RUN: not %hpvm-opt --lower-markers --verify --extract %t.internal.ll -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=INTERNAL
; RUN: sed 's/i32 10, i32 2, i64 16, i64 %w/i32 10, i32 4, i64 16, i64 %w, i64 1, i64 1/' %s > %t.four.ll
; RUN: not %hpvm-opt --lower-markers %t.four.ll -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOUR
; RUN: sed 's/i32 10, i32 2, i64 16, i64 %w/i32 10, i32 1, i64 16, i32 10, i32 1, i64 %w/' %s > %t.twice.ll
; RUN: not %hpvm-opt --lower-markers %t.twice.ll -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWICE

@.outer = private unnamed_addr constant [6 x i8] c"outer\00"
@.groups = private unnamed_addr constant [7 x i8] c"groups\00"

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

; n work-groups of 16 x w work-items: x[g] = 2 * x[g], once per group.
define void @outer(ptr %x, i64 %n, i64 %w) {
entry:
  %bytes = shl i64 %n, 2
  %r = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.outer, i32 4, ptr %x, i64 %bytes, i32 0)
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.groups, i32 1, i32 1, i64 %n, i32 4, ptr %x, i64 %bytes, i32 10, i32 2, i64 16, i64 %w, i32 0)
  br label %l
l:
  %g = phi i64 [ 0, %entry ], [ %g.next, %b ]
  %c = icmp slt i64 %g, %n
  br i1 %c, label %b, label %e
b:
  %p = getelementptr inbounds float, ptr %x, i64 %g
  %v = load float, ptr %p, align 4
  %y = fmul float %v, 2.0
  store float %y, ptr %p, align 4
  %g.next = add nsw i64 %g, 1
  br label %l
e:
  call void @__hpvm_region_end(ptr %h)
  call void @__hpvm_region_end(ptr %r)
  ret void
}

; CHECK: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.groups), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes), "hpvm.group"(i64 16, i64 %w) ]

; GRAPH: {{^  }}leaf groups dims [n] groups of [16, w]

; META: !{!"hpvm.node", !"name", !"groups", {{.*}}, !"group", ![[GROUP:[0-9]+]]
; META: ![[GROUP]] = !{i64 16, ![[W:[0-9]+]]}
; META: ![[W]] = !{!"param", i32 3}

; INTERNAL: error: [group] function 'outer', node 'outer': 'hpvm.group' on a region with child regions: only a leaf's instances are work-groups of work-items
; FOUR: error: {{.*}}GROUP must be followed by a constant count 1 to 3
; TWICE: error: {{.*}}GROUP appears more than once
