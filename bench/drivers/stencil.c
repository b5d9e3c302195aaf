// Driver for kernels/stencil.c: an n x n grid (BENCH_STENCIL_N, default
// 8192: 256 MiB per grid, beyond even a 260 MiB L3), BENCH_STENCIL_STEPS
// (default 5) steps per run.
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

float *kernel_stencil(float *a, float *b, long h, long w, int steps);

struct ctx {
  long h, w;
  int steps;
  float *a, *b;
};

static void run(void *p) {
  struct ctx *c = p;
  kernel_stencil(c->a, c->b, c->h, c->w, c->steps);
}

static void init(struct ctx *c) {
  for (long i = 0; i < c->h * c->w; ++i)
    c->a[i] = (float)((i * 37) % 101) / 101.0f;
  memcpy(c->b, c->a, (size_t)(c->h * c->w) * sizeof(float));
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  long n = bench_env_long("BENCH_STENCIL_N", 8192);
  struct ctx c = {n, n, (int)bench_env_long("BENCH_STENCIL_STEPS", 5), 0, 0};
  size_t bytes = (size_t)(c.h * c.w) * sizeof(float);
  c.a = bench_alloc(bytes);
  c.b = bench_alloc(bytes);
  init(&c);
  bench_times t = bench_measure(run, &c, 1, 1);

  // Check one run from fresh data against the same steps in plain C.
  init(&c);
  float *out = kernel_stencil(c.a, c.b, c.h, c.w, c.steps);
  float *ra = bench_alloc(bytes), *rb = bench_alloc(bytes);
  for (long i = 0; i < c.h * c.w; ++i)
    ra[i] = rb[i] = (float)((i * 37) % 101) / 101.0f;
  long h = c.h, w = c.w;
  float *src = ra, *dst = rb;
  for (int s = 0; s < c.steps; ++s) {
    for (long y = 1; y < h - 1; ++y)
      for (long x = 1; x < w - 1; ++x) {
        long k = y * w + x;
        dst[k] =
            0.2f * (src[k] + src[k - 1] + src[k + 1] + src[k - w] + src[k + w]);
      }
    float *tmp = src;
    src = dst;
    dst = tmp;
  }
  long bad = 0;
  for (long i = 0; i < h * w; ++i)
    if (fabsf(out[i] - src[i]) > 1e-5f)
      ++bad;
  if (bad)
    fprintf(stderr, "stencil: %ld wrong points\n", bad);
  // Per step: the interior of one grid read, of the other written (the
  // neighbours' reads hit the cache).
  double moved = 2.0 * (double)((h - 2) * (w - 2)) * sizeof(float) * c.steps;
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld,%d-steps", h, w, c.steps);
  bench_report("stencil", variant, size, t, moved,
               5.0 * (double)((h - 2) * (w - 2)) * c.steps, bad == 0);
  return bad != 0;
}
