; EXTRACT of scalars named in hpvm.value (saxpy: float alpha, i32 shift):
; they become value parameters of the leaf with their own types (f32, i32)
; and are passed by the launch.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=HOST < %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.saxpy = private unnamed_addr constant [6 x i8] c"saxpy\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; y[i] = alpha * x[i] + y[i] + (float)(i >> shift)
define void @saxpy(ptr noalias %x, ptr noalias %y, float %alpha, i32 %shift, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.saxpy),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.inout"(ptr %y, i64 %bytes),
      "hpvm.value"(float %alpha, i32 %shift) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %vx = load float, ptr %px, align 4
  %ax = fmul float %alpha, %vx
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %vy = load float, ptr %py, align 4
  %s = fadd float %ax, %vy
  %sh = zext i32 %shift to i64
  %q = ashr i64 %i, %sh
  %qf = sitofp i64 %q to float
  %r = fadd float %s, %qf
  store float %r, ptr %py, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; HOST-LABEL: define void @saxpy(
; HOST: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.saxpy, ptr %x, ptr %y,
; HOST-SAME: float %alpha
; HOST-SAME: i32 %shift
; HOST: ret void

; LEAF: define internal void @hpvm.node.saxpy(ptr {{[^,]*}}, ptr {{[^,]*}}, {{.*}}float {{[^,]*}}, i32
; LEAF: fmul float

; META-DAG: !{!"buffer", !"x", !"in", !{{[0-9]+}}}
; META-DAG: !{!"buffer", !"y", !"inout", !{{[0-9]+}}}
; META-DAG: !{!"value", !"alpha", !"f32"}
; META-DAG: !{!"value", !"shift", !"i32"}
