; Differential test of a 3-level hierarchy: root 'pipeline' holds leaf 'scale',
; internal 'blocks' replicated over nb blocks whose leaf 'xform' is replicated
; over T threads and uses its own id t and its parent's block id b, and leaf
; 'post' reading what 'xform' wrote. strip, extract+prepare+strip, and the
; same after the -O1 function pipeline must match a plain C reference; so
; must the graph form after LLVM's -O2, PREPAREd and stripped.
; RUN: %hpvm-opt --strip %s -S -o %t.a.ll
; RUN: %clang -O2 -Wno-override-module %t.a.ll %S/Inputs/hier-main.c -o %t.a
; RUN: %t.a > %t.a.out
; RUN: FileCheck %s < %t.a.out
; RUN: %hpvm-opt --extract --prepare --strip %s -S -o %t.b.ll
; RUN: %clang -O2 -Wno-override-module %t.b.ll %S/Inputs/hier-main.c -o %t.b
; RUN: %t.b > %t.b.out
; RUN: FileCheck %s < %t.b.out
; RUN: diff %t.a.out %t.b.out
; RUN: %opt -passes='function(sroa,instcombine,simplifycfg,loop-mssa(loop-rotate,licm),indvars,simplifycfg)' %s -S -o %t.c0.ll
; RUN: %hpvm-opt --extract --prepare --strip %t.c0.ll -S -o %t.c.ll
; RUN: %clang -O2 -Wno-override-module %t.c.ll %S/Inputs/hier-main.c -o %t.c
; RUN: %t.c > %t.c.out
; RUN: FileCheck %s < %t.c.out
; RUN: diff %t.a.out %t.c.out
; RUN: %hpvm-opt --extract %s -S -o %t.d0.ll
; RUN: %opt -O2 %t.d0.ll -S -o %t.d1.ll
; RUN: %hpvm-opt --prepare --strip %t.d1.ll -S -o %t.d.ll
; RUN: %clang -O2 -Wno-override-module %t.d.ll %S/Inputs/hier-main.c -o %t.d
; RUN: %t.d > %t.d.out
; RUN: diff %t.a.out %t.d.out
; CHECK: PASS hier checksum={{[0-9a-f]+}}

@.name.pipeline = private unnamed_addr constant [9 x i8] c"pipeline\00"
@.name.scale = private unnamed_addr constant [6 x i8] c"scale\00"
@.name.blocks = private unnamed_addr constant [7 x i8] c"blocks\00"
@.name.xform = private unnamed_addr constant [6 x i8] c"xform\00"
@.name.post = private unnamed_addr constant [5 x i8] c"post\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; void kernel_hier(const uint32_t *x, uint32_t *x2, uint32_t *y, uint32_t *z,
;                  long nb, long T)
;   long n = nb * T;
;   for (i < n)              x2[i] = x[i] * 3 + 1;                 // scale
;   for (b < nb)                                                   // blocks
;     for (t < T)            y[b*T+t] = x2[b*T+t] * (t+1) + b * 1000; // xform
;   for (i < n)              z[i] = y[i] + y[n-1-i];               // post
define void @kernel_hier(ptr noalias %x, ptr noalias %x2, ptr noalias %y, ptr noalias %z, i64 %nb, i64 %T) {
entry:
  %n = mul nsw i64 %nb, %T
  %bytes = shl i64 %n, 2
  %tok.root = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.pipeline),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %x2, i64 %bytes, ptr %y, i64 %bytes, ptr %z, i64 %bytes),
      "hpvm.value"(i64 %n, i64 %nb, i64 %T) ]
  %tok.scale = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.scale),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %x2, i64 %bytes) ]
  br label %s.cond

s.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %s.body ]
  %cs = icmp slt i64 %i, %n
  br i1 %cs, label %s.body, label %s.end

s.body:
  %px = getelementptr inbounds i32, ptr %x, i64 %i
  %vx = load i32, ptr %px, align 4
  %m3 = mul i32 %vx, 3
  %a1 = add i32 %m3, 1
  %px2 = getelementptr inbounds i32, ptr %x2, i64 %i
  store i32 %a1, ptr %px2, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %s.cond

s.end:
  call void @llvm.directive.region.exit(token %tok.scale)
  %tok.blocks = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.blocks),
      "hpvm.dims"(i64 %nb),
      "hpvm.in"(ptr %x2, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes),
      "hpvm.value"(i64 %T) ]
  br label %b.cond

b.cond:
  %b = phi i64 [ 0, %s.end ], [ %b.next, %b.latch ]
  %cb = icmp slt i64 %b, %nb
  br i1 %cb, label %b.body, label %b.end

b.body:
  %tok.xform = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.xform),
      "hpvm.dims"(i64 %T),
      "hpvm.in"(ptr %x2, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %t.cond

t.cond:
  %t = phi i64 [ 0, %b.body ], [ %t.next, %t.body ]
  %ct = icmp slt i64 %t, %T
  br i1 %ct, label %t.body, label %t.end

t.body:
  %base = mul nsw i64 %b, %T
  %k = add nsw i64 %base, %t
  %pk = getelementptr inbounds i32, ptr %x2, i64 %k
  %vk = load i32, ptr %pk, align 4
  %t1 = add nuw nsw i64 %t, 1
  %t1.32 = trunc i64 %t1 to i32
  %prod = mul i32 %vk, %t1.32
  %b.32 = trunc i64 %b to i32
  %b1000 = mul i32 %b.32, 1000
  %res = add i32 %prod, %b1000
  %py = getelementptr inbounds i32, ptr %y, i64 %k
  store i32 %res, ptr %py, align 4
  %t.next = add nuw nsw i64 %t, 1
  br label %t.cond

t.end:
  call void @llvm.directive.region.exit(token %tok.xform)
  br label %b.latch

b.latch:
  %b.next = add nuw nsw i64 %b, 1
  br label %b.cond

b.end:
  call void @llvm.directive.region.exit(token %tok.blocks)
  %tok.post = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.post),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %y, i64 %bytes),
      "hpvm.out"(ptr %z, i64 %bytes) ]
  br label %p.cond

p.cond:
  %j = phi i64 [ 0, %b.end ], [ %j.next, %p.body ]
  %cp = icmp slt i64 %j, %n
  br i1 %cp, label %p.body, label %p.end

p.body:
  %pyj = getelementptr inbounds i32, ptr %y, i64 %j
  %vyj = load i32, ptr %pyj, align 4
  %nm1 = add nsw i64 %n, -1
  %mirror = sub nsw i64 %nm1, %j
  %pym = getelementptr inbounds i32, ptr %y, i64 %mirror
  %vym = load i32, ptr %pym, align 4
  %sum = add i32 %vyj, %vym
  %pz = getelementptr inbounds i32, ptr %z, i64 %j
  store i32 %sum, ptr %pz, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %p.cond

p.end:
  call void @llvm.directive.region.exit(token %tok.post)
  call void @llvm.directive.region.exit(token %tok.root)
  ret void
}
