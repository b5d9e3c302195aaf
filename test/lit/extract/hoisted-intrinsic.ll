; A parallel loop of parallel loops whose leaf uses an intrinsic of a scalar
; parameter (`in[k] >> __builtin_ctz(s | 0x80000000u)`): LICM hoists the
; pure @llvm.cttz call out of both loops, into the internal node. EXTRACT
; recomputes it inside the leaf like any other pure value (it used to
; report "the node uses %tz, which an enclosing node computes in a way that
; cannot be repeated inside the leaf"). A call of a function is still not
; repeated (the leaf would need the function): the second RUN.
; RUN: %hpvm-opt --verify --extract %s -S -o - | FileCheck %s
; RUN: sed 's/call i32 @llvm.cttz.i32(i32 %or, i1 true)/call i32 @count(i32 %or)/' %s > %t.call.ll
; RUN: not %hpvm-opt --extract %t.call.ll -disable-output 2>&1 | FileCheck %s --check-prefix=CALL
; CALL: error: [internal-side-effect] function 'blocks', node 'leaf': the node uses %tz, which an enclosing node computes in a way that cannot be repeated inside the leaf

@.name.blocks = private unnamed_addr constant [7 x i8] c"blocks\00"
@.name.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare i32 @llvm.cttz.i32(i32, i1 immarg)
declare i32 @count(i32) memory(none) nounwind willreturn

define void @blocks(ptr %in, ptr %out, i64 %nb, i64 %m, i32 %s) {
entry:
  %outer = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.blocks),
      "hpvm.dims"(i64 %nb), "hpvm.in"(ptr %in, i64 4096), "hpvm.out"(ptr %out, i64 4096) ]
  %guard = icmp slt i64 0, %nb
  br i1 %guard, label %outer.ph, label %outer.end

outer.ph:
  %inner.guard = icmp slt i64 0, %m
  %or = or i32 %s, -2147483648
  %tz = call i32 @llvm.cttz.i32(i32 %or, i1 true)
  br label %outer.body

outer.body:
  %b = phi i64 [ 0, %outer.ph ], [ %b.next, %inner.end ]
  %inner = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.leaf),
      "hpvm.dims"(i64 %m), "hpvm.in"(ptr %in, i64 4096), "hpvm.out"(ptr %out, i64 4096) ]
  br i1 %inner.guard, label %inner.ph, label %inner.end

inner.ph:
  %row = mul nsw i64 %b, %m
  br label %inner.body

inner.body:
  %j = phi i64 [ 0, %inner.ph ], [ %j.next, %inner.body ]
  %k = add nsw i64 %row, %j
  %wrapped = and i64 %k, 1023
  %src = getelementptr inbounds i32, ptr %in, i64 %wrapped
  %x = load i32, ptr %src, align 4
  %shr = lshr i32 %x, %tz
  %dst = getelementptr inbounds i32, ptr %out, i64 %k
  store i32 %shr, ptr %dst, align 4
  %j.next = add nuw nsw i64 %j, 1
  %more = icmp ne i64 %j.next, %m
  br i1 %more, label %inner.body, label %inner.end

inner.end:
  call void @llvm.directive.region.exit(token %inner)
  %b.next = add nuw nsw i64 %b, 1
  %more.b = icmp ne i64 %b.next, %nb
  br i1 %more.b, label %outer.body, label %outer.end

outer.end:
  call void @llvm.directive.region.exit(token %outer)
  ret void
}

; The leaf gets the scalar and computes the count itself.
; CHECK: define internal void @hpvm.node.blocks.leaf(ptr %in, ptr %out, i64 %m, i32 %s)
; CHECK: %[[OR:[0-9]+]] = or i32 %s, -2147483648
; CHECK-NEXT: %[[TZ:[0-9]+]] = call i32 @llvm.cttz.i32(i32 %[[OR]], i1 true)
; CHECK: %shr = lshr i32 %x, %[[TZ]]
