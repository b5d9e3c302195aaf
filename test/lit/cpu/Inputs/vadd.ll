; Region form of c[i] = a[i] + b[i] over n floats: the input of the CPU
; backend tests that look at one simple 1-D leaf from several sides.

@.name.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @vadd(ptr %a, ptr %b, ptr %c, i64 %n) {
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
