// Sections of arrays of arrays, as OpenMP code names them: a VLA parameter
// (`float A[n][m]`, `in(A[0:n][0:m])`) and rows from the middle of one
// (`out(B[1:n - 1][0:m])`). Checked against a scalar reference.
//
//   sections-2d n m
#include "e2e.h"

static void shift(long n, long m, float A[n][m], float B[n][m]) {
#pragma hpvm parallel for name(shift) collapse(2)                              \
    in(A [0:n] [0:m])out(B [1:n - 1] [0:m])
  for (long i = 1; i < n; ++i)
    for (long j = 0; j < m; ++j)
      B[i][j] = 2.0f * A[i - 1][j] + (float)j;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 37, m = argc > 2 ? atol(argv[2]) : 53;
  size_t Bytes = (size_t)n * (size_t)m * sizeof(float);
  float(*A)[m] = e2e_alloc(Bytes), (*B)[m] = e2e_alloc(Bytes);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j) {
      A[i][j] = (float)((i * m + j) % 1000);
      B[i][j] = -1.0f;
    }
  shift(n, m, A, B);
  for (long j = 0; j < m; ++j) // row 0 is outside the section: untouched
    E2E_CHECK(B[0][j] == -1.0f, "B[0][%ld] = %g", j, B[0][j]);
  for (long i = 1; i < n; ++i)
    for (long j = 0; j < m; ++j)
      E2E_CHECK(B[i][j] == 2.0f * A[i - 1][j] + (float)j, "B[%ld][%ld] = %g", i,
                j, B[i][j]);
  e2e_free(A, Bytes, "A");
  e2e_free(B, Bytes, "B");
  return e2e_finish("sections-2d");
}
