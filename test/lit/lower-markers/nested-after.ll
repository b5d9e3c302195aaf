; Nested markers become nested regions; AFTER(handle) becomes an
; hpvm.after bundle naming the earlier sibling's entry token. Extents lose
; their integer extensions (sext i32 %n): the loops count in i32.
; RUN: %hpvm-opt --lower-markers %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %hpvm-opt --verify --extract %t.ll -S | FileCheck %s --check-prefix=GRAPH

@.root = private unnamed_addr constant [5 x i8] c"root\00"
@.first = private unnamed_addr constant [6 x i8] c"first\00"
@.second = private unnamed_addr constant [7 x i8] c"second\00"

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

define void @two(ptr %x, ptr %y, i32 %n) {
entry:
  %n64 = sext i32 %n to i64
  %bytes = shl i64 %n64, 2
  %r = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.root, i32 3, ptr %x, i64 %bytes, i32 3, ptr %y, i64 %bytes, i32 0)
  %h1 = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.first, i32 1, i32 1, i64 %n64, i32 3, ptr %x, i64 %bytes, i32 0)
  br label %l1
l1:
  %i = phi i32 [ 0, %entry ], [ %i.next, %b1 ]
  %c1 = icmp slt i32 %i, %n
  br i1 %c1, label %b1, label %e1
b1:
  %px = getelementptr inbounds i32, ptr %x, i32 %i
  store i32 1, ptr %px, align 4
  %i.next = add nsw i32 %i, 1
  br label %l1
e1:
  call void @__hpvm_region_end(ptr %h1)
  %h2 = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.second, i32 1, i32 1, i64 %n64, i32 3, ptr %y, i64 %bytes, i32 7, ptr %h1, i32 0)
  br label %l2
l2:
  %k = phi i32 [ 0, %e1 ], [ %k.next, %b2 ]
  %c2 = icmp slt i32 %k, %n
  br i1 %c2, label %b2, label %e2
b2:
  %py = getelementptr inbounds i32, ptr %y, i32 %k
  store i32 2, ptr %py, align 4
  %k.next = add nsw i32 %k, 1
  br label %l2
e2:
  call void @__hpvm_region_end(ptr %h2)
  call void @__hpvm_region_end(ptr %r)
  ret void
}

; CHECK: %r = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.root), "hpvm.out"(ptr %x, i64 %bytes, ptr %y, i64 %bytes) ]
; CHECK: %h1 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.first), "hpvm.dims"(i32 %n), "hpvm.out"(ptr %x, i64 %bytes) ]
; CHECK: call void @llvm.directive.region.exit(token %h1)
; CHECK: %h2 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.second), "hpvm.dims"(i32 %n), "hpvm.out"(ptr %y, i64 %bytes), "hpvm.after"(token %h1) ]
; CHECK: call void @llvm.directive.region.exit(token %h2)
; CHECK-NEXT: call void @llvm.directive.region.exit(token %r)

; GRAPH-DAG: !{!"hpvm.node", !"name", !"root", !"kind", !"internal", {{.*}}!"edges", ![[E:[0-9]+]]
; GRAPH-DAG: ![[E]] = !{![[D:[0-9]+]]}
; GRAPH-DAG: ![[D]] = !{!"dep", i32 0, i32 1}
