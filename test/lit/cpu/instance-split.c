// Border tests of the instance id (c == 0, c == w - 1, 0 < i < n - 1) are
// split out of the instance loop (backends/cpu/InstanceSplit.cpp): the
// preheader computes where the interior starts and ends and checks that
// every test is constant there, a copy of the loop runs the instances
// before it, a second copy, whose tests are replaced by their interior
// values, runs the interior, and the loop itself the rest. Leaves without
// such tests are left alone.
// clang-format off
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o %t.out.ll \
// RUN:   -print-after=hpvm-instance-split 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: FileCheck %s < %t.out.ll
// clang-format on

void stencil(long h, long w, const double *src, double *dst) {
#pragma hpvm parallel for collapse(2) name(stencil) in(src [0:h * w])          \
    out(dst [0:h * w])
  for (long r = 0; r < h; ++r)
    for (long c = 0; c < w; ++c) {
      if (r == 0 || c == 0 || r == h - 1 || c == w - 1)
        dst[r * w + c] = src[r * w + c];
      else
        dst[r * w + c] = 0.25 * (src[(r - 1) * w + c] + src[(r + 1) * w + c] +
                                 src[r * w + c - 1] + src[r * w + c + 1]);
    }
}

void gradient(long n, const float *x, float *y) {
#pragma hpvm parallel for name(gradient) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = 0 < i && i < n - 1 ? x[i + 1] - x[i - 1] : 0.0f;
}

// Negative: no test of the id at all.
void scale(long n, const float *x, float *y) {
#pragma hpvm parallel for name(scale) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = 2 * x[i];
}

// Negative: a test of data, not of the id.
void absolute(long n, const float *x, float *y) {
#pragma hpvm parallel for name(absolute) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = x[i] > 0 ? x[i] : -x[i];
}

// An instance that runs a loop of its own behind a test of its id: the grid
// rounded up past n, as HPVM-C's GPU-style leaves are written (j < n). The
// instance loop is not the innermost loop, but it is the innermost instance
// loop, and its test is in its own blocks: split too, so that InstanceJam
// can run the interior's lanes side by side.
void guarded_columns(long n, long m, const float *a, const float *x,
                     float *y) {
#pragma hpvm parallel for name(guarded_columns) in(a [0:n * n], x [0:n])       \
    out(y [0:n])
  for (long j = 0; j < m; ++j)
    if (j < n) {
      float s = 0;
      for (long k = 0; k < n; ++k)
        s += a[k * n + j] * x[k];
      y[j] = s;
    }
}

// The interior's range and the checks are computed once, before the loop;
// then the three loops: the head (not vectorised), the interior (an
// instance loop still) and the rest, entered from split.tail.
// PASS-LABEL: IR Dump After {{.*}}InstanceSplitPass{{.*}} on hpvm.cpu.stencil
// PASS:         %split.some = icmp ult i64
// PASS:         %split.lo = add i64
// PASS:         %split.hi = add i64
// PASS:       {{^}}split.head.done:
// PASS:       {{^}}split.rest:
// PASS:       {{^}}i1.interior:
// PASS:       {{^}}split.interior.done:
// PASS:       {{^}}split.tail:
// PASS-LABEL: IR Dump After {{.*}}InstanceSplitPass{{.*}} on hpvm.cpu.gradient
// PASS:         %split.some = icmp ult i64
// PASS:       {{^}}i0.interior:
// PASS-LABEL: IR Dump After {{.*}}InstanceSplitPass{{.*}} on hpvm.cpu.scale
// PASS-NOT:     split.
// PASS-LABEL: IR Dump After {{.*}}InstanceSplitPass{{.*}} on hpvm.cpu.absolute
// PASS-NOT:     split.
// PASS-LABEL: IR Dump After {{.*}}InstanceSplitPass{{.*}} on hpvm.cpu.guarded_columns
// PASS:         %split.some = icmp ult i64
// PASS:       {{^}}split.interior.done:
// PASS:       IR Dump After

// In the interior, the gradient's neighbour loads are whole vectors: the
// tests that made them masked loads are gone there (the rest of the loop,
// vectorised too, keeps them).
// The stencil's two stores to dst are in the two branches of its `if`: on
// paths that exclude each other, so the loop is still annotated parallel
// and the vectoriser adds no run-time alias checks.
// CHECK-LABEL: define {{.*}}@hpvm.cpu.stencil(
// CHECK:         store double {{.*}}!llvm.access.group
// CHECK-NOT:   vector.memcheck
// The interior is also the loop whose stores AlignStores.cpp aligns: its
// vector loop comes after that peel.
// CHECK-LABEL: define {{.*}}@hpvm.cpu.gradient(
// CHECK:       {{^}}align.main:
// CHECK:       {{^}}vector.body{{[0-9]*}}:
// CHECK-NOT:   {{^[a-z]}}
// CHECK:         load <8 x float>
// CHECK:         load <8 x float>
// CHECK:         fsub <8 x float>
// CHECK:         br {{.*}}!llvm.loop ![[INTERIOR:[0-9]+]]
// CHECK-LABEL: define {{.*}}@hpvm.cpu.scale(
// In the interior the jammed lanes of guarded_columns share one vector of
// a's row per k.
// CHECK-LABEL: define {{.*}}@hpvm.cpu.guarded_columns(
// CHECK:         load <8 x float>
// CHECK:         call <8 x float> @llvm.fmuladd.v8f32
// CHECK: ![[MARK:[0-9]+]] = !{!"hpvm.cpu.instance_split"}
// CHECK: ![[INTERIOR]] = distinct !{![[INTERIOR]], {{.*}}![[MARK]]{{[,}]}}
