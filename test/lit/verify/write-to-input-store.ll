; [write-to-input]: the leaf stores through %a, which it names only in
; hpvm.in; the diagnostic is followed by the offending instruction ("at:").
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [write-to-input] function 'in_place', node 'incr':
; CHECK-NEXT: at: {{.*}}store i32 %v1, ptr %p

@.name.incr = private unnamed_addr constant [5 x i8] c"incr\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @in_place(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.incr),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %a, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %p, align 4
  %v1 = add i32 %v, 1
  store i32 %v1, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
