; A C `int` loop as clang emits it: the extent is an i32, the leaf checks
; `trunc(id) < n` and indexes with `sext(trunc(id))`. The wrapper's loop
; bounds prove both (0 <= id < sext(n)), so the check goes and the loop
; vectorises without masked accesses or run-time overflow checks.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s

@.name.negate = private unnamed_addr constant [7 x i8] c"negate\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @negate(ptr %a, ptr %b, i32 %n) {
entry:
  %n64 = sext i32 %n to i64
  %bytes = shl nsw i64 %n64, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.negate),
      "hpvm.dims"(i32 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i32 [ 0, %entry ], [ %inc, %for.body ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idxprom = sext i32 %i to i64
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %idxprom
  %v = load i32, ptr %arrayidx, align 4
  %sub = sub nsw i32 0, %v
  %arrayidx2 = getelementptr inbounds i32, ptr %b, i64 %idxprom
  store i32 %sub, ptr %arrayidx2, align 4
  %inc = add nsw i32 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; CHECK-LABEL: define void @hpvm.cpu.negate(
; CHECK:         %n = load i32, ptr %n.addr, align 4
; CHECK:         %[[N64:.*]] = sext i32 %n to i64
; CHECK:         %end.clamped = tail call i64 @llvm.smin.i64(i64 %end, i64 %[[N64]])
; CHECK-NOT:     vector.scevcheck
; CHECK-NOT:     llvm.masked
; CHECK:       vector.body:
; CHECK:         load <8 x i32>
; CHECK:         sub nsw <8 x i32> zeroinitializer
; CHECK:         store <8 x i32>
; CHECK-NOT:     llvm.masked
; CHECK:         ret void
