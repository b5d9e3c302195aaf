; EXTRACT of a replicated internal node ('blocks', over nb) whose replicated
; leaf child ('threads', over T) uses its own instance id and its parent's:
; y[b*T + t] = x[b*T + t] + b. The leaf reads ids (0,0) and (1,0).
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.blocks = private unnamed_addr constant [7 x i8] c"blocks\00"
@.name.threads = private unnamed_addr constant [8 x i8] c"threads\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @blocked(ptr noalias %x, ptr noalias %y, i64 %nb, i64 %T) {
entry:
  %n = mul nsw i64 %nb, %T
  %bytes = shl i64 %n, 2
  %tok.b = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.blocks),
      "hpvm.dims"(i64 %nb),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes),
      "hpvm.value"(i64 %T) ]
  br label %b.cond

b.cond:
  %b = phi i64 [ 0, %entry ], [ %b.next, %b.latch ]
  %cb = icmp slt i64 %b, %nb
  br i1 %cb, label %b.body, label %b.end

b.body:
  %tok.t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.threads),
      "hpvm.dims"(i64 %T),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %t.cond

t.cond:
  %t = phi i64 [ 0, %b.body ], [ %t.next, %t.body ]
  %ct = icmp slt i64 %t, %T
  br i1 %ct, label %t.body, label %t.end

t.body:
  %base = mul nsw i64 %b, %T
  %idx = add nsw i64 %base, %t
  %px = getelementptr inbounds i32, ptr %x, i64 %idx
  %vx = load i32, ptr %px, align 4
  %b32 = trunc i64 %b to i32
  %r = add i32 %vx, %b32
  %py = getelementptr inbounds i32, ptr %y, i64 %idx
  store i32 %r, ptr %py, align 4
  %t.next = add nuw nsw i64 %t, 1
  br label %t.cond

t.end:
  call void @llvm.directive.region.exit(token %tok.t)
  br label %b.latch

b.latch:
  %b.next = add nuw nsw i64 %b, 1
  br label %b.cond

b.end:
  call void @llvm.directive.region.exit(token %tok.b)
  ret void
}

; LEAF-LABEL: define internal void @hpvm.node.blocks.threads(
; LEAF-DAG: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF-DAG: call i64 @hpvm.instance.id(i32 1, i32 0)
; LEAF-DAG: store i32
; LEAF: ret void

; META: !hpvm.graphs = !{![[G:[0-9]+]]}
; META-DAG: ![[G]] = !{!"hpvm.graph", !"blocks", ![[ROOT:[0-9]+]]}
; META-DAG: ![[ROOT]] = !{!"hpvm.node", !"name", !"blocks", !"kind", !"internal", !"dims", ![[DB:[0-9]+]], {{.*}}!"children", ![[CH:[0-9]+]]
; META-DAG: ![[DB]] = !{![[DB0:[0-9]+]]}
; META-DAG: ![[CH]] = !{![[LNODE:[0-9]+]]}
; META-DAG: ![[LNODE]] = !{!"hpvm.node", !"name", !"threads", !"kind", !"leaf", !"function", ptr @hpvm.node.blocks.threads, !"dims", ![[DT:[0-9]+]],
; META-DAG: ![[DT]] = !{![[DT0:[0-9]+]]}
