; EXTRACT of a 1-D replicated leaf (vector add): the region becomes a launch,
; the loop body an outlined leaf of instance id (0,0), plus !hpvm.graphs.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @vadd(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.vadd),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes, ptr %b, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %vb = load float, ptr %pb, align 4
  %sum = fadd float %va, %vb
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  store float %sum, ptr %pc, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; HOST-DAG: @hpvm.graph.vadd = private {{.*}}constant [5 x i8] c"vadd\00"
; HOST-DAG: @llvm.compiler.used = appending global [1 x ptr] [ptr @hpvm.node.vadd], section "llvm.metadata"
; HOST-LABEL: define void @vadd(
; HOST-NOT: llvm.directive.region
; HOST-NOT: fadd
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c, i64
; HOST-NOT: llvm.directive.region
; HOST-NOT: fadd
; HOST: ret void

; LEAF-LABEL: define internal void @hpvm.node.vadd(ptr {{[^,]*}}, ptr {{[^,]*}}, ptr {{[^,]*}}, i64
; LEAF: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF-NOT: llvm.directive.region
; LEAF: fadd float
; LEAF: store float
; LEAF: ret void

; META: declare i64 @hpvm.instance.id(i32, i32) [[ATTR:#[0-9]+]]
; META: attributes [[ATTR]] = { {{.*}}memory(none)
; META: !hpvm.graphs = !{![[G:[0-9]+]]}
; META-DAG: ![[G]] = !{!"hpvm.graph", !"vadd", ![[ROOT:[0-9]+]]}
; META-DAG: ![[ROOT]] = !{!"hpvm.node", !"name", !"vadd", !"kind", !"leaf", !"function", ptr @hpvm.node.vadd, !"dims", ![[DIMS:[0-9]+]], !"params", ![[PARAMS:[0-9]+]]
; META-DAG: ![[DIMS]] = !{![[D0:[0-9]+]]}
; META-DAG: ![[D0]] = !{!"param", i32 {{[0-9]+}}}
; META-DAG: !{!"buffer", !"a", !"in", !{{[0-9]+}}}
; META-DAG: !{!"buffer", !"b", !"in", !{{[0-9]+}}}
; META-DAG: !{!"buffer", !"c", !"out", !{{[0-9]+}}, !"writes-all"}
; META-DAG: !{!"value", !"n", !"i64"}
