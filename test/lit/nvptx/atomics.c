// The C surface's atomics and reductions (docs/c-frontend.md §3) are
// atomicrmw/cmpxchg in the leaves; on sm_80 they become the hardware's
// atomics on global memory: float and double add (sm_60 and later), integer
// add and min, and compare-and-swap loops where PTX has no instruction
// (float min, integer multiply).
//
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=nvptx %t.g.ll -S -o - | FileCheck %s
// RUN: rm -rf %t.d && %hpvm-backend --target=nvptx %t.g.ll --nvptx-dir=%t.d
// RUN: %if ptxas %{ %ptxas-each -arch=sm_80 %t.d %}
// sm_50 has no double add: LLVM makes it a compare-and-swap loop.
// RUN: %hpvm-backend --target=nvptx --nvptx-sm=sm_50 %t.g.ll -S -o - | FileCheck %s --check-prefix=SM50

void histogram(const unsigned char *pixels, unsigned *hist, int n) {
#pragma hpvm parallel for in(pixels[0:n]) inout(hist[0:256]) name(histogram)
  for (int i = 0; i < n; i++)
    __atomic_fetch_add(&hist[pixels[i]], 1u, __ATOMIC_RELAXED);
}

float fsum(const float *a, int n) {
  float s = 0;
#pragma hpvm parallel for in(a[0:n]) reduction(+ : s) name(fsum)
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

double dsum(const double *a, int n) {
  double s = 0;
#pragma hpvm parallel for in(a[0:n]) reduction(+ : s) name(dsum)
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

float fmin_all(const float *a, int n) {
  float m = a[0];
#pragma hpvm parallel for in(a[0:n]) reduction(min : m) name(fmin_all)
  for (int i = 0; i < n; i++)
    m = a[i] < m ? a[i] : m;
  return m;
}

int imin_all(const int *a, int n) {
  int m = a[0];
#pragma hpvm parallel for in(a[0:n]) reduction(min : m) name(imin_all)
  for (int i = 0; i < n; i++)
    m = a[i] < m ? a[i] : m;
  return m;
}

long product(const long *a, int n) {
  long p = 1;
#pragma hpvm parallel for in(a[0:n]) reduction(* : p) name(product)
  for (int i = 0; i < n; i++)
    p *= a[i];
  return p;
}

// CHECK-LABEL: // node 'histogram'
// CHECK:       atom.global.add.u32
// CHECK-LABEL: // node 'fsum'
// CHECK:       atom.global.add.f32
// CHECK-LABEL: // node 'dsum'
// CHECK:       atom.global.add.f64
// CHECK-LABEL: // node 'fmin_all'
// CHECK:       atom.global.cas.b32
// CHECK-LABEL: // node 'imin_all'
// CHECK:       atom.global.min.s32
// CHECK-LABEL: // node 'product'
// CHECK:       atom.global.cas.b64

// SM50:       .target sm_50
// SM50-LABEL: // node 'dsum'
// SM50-NOT:   atom.global.add.f64
// SM50:       atom.global.cas.b64
