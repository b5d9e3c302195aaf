// Driver for kernels/frames.c: BENCH_FRAMES_N frames (default 64) of
// BENCH_FRAMES_W x BENCH_FRAMES_H (default 256 x 256) pixels per run, in a
// ring of 4 frame buffers; the result is per frame. The check: the last 4
// frames' sums and maxima against plain C. The HPVM build also times the
// same graph launched one frame at a time (variant "hpvm-serial"), the
// baseline of the stream.
#include "../common/bench.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void kernel_frames(int32_t **deltas, int32_t **img, int32_t **out,
                   int64_t (*st)[2], long slots, long frames, long h, long w);
void kernel_frames_serial(int32_t **deltas, int32_t **img, int32_t **out,
                          int64_t (*st)[2], long slots, long frames, long h,
                          long w);

enum { Slots = 4 };

struct ctx {
  long frames, h, w;
  int32_t *deltas[Slots], *img[Slots], *out[Slots];
  int64_t st[Slots][2], want[Slots][2];
  void (*kernel)(int32_t **, int32_t **, int32_t **, int64_t (*)[2], long, long,
                 long, long);
};

static void run(void *p) {
  struct ctx *c = p;
  c->kernel(c->deltas, c->img, c->out, c->st, Slots, c->frames, c->h, c->w);
}

/// Slot s's frame in plain C: its sum and maximum.
static void reference(const int32_t *d, long h, long w, int64_t want[2]) {
  long n = h * w;
  int32_t *img = bench_alloc((size_t)n * sizeof *img);
  for (long y = 0; y < h; ++y) {
    int32_t v = 0;
    for (long x = 0; x < w; ++x)
      img[y * w + x] = v += d[y * w + x];
  }
  int64_t sum = 0, max = INT64_MIN;
  for (long y = 0; y < h; ++y)
    for (long x = 0; x < w; ++x) {
      long c = y * w + x;
      int32_t r = img[c];
      if (y > 0 && x > 0 && y < h - 1 && x < w - 1) {
        r = 0;
        for (long dy = -1; dy <= 1; ++dy)
          for (long dx = -1; dx <= 1; ++dx)
            r += img[c + dy * w + dx];
      }
      sum += r;
      if (r > max)
        max = r;
    }
  want[0] = sum;
  want[1] = max;
}

static int right(const struct ctx *c) {
  for (int s = 0; s < Slots; ++s)
    if (c->st[s][0] != c->want[s][0] || c->st[s][1] != c->want[s][1])
      return 0;
  return 1;
}

static int measure(struct ctx *c, const char *variant) {
  memset(c->st, 0, sizeof c->st);
  bench_times t = bench_measure(run, c, 1, c->frames);
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld,%ld-frames", c->w, c->h, c->frames);
  double n = (double)c->h * c->w;
  // Per frame: deltas read, img written and read, out written and read.
  bench_report("frames", variant, size, t, n * 4 * 5, n * 11, right(c));
  return right(c);
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_FRAMES_N", 64),
                  bench_env_long("BENCH_FRAMES_H", 256),
                  bench_env_long("BENCH_FRAMES_W", 256)};
  c.kernel = kernel_frames;
  size_t bytes = (size_t)(c.h * c.w) * sizeof(int32_t);
  uint32_t r = 2463534242u;
  for (int s = 0; s < Slots; ++s) {
    c.deltas[s] = bench_alloc(bytes);
    c.img[s] = bench_alloc(bytes);
    c.out[s] = bench_alloc(bytes);
    for (long k = 0; k < c.h * c.w; ++k) {
      r ^= r << 13;
      r ^= r >> 17;
      r ^= r << 5;
      c.deltas[s][k] = (int32_t)(r % 7) - 3;
    }
    reference(c.deltas[s], c.h, c.w, c.want[s]);
  }
  int ok = measure(&c, variant);
  if (!strcmp(variant, "hpvm")) {
    c.kernel = kernel_frames_serial;
    ok &= measure(&c, "hpvm-serial");
  }
  return !ok;
}
