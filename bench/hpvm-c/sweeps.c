// bench/kernels/sweeps.c written in HPVM-C: many small launches, each
// waited for at once, as HPVM's programs wait for theirs. Same loops, same
// driver (bench/drivers/sweeps.c).
#include <hpvm.h>

typedef struct __attribute__((__packed__)) {
  const float *src;
  size_t bytes_src;
  float *dst;
  size_t bytes_dst;
  long n;
} SweepArgs;

void sweep_point(const float *src, size_t bytes_src, float *dst,
                 size_t bytes_dst, long n) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, src, 1, dst);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode()) + 1;
  dst[i] = (src[i - 1] + src[i] + src[i + 1]) * (1.0f / 3.0f);
}

void sweep_root(const float *src, size_t bytes_src, float *dst,
                size_t bytes_dst, long n) {
  void *sweep = __hpvm__createNodeND(1, sweep_point, n - 2);
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(sweep, p, p, 0);
}

/// `steps` time steps: a -> b, then b -> a.
void kernel_sweeps(float *a, float *b, long n, int steps) {
  size_t bytes = (size_t)n * sizeof(float);
  SweepArgs ab = {a, bytes, b, bytes, n}, ba = {b, bytes, a, bytes, n};
  for (int t = 0; t < steps; ++t) {
    __hpvm__wait(__hpvm__launch(0, sweep_root, &ab));
    __hpvm__wait(__hpvm__launch(0, sweep_root, &ba));
  }
}
