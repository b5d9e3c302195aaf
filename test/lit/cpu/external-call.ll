; Leaves may call functions the module only declares. A known math function
; (here the llvm.sqrt intrinsic) vectorises; any other external function is
; allowed too on the cpu: the call stays, the declaration is kept, and the
; symbol is resolved when the kernels are linked with the program (or, in
; the JIT, against the process). The loop around such a call cannot be
; vectorised, which the forced vectorisation reports as a warning.
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o %t.k.ll 2> %t.err
; RUN: FileCheck %s < %t.k.ll
; RUN: FileCheck %s --check-prefix=WARN < %t.err
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -filetype=obj -o %t.o 2> /dev/null
; RUN: llvm-nm %t.o | FileCheck %s --check-prefix=NM

@.name.ext = private unnamed_addr constant [4 x i8] c"ext\00"
@.name.root = private unnamed_addr constant [5 x i8] c"root\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare float @my_transfer_function(float)
declare float @llvm.sqrt.f32(float)

define void @ext(ptr %a, ptr %b, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.ext),
      "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %a, i64 %bytes) ]
  br label %for.cond
for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %p = getelementptr inbounds float, ptr %a, i64 %i
  %v = load float, ptr %p, align 4
  %r = call float @my_transfer_function(float %v)
  store float %r, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond
for.end:
  call void @llvm.directive.region.exit(token %t)
  %t2 = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.root),
      "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %b, i64 %bytes) ]
  br label %for2.cond
for2.cond:
  %j = phi i64 [ 0, %for.end ], [ %j.next, %for2.body ]
  %cmp2 = icmp slt i64 %j, %n
  br i1 %cmp2, label %for2.body, label %for2.end
for2.body:
  %q = getelementptr inbounds float, ptr %b, i64 %j
  %w = load float, ptr %q, align 4
  %s = call float @llvm.sqrt.f32(float %w)
  store float %s, ptr %q, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %for2.cond
for2.end:
  call void @llvm.directive.region.exit(token %t2)
  ret void
}

; CHECK:       declare float @my_transfer_function(float)
; CHECK-LABEL: define void @hpvm.cpu.ext(
; CHECK:         call float @my_transfer_function(float
; CHECK:         ret void
; CHECK-LABEL: define void @hpvm.cpu.root(
; CHECK:         ret void
; CHECK:       vector.body:
; CHECK:         call <8 x float> @llvm.sqrt.v8f32(<8 x float>
; CHECK:       }

; WARN-NOT: error
; WARN: hpvm-backend: note: {{.*}}loop not vectorized: call instruction cannot be vectorized
; WARN: hpvm-backend: warning: {{.*}}loop not vectorized
; WARN-NOT: error

; NM-DAG: T hpvm.cpu.ext
; NM-DAG: T hpvm.cpu.root
; NM-DAG: U my_transfer_function
