; The marker tag SEQUENTIAL (9) on a replicated region around a child
; region becomes an "hpvm.sequential" bundle, and EXTRACT makes the node
; sequential (its steps run in order). On a region without child regions
; (a leaf) it is an error; the bundle takes no operands.
; RUN: %hpvm-opt --lower-markers %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %hpvm-opt --verify --extract --print %t.ll -disable-output | FileCheck %s --check-prefix=GRAPH
; RUN: sed '/@.leaf,/s/, i32 0)$/, i32 9, i32 0)/' %s > %t.leaf.ll
; RUN: not %hpvm-opt --lower-markers --verify --extract %t.leaf.ll -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=LEAF
; RUN: sed 's/"hpvm.sequential"()/"hpvm.sequential"(i64 1)/' %t.ll | not %hpvm-opt --verify - -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPERANDS

@.steps = private unnamed_addr constant [6 x i8] c"steps\00"
@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

; for (t = 0; t < s; t++) for (i = 0; i < n; i++) x[i] = x[i] * 2 + 1
define void @steps(ptr %x, i64 %n, i64 %s) {
entry:
  %bytes = shl i64 %n, 2
  %r = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.steps, i32 1, i32 1, i64 %s, i32 4, ptr %x, i64 %bytes, i32 9, i32 0)
  br label %tl
tl:
  %t = phi i64 [ 0, %entry ], [ %t.next, %te ]
  %tc = icmp slt i64 %t, %s
  br i1 %tc, label %tb, label %done
tb:
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.leaf, i32 1, i32 1, i64 %n, i32 4, ptr %x, i64 %bytes, i32 0)
  br label %l
l:
  %i = phi i64 [ 0, %tb ], [ %i.next, %b ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e
b:
  %p = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %p, align 4
  %w = fmul float %v, 2.0
  %y = fadd float %w, 1.0
  store float %y, ptr %p, align 4
  %i.next = add nsw i64 %i, 1
  br label %l
e:
  call void @__hpvm_region_end(ptr %h)
  br label %te
te:
  %t.next = add nsw i64 %t, 1
  br label %tl
done:
  call void @__hpvm_region_end(ptr %r)
  ret void
}

; CHECK: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.steps), "hpvm.dims"(i64 %s), "hpvm.inout"(ptr %x, i64 %bytes), "hpvm.sequential"() ]
; CHECK: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]

; GRAPH: internal steps dims [s] in order
; GRAPH: {{^  }}leaf leaf dims [n]

; LEAF: error: [marker] function 'steps', node 'leaf': 'hpvm.sequential' on a region without child regions: only the child graphs of a loop run in order
; OPERANDS: error: [marker] function 'steps', node 'steps': 'hpvm.sequential' takes no operands
