; saxpy with value parameters of three types (float, i32, and i64 extents):
; each is loaded from args[] with its own type, and the loop vectorises with
; 8-float vectors; the inout buffer y is read and written in place.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s

@.name.saxpy = private unnamed_addr constant [6 x i8] c"saxpy\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; y[i] = (alpha * x[i] + y[i]) * (float)(1 << shift)
define void @saxpy(ptr %x, ptr %y, float %alpha, i32 %shift, i64 %n) {
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
  %p2 = shl i32 1, %shift
  %scale = sitofp i32 %p2 to float
  %r = fmul float %s, %scale
  store float %r, ptr %py, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; CHECK-LABEL: define void @hpvm.cpu.saxpy(ptr {{[^,]*}}%args, ptr {{[^,]*}}%outs, ptr {{[^,]*}}%dims, ptr {{[^,]*}}%outer_ids, i64 %begin, i64 %end)
; CHECK-DAG:   %alpha = load float, ptr %alpha.addr, align 4
; CHECK-DAG:   %shift = load i32, ptr %shift.addr, align 4
; CHECK-DAG:   %n = load i64, ptr %n.addr, align 8
; CHECK-NOT:   vector.memcheck
; The remainder, then the peel that aligns the stores (AlignStores.cpp).
; CHECK:         fmul float
; CHECK:         store float
; CHECK:         ret void
; CHECK:       i0.peel:
; CHECK-NOT:   vector.memcheck
; CHECK:       vector.body:
; CHECK:         load <8 x float>
; CHECK:         fmul <8 x float>
; CHECK:         fadd <8 x float>
; CHECK:         fmul <8 x float>
; CHECK:         store <8 x float> {{.*}}, align 64
; CHECK:       middle.block:
