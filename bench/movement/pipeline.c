// pipeline: the edge detector of examples/image-pipeline (blur -> gradient
// -> threshold, one three-level graph: examples/image-pipeline/pipeline.c,
// linked in as it is) on an h x w image (BENCH_MOVE_PIPELINE_H, _W,
// default 1024 x 1024), every node on one device.
//
// The least a run must move, n = h w pixels: the image up once (4n) and
// each output down once (blurred 4n, grad 4n, mask n) = 13n bytes. blur
// and gradient write only the interior of blurred and grad; their borders,
// 2h + 2w - 4 elements each, keep the values the host gave them, as in the
// sequential program, so they go up too unless the runtime brings home only
// what a kernel wrote.
//
// The reference is the same pipeline.c compiled by plain clang, which
// ignores the pragmas: the sequential program, linked in as
// pipeline_sequential (run.sh: -Dpipeline=pipeline_sequential).
#include "movement.h"

#include <math.h>
#include <string.h>

void pipeline(const float *img, float *blurred, float *grad,
              unsigned char *mask, long h, long w, float thr);
void pipeline_sequential(const float *img, float *blurred, float *grad,
                         unsigned char *mask, long h, long w, float thr);

struct ctx {
  long h, w;
  float *img, *blurred, *grad, *rblurred, *rgrad;
  unsigned char *mask, *rmask;
};

static const float Thr = 0.05f;

// The borders, which no node writes, hold a value of their own: a run that
// loses them (or writes them) fails.
static void prepare(void *p) {
  struct ctx *c = p;
  size_t n = (size_t)(c->h * c->w);
  for (size_t k = 0; k < n; ++k) {
    c->blurred[k] = c->grad[k] = 7.0f;
    c->mask[k] = 3;
  }
}

static void run(void *p) {
  struct ctx *c = p;
  pipeline(c->img, c->blurred, c->grad, c->mask, c->h, c->w, Thr);
}

// The same float operations in the same order: exactly equal.
static long check(void *p) {
  struct ctx *c = p;
  long bad = 0;
  for (long k = 0; k < c->h * c->w; ++k)
    if (c->blurred[k] != c->rblurred[k] || c->grad[k] != c->rgrad[k] ||
        c->mask[k] != c->rmask[k]) {
      if (bad < 5)
        fprintf(stderr, "pipeline: (%ld, %ld): %g %g %d, want %g %g %d\n",
                k / c->w, k % c->w, c->blurred[k], c->grad[k], c->mask[k],
                c->rblurred[k], c->rgrad[k], c->rmask[k]);
      ++bad;
    }
  return bad;
}

int main(void) {
  struct ctx c = {move_env("BENCH_MOVE_PIPELINE_H", 1024),
                  move_env("BENCH_MOVE_PIPELINE_W", 1024)};
  if (c.h < 3 || c.w < 3) {
    fprintf(stderr, "pipeline: h and w must be at least 3\n");
    return 2;
  }
  size_t n = (size_t)(c.h * c.w), fb = n * sizeof(float);
  c.img = move_alloc(fb);
  c.blurred = move_alloc(fb);
  c.grad = move_alloc(fb);
  c.rblurred = move_alloc(fb);
  c.rgrad = move_alloc(fb);
  c.mask = move_alloc(n);
  c.rmask = move_alloc(n);
  // Two discs on a ramp, as in examples/image-pipeline.
  for (long y = 0; y < c.h; ++y)
    for (long x = 0; x < c.w; ++x) {
      float v = 0.2f * (float)x / (float)c.w;
      if (hypotf((float)(x - c.w / 3), (float)(y - c.h / 2)) < (float)c.h / 4)
        v += 0.6f;
      if (hypotf((float)(x - 2 * c.w / 3), (float)(y - c.h / 3)) <
          (float)c.h / 6)
        v += 0.3f;
      c.img[y * c.w + x] = v;
    }
  prepare(&c);
  memcpy(c.rblurred, c.blurred, fb);
  memcpy(c.rgrad, c.grad, fb);
  memcpy(c.rmask, c.mask, n);
  pipeline_sequential(c.img, c.rblurred, c.rgrad, c.rmask, c.h, c.w, Thr);
  // Two bordered grids, blurred and grad, go up once each.
  move_workload wl = {"pipeline", "", 13 * (long)n,
                      2 * 4 * (2 * c.h + 2 * c.w - 4), prepare, run, check};
  snprintf(wl.size, sizeof wl.size, "%ldx%ld", c.h, c.w);
  return move_main(&wl, &c);
}
