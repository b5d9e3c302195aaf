; EXTRACT of the loop clang -O0 (+ mem2reg) makes of a C 'int' loop:
;   for (int i = 0; i < n; i++) b[i] = -a[i];
; with an i32 induction variable, sext'ed indices, a separate latch block and
; an i32 extent in hpvm.dims. The i32 extent is a value parameter of type i32.
; RUN: %hpvm-opt --extract %s -S -o %t.ll
; RUN: FileCheck %s --check-prefix=LEAF < %t.ll
; RUN: FileCheck %s --check-prefix=META < %t.ll

@.name.negate = private unnamed_addr constant [7 x i8] c"negate\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define dso_local void @negate(ptr noundef %a, ptr noundef %b, i32 noundef %n) {
entry:
  %conv = sext i32 %n to i64
  %bytes = mul nsw i64 %conv, 4
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.negate),
      "hpvm.dims"(i32 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %i.0 = phi i32 [ 0, %entry ], [ %inc, %for.inc ]
  %cmp = icmp slt i32 %i.0, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  %idxprom = sext i32 %i.0 to i64
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %idxprom
  %0 = load i32, ptr %arrayidx, align 4
  %sub = sub nsw i32 0, %0
  %idxprom1 = sext i32 %i.0 to i64
  %arrayidx2 = getelementptr inbounds i32, ptr %b, i64 %idxprom1
  store i32 %sub, ptr %arrayidx2, align 4
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %inc = add nsw i32 %i.0, 1
  br label %for.cond, !llvm.loop !0

for.end:                                          ; preds = %for.cond
  call void @llvm.directive.region.exit(token %t)
  ret void
}

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}

; LEAF-LABEL: define internal void @hpvm.node.negate(
; LEAF: call i64 @hpvm.instance.id(i32 0, i32 0)
; LEAF: sub nsw i32 0,
; LEAF: ret void

; META-DAG: !{!"hpvm.node", !"name", !"negate", !"kind", !"leaf", !"function", ptr @hpvm.node.negate, !"dims", ![[D:[0-9]+]],
; META-DAG: ![[D]] = !{![[D0:[0-9]+]]}
; META-DAG: ![[D0]] = !{!"param", i32 {{[0-9]+}}}
; META-DAG: !{!"value", !"n", !"i32"}
