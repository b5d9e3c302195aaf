// Driver for kernels/sweeps.c: BENCH_SWEEPS_N points (default 4000),
// BENCH_SWEEPS_STEPS time steps of two launches each (default 1000) per
// run, checked against the same steps in plain C. drivers/steps.c is this
// driver for kernels/steps.c (the same steps in one launch).
#include "../common/bench.h"

#include <stdio.h>

#ifndef SWEEPS_KERNEL
#define SWEEPS_KERNEL kernel_sweeps
#define SWEEPS_NAME "sweeps"
#define SWEEPS_UNIT "launches"
#endif

void SWEEPS_KERNEL(float *a, float *b, long n, int steps);

static void init(float *a, float *b, long n) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] = (float)((i * 37) % 101) / 101.0f;
}

static void step(const float *src, float *dst, long n) {
  for (long i = 1; i < n - 1; ++i)
    dst[i] = (src[i - 1] + src[i] + src[i + 1]) * (1.0f / 3.0f);
}

int main(int argc, char **argv) {
  long n = bench_env_long("BENCH_SWEEPS_N", 4000);
  int steps = (int)bench_env_long("BENCH_SWEEPS_STEPS", 1000);
  char size[64];
  snprintf(size, sizeof size, "%ld-points,%d-" SWEEPS_UNIT, n, 2 * steps);
  bench_steps s = {.name = SWEEPS_NAME,
                   .n = n,
                   .elems = n,
                   .steps = steps,
                   .kernel = SWEEPS_KERNEL,
                   .init = init,
                   .step = step,
                   .tol = 1e-5f,
                   .size = size,
                   .flops = 3.0 * (double)(n - 2) * 2 * steps};
  return bench_run_steps(&s, argc > 1 ? argv[1] : "?");
}
