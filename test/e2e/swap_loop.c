// A node inside a host loop whose buffers swap every iteration:
//
//   for (t = 0; t < steps; ++t) {
//     #pragma hpvm parallel for ... in(src[..]) out(dst[..])
//     ...
//     swap(src, dst);
//   }
//
// (the usual way to write an iterated stencil). In SSA form src and dst are
// phis of the two arrays, so each launch names a different array through the
// same variable. The node names exactly the pointers it dereferences, so the
// program is valid; this checks that it compiles and that every launch uses
// the arrays of its own iteration.
//
//   swap-loop h w steps
#include "e2e.h"

static float *iterate(float *a, float *b, long h, long w, int steps) {
  float *src = a, *dst = b;
  for (int t = 0; t < steps; ++t) {
#pragma hpvm parallel for collapse(2) name(step) in(src[0:h * w])             \
    out(dst[0:h * w])
    for (long y = 1; y < h - 1; ++y)
      for (long x = 1; x < w - 1; ++x) {
        long c = y * w + x;
        dst[c] = 0.25f * (src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
      }
    float *tmp = src;
    src = dst;
    dst = tmp;
  }
  return src;
}

int main(int argc, char **argv) {
  long h = e2e_count(argc, argv, 1, 65), w = e2e_count(argc, argv, 2, 77);
  int steps = (int)e2e_count(argc, argv, 3, 9);
  size_t bytes = (size_t)(h * w) * sizeof(float);
  float *a = e2e_alloc(bytes), *b = e2e_alloc(bytes);
  float *ra = malloc(bytes + 1), *rb = malloc(bytes + 1);
  if (!ra || !rb)
    return 2;
  for (long i = 0; i < h * w; ++i)
    a[i] = b[i] = ra[i] = rb[i] = (float)((i * 37) % 101) / 101.0f;

  float *out = iterate(a, b, h, w, steps);
  // The reference: the same steps without HPVM.
  float *src = ra, *dst = rb;
  for (int t = 0; t < steps; ++t) {
    for (long y = 1; y < h - 1; ++y)
      for (long x = 1; x < w - 1; ++x) {
        long c = y * w + x;
        dst[c] = 0.25f * (src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
      }
    float *tmp = src;
    src = dst;
    dst = tmp;
  }
  E2E_CHECK(out == (steps % 2 ? b : a), "the result is in the wrong array");
  for (long i = 0; i < h * w; ++i)
    E2E_CHECK(e2e_close(out[i], src[i], 1.0), "(%ld, %ld): %g, want %g", i / w,
              i % w, out[i], src[i]);
  printf("swap-loop %ldx%ld, %d steps\n", h, w, steps);
  e2e_free(a, bytes, "a");
  e2e_free(b, bytes, "b");
  free(ra);
  free(rb);
  return e2e_finish("swap-loop");
}
