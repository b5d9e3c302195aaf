// A STREAM-style triad, a[i] = b[i] + s c[i], with OpenMP: the memory
// bandwidth the machine delivers to a simple parallel loop, measured in the
// same run as the benchmarks so that their GB/s can be read as a fraction of
// it. n floats per array (BENCH_SAXPY_N, default 2^26: the size saxpy uses);
// counted as STREAM counts, 12 bytes per element (two loads, one store; the
// write-allocate read of `a` that most CPUs add is not counted, so a kernel
// that reads what it writes, like saxpy, can exceed 100%).
#include "../common/bench.h"

#include <stdio.h>

struct ctx {
  long n;
  float s;
  float *a, *b, *c;
};

static void triad(void *p) {
  struct ctx *x = p;
  float *a = x->a;
  const float *b = x->b, *c = x->c;
  float s = x->s;
  long n = x->n;
#pragma omp parallel for
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

int main(void) {
  struct ctx x = {bench_env_long("BENCH_SAXPY_N", 1L << 26), 3.0f, 0, 0, 0};
  x.a = bench_alloc((size_t)x.n * sizeof(float));
  x.b = bench_alloc((size_t)x.n * sizeof(float));
  x.c = bench_alloc((size_t)x.n * sizeof(float));
  // First touch in parallel, with the loop's own schedule, as STREAM does.
#pragma omp parallel for
  for (long i = 0; i < x.n; ++i) {
    x.a[i] = 0;
    x.b[i] = 1;
    x.c[i] = 2;
  }
  bench_times t = bench_measure(triad, &x, 2, 1);
  int ok = x.a[0] == 7.0f && x.a[x.n - 1] == 7.0f;
  char size[64];
  snprintf(size, sizeof size, "%ld-floats", x.n);
  bench_report("stream-triad", "omp", size, t, 12.0 * (double)x.n,
               2.0 * (double)x.n, ok);
  return !ok;
}
