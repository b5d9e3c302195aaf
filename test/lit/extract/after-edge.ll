; EXTRACT turns hpvm.after into a dependency edge: 'second' touches no buffer
; of 'first' but names first's entry token, so the edge 0->1 exists.
; RUN: %hpvm-opt --extract %s -S | FileCheck %s

@.name.ordered = private unnamed_addr constant [8 x i8] c"ordered\00"
@.name.first = private unnamed_addr constant [6 x i8] c"first\00"
@.name.second = private unnamed_addr constant [7 x i8] c"second\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; x[i] = 1; then (explicitly after) y[i] = 2
define void @after(ptr noalias %x, ptr noalias %y, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %tok.root = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.ordered),
      "hpvm.out"(ptr %x, i64 %bytes, ptr %y, i64 %bytes), "hpvm.value"(i64 %n) ]
  %tok.a = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.first),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %x, i64 %bytes) ]
  br label %la.cond
la.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %la.body ]
  %ca = icmp slt i64 %i, %n
  br i1 %ca, label %la.body, label %la.end
la.body:
  %px = getelementptr inbounds i32, ptr %x, i64 %i
  store i32 1, ptr %px, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %la.cond
la.end:
  call void @llvm.directive.region.exit(token %tok.a)
  %tok.b = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.second),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %y, i64 %bytes), "hpvm.after"(token %tok.a) ]
  br label %lb.cond
lb.cond:
  %k = phi i64 [ 0, %la.end ], [ %k.next, %lb.body ]
  %cb = icmp slt i64 %k, %n
  br i1 %cb, label %lb.body, label %lb.end
lb.body:
  %py = getelementptr inbounds i32, ptr %y, i64 %k
  store i32 2, ptr %py, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %lb.cond
lb.end:
  call void @llvm.directive.region.exit(token %tok.b)
  call void @llvm.directive.region.exit(token %tok.root)
  ret void
}

; CHECK-NOT: llvm.directive.region.entry() [
; CHECK-DAG: !{!"hpvm.node", !"name", !"ordered", !"kind", !"internal", {{.*}}!"edges", ![[EDGES:[0-9]+]]
; CHECK-DAG: ![[EDGES]] = !{![[E:[0-9]+]]}
; CHECK-DAG: ![[E]] = !{!"dep", i32 0, i32 1}
