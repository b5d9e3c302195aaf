// PolyBench's jacobi-2d at its medium size: a 5-point stencil over an
// n x n grid (250), swept back and forth between two grids, two launches
// per time step (100 steps), the rows shared out as PolyBench/C's OpenMP
// port does (one parallel loop over rows, a loop over columns in each). Each
// launch has some tens of microseconds of work: small enough that what a
// launch costs matters, large enough to share among threads. See saxpy.c
// for how one file makes all three variants.

static void jacobi_step(const float *src, float *dst, long n) {
#pragma hpvm parallel for name(jacobi2d) in(src [0:n * n]) inout(dst [0:n * n])
#pragma omp parallel for
  for (long i = 1; i < n - 1; ++i)
    for (long j = 1; j < n - 1; ++j)
      dst[i * n + j] =
          0.2f * (src[i * n + j] + src[i * n + j - 1] + src[i * n + j + 1] +
                  src[(i + 1) * n + j] + src[(i - 1) * n + j]);
}

/// `steps` time steps: a -> b, then b -> a.
void kernel_jacobi2d(float *a, float *b, long n, int steps) {
  for (int t = 0; t < steps; ++t) {
    jacobi_step(a, b, n);
    jacobi_step(b, a, n);
  }
}
