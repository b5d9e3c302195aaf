// Aligned stores in every wrapper (backends/cpu/AlignStores.cpp): the
// innermost instance loop is peeled until a store to a buffer parameter
// reaches a 64-byte boundary, so that the loop vectoriser's stores are
// aligned whatever the buffer's alignment and the loop's first index.
// Stores that do not advance by their size each instance, stores in some
// instances only and instance loops with loops inside are left as they
// are, and so is everything at -O1.
// clang-format off
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - | FileCheck %s
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -filetype=asm -o - | FileCheck %s --check-prefix=ASM
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O1 %t.g.ll -S -o - | FileCheck %s --check-prefix=O1
// clang-format on

// The sweeps benchmark's stencil: dst[i] from i = 1, read and written.
void sweep(const float *src, float *dst, long n) {
#pragma hpvm parallel for name(sweep) in(src [0:n])inout(dst [0:n])
  for (long i = 1; i < n - 1; ++i)
    dst[i] = (src[i - 1] + src[i] + src[i + 1]) * (1.0f / 3.0f);
}

// Every other element: the stores cannot all be aligned.
void spread(long n, const float *x, float *y) {
#pragma hpvm parallel for name(spread) in(x [0:n])inout(y [0:2 * n])
  for (long i = 0; i < n; ++i)
    y[2 * i] = x[i];
}

// A store in some instances only.
void some(long n, const float *x, float *y) {
#pragma hpvm parallel for name(some) in(x [0:n])inout(y [0:n])
  for (long i = 0; i < n; ++i)
    if (i % 3 != 1)
      y[i] = x[i];
}

// Instances with a loop of their own: InstanceJam's, not the vectoriser's.
void rowsum(long n, long m, const float *a, float *s) {
#pragma hpvm parallel for name(rowsum) in(a [0:n * m])inout(s [0:n])
  for (long i = 0; i < n; ++i) {
    float t = 0.0f;
    for (long k = 0; k < m; ++k)
      t += a[i * m + k];
    s[i] = t;
  }
}

// CHECK-LABEL: define void @hpvm.cpu.sweep(
// CHECK:         %align.peel = tail call i64 @llvm.umin.i64(
// CHECK:         %align.base = tail call align 64 ptr @llvm.ptrmask.p0.i64(ptr %align.aligned, i64 -64)
// CHECK:       vector.body:
// CHECK:         store <8 x float> {{.*}}, align 64
// CHECK:         store <8 x float> {{.*}}, align 32
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.spread(
// CHECK-NOT:     align.peel
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.some(
// CHECK-NOT:     align.peel
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.rowsum(
// CHECK-NOT:     align.peel
// CHECK:       }

// ASM-LABEL: hpvm.cpu.sweep:
// ASM:         vmovaps %ymm{{[0-9]+}}, {{.*}}(%r
// ASM-LABEL: hpvm.cpu.spread:

// O1-NOT:  align.peel
