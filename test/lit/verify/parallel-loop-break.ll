; [parallel-loop]: a body that leaves the loop from two places (a C `break`,
; which the frontend rejects, written here in IR) is not a parallel loop.
; An exit into a block that calls something before `unreachable` counts as
; an exit too: the call may not return. (An edge straight into `unreachable`
; does not: extract/covered-switch.ll.)
; RUN: not %hpvm-opt --verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: hpvm-opt: error: [parallel-loop] function 'breaks', node 'b': loop 'body' (dim 0) has more than one exit; a parallel loop may not break
; CHECK: hpvm-opt: error: [parallel-loop] function 'aborts', node 'a': loop 'body' (dim 0) has more than one exit; a parallel loop may not break

@.name.b = private unnamed_addr constant [2 x i8] c"b\00"
@.name.a = private unnamed_addr constant [2 x i8] c"a\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare void @stop()

define void @breaks(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.b),
      "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %a, i64 %bytes) ]
  %guard = icmp slt i64 0, %n
  br i1 %guard, label %body, label %done

body:
  %i = phi i64 [ 0, %entry ], [ %inc, %latch ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %x = load i32, ptr %p, align 4
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %done, label %latch

latch:
  store i32 0, ptr %p, align 4
  %inc = add nuw nsw i64 %i, 1
  %more = icmp ne i64 %inc, %n
  br i1 %more, label %body, label %done

done:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

define void @aborts(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.a),
      "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %a, i64 %bytes) ]
  %guard = icmp slt i64 0, %n
  br i1 %guard, label %body, label %done

body:
  %i = phi i64 [ 0, %entry ], [ %inc, %latch ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %x = load i32, ptr %p, align 4
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %stop, label %latch

stop:
  call void @stop()
  unreachable

latch:
  store i32 0, ptr %p, align 4
  %inc = add nuw nsw i64 %i, 1
  %more = icmp ne i64 %inc, %n
  br i1 %more, label %body, label %done

done:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
