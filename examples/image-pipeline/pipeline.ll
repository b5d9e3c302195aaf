; An edge detector in HPVM region form: a three-level dataflow graph.
;
;   pipeline (internal)
;   ├── blur        leaf, (h-2) x (w-2) instances: 3x3 box blur of the interior
;   └── edges       internal
;       ├── gradient  leaf, (h-2) x (w-2) instances: |d/dx| + |d/dy| of the blur
;       └── threshold leaf, h*w instances: mask = gradient > thr
;
; Sibling order comes from the buffers: blur writes `blurred`, which
; gradient reads (blur -> edges); gradient writes `grad`, which threshold
; reads (gradient -> threshold).
;
; void pipeline(const float *img, float *blurred, float *grad,
;               unsigned char *mask, long h, long w, float thr);

@.name.pipeline = private unnamed_addr constant [9 x i8] c"pipeline\00"
@.name.blur = private unnamed_addr constant [5 x i8] c"blur\00"
@.name.edges = private unnamed_addr constant [6 x i8] c"edges\00"
@.name.gradient = private unnamed_addr constant [9 x i8] c"gradient\00"
@.name.threshold = private unnamed_addr constant [10 x i8] c"threshold\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare float @llvm.fabs.f32(float)

define void @pipeline(ptr noalias %img, ptr noalias %blurred, ptr noalias %grad,
                      ptr noalias %mask, i64 %h, i64 %w, float %thr) {
entry:
  %pixels = mul i64 %h, %w
  %fbytes = shl i64 %pixels, 2
  %root = call token @llvm.directive.region.entry() [
      "hpvm.node"(ptr @.name.pipeline),
      "hpvm.in"(ptr %img, i64 %fbytes),
      "hpvm.out"(ptr %blurred, i64 %fbytes, ptr %grad, i64 %fbytes,
                 ptr %mask, i64 %pixels),
      "hpvm.value"(i64 %h, i64 %w, float %thr) ]
  %ih = sub i64 %h, 2
  %iw = sub i64 %w, 2

  ; --- blur: blurred[y][x] = mean of img[y-1..y+1][x-1..x+1] ---------------
  %tb = call token @llvm.directive.region.entry() [
      "hpvm.node"(ptr @.name.blur), "hpvm.dims"(i64 %ih, i64 %iw),
      "hpvm.in"(ptr %img, i64 %fbytes), "hpvm.out"(ptr %blurred, i64 %fbytes),
      "hpvm.value"(i64 %w) ]
  br label %b.y.cond
b.y.cond:
  %by = phi i64 [ 0, %entry ], [ %by.next, %b.y.latch ]
  %by.more = icmp ult i64 %by, %ih
  br i1 %by.more, label %b.x.cond, label %b.done
b.x.cond:
  %bx = phi i64 [ 0, %b.y.cond ], [ %bx.next, %b.x.body ]
  %bx.more = icmp ult i64 %bx, %iw
  br i1 %bx.more, label %b.x.body, label %b.y.latch
b.x.body:
  ; top-left corner of the 3x3 window is (by, bx); its centre (by+1, bx+1)
  %b.row0 = mul i64 %by, %w
  %b.i00 = add i64 %b.row0, %bx
  %b.i10 = add i64 %b.i00, %w
  %b.i20 = add i64 %b.i10, %w
  %s0 = call float @row3(ptr %img, i64 %b.i00)
  %s1 = call float @row3(ptr %img, i64 %b.i10)
  %s2 = call float @row3(ptr %img, i64 %b.i20)
  %s01 = fadd float %s0, %s1
  %s012 = fadd float %s01, %s2
  %mean = fmul float %s012, 0x3FBC71C720000000 ; 1/9
  %b.c = add i64 %b.i10, 1
  %b.out = getelementptr inbounds float, ptr %blurred, i64 %b.c
  store float %mean, ptr %b.out, align 4
  %bx.next = add nuw nsw i64 %bx, 1
  br label %b.x.cond
b.y.latch:
  %by.next = add nuw nsw i64 %by, 1
  br label %b.y.cond
b.done:
  call void @llvm.directive.region.exit(token %tb)

  ; --- edges: gradient then threshold ---------------------------------------
  %te = call token @llvm.directive.region.entry() [
      "hpvm.node"(ptr @.name.edges),
      "hpvm.in"(ptr %blurred, i64 %fbytes),
      "hpvm.out"(ptr %grad, i64 %fbytes, ptr %mask, i64 %pixels),
      "hpvm.value"(i64 %w, float %thr) ]

  %tg = call token @llvm.directive.region.entry() [
      "hpvm.node"(ptr @.name.gradient), "hpvm.dims"(i64 %ih, i64 %iw),
      "hpvm.in"(ptr %blurred, i64 %fbytes), "hpvm.out"(ptr %grad, i64 %fbytes),
      "hpvm.value"(i64 %w) ]
  br label %g.y.cond
g.y.cond:
  %gy = phi i64 [ 0, %b.done ], [ %gy.next, %g.y.latch ]
  %gy.more = icmp ult i64 %gy, %ih
  br i1 %gy.more, label %g.x.cond, label %g.done
g.x.cond:
  %gx = phi i64 [ 0, %g.y.cond ], [ %gx.next, %g.x.body ]
  %gx.more = icmp ult i64 %gx, %iw
  br i1 %gx.more, label %g.x.body, label %g.y.latch
g.x.body:
  %g.row = add i64 %gy, 1
  %g.rowoff = mul i64 %g.row, %w
  %g.col = add i64 %gx, 1
  %g.c = add i64 %g.rowoff, %g.col
  %g.l = sub i64 %g.c, 1
  %g.r = add i64 %g.c, 1
  %g.u = sub i64 %g.c, %w
  %g.d = add i64 %g.c, %w
  %vl = call float @at(ptr %blurred, i64 %g.l)
  %vr = call float @at(ptr %blurred, i64 %g.r)
  %vu = call float @at(ptr %blurred, i64 %g.u)
  %vd = call float @at(ptr %blurred, i64 %g.d)
  %dx = fsub float %vr, %vl
  %dy = fsub float %vd, %vu
  %adx = call float @llvm.fabs.f32(float %dx)
  %ady = call float @llvm.fabs.f32(float %dy)
  %g = fadd float %adx, %ady
  %g.out = getelementptr inbounds float, ptr %grad, i64 %g.c
  store float %g, ptr %g.out, align 4
  %gx.next = add nuw nsw i64 %gx, 1
  br label %g.x.cond
g.y.latch:
  %gy.next = add nuw nsw i64 %gy, 1
  br label %g.y.cond
g.done:
  call void @llvm.directive.region.exit(token %tg)

  %tt = call token @llvm.directive.region.entry() [
      "hpvm.node"(ptr @.name.threshold), "hpvm.dims"(i64 %pixels),
      "hpvm.in"(ptr %grad, i64 %fbytes), "hpvm.out"(ptr %mask, i64 %pixels),
      "hpvm.value"(float %thr) ]
  br label %t.cond
t.cond:
  %k = phi i64 [ 0, %g.done ], [ %k.next, %t.body ]
  %k.more = icmp ult i64 %k, %pixels
  br i1 %k.more, label %t.body, label %t.done
t.body:
  %t.in = getelementptr inbounds float, ptr %grad, i64 %k
  %t.g = load float, ptr %t.in, align 4
  %t.edge = fcmp ogt float %t.g, %thr
  %t.bit = zext i1 %t.edge to i8
  %t.out = getelementptr inbounds i8, ptr %mask, i64 %k
  store i8 %t.bit, ptr %t.out, align 1
  %k.next = add nuw nsw i64 %k, 1
  br label %t.cond
t.done:
  call void @llvm.directive.region.exit(token %tt)

  call void @llvm.directive.region.exit(token %te)
  call void @llvm.directive.region.exit(token %root)
  ret void
}

; Helpers the kernels call; backends inline them.
define internal float @at(ptr %p, i64 %i) {
  %q = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %q, align 4
  ret float %v
}

define internal float @row3(ptr %p, i64 %i) {
  %a = call float @at(ptr %p, i64 %i)
  %j = add i64 %i, 1
  %b = call float @at(ptr %p, i64 %j)
  %k = add i64 %i, 2
  %c = call float @at(ptr %p, i64 %k)
  %ab = fadd float %a, %b
  %abc = fadd float %ab, %c
  ret float %abc
}
