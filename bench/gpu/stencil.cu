// The iterated 5-point Jacobi stencil, hand-written in CUDA: the same
// algorithm as bench/kernels/stencil.c, one thread per interior point, one
// launch per step, the grids swapped between steps.
//
// Per call: both grids in (the kernel writes only the interior, so the
// destination's border must be there already), `steps` launches on the
// device, and every grid a step wrote out. The grids stay on the GPU between
// steps, as a CUDA programmer keeps them; hpvm-rt, whose host memory is the
// truth between launches, moves them in and out once per step (per
// hpvm_launch) instead: that difference is part of what is compared.
#include "cuda_bench.h"

__global__ void jacobi(const float *src, float *dst, long h, long w) {
  long x = 1 + (long)blockIdx.x * blockDim.x + threadIdx.x;
  long y = 1 + (long)blockIdx.y * blockDim.y + threadIdx.y;
  if (y < h - 1 && x < w - 1) {
    long c = y * w + x;
    dst[c] =
        0.2f * (src[c] + src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
  }
}

extern "C" float *kernel_stencil(float *a, float *b, long h, long w,
                                 int steps) {
  static DeviceBuffer DA, DB;
  static KernelTimes Times("jacobi");
  if (steps <= 0 || h < 3 || w < 3) {
    // No interior: the C loop nest writes nothing either.
    for (int t = 0; t < steps; ++t) {
      float *Tmp = a;
      a = b;
      b = Tmp;
    }
    return a;
  }
  size_t Bytes = (size_t)(h * w) * sizeof(float);
  float *GA = DA.get<float>(Bytes), *GB = DB.get<float>(Bytes);
  BENCH_CUDA(cudaMemcpy(GA, a, Bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(GB, b, Bytes, cudaMemcpyHostToDevice));
  dim3 Block(Block2DX, Block2DY);
  dim3 Grid(bench_blocks(w - 2, Block2DX), bench_blocks(h - 2, Block2DY));
  float *Src = GA, *Dst = GB;
  for (int t = 0; t < steps; ++t) {
    Times.begin();
    jacobi<<<Grid, Block>>>(Src, Dst, h, w);
    Times.end();
    float *Tmp = Src;
    Src = Dst;
    Dst = Tmp;
  }
  // Step 1 writes b, step 2 a, and so on: one step wrote only b.
  BENCH_CUDA(cudaMemcpy(b, GB, Bytes, cudaMemcpyDeviceToHost));
  if (steps > 1)
    BENCH_CUDA(cudaMemcpy(a, GA, Bytes, cudaMemcpyDeviceToHost));
  Times.collect();
  return steps % 2 ? b : a;
}
