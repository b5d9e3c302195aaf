; A replicated leaf ('threads', over T) inside a replicated internal node
; ('blocks', over nb) reads its parent's id: instance.id(1, 0) becomes one
; load of outer_ids[0], made once before the instance loop (and only when
; the range is not empty), and the loop still vectorises.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.g.ll -S -o - | FileCheck %s --check-prefix=O0

@.name.blocks = private unnamed_addr constant [7 x i8] c"blocks\00"
@.name.threads = private unnamed_addr constant [8 x i8] c"threads\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; y[b*T + t] = x[b*T + t] + b
define void @blocked(ptr %x, ptr %y, i64 %nb, i64 %T) {
entry:
  %n = mul nsw i64 %nb, %T
  %bytes = shl i64 %n, 2
  %tok.b = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.blocks),
      "hpvm.dims"(i64 %nb),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes),
      "hpvm.value"(i64 %T) ]
  br label %b.cond

b.cond:
  %b = phi i64 [ 0, %entry ], [ %b.next, %b.latch ]
  %cb = icmp slt i64 %b, %nb
  br i1 %cb, label %b.body, label %b.end

b.body:
  %tok.t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.threads),
      "hpvm.dims"(i64 %T),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %t.cond

t.cond:
  %t = phi i64 [ 0, %b.body ], [ %t.next, %t.body ]
  %ct = icmp slt i64 %t, %T
  br i1 %ct, label %t.body, label %t.end

t.body:
  %base = mul nsw i64 %b, %T
  %idx = add nsw i64 %base, %t
  %px = getelementptr inbounds i32, ptr %x, i64 %idx
  %vx = load i32, ptr %px, align 4
  %b32 = trunc i64 %b to i32
  %r = add i32 %vx, %b32
  %py = getelementptr inbounds i32, ptr %y, i64 %idx
  store i32 %r, ptr %py, align 4
  %t.next = add nuw nsw i64 %t, 1
  br label %t.cond

t.end:
  call void @llvm.directive.region.exit(token %tok.t)
  br label %b.latch

b.latch:
  %b.next = add nuw nsw i64 %b, 1
  br label %b.cond

b.end:
  call void @llvm.directive.region.exit(token %tok.b)
  ret void
}

; CHECK-LABEL: define void @hpvm.cpu.blocks.threads(ptr {{[^,]*}}%args, ptr {{[^,]*}}%outs, ptr {{[^,]*}}%dims, ptr {{[^,]*}}%outer_ids, i64 %begin, i64 %end)
; CHECK:         br i1 %{{.*}}, label %instances, label %exit
; CHECK:       instances:
; CHECK-NEXT:    %outer.id.1.0 = load i64, ptr %outer_ids, align 8
; CHECK-NOT:     %outer_ids
; CHECK:       vector.body:
; CHECK:         load <8 x i32>
; CHECK:         add <8 x i32>
; CHECK:         store <8 x i32>
; CHECK-NOT:     %outer_ids
; CHECK:       }

; O0-LABEL: define void @hpvm.cpu.blocks.threads(
; O0:       instances:
; O0-NEXT:    %[[SLOT:.*]] = getelementptr inbounds i64, ptr %outer_ids, i64 0
; O0-NEXT:    %outer.id.1.0 = load i64, ptr %[[SLOT]], align 8
; O0-NEXT:    br label %i0
; O0:         mul nsw i64 %outer.id.1.0, %T
; O0-NOT:     @hpvm.instance.id
