// Atomics are allowed in nodes on buffer elements: Clang's __atomic
// builtins and C11 <stdatomic.h> operations become atomicrmw/cmpxchg in
// the kernel. The buffer they update must be out or inout.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output
#include <stdatomic.h>

void histogram(const unsigned char *pixels, unsigned *hist, int n) {
#pragma hpvm parallel for in(pixels[0:n]) inout(hist[0:256]) name(hist)
  for (int i = 0; i < n; i++)
    __atomic_fetch_add(&hist[pixels[i]], 1u, __ATOMIC_RELAXED);
}
// CHECK-LABEL: define dso_local void @histogram(
// CHECK: "hpvm.inout"(ptr %hist, i64 1024)
// CHECK: atomicrmw add ptr %{{.*}}, i32 1 monotonic
// CHECK: llvm.directive.region.exit

void counts(const int *v, _Atomic int *count, int n) {
#pragma hpvm parallel for in(v[0:n]) inout(count[0:1]) name(count)
  for (int i = 0; i < n; i++)
    if (v[i] > 0)
      atomic_fetch_add(&count[0], 1);
}
// CHECK-LABEL: define dso_local void @counts(
// CHECK: atomicrmw add ptr %count, i32 1 seq_cst

void maxima(const int *v, int *best, int n) {
#pragma hpvm parallel for in(v[0:n]) inout(best[0:1]) name(maxima)
  for (int i = 0; i < n; i++) {
    int old = __atomic_load_n(best, __ATOMIC_RELAXED);
    while (v[i] > old &&
           !__atomic_compare_exchange_n(best, &old, v[i], 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
      ;
  }
}
// CHECK-LABEL: define dso_local void @maxima(
// CHECK: cmpxchg weak ptr %best
