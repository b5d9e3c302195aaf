// Driver for kernels/syrk.c: C = alpha A A^T + C on the lower triangle,
// BENCH_SYRK_N x BENCH_SYRK_N (default 600) with BENCH_SYRK_M columns of A
// (default 600); checked against the same sums in plain C.
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>

void kernel_syrk(long n, long m, float alpha, float *C, float *A);

struct ctx {
  long n, m;
  float *C, *A;
};

static void init(struct ctx *c) {
  for (long k = 0; k < c->n * c->m; ++k)
    c->A[k] = (float)(k % 7) * 0.125f;
  for (long k = 0; k < c->n * c->n; ++k)
    c->C[k] = (float)(k % 3);
}

static void run(void *p) {
  struct ctx *c = p;
  kernel_syrk(c->n, c->m, 1.0f, c->C, c->A);
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_SYRK_N", 600),
                  bench_env_long("BENCH_SYRK_M", 600), 0, 0};
  c.C = bench_alloc((size_t)(c.n * c.n) * sizeof(float));
  c.A = bench_alloc((size_t)(c.n * c.m) * sizeof(float));
  init(&c);
  bench_times t = bench_measure(run, &c, 1, 1);

  // One run from fresh data against plain C: the lower triangle gets the
  // sums (sums of multiples of 1/64, exact in float), the rest stays.
  init(&c);
  kernel_syrk(c.n, c.m, 2.0f, c.C, c.A);
  long bad = 0;
  for (long i = 0; i < c.n; ++i)
    for (long j = 0; j < c.n; ++j) {
      float want = (float)((i * c.n + j) % 3);
      if (j <= i) {
        float acc = 0.0f;
        for (long k = 0; k < c.m; ++k)
          acc += c.A[i * c.m + k] * c.A[j * c.m + k];
        want += 2.0f * acc;
      }
      bad += fabsf(c.C[i * c.n + j] - want) > 1e-3f * fabsf(want) + 1e-3f;
    }
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld", c.n, c.m);
  bench_report("syrk", variant, size, t, 0,
               (double)c.n * (double)(c.n + 1) * (double)c.m, bad == 0);
  return bad != 0;
}
