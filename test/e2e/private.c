// Variables of each instance's own, as OpenMP code writes them: counters
// declared at the top of the function (C89), private() scratch, and a
// firstprivate() value each instance starts from and then changes. Checked
// against a scalar reference on every device.
//
//   private n m
#include "e2e.h"

static void rows(long n, long m, const float *A, const float *x, float *y) {
  long i, j;
  float acc, scale = 2.0f;
#pragma hpvm parallel for name(rows) in(A [0:n * m], x [0:m])                  \
    out(y [0:n]) private(acc) firstprivate(scale)
  for (i = 0; i < n; ++i) {
    acc = 0.0f;
    for (j = 0; j < m; ++j)
      acc += A[i * m + j] * x[j];
    y[i] = acc * scale;
    scale = -1.0f; // this instance's copy only
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 300, m = argc > 2 ? atol(argv[2]) : 77;
  float *A = e2e_alloc(n * m * sizeof(float));
  float *x = e2e_alloc(m * sizeof(float));
  float *y = e2e_alloc(n * sizeof(float));
  for (long k = 0; k < n * m; ++k)
    A[k] = (float)(k % 7);
  for (long k = 0; k < m; ++k)
    x[k] = (float)(k % 3);
  rows(n, m, A, x, y);
  for (long i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (long j = 0; j < m; ++j)
      acc += A[i * m + j] * x[j];
    E2E_CHECK(y[i] == acc * 2.0f, "y[%ld] = %g, want %g", i, y[i], acc * 2.0f);
  }
  e2e_free(A, n * m * sizeof(float), "A");
  e2e_free(x, m * sizeof(float), "x");
  e2e_free(y, n * sizeof(float), "y");
  return e2e_finish("private");
}
