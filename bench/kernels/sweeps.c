// Many small launches: a 1-D 3-point stencil over a few thousand points,
// swept back and forth between two arrays, two launches per time step. Each
// launch has too little work to share among threads (about half a
// microsecond on one core), so what is measured is what a launch costs on
// top of its work: the sequential loop pays nothing, an OpenMP parallel
// loop its fork and join, HPVM whatever it does around a launch it decides
// to run on the calling thread. See saxpy.c for how one file makes all
// three variants.

static void sweep(const float *src, float *dst, long n) {
#pragma hpvm parallel for name(sweep) in(src [0:n])out(dst [1:n - 2])
#pragma omp parallel for
  for (long i = 1; i < n - 1; ++i)
    dst[i] = (src[i - 1] + src[i] + src[i + 1]) * (1.0f / 3.0f);
}

/// `steps` time steps: a -> b, then b -> a.
void kernel_sweeps(float *a, float *b, long n, int steps) {
  for (int t = 0; t < steps; ++t) {
    sweep(a, b, n);
    sweep(b, a, n);
  }
}
