// Launch overhead, hand-written in CUDA: the node of bench/kernels/launch.c
// (one thread per instance, each storing one int) launched through the CUDA
// runtime, and its result copied back, which is what one hpvm_launch of it
// does. (hpvm-rt also copies flag in, an out() buffer; this does not: the
// kernel writes all of it.) The launches are not timed one by one here:
// the whole call is what is measured. bench/gpu/launch_raw.c measures a bare
// driver-API launch of an empty kernel.
#include "cuda_bench.h"

__global__ void tiny(long n, int *flag) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    flag[i] = 1;
}

extern "C" void kernel_launch(long n, int *flag) {
  static DeviceBuffer DFlag;
  if (n <= 0)
    return;
  size_t Bytes = (size_t)n * sizeof(int);
  int *GFlag = DFlag.get<int>(Bytes);
  tiny<<<bench_blocks(n, Block1D), Block1D>>>(n, GFlag);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaMemcpy(flag, GFlag, Bytes, cudaMemcpyDeviceToHost));
}
