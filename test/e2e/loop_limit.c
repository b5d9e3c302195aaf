// Instances that each run a long loop: row sums of a matrix whose rows have
// `cols` elements. On lavapipe a row of 65535 or more elements runs into its
// loop limit (docs/backends.md); the launch must fail there rather than
// return short sums. Everywhere else the sums must be exact.
//
//   loop-limit cols
#include "e2e.h"

static void long_rows(long rows, long cols, const float *A, float *sums) {
#pragma hpvm parallel for name(long_rows) in(A [0:rows * cols])                \
    out(sums [0:rows])
  for (long r = 0; r < rows; ++r) {
    float s = 0;
    for (long c = 0; c < cols; ++c)
      s += A[r * cols + c];
    sums[r] = s;
  }
}

int main(int argc, char **argv) {
  long rows = 4, cols = argc > 1 ? atol(argv[1]) : 200000;
  float *A = e2e_alloc(rows * cols * sizeof(float));
  float *sums = e2e_alloc(rows * sizeof(float));
  for (long k = 0; k < rows * cols; ++k)
    A[k] = (float)(k % 2); // sums of 0 and 1: exact in float below 2^24
  long_rows(rows, cols, A, sums);
  for (long r = 0; r < rows; ++r) {
    float want = 0;
    for (long c = 0; c < cols; ++c)
      want += A[r * cols + c];
    E2E_CHECK(sums[r] == want, "sums[%ld] = %g, want %g", r, sums[r], want);
  }
  e2e_free(A, rows * cols * sizeof(float), "A");
  e2e_free(sums, rows * sizeof(float), "sums");
  return e2e_finish("loop-limit");
}
