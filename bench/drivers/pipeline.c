// Driver for kernels/pipeline.c: a generated n x n image (BENCH_PIPELINE_N,
// default 8192: 256 MiB per float image, 832 MiB in all, beyond the caches).
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kernel_pipeline(const float *img, float *blurred, float *grad,
                     unsigned char *mask, long h, long w, float thr);

struct ctx {
  long h, w;
  float thr;
  float *img, *blurred, *grad;
  unsigned char *mask;
};

static void run(void *p) {
  struct ctx *c = p;
  kernel_pipeline(c->img, c->blurred, c->grad, c->mask, c->h, c->w, c->thr);
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  long n = bench_env_long("BENCH_PIPELINE_N", 8192);
  struct ctx c = {n, n, 0.05f, 0, 0, 0, 0};
  size_t px = (size_t)(n * n);
  c.img = bench_alloc(px * sizeof(float));
  c.blurred = bench_alloc(px * sizeof(float));
  c.grad = bench_alloc(px * sizeof(float));
  c.mask = bench_alloc(px);
  memset(c.blurred, 0, px * sizeof(float));
  memset(c.grad, 0, px * sizeof(float));
  // Two discs on a ramp, as in examples/image-pipeline.
  for (long y = 0; y < n; ++y)
    for (long x = 0; x < n; ++x) {
      float v = 0.2f * (float)x / (float)n;
      if (hypotf((float)(x - n / 3), (float)(y - n / 2)) < (float)n / 4)
        v += 0.6f;
      if (hypotf((float)(x - 2 * n / 3), (float)(y - n / 3)) < (float)n / 6)
        v += 0.3f;
      c.img[y * n + x] = v;
    }
  bench_times t = bench_measure(run, &c, 1, 1);

  // Check the last run against plain C, stage by stage, exactly: the same
  // float operations in the same order, nothing to contract.
  float *rb = bench_alloc(px * sizeof(float)),
        *rg = bench_alloc(px * sizeof(float));
  memset(rb, 0, px * sizeof(float));
  memset(rg, 0, px * sizeof(float));
  long bad = 0;
  for (long y = 1; y + 1 < n; ++y)
    for (long x = 1; x + 1 < n; ++x) {
      long k = (y - 1) * n + (x - 1);
      float s =
          (c.img[k] + c.img[k + 1] + c.img[k + 2]) +
          (c.img[k + n] + c.img[k + n + 1] + c.img[k + n + 2]) +
          (c.img[k + 2 * n] + c.img[k + 2 * n + 1] + c.img[k + 2 * n + 2]);
      rb[y * n + x] = s * (1.0f / 9.0f);
    }
  for (long y = 1; y + 1 < n; ++y)
    for (long x = 1; x + 1 < n; ++x) {
      long k = y * n + x;
      rg[k] = fabsf(rb[k + 1] - rb[k - 1]) + fabsf(rb[k + n] - rb[k - n]);
    }
  for (size_t k = 0; k < px; ++k)
    if (c.blurred[k] != rb[k] || c.grad[k] != rg[k] ||
        c.mask[k] != (rg[k] > c.thr))
      ++bad;
  if (bad)
    fprintf(stderr, "pipeline: %ld wrong pixels\n", bad);
  // Each stage streams its input in and its output out once:
  // img -> blurred -> grad (floats) -> mask (bytes).
  double moved = (double)px * (4 + 4 + 4 + 4 + 4 + 1);
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld", n, n);
  bench_report("pipeline", variant, size, t, moved, 0, bad == 0);
  return bad != 0;
}
