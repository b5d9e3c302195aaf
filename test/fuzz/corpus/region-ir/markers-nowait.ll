; The marker tag NOWAIT (8) becomes an "hpvm.nowait" bundle on a top-level
; region, and EXTRACT puts it on the graph's launch; on a region inside
; another it is an error, as is the bundle with operands, and a launch may
; carry no other bundle.
; RUN: %hpvm-opt --lower-markers %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %hpvm-opt --verify --extract %t.ll -S -o %t.g.ll
; RUN: FileCheck %s --check-prefix=GRAPH < %t.g.ll
; RUN: sed '/@.leaf,/s/, i32 0)$/, i32 8, i32 0)/' %s > %t.nested.ll
; RUN: not %hpvm-opt --lower-markers --verify %t.nested.ll -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED
; RUN: sed 's/"hpvm.nowait"()/"hpvm.nowait"(i64 1)/' %t.ll | not %hpvm-opt --verify - -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPERANDS
; RUN: sed 's/"hpvm.nowait"()/"hpvm.later"()/' %t.g.ll | not %hpvm-opt --verify - -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUNDLE

@.root = private unnamed_addr constant [5 x i8] c"root\00"
@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

define void @zero(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %r = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.root, i32 4, ptr %x, i64 %bytes, i32 8, i32 0)
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.leaf, i32 1, i32 1, i64 %n, i32 4, ptr %x, i64 %bytes, i32 0)
  br label %l
l:
  %i = phi i64 [ 0, %entry ], [ %i.next, %b ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e
b:
  %p = getelementptr inbounds float, ptr %x, i64 %i
  store float 0.0, ptr %p, align 4
  %i.next = add nsw i64 %i, 1
  br label %l
e:
  call void @__hpvm_region_end(ptr %h)
  call void @__hpvm_region_end(ptr %r)
  ret void
}

; CHECK: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.root), "hpvm.inout"(ptr %x, i64 %bytes), "hpvm.nowait"() ]
; CHECK: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]

; GRAPH: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.root, ptr %x, i64 %bytes, i64 %n) [ "hpvm.nowait"() ]

; NESTED: error: [marker] function 'zero', node 'leaf': 'hpvm.nowait' on a region inside region 'root': only a top-level region is a launch that can go on in the background
; OPERANDS: error: [marker] function 'zero', node 'root': 'hpvm.nowait' takes no operands
; BUNDLE: error: [launch] function 'zero': the only operand bundle a launch may carry is 'hpvm.nowait'(), not 'hpvm.later'
