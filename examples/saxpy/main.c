// saxpy: y = a * x + y (BLAS level 1), a node that reads and writes a buffer.
//
// `y` is both read and written, so it is named in inout(); the scalar `a` is
// captured automatically (value(a) would say the same explicitly).
//
//   hpvm-clang -O3 main.c -o saxpy && ./saxpy [n]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void saxpy(long n, float a, const float *x, float *y) {
#pragma hpvm parallel for name(saxpy) in(x [0:n])inout(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1 << 20;
  if (n < 0) {
    fprintf(stderr, "usage: %s [n >= 0]\n", argv[0]);
    return 2;
  }
  const float a = 2.5f;
  // One spare element each: malloc(0) may return NULL, which is not a buffer.
  float *x = malloc(((size_t)n + 1) * sizeof *x);
  float *y = malloc(((size_t)n + 1) * sizeof *y);
  float *y0 = malloc(((size_t)n + 1) * sizeof *y0);
  if (!x || !y || !y0) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  for (long i = 0; i < n; ++i) {
    x[i] = (float)((i * 7) % 1009) / 1009.0f - 0.5f;
    y[i] = y0[i] = (float)(i % 131) * 0.25f;
  }

  saxpy(n, a, x, y);

  // The kernel may be compiled with fused multiply-add and the reference
  // without (or the other way round): allow the rounding of the product.
  long bad = 0;
  for (long i = 0; i < n; ++i) {
    float ref = a * x[i] + y0[i];
    float tol = 1e-6f * (fabsf(a * x[i]) + fabsf(y0[i]));
    if (!(fabsf(y[i] - ref) <= tol)) {
      if (!bad)
        fprintf(stderr, "first mismatch at %ld: %.9g, expected %.9g\n", i, y[i],
                ref);
      ++bad;
    }
  }
  printf("saxpy n=%ld: %ld mismatches\n", n, bad);
  printf("%s saxpy\n", bad ? "FAIL" : "PASS");
  free(x);
  free(y);
  free(y0);
  return bad != 0;
}
