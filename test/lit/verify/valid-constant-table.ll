; Positive: a leaf may read a constant global (a coefficient table) and use a
; hpvm.value scalar; hpvm-verify reports nothing.
; RUN: %hpvm-opt --verify -disable-output %s 2>&1 | count 0

@.name.poly = private unnamed_addr constant [5 x i8] c"poly\00"
@coeffs = private unnamed_addr constant [4 x float] [float 1.0, float 0.5, float 0.25, float 0.125]

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; y[i] = coeffs[i % 4] * x[i] + bias
define void @poly(ptr noalias %x, ptr noalias %y, float %bias, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.poly),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes),
      "hpvm.value"(float %bias) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %k = and i64 %i, 3
  %pk = getelementptr inbounds [4 x float], ptr @coeffs, i64 0, i64 %k
  %c = load float, ptr %pk, align 4
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %vx = load float, ptr %px, align 4
  %m = fmul float %c, %vx
  %r = fadd float %m, %bias
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %r, ptr %py, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
