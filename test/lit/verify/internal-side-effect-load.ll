; [internal-side-effect]: internal node 'outer' loads from memory outside
; its child region (the first element of its input, unused by the child).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [internal-side-effect] function 'parent_load', node 'outer':

@.name.outer = private unnamed_addr constant [6 x i8] c"outer\00"
@.name.inner = private unnamed_addr constant [6 x i8] c"inner\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @parent_load(ptr noalias %a, ptr noalias %b, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t.o = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.outer),
      "hpvm.in"(ptr %a, i64 %bytes), "hpvm.out"(ptr %b, i64 %bytes),
      "hpvm.value"(i64 %n) ]
  %first = load i32, ptr %a, align 4
  %unused = add i32 %first, 1
  %t.i = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.inner),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %a, i64 %bytes), "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %pa, align 4
  %v1 = add i32 %v, 1
  %pb = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 %v1, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t.i)
  call void @llvm.directive.region.exit(token %t.o)
  ret void
}
