; [marker]: the functions the graph form and the lowering of HPVM-C call
; (@hpvm.launch, @hpvm.instance.id, @hpvm.work_group.native,
; @hpvm.work_item.id, @hpvm.barrier) declared by the program with other
; types, or taken by a variable, are errors: EXTRACT used to call such an
; @hpvm.launch with the graph's arguments and leave invalid IR (found by the
; region-IR fuzzer).
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; RUN: not %hpvm-opt --extract -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: hpvm-opt: error: [marker] 'hpvm.launch' is HPVM's; it must be declared 'void (ptr, ...)', not 'void ()'
; CHECK-DAG: hpvm-opt: error: [marker] 'hpvm.instance.id' is HPVM's; it must be declared 'i64 (i32, i32)', not 'i32 (i32, i32)'
; CHECK-DAG: hpvm-opt: error: [marker] 'hpvm.barrier' is HPVM's; it must be a function

@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"
@hpvm.barrier = global i32 0
declare void @hpvm.launch()
declare i32 @hpvm.instance.id(i32, i32)
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %x, i64 %bytes) ]
  br label %l
l:
  %i = phi i64 [ 0, %entry ], [ %i.next, %b ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e
b:
  %p = getelementptr inbounds float, ptr %x, i64 %i
  store float 1.0, ptr %p, align 4
  %i.next = add nsw i64 %i, 1
  br label %l
e:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
