; A leaf that calls a helper function (itself calling another) and reads
; constant tables: everything is inlined into the wrapper (noinline and all,
; so that the loop stays one loop and vectorises), a table it indexes at run
; time becomes an internal constant of the kernel module, and nothing of the
; host program (the function that launched the graph, its globals) is
; copied.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s

@.name.poly = private unnamed_addr constant [5 x i8] c"poly\00"
@coeffs = dso_local constant [3 x float] [float 1.0, float 2.0, float 3.0]
@bias = dso_local constant [4 x float] [float 0.5, float 0.25, float 0.125, float 0.0625]
@unrelated = dso_local global i32 7

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define dso_local float @square(float %x) noinline {
  %s = fmul float %x, %x
  ret float %s
}

; c0 + c1 x + c2 x^2
define dso_local float @poly2(float %x) noinline {
  %c0 = load float, ptr @coeffs, align 4
  %p1 = getelementptr inbounds [3 x float], ptr @coeffs, i64 0, i64 1
  %c1 = load float, ptr %p1, align 4
  %p2 = getelementptr inbounds [3 x float], ptr @coeffs, i64 0, i64 2
  %c2 = load float, ptr %p2, align 4
  %x2 = call float @square(float %x)
  %t1 = fmul float %c1, %x
  %t2 = fmul float %c2, %x2
  %s1 = fadd float %c0, %t1
  %s2 = fadd float %s1, %t2
  ret float %s2
}

define void @host(ptr %a, ptr %b, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  store i32 8, ptr @unrelated, align 4
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.poly),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %for.cond
for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %v = load float, ptr %pa, align 4
  %p = call float @poly2(float %v)
  %k = and i64 %i, 3
  %pk = getelementptr inbounds [4 x float], ptr @bias, i64 0, i64 %k
  %bk = load float, ptr %pk, align 4
  %r = fadd float %p, %bk
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  store float %r, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond
for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; CHECK-NOT:   @unrelated
; CHECK-NOT:   @coeffs
; CHECK:       @bias = internal unnamed_addr constant [4 x float]
; CHECK-NOT:   define
; CHECK-LABEL: define void @hpvm.cpu.poly(
; CHECK-NOT:     @square
; CHECK-NOT:     @poly2
; CHECK:         ret void
; CHECK:       vector.body:
; CHECK:         fmul <8 x float>
; The streaming-store variant (the leaf only writes its output buffer).
; CHECK-LABEL: define void @hpvm.cpu.poly.stream(
; CHECK-NOT:     @square
; CHECK-NOT:     @poly2
; CHECK:         ret void
; CHECK-NOT:   define
; CHECK-NOT:   @unrelated
