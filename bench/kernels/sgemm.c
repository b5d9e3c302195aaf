// sgemm, C = A B for n x n row-major floats, the compute-bound kernel, in two
// loop orders; each order is the same in every variant. See saxpy.c for how
// one file makes all three variants.

// The textbook i-j-k order: each C[i][j] is a k-long dot product. HPVM
// replicates over (i, j) with collapse(2), one instance per element, as in
// examples/sgemm; OpenMP splits the i loop, its usual form.
void kernel_sgemm(long n, const float *A, const float *B, float *C) {
#pragma hpvm parallel for collapse(2) name(sgemm) in(A [0:n * n], B [0:n * n]) \
    out(C [0:n * n])
#pragma omp parallel for
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (long k = 0; k < n; ++k)
        acc += A[i * n + k] * B[k * n + j];
      C[i * n + j] = acc;
    }
}

// The i-k-j order: one instance per row of C, whose inner j loop runs along
// rows of B and C, so that it vectorises without reassociating the sums (each
// C[i][j] still adds its products in k order). This is how a node whose
// instances contain loops of their own performs.
void kernel_sgemm_ikj(long n, const float *A, const float *B, float *C) {
#pragma hpvm parallel for name(sgemm_rows) in(A [0:n * n], B [0:n * n])        \
    out(C [0:n * n])
#pragma omp parallel for
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < n; ++j)
      C[i * n + j] = 0.0f;
    for (long k = 0; k < n; ++k) {
      float a = A[i * n + k];
      for (long j = 0; j < n; ++j)
        C[i * n + j] += a * B[k * n + j];
    }
  }
}
