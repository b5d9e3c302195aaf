; Two stores of each instance to one buffer usually keep the instance loop
; from being marked parallel (a vectoriser could reorder them within an
; iteration). Stores marked !hpvm.instance.private (fields of a record of
; the instance's own, as a barrier leaf's scratch has: GraphMetadata.h) are
; never to the same bytes, so the loop is parallel with them (PRIVATE); the
; same stores unmarked are in no access group (PLAIN).
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.g.ll -S -o - | FileCheck %s --check-prefix=PRIVATE
; RUN: sed 's/, !hpvm.instance.private !0//' %s > %t.plain.ll
; RUN: %hpvm-opt --extract %t.plain.ll -S -o %t.p.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.p.ll -S -o - | FileCheck %s --check-prefix=PLAIN

@.name = private unnamed_addr constant [7 x i8] c"fields\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; record[i] = i, record[n + i] = 2i: two arrays over the instances.
define void @fields(ptr %record, i64 %n) {
entry:
  %bytes = shl i64 %n, 4
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %record, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %p = getelementptr inbounds i64, ptr %record, i64 %i
  store i64 %i, ptr %p, align 8, !hpvm.instance.private !0
  %j = add nuw nsw i64 %n, %i
  %q = getelementptr inbounds i64, ptr %record, i64 %j
  %twice = shl i64 %i, 1
  store i64 %twice, ptr %q, align 8, !hpvm.instance.private !0
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

!0 = !{}

; PRIVATE-LABEL: define void @hpvm.cpu.fields(
; PRIVATE:       store i64 {{.*}}, !llvm.access.group ![[AG:[0-9]+]]
; PRIVATE:       store i64 {{.*}}, !llvm.access.group ![[AG]]
; PRIVATE:       br i1 {{.*}}, !llvm.loop ![[LOOP:[0-9]+]]
; PRIVATE-DAG:   ![[LOOP]] = distinct !{![[LOOP]], !{{[0-9]+}}, ![[PA:[0-9]+]],
; PRIVATE-DAG:   ![[PA]] = !{!"llvm.loop.parallel_accesses", ![[AG]]}

; PLAIN-LABEL: define void @hpvm.cpu.fields(
; PLAIN:       store i64 %{{[^,]*}}, ptr %{{[^,]*}}, align 8{{$}}
; PLAIN:       store i64 %{{[^,]*}}, ptr %{{[^,]*}}, align 8{{$}}
; PLAIN-NOT:   !llvm.access.group
