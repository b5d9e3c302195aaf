// stencil: T steps of a 2-D 5-point Jacobi iteration (heat diffusion).
//
// Each step is one launch of a 2-D node over the interior points: it reads
// grid `src` and writes grid `dst`, then the host swaps the two pointers.
// A node's instances must be independent, which is why the update reads one
// grid and writes the other (an in-place Gauss-Seidel sweep would not be a
// parallel loop). The border is fixed: both grids start with the same border
// and no step writes it.
//
//   hpvm-clang -O3 main.c -o stencil && ./stencil [H W T]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// One Jacobi step: a 2-D node over the interior points.
static void jacobi_step(const float *src, float *dst, long h, long w) {
#pragma hpvm parallel for collapse(2) name(jacobi) in(src [0:h * w])           \
    out(dst [0:h * w])
  for (long y = 1; y < h - 1; ++y)
    for (long x = 1; x < w - 1; ++x) {
      long c = y * w + x;
      dst[c] =
          0.2f * (src[c] + src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
    }
}

/// Runs `steps` Jacobi steps, one launch each; returns the grid holding the
/// last one (a or b).
static float *jacobi(float *a, float *b, long h, long w, int steps) {
  float *src = a, *dst = b;
  for (int t = 0; t < steps; ++t) {
    jacobi_step(src, dst, h, w);
    float *tmp = src;
    src = dst;
    dst = tmp;
  }
  return src;
}

/// The same computation, written without HPVM.
static float *reference(float *a, float *b, long h, long w, int steps) {
  float *src = a, *dst = b;
  for (int t = 0; t < steps; ++t) {
    for (long y = 1; y < h - 1; ++y)
      for (long x = 1; x < w - 1; ++x) {
        long c = y * w + x;
        dst[c] =
            0.2f * (src[c] + src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
      }
    float *tmp = src;
    src = dst;
    dst = tmp;
  }
  return src;
}

int main(int argc, char **argv) {
  long h = argc > 1 ? atol(argv[1]) : 512;
  long w = argc > 2 ? atol(argv[2]) : 512;
  int steps = argc > 3 ? atoi(argv[3]) : 50;
  if (h < 0 || w < 0 || steps < 0) {
    fprintf(stderr, "usage: %s [H W T]\n", argv[0]);
    return 2;
  }
  size_t n = (size_t)(h * w) + 1; // malloc(0) may return NULL
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  float *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
  if (!a || !b || !ra || !rb) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  // A hot left edge and a warm spot in the middle of a cold plate.
  for (long y = 0; y < h; ++y)
    for (long x = 0; x < w; ++x) {
      float v = x == 0 ? 1.0f : 0.0f;
      if (labs(y - h / 2) < h / 8 + 1 && labs(x - w / 2) < w / 8 + 1)
        v = 0.5f;
      a[y * w + x] = v;
    }
  memcpy(b, a, n * sizeof *a);
  memcpy(ra, a, n * sizeof *a);
  memcpy(rb, a, n * sizeof *a);

  float *out = jacobi(a, b, h, w, steps);
  float *ref = reference(ra, rb, h, w, steps);

  // Same operations in the same order, but the kernel and the reference may
  // be compiled with different floating-point contraction; every step
  // averages, so the difference stays of the order of float rounding.
  long bad = 0;
  double heat = 0;
  for (long i = 0; i < h * w; ++i) {
    heat += out[i];
    if (!(fabsf(out[i] - ref[i]) <= 1e-5f)) {
      if (!bad)
        fprintf(stderr, "first mismatch at (%ld, %ld): %.9g, expected %.9g\n",
                i / w, i % w, out[i], ref[i]);
      ++bad;
    }
  }
  printf("stencil %ldx%ld, %d steps: total heat %.4f, %ld mismatches\n", h, w,
         steps, heat, bad);
  printf("%s stencil\n", bad ? "FAIL" : "PASS");
  free(a);
  free(b);
  free(ra);
  free(rb);
  return bad != 0;
}
