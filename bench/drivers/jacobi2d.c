// Driver for kernels/jacobi2d.c: a BENCH_JACOBI2D_N x BENCH_JACOBI2D_N grid
// (default 250, PolyBench's medium size), BENCH_JACOBI2D_STEPS time steps
// of two launches each (default 100) per run, checked against the same
// steps in plain C.
#include "../common/bench.h"

#include <stdio.h>

void kernel_jacobi2d(float *a, float *b, long n, int steps);

/// PolyBench's initial values.
static void init(float *a, float *b, long n) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      a[i * n + j] = ((float)i * (j + 2) + 2) / n;
      b[i * n + j] = ((float)i * (j + 3) + 3) / n;
    }
}

static void step(const float *src, float *dst, long n) {
  for (long i = 1; i < n - 1; ++i)
    for (long j = 1; j < n - 1; ++j)
      dst[i * n + j] =
          0.2f * (src[i * n + j] + src[i * n + j - 1] + src[i * n + j + 1] +
                  src[(i + 1) * n + j] + src[(i - 1) * n + j]);
}

int main(int argc, char **argv) {
  long n = bench_env_long("BENCH_JACOBI2D_N", 250);
  int steps = (int)bench_env_long("BENCH_JACOBI2D_STEPS", 100);
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld,%d-launches", n, n, 2 * steps);
  bench_steps s = {.name = "jacobi2d",
                   .n = n,
                   .elems = n * n,
                   .steps = steps,
                   .kernel = kernel_jacobi2d,
                   .init = init,
                   .step = step,
                   .tol = 1e-4f,
                   .size = size,
                   .flops = 5.0 * (double)((n - 2) * (n - 2)) * 2 * steps};
  return bench_run_steps(&s, argc > 1 ? argv[1] : "?");
}
