// Collapsed triangles, as OpenMP 5.0 allows them: a syrk-like lower
// triangle (j <= i) and a strict upper one with counters declared at the
// top of the function (j from i + 1). Checked against a scalar reference,
// including that nothing outside the triangles is written.
//
//   triangular n m
#include "e2e.h"

static void syrk(long n, long m, float alpha, float C[n][n], float A[n][m]) {
#pragma hpvm parallel for name(syrk) collapse(2)                               \
    in(A [0:n] [0:m])inout(C [0:n] [0:n])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j <= i; ++j) {
      float acc = 0.0f;
      for (long k = 0; k < m; ++k)
        acc += A[i][k] * A[j][k];
      C[i][j] += alpha * acc;
    }
}

static void upper(long n, float *U) {
  int i, j;
#pragma hpvm parallel for name(upper) collapse(2) inout(U [0:n * n])
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      U[i * n + j] = (float)(i - j);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 45, m = argc > 2 ? atol(argv[2]) : 13;
  size_t CBytes = (size_t)(n * n) * sizeof(float);
  size_t ABytes = (size_t)(n * m) * sizeof(float);
  float(*C)[n] = e2e_alloc(CBytes), (*A)[m] = e2e_alloc(ABytes);
  float *U = e2e_alloc(CBytes);
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < m; ++k)
      A[i][k] = (float)((i + k) % 5);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      C[i][j] = 1.0f;
      U[i * n + j] = 7.0f;
    }
  syrk(n, m, 2.0f, C, A);
  upper(n, U);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      float want = 1.0f;
      if (j <= i) {
        float acc = 0.0f;
        for (long k = 0; k < m; ++k)
          acc += A[i][k] * A[j][k];
        want += 2.0f * acc;
      }
      E2E_CHECK(C[i][j] == want, "C[%ld][%ld] = %g, want %g", i, j, C[i][j],
                want);
      float up = j > i ? (float)(i - j) : 7.0f;
      E2E_CHECK(U[i * n + j] == up, "U[%ld][%ld] = %g, want %g", i, j,
                U[i * n + j], up);
    }
  e2e_free(C, CBytes, "C");
  e2e_free(A, ABytes, "A");
  e2e_free(U, CBytes, "U");
  return e2e_finish("triangular");
}
