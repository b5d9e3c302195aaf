; Differential test of a 2-D 5-point stencil over the interior points (separate
; in/out arrays): strip, extract+prepare+strip, and the same after the -O1
; function pipeline must match a plain C reference and each other; so must
; the graph form after LLVM's -O2, PREPAREd and stripped.
; RUN: %hpvm-opt --strip %s -S -o %t.a.ll
; RUN: %clang -O2 -Wno-override-module %t.a.ll %S/Inputs/stencil-main.c -o %t.a
; RUN: %t.a > %t.a.out
; RUN: FileCheck %s < %t.a.out
; RUN: %hpvm-opt --extract --prepare --strip %s -S -o %t.b.ll
; RUN: %clang -O2 -Wno-override-module %t.b.ll %S/Inputs/stencil-main.c -o %t.b
; RUN: %t.b > %t.b.out
; RUN: FileCheck %s < %t.b.out
; RUN: diff %t.a.out %t.b.out
; RUN: %opt -passes='function(sroa,instcombine,simplifycfg,loop-mssa(loop-rotate,licm),indvars,simplifycfg)' %s -S -o %t.c0.ll
; RUN: %hpvm-opt --extract --prepare --strip %t.c0.ll -S -o %t.c.ll
; RUN: %clang -O2 -Wno-override-module %t.c.ll %S/Inputs/stencil-main.c -o %t.c
; RUN: %t.c > %t.c.out
; RUN: FileCheck %s < %t.c.out
; RUN: diff %t.a.out %t.c.out
; RUN: %hpvm-opt --extract %s -S -o %t.d0.ll
; RUN: %opt -O2 %t.d0.ll -S -o %t.d1.ll
; RUN: %hpvm-opt --prepare --strip %t.d1.ll -S -o %t.d.ll
; RUN: %clang -O2 -Wno-override-module %t.d.ll %S/Inputs/stencil-main.c -o %t.d
; RUN: %t.d > %t.d.out
; RUN: diff %t.a.out %t.d.out
; CHECK: PASS stencil checksum={{[0-9a-f]+}}

@.name.stencil = private unnamed_addr constant [8 x i8] c"stencil\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; void kernel_stencil(const float *in, float *out, long n, long m)
;   for (long i = 0; i < n - 2; ++i)
;     for (long j = 0; j < m - 2; ++j) {
;       long k = (i + 1) * m + (j + 1);
;       out[k] = (in[k] + in[k - m] + in[k + m] + in[k - 1] + in[k + 1]) * 0.2f;
;     }
define void @kernel_stencil(ptr noalias %in, ptr noalias %out, i64 %n, i64 %m) {
entry:
  %ni = add nsw i64 %n, -2
  %mj = add nsw i64 %m, -2
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.stencil),
      "hpvm.dims"(i64 %ni, i64 %mj),
      "hpvm.in"(ptr %in, i64 %bytes),
      "hpvm.out"(ptr %out, i64 %bytes),
      "hpvm.value"(i64 %m) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %ni
  br i1 %ci, label %i.body, label %i.end

i.body:
  %row = add nuw nsw i64 %i, 1
  %rowoff = mul nsw i64 %row, %m
  br label %j.cond

j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.body ]
  %cj = icmp slt i64 %j, %mj
  br i1 %cj, label %j.body, label %i.latch

j.body:
  %col = add nuw nsw i64 %j, 1
  %k = add nsw i64 %rowoff, %col
  %p.c = getelementptr inbounds float, ptr %in, i64 %k
  %v.c = load float, ptr %p.c, align 4
  %k.n = sub nsw i64 %k, %m
  %p.n = getelementptr inbounds float, ptr %in, i64 %k.n
  %v.n = load float, ptr %p.n, align 4
  %k.s = add nsw i64 %k, %m
  %p.s = getelementptr inbounds float, ptr %in, i64 %k.s
  %v.s = load float, ptr %p.s, align 4
  %p.w = getelementptr inbounds float, ptr %p.c, i64 -1
  %v.w = load float, ptr %p.w, align 4
  %p.e = getelementptr inbounds float, ptr %p.c, i64 1
  %v.e = load float, ptr %p.e, align 4
  %s1 = fadd float %v.c, %v.n
  %s2 = fadd float %s1, %v.s
  %s3 = fadd float %s2, %v.w
  %s4 = fadd float %s3, %v.e
  %r = fmul float %s4, 0x3FC99999A0000000
  %p.o = getelementptr inbounds float, ptr %out, i64 %k
  store float %r, ptr %p.o, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond

i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
