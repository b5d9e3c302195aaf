; Differential test of a 1-D vector add: the sequential program (strip), the
; region -> graph -> region round trip (extract, prepare, strip), and the same
; after LLVM's -O1 function simplification must all compute what a plain C
; reference computes, with identical output (checksum included); so must the
; graph form after LLVM's -O2, PREPAREd and stripped.
; RUN: %hpvm-opt --strip %s -S -o %t.a.ll
; RUN: %clang -O2 -Wno-override-module %t.a.ll %S/Inputs/vadd-main.c -o %t.a
; RUN: %t.a > %t.a.out
; RUN: FileCheck %s < %t.a.out
; RUN: %hpvm-opt --extract --prepare --strip %s -S -o %t.b.ll
; RUN: %clang -O2 -Wno-override-module %t.b.ll %S/Inputs/vadd-main.c -o %t.b
; RUN: %t.b > %t.b.out
; RUN: FileCheck %s < %t.b.out
; RUN: diff %t.a.out %t.b.out
; RUN: %opt -passes='function(sroa,instcombine,simplifycfg,loop-mssa(loop-rotate,licm),indvars,simplifycfg)' %s -S -o %t.c0.ll
; RUN: %hpvm-opt --extract --prepare --strip %t.c0.ll -S -o %t.c.ll
; RUN: %clang -O2 -Wno-override-module %t.c.ll %S/Inputs/vadd-main.c -o %t.c
; RUN: %t.c > %t.c.out
; RUN: FileCheck %s < %t.c.out
; RUN: diff %t.a.out %t.c.out
; RUN: %hpvm-opt --extract %s -S -o %t.d0.ll
; RUN: %opt -O2 %t.d0.ll -S -o %t.d1.ll
; RUN: %hpvm-opt --prepare --strip %t.d1.ll -S -o %t.d.ll
; RUN: %clang -O2 -Wno-override-module %t.d.ll %S/Inputs/vadd-main.c -o %t.d
; RUN: %t.d > %t.d.out
; RUN: diff %t.a.out %t.d.out
; CHECK: PASS vadd checksum={{[0-9a-f]+}}

@.name.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; void kernel_vadd(const float *a, const float *b, float *c, long n)
;   for (long i = 0; i < n; ++i) c[i] = a[i] + b[i];
define void @kernel_vadd(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
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
