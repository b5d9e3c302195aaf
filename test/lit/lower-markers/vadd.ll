; hpvm-lower-markers turns the C frontend's marker calls into region form:
; the tags become bundles in the order of docs/ir.md §2.1, the handle
; becomes the entry token, and the marker declarations disappear. The result
; extracts like hand-written region form.
; RUN: %hpvm-opt --lower-markers %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %hpvm-opt -passes=hpvm-lower-markers,hpvm-verify,hpvm-extract %s -S | FileCheck %s --check-prefix=EXTRACT

@.str = private unnamed_addr constant [5 x i8] c"vadd\00"

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

define void @vadd(ptr %a, ptr %b, ptr %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 1, i32 1, i64 %n,
      i32 2, ptr %a, i64 %bytes, i32 3, ptr %c, i64 %bytes,
      i32 2, ptr %b, i64 %bytes, i32 6, i32 1, i32 0)
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %vb = load float, ptr %pb, align 4
  %sum = fadd float %va, %vb
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  store float %sum, ptr %pc, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; Both IN tags are merged into one bundle, in their order.
; CHECK-LABEL: define void @vadd(
; CHECK: %[[T:h]] = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.dims"(i64 %n), "hpvm.in"(ptr %a, i64 %bytes, ptr %b, i64 %bytes), "hpvm.out"(ptr %c, i64 %bytes), "hpvm.target"(i32 1) ]
; CHECK: for.end:
; CHECK-NEXT: call void @llvm.directive.region.exit(token %[[T]])
; CHECK-NEXT: ret void
; CHECK-NOT: __hpvm_region
; CHECK: declare token @llvm.directive.region.entry()
; CHECK: declare void @llvm.directive.region.exit(token)

; EXTRACT: call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c,
; EXTRACT: define internal void @hpvm.node.vadd(
; EXTRACT: !"targets", !"cpu"
