// Atomics on buffer elements inside a node: the way instances that update
// the same element cooperate (a histogram), with the compiler builtins the
// frontend allows in kernels: GCC's __atomic_* and __sync_* and C11's
// <stdatomic.h> on _Atomic elements. The buffer is inout(): instances both
// read and write it.
//
//   atomics n
#include "e2e.h"

#include <stdatomic.h>

enum { Bins = 61 };

static int bin_of(int v) { return (v * 37 + 11) % Bins; }

static void histogram(long n, const int *v, int *counts, long *sums,
                      float *peak, unsigned *seen, atomic_int *c11) {
#pragma hpvm parallel for name(histogram) in(v[0:n])                          \
    inout(counts[0:Bins], sums[0:Bins], peak[0:Bins], seen[0:1],               \
          c11[0:Bins])
  for (long i = 0; i < n; ++i) {
    int b = bin_of(v[i]);
    __atomic_fetch_add(&counts[b], 1, __ATOMIC_RELAXED);
    __sync_fetch_and_add(&sums[b], (long)v[i]);
    // A float maximum by compare-and-swap.
    float x = (float)v[i] * 0.5f;
    // (The generic forms: the _n ones take only integers and pointers.)
    float old;
    __atomic_load(&peak[b], &old, __ATOMIC_RELAXED);
    while (x > old &&
           !__atomic_compare_exchange(&peak[b], &old, &x, 1, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED))
      ;
    __atomic_fetch_or(&seen[0], 1u << (b % 32), __ATOMIC_RELAXED);
    atomic_fetch_add_explicit(&c11[b], 2, memory_order_relaxed);
  }
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 1000003);
  int *v = e2e_alloc((size_t)n * sizeof(int));
  for (long i = 0; i < n; ++i)
    v[i] = (int)((i * 104729) % 10007);

  int counts[Bins] = {0}, want_counts[Bins] = {0};
  long sums[Bins] = {0}, want_sums[Bins] = {0};
  float peak[Bins], want_peak[Bins];
  unsigned seen = 0, want_seen = 0;
  atomic_int c11[Bins];
  for (int b = 0; b < Bins; ++b) {
    peak[b] = want_peak[b] = -1.0f;
    atomic_init(&c11[b], 0);
  }
  for (long i = 0; i < n; ++i) {
    int b = bin_of(v[i]);
    ++want_counts[b];
    want_sums[b] += v[i];
    float x = (float)v[i] * 0.5f;
    if (x > want_peak[b])
      want_peak[b] = x;
    want_seen |= 1u << (b % 32);
  }

  for (int launch = 0; launch < 3; ++launch) {
    histogram(n, v, counts, sums, peak, &seen, c11);
    for (int b = 0; b < Bins; ++b) {
      long k = launch + 1;
      E2E_CHECK(counts[b] == k * want_counts[b],
                "launch %d: counts[%d] = %d, want %ld", launch, b, counts[b],
                k * want_counts[b]);
      E2E_CHECK(sums[b] == k * want_sums[b],
                "launch %d: sums[%d] = %ld, want %ld", launch, b, sums[b],
                k * want_sums[b]);
      E2E_CHECK(peak[b] == want_peak[b], "launch %d: peak[%d] = %g, want %g",
                launch, b, peak[b], want_peak[b]);
      E2E_CHECK(atomic_load(&c11[b]) == 2 * k * want_counts[b],
                "launch %d: c11[%d] = %d, want %ld", launch, b,
                atomic_load(&c11[b]), 2 * k * want_counts[b]);
    }
    E2E_CHECK(seen == want_seen, "seen = %#x, want %#x", seen, want_seen);
  }
  printf("atomics n=%ld: %d bins\n", n, Bins);
  e2e_free(v, (size_t)n * sizeof(int), "v");
  return e2e_finish("atomics");
}
