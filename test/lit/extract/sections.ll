; EXTRACT of children that name sections of their parent's buffer which
; start at an offset affine in the instance ids of their ancestors: the
; child's parameter is the parent's buffer, with the offset's terms (docs/ir.md
; §1). rows [R] { fill [n] } writes row r of x through %row = x + r*n; the
; grid [R, C] { cell [n] } of @cells names x + ((r*C + c)*n + 8) floats.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: %hpvm-opt --print -disable-output %t.ll | FileCheck %s --check-prefix=PRINT
; RUN: FileCheck %s --check-prefix=META < %t.ll
; A round trip through PREPARE names the same sections again.
; RUN: %hpvm-opt --prepare --extract %t.ll -S -o %t.2.ll
; RUN: %hpvm-opt --print -disable-output %t.ll > %t.1.txt
; RUN: %hpvm-opt --print -disable-output %t.2.ll > %t.2.txt
; RUN: diff %t.1.txt %t.2.txt

; PRINT-LABEL: internal rows dims [R]
; PRINT:   param x: buffer out bytes bytes
; PRINT:   leaf fill dims [n]
; PRINT-NEXT: param x: buffer out bytes rowbytes writes-all at rowbytes*id(1,0)
; PRINT-LABEL: internal cells dims [R, C]
; PRINT:   leaf cell dims [n]
; PRINT-NEXT: param x: buffer inout bytes rowbytes at rowbytes*id(1,1) + x.stride10*id(1,0) + 32

; META-DAG: !{!"buffer", !"x", !"out", !{{[0-9]+}}, !"writes-all", ![[AT:[0-9]+]]}
; META-DAG: ![[AT]] = !{!"at", ![[T:[0-9]+]]}
; META-DAG: ![[T]] = !{!{{[0-9]+}}, i32 1, i32 0}

@.name.rows = private unnamed_addr constant [5 x i8] c"rows\00"
@.name.fill = private unnamed_addr constant [5 x i8] c"fill\00"
@.name.cells = private unnamed_addr constant [6 x i8] c"cells\00"
@.name.cell = private unnamed_addr constant [5 x i8] c"cell\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; x[r*n + i] = r
define void @rows(ptr noalias %x, i64 %R, i64 %n) {
entry:
  %total = mul nsw i64 %R, %n
  %bytes = shl i64 %total, 2
  %rowbytes = shl i64 %n, 2
  %t.o = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.rows),
      "hpvm.dims"(i64 %R), "hpvm.out"(ptr %x, i64 %bytes) ]
  br label %r.cond

r.cond:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %rc = icmp slt i64 %r, %R
  br i1 %rc, label %r.body, label %r.end

r.body:
  %off = mul nsw i64 %r, %n
  %row = getelementptr inbounds float, ptr %x, i64 %off
  %t.i = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.fill),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %row, i64 %rowbytes) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %r.body ], [ %i.next, %i.body ]
  %ic = icmp slt i64 %i, %n
  br i1 %ic, label %i.body, label %i.end

i.body:
  %p = getelementptr inbounds float, ptr %row, i64 %i
  %v = sitofp i64 %r to float
  store float %v, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t.i)
  br label %r.latch

r.latch:
  %r.next = add nuw nsw i64 %r, 1
  br label %r.cond

r.end:
  call void @llvm.directive.region.exit(token %t.o)
  ret void
}

; x[(r*C + c)*n + 8 + i] += 1
define void @cells(ptr noalias %x, i64 %R, i64 %C, i64 %n) {
entry:
  %rows = mul nsw i64 %R, %C
  %elems = mul nsw i64 %rows, %n
  %padded = add nsw i64 %elems, 8
  %bytes = shl i64 %padded, 2
  %rowbytes = shl i64 %n, 2
  %t.o = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.cells),
      "hpvm.dims"(i64 %R, i64 %C), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %r.cond

r.cond:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %rc = icmp slt i64 %r, %R
  br i1 %rc, label %c.pre, label %r.end

c.pre:
  br label %c.cond

c.cond:
  %c = phi i64 [ 0, %c.pre ], [ %c.next, %c.latch ]
  %cc = icmp slt i64 %c, %C
  br i1 %cc, label %c.body, label %r.latch

c.body:
  %rC = mul nsw i64 %r, %C
  %cell = add nsw i64 %rC, %c
  %start = mul nsw i64 %cell, %n
  %start8 = add nsw i64 %start, 8
  %base = getelementptr inbounds float, ptr %x, i64 %start8
  %t.i = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.cell),
      "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %base, i64 %rowbytes) ]
  br label %i.cond

i.cond:
  %i = phi i64 [ 0, %c.body ], [ %i.next, %i.body ]
  %ic = icmp slt i64 %i, %n
  br i1 %ic, label %i.body, label %i.end

i.body:
  %p = getelementptr inbounds float, ptr %base, i64 %i
  %old = load float, ptr %p, align 4
  %new = fadd float %old, 1.0
  store float %new, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond

i.end:
  call void @llvm.directive.region.exit(token %t.i)
  br label %c.latch

c.latch:
  %c.next = add nuw nsw i64 %c, 1
  br label %c.cond

r.latch:
  %r.next = add nuw nsw i64 %r, 1
  br label %r.cond

r.end:
  call void @llvm.directive.region.exit(token %t.o)
  ret void
}
