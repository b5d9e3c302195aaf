// A triangular kernel: PolyBench's syrk (C = alpha A A^T + C on the lower
// triangle) at 600 x 600, both loops of the triangle collapsed, as OpenMP
// 5.0 allows and PolyBench-style OpenMP code writes it. HPVM runs the
// bounding square as instances, those above the diagonal ending at once.
// See saxpy.c for how one file makes all three variants.
void kernel_syrk(long n, long m, float alpha, float C[n][n], float A[n][m]) {
#pragma hpvm parallel for name(syrk) collapse(2)                               \
    in(A [0:n] [0:m])inout(C [0:n] [0:n])
#pragma omp parallel for collapse(2)
  for (long i = 0; i < n; ++i)
    for (long j = 0; j <= i; ++j) {
      float acc = 0.0f;
      for (long k = 0; k < m; ++k)
        acc += A[i][k] * A[j][k];
      C[i][j] += alpha * acc;
    }
}
