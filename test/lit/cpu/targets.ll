; Only leaves whose targets include cpu get a wrapper: 'gpu_only' (mask 2,
; nvptx) gets none, 'cpu_spirv' (mask 5) gets one.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s

@.name.gpu_only = private unnamed_addr constant [9 x i8] c"gpu_only\00"
@.name.cpu_spirv = private unnamed_addr constant [10 x i8] c"cpu_spirv\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @targets(ptr %x, ptr %y, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t1 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.gpu_only),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %x, i64 %bytes), "hpvm.target"(i32 2) ]
  br label %l1.cond

l1.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %l1.body ]
  %c1 = icmp slt i64 %i, %n
  br i1 %c1, label %l1.body, label %l1.end

l1.body:
  %px = getelementptr inbounds i32, ptr %x, i64 %i
  store i32 1, ptr %px, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %l1.cond

l1.end:
  call void @llvm.directive.region.exit(token %t1)
  %t2 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.cpu_spirv),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %y, i64 %bytes), "hpvm.target"(i32 5) ]
  br label %l2.cond

l2.cond:
  %k = phi i64 [ 0, %l1.end ], [ %k.next, %l2.body ]
  %c2 = icmp slt i64 %k, %n
  br i1 %c2, label %l2.body, label %l2.end

l2.body:
  %py = getelementptr inbounds i32, ptr %y, i64 %k
  store i32 2, ptr %py, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %l2.cond

l2.end:
  call void @llvm.directive.region.exit(token %t2)
  ret void
}

; CHECK-NOT: gpu_only
; CHECK:     define void @hpvm.cpu.cpu_spirv(
; CHECK-NOT: gpu_only
