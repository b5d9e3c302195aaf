// saxpy, y = a x + y, hand-written in CUDA: the same algorithm as
// bench/kernels/saxpy.c, one thread per element, indices as wide as the C
// loop's. Per call: x and y in, the kernel, y out (what hpvm_launch moves
// for a node with in(x) inout(y)).
#include "cuda_bench.h"

__global__ void saxpy(long n, float a, const float *x, float *y) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

extern "C" void kernel_saxpy(long n, float a, const float *x, float *y) {
  static DeviceBuffer DX, DY;
  static KernelTimes Times("saxpy");
  if (n <= 0)
    return;
  size_t Bytes = (size_t)n * sizeof(float);
  float *GX = DX.get<float>(Bytes), *GY = DY.get<float>(Bytes);
  BENCH_CUDA(cudaMemcpy(GX, x, Bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(GY, y, Bytes, cudaMemcpyHostToDevice));
  Times.begin();
  saxpy<<<bench_blocks(n, Block1D), Block1D>>>(n, a, GX, GY);
  Times.end();
  BENCH_CUDA(cudaMemcpy(y, GY, Bytes, cudaMemcpyDeviceToHost));
  Times.collect();
}
