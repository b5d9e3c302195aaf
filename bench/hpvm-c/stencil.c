// bench/kernels/stencil.c written in HPVM-C: each step a launch of a 2-D
// leaf over the grid's interior, the grids tracked (llvm_hpvm_track_mem)
// across the steps as the pragma version's data region keeps them. Same
// loops, same driver (bench/drivers/stencil.c).
#include <hpvm.h>

typedef struct __attribute__((__packed__)) {
  const float *src;
  size_t bytes_src;
  float *dst;
  size_t bytes_dst;
  long h, w;
} StepArgs;

void stencil_point(const float *src, size_t bytes_src, float *dst,
                   size_t bytes_dst, long h, long w) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, src, 1, dst);
  void *self = __hpvm__getNode();
  long x = __hpvm__getNodeInstanceID_x(self) + 1;
  long y = __hpvm__getNodeInstanceID_y(self) + 1;
  long c = y * w + x;
  dst[c] = 0.2f * (src[c] + src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
}

void stencil_root(const float *src, size_t bytes_src, float *dst,
                  size_t bytes_dst, long h, long w) {
  void *step = __hpvm__createNodeND(2, stencil_point, w - 2, h - 2);
  for (int p = 0; p < 6; ++p)
    __hpvm__bindIn(step, p, p, 0);
}

float *kernel_stencil(float *a, float *b, long h, long w, int steps) {
  size_t bytes = (size_t)(h * w) * sizeof(float);
  llvm_hpvm_track_mem(a, bytes);
  llvm_hpvm_track_mem(b, bytes);
  StepArgs args = {a, bytes, b, bytes, h, w};
  for (int t = 0; t < steps; ++t) {
    args.src = a;
    args.dst = b;
    __hpvm__wait(__hpvm__launch(0, stencil_root, &args));
    float *tmp = a;
    a = b;
    b = tmp;
  }
  llvm_hpvm_untrack_mem(a);
  llvm_hpvm_untrack_mem(b);
  return a;
}
