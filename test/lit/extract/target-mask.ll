; EXTRACT keeps the hpvm.target mask: bit 1 alone is "nvptx", bits 0 and 2
; are "cpu,spirv" (two graphs, one per region).
; RUN: %hpvm-opt --extract %s -S | FileCheck %s

@.name.gpu_only = private unnamed_addr constant [9 x i8] c"gpu_only\00"
@.name.cpu_spirv = private unnamed_addr constant [10 x i8] c"cpu_spirv\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; x[i] = 0 under two different target masks
define void @targets(ptr noalias %x, ptr noalias %y, i64 %n) {
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
  store i32 0, ptr %px, align 4
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
  store i32 0, ptr %py, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %l2.cond

l2.end:
  call void @llvm.directive.region.exit(token %t2)
  ret void
}

; CHECK-DAG: !{!"hpvm.node", !"name", !"gpu_only", !"kind", !"leaf", {{.*}}!"targets", !"nvptx"}
; CHECK-DAG: !{!"hpvm.node", !"name", !"cpu_spirv", !"kind", !"leaf", {{.*}}!"targets", !"cpu,spirv"}
