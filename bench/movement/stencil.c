// stencil: T steps of a 5-point Jacobi stencil on an h x w grid
// (BENCH_MOVE_STENCIL_H, _W, default 512 x 512; BENCH_MOVE_STENCIL_T,
// default 20): bench/kernels/stencil.c's kernel_stencil, linked in as it
// is: each step one launch of a 2-D node over the interior, in a function
// of its own, the two grids swapped after each. Two versions, chosen by the
// first argument:
//
//   plain   kernel_stencil alone: every launch leaves host memory up to
//           date, so each step moves its source up and its result down
//   region  kernel_stencil called inside `#pragma hpvm data inout(a, b)`:
//           the grids stay on the device from step to step
//
// The least a run must move, for both versions: a up once (the first step
// reads it), b's borders up once (no step writes them, and the second step
// reads them; b's interior is the first step's result), and what the steps
// modified down once: b after one step, both grids after more: 12 h w bytes
// and the borders.
//
// The reference is the same kernel compiled by plain clang, which ignores
// the pragmas: the sequential program, linked in as kernel_stencil_sequential
// (run.sh: -Dkernel_stencil=kernel_stencil_sequential).
#include "movement.h"

#include <string.h>

float *kernel_stencil(float *a, float *b, long h, long w, int steps);
float *kernel_stencil_sequential(float *a, float *b, long h, long w, int steps);

/// The steps inside a data region: the graphs are launched from
/// kernel_stencil, in another file; the runtime knows the grids by their
/// pointers.
static float *stencil_region(float *a, float *b, long h, long w, int steps) {
  float *out;
#pragma hpvm data inout(a[0:h * w], b[0:h * w])
  { out = kernel_stencil(a, b, h, w, steps); }
  return out;
}

struct ctx {
  long h, w;
  int steps, region;
  float *a, *b, *out, *want;
};

static float initial(long i) { return (float)((i * 37) % 101) / 101.0f; }

static void prepare(void *p) {
  struct ctx *c = p;
  for (long i = 0; i < c->h * c->w; ++i)
    c->a[i] = c->b[i] = initial(i);
}

static void run(void *p) {
  struct ctx *c = p;
  c->out = (c->region ? stencil_region : kernel_stencil)(c->a, c->b, c->h,
                                                         c->w, c->steps);
}

// A device may evaluate the five-point sum in another order (a few ulps
// over T steps of values in [0, 1]).
static long check(void *p) {
  struct ctx *c = p;
  long bad = 0;
  if (c->out != (c->steps % 2 ? c->b : c->a)) {
    fprintf(stderr, "stencil: the result is in the wrong grid\n");
    return 1;
  }
  for (long i = 0; i < c->h * c->w; ++i) {
    float d = c->out[i] - c->want[i];
    if (d > 1e-5f || d < -1e-5f) {
      if (bad < 5)
        fprintf(stderr, "stencil: (%ld, %ld): %g, want %g\n", i / c->w,
                i % c->w, c->out[i], c->want[i]);
      ++bad;
    }
  }
  return bad;
}

int main(int argc, char **argv) {
  const char *version = argc > 1 ? argv[1] : "plain";
  struct ctx c = {move_env("BENCH_MOVE_STENCIL_H", 512),
                  move_env("BENCH_MOVE_STENCIL_W", 512),
                  (int)move_env("BENCH_MOVE_STENCIL_T", 20),
                  strcmp(version, "region") == 0};
  if (!c.region && strcmp(version, "plain") != 0) {
    fprintf(stderr, "usage: %s [plain|region]\n", argv[0]);
    return 2;
  }
  size_t bytes = (size_t)(c.h * c.w) * sizeof(float);
  c.a = move_alloc(bytes);
  c.b = move_alloc(bytes);
  float *ra = move_alloc(bytes), *rb = move_alloc(bytes);
  prepare(&(struct ctx){c.h, c.w, 0, 0, ra, rb});
  c.want = kernel_stencil_sequential(ra, rb, c.h, c.w, c.steps);
  // The destination of a step is an out grid whose borders no step
  // writes: they go up with it whenever it is not on the device yet, at
  // every step without the region, at the first step inside it.
  long border = 4 * (2 * c.h + 2 * c.w - 4);
  long borders = border * (c.region ? 1 : c.steps);
  long least = c.steps > 0 ? 4 * c.h * c.w + border +
                                 4 * c.h * c.w * (c.steps > 1 ? 2 : 1)
                           : 0;
  move_workload wl = {c.region ? "stencil-region" : "stencil", "", least,
                      c.steps > 0 ? borders : 0, prepare, run, check};
  snprintf(wl.size, sizeof wl.size, "%ldx%ld,%d-steps", c.h, c.w, c.steps);
  return move_main(&wl, &c);
}
