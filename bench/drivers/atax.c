// Driver for kernels/atax.c: y = A^T (A x) for an n x m matrix,
// BENCH_ATAX_N x BENCH_ATAX_M (default 390 x 410, PolyBench's medium);
// checked against the same sums in plain C.
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>

void kernel_atax(long n, long m, double *A, const double *x, double *y);

struct ctx {
  long n, m;
  double *A, *x, *y;
};

static void run(void *p) {
  struct ctx *c = p;
  kernel_atax(c->n, c->m, c->A, c->x, c->y);
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_ATAX_N", 390),
                  bench_env_long("BENCH_ATAX_M", 410), 0, 0, 0};
  c.A = bench_alloc((size_t)(c.n * c.m) * sizeof(double));
  c.x = bench_alloc((size_t)c.m * sizeof(double));
  c.y = bench_alloc((size_t)c.m * sizeof(double));
  for (long k = 0; k < c.n * c.m; ++k)
    c.A[k] = (double)(k % 13) / 13;
  for (long j = 0; j < c.m; ++j)
    c.x[j] = 1 + (double)(j % 7) / 8;
  bench_times t = bench_measure(run, &c, 1, 1);

  // The last run against plain C (the chunks add in another order: a
  // relative tolerance).
  long bad = 0;
  double *want = bench_alloc((size_t)c.m * sizeof(double));
  for (long j = 0; j < c.m; ++j)
    want[j] = 0;
  for (long i = 0; i < c.n; ++i) {
    double s = 0;
    for (long j = 0; j < c.m; ++j)
      s += c.A[i * c.m + j] * c.x[j];
    for (long j = 0; j < c.m; ++j)
      want[j] += c.A[i * c.m + j] * s;
  }
  for (long j = 0; j < c.m; ++j)
    bad += !(fabs(c.y[j] - want[j]) <= 1e-9 * fabs(want[j]));
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld", c.n, c.m);
  bench_report("atax", variant, size, t, 0, 4.0 * (double)c.n * (double)c.m,
               bad == 0);
  return bad != 0;
}
