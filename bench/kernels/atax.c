// An array reduction: the second half of PolyBench's atax, y = A^T (A x),
// by rows of A (n x m doubles, PolyBench's medium 390 x 410 by default), as
// OpenMP 4.5 code writes it: each row adds its multiple of itself into all
// of y, so y is reduced as an array. Counters and the row's dot product are
// declared at the top, C89 style: OpenMP names them private, HPVM finds j
// private by itself (it is assigned before it is read). See saxpy.c for how one
// file makes all three variants.
void kernel_atax(long n, long m, double A[n][m], const double *x, double *y) {
  long i, j;
  double t;
  for (j = 0; j < m; ++j)
    y[j] = 0;
#pragma hpvm parallel for name(atax) in(A [0:n] [0:m], x [0:m])               \
    reduction(+ : y [0:m]) private(t)
#pragma omp parallel for private(j, t) reduction(+ : y [0:m])
  for (i = 0; i < n; ++i) {
    t = 0;
    for (j = 0; j < m; ++j)
      t += A[i][j] * x[j];
    for (j = 0; j < m; ++j)
      y[j] += A[i][j] * t;
  }
}
