// Driver for kernels/sgemm.c: n x n matrices (BENCH_SGEMM_N, default 1024).
//   sgemm.<variant> <variant> [ijk|ikj|tiled]   the loop order (default ijk);
// tiled is the HPVM-C variant's product in tiles of local memory between
// barriers (hpvm-c/sgemm.c), and the i-j-k product where the variant has
// none (C has no barriers), reported as sgemm-tiled.
#include "../common/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kernel_sgemm(long n, const float *A, const float *B, float *C);
void kernel_sgemm_ikj(long n, const float *A, const float *B, float *C);
void kernel_sgemm_tiled(long n, const float *A, const float *B, float *C)
    __attribute__((weak));

struct ctx {
  long n;
  float *A, *B, *C;
  void (*kernel)(long, const float *, const float *, float *);
};

static void run(void *p) {
  struct ctx *c = p;
  c->kernel(c->n, c->A, c->B, c->C);
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  const char *order = argc > 2 ? argv[2] : "ijk";
  int ikj = strcmp(order, "ikj") == 0, tiled = strcmp(order, "tiled") == 0;
  struct ctx c = {bench_env_long("BENCH_SGEMM_N", 1024), 0, 0, 0,
                  ikj                           ? kernel_sgemm_ikj
                  : tiled && kernel_sgemm_tiled ? kernel_sgemm_tiled
                                                : kernel_sgemm};
  long n = c.n;
  c.A = bench_alloc((size_t)(n * n) * sizeof(float));
  c.B = bench_alloc((size_t)(n * n) * sizeof(float));
  c.C = bench_alloc((size_t)(n * n) * sizeof(float));
  for (long i = 0; i < n * n; ++i) {
    c.A[i] = (float)((i * 13) % 17) / 17.0f - 0.5f;
    c.B[i] = (float)((i * 7) % 23) / 23.0f - 0.3f;
  }
  bench_times t = bench_measure(run, &c, 1, 1);

  // Check every 61st row (all of a row's elements): a full n^3 reference
  // would take longer than the benchmark. Tolerance: the rounding of an
  // n-term float dot product.
  long bad = 0;
  for (long i = 0; i < n; i += 61)
    for (long j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (long k = 0; k < n; ++k) {
        double p = (double)c.A[i * n + k] * c.B[k * n + j];
        ref += p;
        mag += fabs(p);
      }
      if (fabs(c.C[i * n + j] - ref) > (double)(n + 1) * 1.2e-7 * mag)
        ++bad;
    }
  if (bad)
    fprintf(stderr, "sgemm: %ld wrong elements\n", bad);
  char size[64];
  snprintf(size, sizeof size, "%ldx%ld", n, n);
  bench_report(ikj     ? "sgemm-ikj"
               : tiled ? "sgemm-tiled"
                       : "sgemm",
               variant, size, t, 0, 2.0 * (double)n * n * n, bad == 0);
  return bad != 0;
}
