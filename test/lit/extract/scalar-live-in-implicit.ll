; EXTRACT of a scalar used in the region but named in no bundle (no rule of
; docs/ir.md §2.3 forbids it): it becomes a value parameter of the leaf too.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.scal = private unnamed_addr constant [5 x i8] c"scal\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; x[i] = x[i] * factor
define void @scal(ptr noalias %x, double %factor, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.scal),
      "hpvm.dims"(i64 %n),
      "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px, align 8
  %r = fmul double %v, %factor
  store double %r, ptr %px, align 8
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; LEAF: define internal void @hpvm.node.scal(ptr {{[^,]*}}, {{.*}}double
; LEAF: fmul double

; META-DAG: !{!"value", !"factor", !"f64"}
