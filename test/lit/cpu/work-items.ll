; A leaf with barriers runs once per work-group and loops over the group's
; work-items itself, the loop marked !{"hpvm.work_items"} (GraphMetadata.h,
; docs/hpvm-c.md): that loop is the one the CPU backend treats as its
; instance loop (accesses tagged parallel, jammed, vectorised), and the
; wrapper's loop over the groups keeps mustprogress only (ITEMS). Without
; the mark the group loop is the instance loop and the inner loop is left
; alone (PLAIN).
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.g.ll -S -o - | FileCheck %s --check-prefix=ITEMS
; RUN: sed 's/, !llvm.loop !0//' %s > %t.plain.ll
; RUN: %hpvm-opt --extract %t.plain.ll -S -o %t.p.ll
; RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.p.ll -S -o - | FileCheck %s --check-prefix=PLAIN

@.name = private unnamed_addr constant [7 x i8] c"groups\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; out[8g + l] = g + l, for the 8 work-items l of each group g.
define void @groups(ptr %out, i64 %n) {
entry:
  %bytes = shl i64 %n, 6
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name),
      "hpvm.dims"(i64 %n), "hpvm.out"(ptr %out, i64 %bytes) ]
  br label %group

group:
  %g = phi i64 [ 0, %entry ], [ %g.next, %group.next ]
  %more = icmp slt i64 %g, %n
  br i1 %more, label %items.pre, label %done

items.pre:
  %base = shl i64 %g, 3
  br label %item

item:
  %l = phi i64 [ 0, %items.pre ], [ %l.next, %item ]
  %at = add nuw nsw i64 %base, %l
  %p = getelementptr inbounds i64, ptr %out, i64 %at
  %v = add nuw nsw i64 %g, %l
  store i64 %v, ptr %p, align 8
  %l.next = add nuw nsw i64 %l, 1
  %last = icmp eq i64 %l.next, 8
  br i1 %last, label %group.next, label %item, !llvm.loop !0

group.next:
  %g.next = add nuw nsw i64 %g, 1
  br label %group

done:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

!0 = distinct !{!0, !1}
!1 = !{!"hpvm.work_items"}

; ITEMS-LABEL: define void @hpvm.cpu.groups(
; ITEMS:       store i64 {{.*}}, !llvm.access.group ![[AG:[0-9]+]]
; ITEMS:       br i1 {{.*}}, !llvm.loop ![[ITEMLOOP:[0-9]+]]
; ITEMS:       br {{.*}}, !llvm.loop ![[GROUPLOOP:[0-9]+]]
; ITEMS-DAG:   ![[ITEMLOOP]] = distinct !{![[ITEMLOOP]], ![[MP:[0-9]+]], ![[PA:[0-9]+]], ![[IL:[0-9]+]], ![[VE:[0-9]+]]}
; ITEMS-DAG:   ![[PA]] = !{!"llvm.loop.parallel_accesses", ![[AG]]}
; ITEMS-DAG:   ![[IL]] = !{!"hpvm.cpu.instance_loop"}
; ITEMS-DAG:   ![[VE]] = !{!"llvm.loop.vectorize.enable", i1 true}
; ITEMS-DAG:   ![[GROUPLOOP]] = distinct !{![[GROUPLOOP]], ![[MP]]}
; ITEMS-DAG:   ![[MP]] = !{!"llvm.loop.mustprogress"}

; PLAIN-LABEL: define void @hpvm.cpu.groups(
; PLAIN:       store i64 %{{[^,]*}}, ptr %{{[^,]*}}, align 8, !llvm.access.group
; PLAIN:       br i1 {{.*}}, label %{{[^,]*}}, label %{{[^,]*}}{{$}}
; PLAIN:       !{!"hpvm.cpu.instance_loop"}
