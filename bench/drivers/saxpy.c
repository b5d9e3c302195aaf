// Driver for kernels/saxpy.c: n floats (BENCH_SAXPY_N), y = a x + y per run.
// The default, 2^26 (256 MiB per array), is twice the 2^25 one might pick:
// the machines this runs on report L3 caches of up to 260 MiB, and two 128
// MiB arrays would partly stay in them, so saxpy would not measure memory.
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void kernel_saxpy(long n, float a, const float *x, float *y);

struct ctx {
  long n;
  float a;
  float *x, *y;
};

static void run(void *p) {
  struct ctx *c = p;
  kernel_saxpy(c->n, c->a, c->x, c->y);
}

static void init(struct ctx *c) {
  for (long i = 0; i < c->n; ++i) {
    c->x[i] = (float)(i % 1000) * 1e-3f;
    c->y[i] = (float)(i % 7);
  }
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_SAXPY_N", 1L << 26), 0.5f, 0, 0};
  c.x = bench_alloc((size_t)c.n * sizeof(float));
  c.y = bench_alloc((size_t)c.n * sizeof(float));
  init(&c);
  bench_times t = bench_measure(run, &c, 2, 1);

  // Check one run from fresh data against the scalar formula (the kernel may
  // fuse the multiply-add: allow its rounding).
  init(&c);
  run(&c);
  long bad = 0;
  for (long i = 0; i < c.n; ++i) {
    float x = (float)(i % 1000) * 1e-3f, y = (float)(i % 7);
    float ref = c.a * x + y;
    if (fabsf(c.y[i] - ref) > 1e-6f * (fabsf(c.a * x) + fabsf(y)))
      ++bad;
  }
  if (bad)
    fprintf(stderr, "saxpy: %ld wrong elements\n", bad);
  char size[64];
  snprintf(size, sizeof size, "%ld-floats", c.n);
  bench_report("saxpy", variant, size, t, 12.0 * (double)c.n, 2.0 * (double)c.n,
               bad == 0);
  return bad != 0;
}
