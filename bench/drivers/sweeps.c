// Driver for kernels/sweeps.c: BENCH_SWEEPS_N points (default 4000),
// BENCH_SWEEPS_STEPS time steps of two launches each (default 1000) per
// run, checked against the same steps in plain C.
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void kernel_sweeps(float *a, float *b, long n, int steps);

struct ctx {
  long n;
  int steps;
  float *a, *b;
};

static void run(void *p) {
  struct ctx *c = p;
  kernel_sweeps(c->a, c->b, c->n, c->steps);
}

static void init(float *a, float *b, long n) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] = (float)((i * 37) % 101) / 101.0f;
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_SWEEPS_N", 4000),
                  (int)bench_env_long("BENCH_SWEEPS_STEPS", 1000), 0, 0};
  size_t bytes = (size_t)c.n * sizeof(float);
  c.a = bench_alloc(bytes);
  c.b = bench_alloc(bytes);
  init(c.a, c.b, c.n);
  bench_times t = bench_measure(run, &c, 1, 1);

  // One run from fresh data against plain C.
  init(c.a, c.b, c.n);
  kernel_sweeps(c.a, c.b, c.n, c.steps);
  float *ra = bench_alloc(bytes), *rb = bench_alloc(bytes);
  init(ra, rb, c.n);
  for (int s = 0; s < c.steps; ++s)
    for (int half = 0; half < 2; ++half) {
      const float *src = half ? rb : ra;
      float *dst = half ? ra : rb;
      for (long i = 1; i < c.n - 1; ++i)
        dst[i] = (src[i - 1] + src[i] + src[i + 1]) * (1.0f / 3.0f);
    }
  long bad = 0;
  for (long i = 0; i < c.n; ++i)
    if (fabsf(c.a[i] - ra[i]) > 1e-5f || fabsf(c.b[i] - rb[i]) > 1e-5f)
      ++bad;
  if (bad)
    fprintf(stderr, "sweeps: %ld wrong points\n", bad);
  char size[64];
  snprintf(size, sizeof size, "%ld-points,%d-launches", c.n, 2 * c.steps);
  bench_report("sweeps", variant, size, t, 0,
               3.0 * (double)(c.n - 2) * 2 * c.steps, bad == 0);
  return bad != 0;
}
