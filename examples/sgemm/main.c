// sgemm: C = A * B for row-major single-precision matrices, a 2-D node.
//
// collapse(2) makes both loops the node's index space: one instance per
// element C[i][j], M x N instances, each running the dot product over k
// itself. The sizes are deliberately not square, so that a swapped index or
// extent shows up as a wrong result rather than cancelling out.
//
//   hpvm-clang -O3 main.c -o sgemm && ./sgemm [M N K]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void sgemm(long m, long n, long k, const float *A, const float *B,
                  float *C) {
#pragma hpvm parallel for collapse(2) name(sgemm) in(A [0:m * k], B [0:k * n]) \
    out(C [0:m * n])
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (long p = 0; p < k; ++p)
        acc += A[i * k + p] * B[p * n + j];
      C[i * n + j] = acc;
    }
}

int main(int argc, char **argv) {
  long m = argc > 1 ? atol(argv[1]) : 300;
  long n = argc > 2 ? atol(argv[2]) : 200;
  long k = argc > 3 ? atol(argv[3]) : 150;
  if (m < 0 || n < 0 || k < 0) {
    fprintf(stderr, "usage: %s [M N K]\n", argv[0]);
    return 2;
  }
  // One spare element each: malloc(0) may return NULL, which is not a buffer.
  float *A = malloc(((size_t)(m * k) + 1) * sizeof *A);
  float *B = malloc(((size_t)(k * n) + 1) * sizeof *B);
  float *C = malloc(((size_t)(m * n) + 1) * sizeof *C);
  if (!A || !B || !C) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  for (long i = 0; i < m * k; ++i)
    A[i] = (float)((i * 13) % 17) / 17.0f - 0.5f;
  for (long i = 0; i < k * n; ++i)
    B[i] = (float)((i * 7) % 23) / 23.0f - 0.3f;

  sgemm(m, n, k, A, B, C);

  // The reference sums in the same order, in double; the node may contract
  // to fused multiply-adds, so compare within a bound on the rounding of a
  // k-term float dot product: k * eps * sum |A||B|.
  long bad = 0;
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (long p = 0; p < k; ++p) {
        ref += (double)A[i * k + p] * B[p * n + j];
        mag += fabs((double)A[i * k + p] * B[p * n + j]);
      }
      double tol = (double)(k + 1) * 1.2e-7 * mag;
      if (!(fabs(C[i * n + j] - ref) <= tol)) {
        if (!bad)
          fprintf(stderr,
                  "first mismatch at C[%ld][%ld]: %.9g, expected %.9g\n", i, j,
                  C[i * n + j], ref);
        ++bad;
      }
    }
  printf("sgemm %ldx%ldx%ld: %ld mismatches\n", m, n, k, bad);
  printf("%s sgemm\n", bad ? "FAIL" : "PASS");
  free(A);
  free(B);
  free(C);
  return bad != 0;
}
