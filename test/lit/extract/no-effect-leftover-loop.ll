; A replicated leaf whose body has no effect: LLVM deleted its parallel loops
; but kept the first iteration, with a loop of its own that computes what
; nothing uses (from a random program). The node does nothing, which any
; number of instances may do: it verifies and extracts (it used to fail
; with "loop 'for.end' (dim 0) has no induction variable that starts at 0
; and steps by 1", the leftover loop taken for the parallel one).
; RUN: %hpvm-opt --verify --extract %s -S -o - | FileCheck %s
; With a store, the leftover loop is no parallel loop: still an error.
; RUN: sed 's/^  ; store i16/  store i16/' %s > %t.store.ll
; RUN: not %hpvm-opt --verify -disable-output %t.store.ll 2>&1 | FileCheck %s --check-prefix=STORE
; STORE: error: [parallel-loop] function 'k', node 'k': loop 'for.end' (dim 0) has no induction variable that starts at 0 and steps by 1

; CHECK-LABEL: define internal void @hpvm.node.k(
; CHECK: ret void

@.name.k = private unnamed_addr constant [2 x i8] c"k\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @k(ptr %o, i64 %n0) {
entry:
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.k),
      "hpvm.dims"(i64 %n0), "hpvm.out"(ptr %o, i64 4096) ]
  %guard = icmp slt i64 0, %n0
  br i1 %guard, label %for.end, label %done

for.end:
  %c = phi i32 [ 1, %entry ], [ %inc, %for.end ]
  %v = phi i16 [ 0, %entry ], [ %or, %for.end ]
  %neg = sub i16 0, %v
  %or = or i16 %v, %neg
  ; store i16 %or, ptr %o, align 2
  %inc = add nuw nsw i32 %c, 1
  %stop = icmp eq i32 %inc, 7
  br i1 %stop, label %done, label %for.end

done:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
