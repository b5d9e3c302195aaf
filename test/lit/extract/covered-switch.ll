; A switch whose cases cover every value (`switch (x & 3)` with cases 0-3)
; gets an `unreachable` default from SimplifyCFG. That edge leaves the
; parallel loop, but taking it is undefined behaviour, so it is not an exit:
; the loop still counts as canonical (it used to fail with "has more than
; one exit; a parallel loop may not break"), and the leaf keeps the switch.
; From: for (long i = 0; i < n; i++) { uint32_t x = in[i], r;
;         switch (x & 3) { case 0: r = x * 3; break; case 1: r = x + 7; break;
;                          case 2: r = x ^ 5; break; case 3: r = in[x & 1023]; }
;         o[i] = r; }
; A real second exit is still an error: verify/parallel-loop-break.ll.
; RUN: %hpvm-opt --verify --extract %s -S -o - | FileCheck %s

@.name.k = private unnamed_addr constant [2 x i8] c"k\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @k(ptr %in, ptr %o, i64 %n) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.k),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %in, i64 4096), "hpvm.out"(ptr %o, i64 4096) ]
  %guard = icmp slt i64 0, %n
  br i1 %guard, label %for.body, label %for.end

for.body:
  %i = phi i64 [ %inc, %sw.epilog ], [ 0, %entry ]
  %p = getelementptr inbounds i32, ptr %in, i64 %i
  %x = load i32, ptr %p, align 4
  %and = and i32 %x, 3
  switch i32 %and, label %unreachabledefault [
    i32 0, label %sw.bb
    i32 1, label %sw.bb1
    i32 2, label %sw.bb2
    i32 3, label %sw.bb3
  ]

sw.bb:
  %mul = mul i32 %x, 3
  br label %sw.epilog

sw.bb1:
  %add = add i32 %x, 7
  br label %sw.epilog

sw.bb2:
  %xor = xor i32 %x, 5
  br label %sw.epilog

sw.bb3:
  %low = and i32 %x, 1023
  %idx = zext nneg i32 %low to i64
  %q = getelementptr inbounds i32, ptr %in, i64 %idx
  %y = load i32, ptr %q, align 4
  br label %sw.epilog

unreachabledefault:
  unreachable

sw.epilog:
  %r = phi i32 [ %y, %sw.bb3 ], [ %xor, %sw.bb2 ], [ %add, %sw.bb1 ], [ %mul, %sw.bb ]
  %dst = getelementptr inbounds i32, ptr %o, i64 %i
  store i32 %r, ptr %dst, align 4
  %inc = add nuw nsw i64 %i, 1
  %more = icmp ne i64 %inc, %n
  br i1 %more, label %for.body, label %for.end

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; CHECK: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.k,
; CHECK: define internal void @hpvm.node.k(ptr %in, ptr %o, i64 %n)
; CHECK: %id0 = call i64 @hpvm.instance.id(i32 0, i32 0)
; The default, never taken, ends the instance like every edge out of the loop.
; CHECK: switch i32 %and, label %instance.done [
; CHECK-NEXT: i32 0, label %sw.bb
; CHECK-NEXT: i32 1, label %sw.bb1
; CHECK-NEXT: i32 2, label %sw.bb2
; CHECK-NEXT: i32 3, label %sw.bb3
; CHECK: store i32 %r, ptr %dst
