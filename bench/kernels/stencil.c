// An iterated 2-D 5-point Jacobi stencil: `steps` launches of one node (one
// OpenMP parallel loop), swapping the grids in between, as
// examples/stencil does, inside one data region. Each step streams one grid in and one out. See
// saxpy.c for how one file makes all three variants.

static void stencil_step(const float *src, float *dst, long h, long w) {
#pragma hpvm parallel for collapse(2) name(jacobi) in(src [0:h * w])           \
    out(dst [0:h * w])
#pragma omp parallel for
  for (long y = 1; y < h - 1; ++y)
    for (long x = 1; x < w - 1; ++x) {
      long c = y * w + x;
      dst[c] =
          0.2f * (src[c] + src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
    }
}

/// Runs `steps` steps from grid a; returns the grid with the last one. The
/// grids stay where the steps run until the last one (a data region, as
/// OpenMP's `target data` or a CUDA program's one copy each way): on a GPU
/// nothing comes home between steps.
float *kernel_stencil(float *a, float *b, long h, long w, int steps) {
#pragma hpvm data inout(a [0:h * w], b [0:h * w])
  {
    for (int t = 0; t < steps; ++t) {
      stencil_step(a, b, h, w);
      float *tmp = a;
      a = b;
      b = tmp;
    }
  }
  return a;
}
