; EXTRACT infers dependency edges between siblings from their buffers in
; program order: produce(x->t), other(x->z), consume(t->y), clobber(writes x).
; Edges: 0->2 (t: write then read), 0->3 and 1->3 (x: read then write).
; No edge between the readers of x (0,1) nor between 2 and 3.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll
; RUN: FileCheck %s --check-prefix=NOEDGE < %t.ll

@.name.pipe = private unnamed_addr constant [5 x i8] c"pipe\00"
@.name.produce = private unnamed_addr constant [8 x i8] c"produce\00"
@.name.other = private unnamed_addr constant [6 x i8] c"other\00"
@.name.consume = private unnamed_addr constant [8 x i8] c"consume\00"
@.name.clobber = private unnamed_addr constant [8 x i8] c"clobber\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @deps(ptr noalias %x, ptr noalias %t, ptr noalias %y, ptr noalias %z, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %tok.pipe = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.pipe),
      "hpvm.inout"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %t, i64 %bytes, ptr %y, i64 %bytes, ptr %z, i64 %bytes),
      "hpvm.value"(i64 %n) ]
  ; t[i] = x[i] + 1
  %tok.0 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.produce),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %x, i64 %bytes), "hpvm.out"(ptr %t, i64 %bytes) ]
  br label %l0.cond
l0.cond:
  %i0 = phi i64 [ 0, %entry ], [ %i0.next, %l0.body ]
  %c0 = icmp slt i64 %i0, %n
  br i1 %c0, label %l0.body, label %l0.end
l0.body:
  %px0 = getelementptr inbounds i32, ptr %x, i64 %i0
  %vx0 = load i32, ptr %px0, align 4
  %r0 = add i32 %vx0, 1
  %pt0 = getelementptr inbounds i32, ptr %t, i64 %i0
  store i32 %r0, ptr %pt0, align 4
  %i0.next = add nuw nsw i64 %i0, 1
  br label %l0.cond
l0.end:
  call void @llvm.directive.region.exit(token %tok.0)
  ; z[i] = x[i] * 2
  %tok.1 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.other),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %x, i64 %bytes), "hpvm.out"(ptr %z, i64 %bytes) ]
  br label %l1.cond
l1.cond:
  %i1 = phi i64 [ 0, %l0.end ], [ %i1.next, %l1.body ]
  %c1 = icmp slt i64 %i1, %n
  br i1 %c1, label %l1.body, label %l1.end
l1.body:
  %px1 = getelementptr inbounds i32, ptr %x, i64 %i1
  %vx1 = load i32, ptr %px1, align 4
  %r1 = shl i32 %vx1, 1
  %pz1 = getelementptr inbounds i32, ptr %z, i64 %i1
  store i32 %r1, ptr %pz1, align 4
  %i1.next = add nuw nsw i64 %i1, 1
  br label %l1.cond
l1.end:
  call void @llvm.directive.region.exit(token %tok.1)
  ; y[i] = t[i] - 3
  %tok.2 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.consume),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %t, i64 %bytes), "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %l2.cond
l2.cond:
  %i2 = phi i64 [ 0, %l1.end ], [ %i2.next, %l2.body ]
  %c2 = icmp slt i64 %i2, %n
  br i1 %c2, label %l2.body, label %l2.end
l2.body:
  %pt2 = getelementptr inbounds i32, ptr %t, i64 %i2
  %vt2 = load i32, ptr %pt2, align 4
  %r2 = sub i32 %vt2, 3
  %py2 = getelementptr inbounds i32, ptr %y, i64 %i2
  store i32 %r2, ptr %py2, align 4
  %i2.next = add nuw nsw i64 %i2, 1
  br label %l2.cond
l2.end:
  call void @llvm.directive.region.exit(token %tok.2)
  ; x[i] = 0
  %tok.3 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.clobber),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %x, i64 %bytes) ]
  br label %l3.cond
l3.cond:
  %i3 = phi i64 [ 0, %l2.end ], [ %i3.next, %l3.body ]
  %c3 = icmp slt i64 %i3, %n
  br i1 %c3, label %l3.body, label %l3.end
l3.body:
  %px3 = getelementptr inbounds i32, ptr %x, i64 %i3
  store i32 0, ptr %px3, align 4
  %i3.next = add nuw nsw i64 %i3, 1
  br label %l3.cond
l3.end:
  call void @llvm.directive.region.exit(token %tok.3)
  call void @llvm.directive.region.exit(token %tok.pipe)
  ret void
}

; META-DAG: !{!"hpvm.node", !"name", !"pipe", !"kind", !"internal", {{.*}}!"children", ![[CH:[0-9]+]], !"edges", ![[EDGES:[0-9]+]]
; META-DAG: ![[CH]] = !{![[N0:[0-9]+]], ![[N1:[0-9]+]], ![[N2:[0-9]+]], ![[N3:[0-9]+]]}
; META-DAG: ![[N0]] = !{!"hpvm.node", !"name", !"produce",
; META-DAG: ![[N1]] = !{!"hpvm.node", !"name", !"other",
; META-DAG: ![[N2]] = !{!"hpvm.node", !"name", !"consume",
; META-DAG: ![[N3]] = !{!"hpvm.node", !"name", !"clobber",
; META-DAG: ![[EDGES]] = !{![[EA:[0-9]+]], ![[EB:[0-9]+]], ![[EC:[0-9]+]]}
; META-DAG: !{!"dep", i32 0, i32 2}
; META-DAG: !{!"dep", i32 0, i32 3}
; META-DAG: !{!"dep", i32 1, i32 3}

; NOEDGE-NOT: !{!"dep", i32 0, i32 1}
; NOEDGE-NOT: !{!"dep", i32 1, i32 2}
; NOEDGE-NOT: !{!"dep", i32 2, i32 3}
; NOEDGE-NOT: !{!"dep", i32 {{[0-9]}}, i32 0}
