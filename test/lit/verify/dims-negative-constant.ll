; [dims]: a negative constant extent (i32 -5: as a count it would read
; 4294967291 if zero-extended, and must not run at all). Extents are read as
; signed integers of their width, so a constant one below 0 is an error.
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; RUN: not %hpvm-opt --extract -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [dims] function 'negative', node 'fill': extent i32 -5 is negative

@.name.fill = private unnamed_addr constant [5 x i8] c"fill\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @negative(ptr %a) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.fill),
      "hpvm.dims"(i32 -5), "hpvm.out"(ptr %a, i64 64) ]
  br label %for.cond

for.cond:
  %i = phi i32 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i32 %i, -5
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %p = getelementptr inbounds i32, ptr %a, i32 %i
  store i32 0, ptr %p, align 4
  %i.next = add nuw nsw i32 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
