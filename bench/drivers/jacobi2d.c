// Driver for kernels/jacobi2d.c: a BENCH_JACOBI2D_N x BENCH_JACOBI2D_N grid
// (default 250, PolyBench's medium size), BENCH_JACOBI2D_STEPS time steps
// of two launches each (default 100) per run, checked against the same
// steps in plain C.
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>

void kernel_jacobi2d(float *a, float *b, long n, int steps);

struct ctx {
  long n;
  int steps;
  float *a, *b;
};

static void run(void *p) {
  struct ctx *c = p;
  kernel_jacobi2d(c->a, c->b, c->n, c->steps);
}

/// PolyBench's initial values.
static void init(float *a, float *b, long n) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      a[i * n + j] = ((float)i * (j + 2) + 2) / n;
      b[i * n + j] = ((float)i * (j + 3) + 3) / n;
    }
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_JACOBI2D_N", 250),
                  (int)bench_env_long("BENCH_JACOBI2D_STEPS", 100), 0, 0};
  size_t bytes = (size_t)(c.n * c.n) * sizeof(float);
  c.a = bench_alloc(bytes);
  c.b = bench_alloc(bytes);
  init(c.a, c.b, c.n);
  bench_times t = bench_measure(run, &c, 1, 1);

  // One run from fresh data against plain C.
  init(c.a, c.b, c.n);
  kernel_jacobi2d(c.a, c.b, c.n, c.steps);
  float *ra = bench_alloc(bytes), *rb = bench_alloc(bytes);
  init(ra, rb, c.n);
  long n = c.n;
  for (int s = 0; s < c.steps; ++s)
    for (int half = 0; half < 2; ++half) {
      const float *src = half ? rb : ra;
      float *dst = half ? ra : rb;
      for (long i = 1; i < n - 1; ++i)
        for (long j = 1; j < n - 1; ++j)
          dst[i * n + j] =
              0.2f * (src[i * n + j] + src[i * n + j - 1] + src[i * n + j + 1] +
                      src[(i + 1) * n + j] + src[(i - 1) * n + j]);
    }
  long bad = 0;
  for (long k = 0; k < n * n; ++k)
    if (fabsf(c.a[k] - ra[k]) > 1e-4f * (1 + fabsf(ra[k])) ||
        fabsf(c.b[k] - rb[k]) > 1e-4f * (1 + fabsf(rb[k])))
      ++bad;
  if (bad)
    fprintf(stderr, "jacobi2d: %ld wrong points\n", bad);
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld,%d-launches", n, n, 2 * c.steps);
  bench_report("jacobi2d", variant, size, t, 0,
               5.0 * (double)((n - 2) * (n - 2)) * 2 * c.steps, bad == 0);
  return bad != 0;
}
