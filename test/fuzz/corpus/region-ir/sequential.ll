; ModuleID = 'test/lit/lower-markers/sequential.ll'
source_filename = "test/lit/lower-markers/sequential.ll"

@.steps = private unnamed_addr constant [6 x i8] c"steps\00"
@.leaf = private unnamed_addr constant [5 x i8] c"leaf\00"

define void @steps(ptr %x, i64 %n, i64 %s) {
entry:
  %bytes = shl i64 %n, 2
  %r = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.steps), "hpvm.dims"(i64 %s), "hpvm.inout"(ptr %x, i64 %bytes), "hpvm.sequential"() ]
  br label %tl

tl:                                               ; preds = %te, %entry
  %t = phi i64 [ 0, %entry ], [ %t.next, %te ]
  %tc = icmp slt i64 %t, %s
  br i1 %tc, label %tb, label %done

tb:                                               ; preds = %tl
  %h = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.leaf), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %l

l:                                                ; preds = %b, %tb
  %i = phi i64 [ 0, %tb ], [ %i.next, %b ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e

b:                                                ; preds = %l
  %p = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %p, align 4
  %w = fmul float %v, 2.000000e+00
  %y = fadd float %w, 1.000000e+00
  store float %y, ptr %p, align 4
  %i.next = add nsw i64 %i, 1
  br label %l

e:                                                ; preds = %l
  call void @llvm.directive.region.exit(token %h)
  br label %te

te:                                               ; preds = %e
  %t.next = add nsw i64 %t, 1
  br label %tl

done:                                             ; preds = %tl
  call void @llvm.directive.region.exit(token %r)
  ret void
}

declare token @llvm.directive.region.entry()

declare void @llvm.directive.region.exit(token)
