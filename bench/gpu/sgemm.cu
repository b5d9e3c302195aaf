// sgemm, C = A B for n x n row-major floats, hand-written in CUDA in the two
// loop orders of bench/kernels/sgemm.c, each parallelised as HPVM's node
// is: i-j-k with one thread per element of C (collapse(2)), i-k-j with one
// thread per row. Straightforward kernels, no tiling or shared memory (and
// not cuBLAS): the comparison is of the same algorithm.
//
// Per call: A and B in, the kernel, C out. Both kernels write all of C, so
// C is not copied in (hpvm-rt copies it in as well: it copies every out()
// buffer in).
#include "cuda_bench.h"

__global__ void sgemm(long n, const float *A, const float *B, float *C) {
  long j = (long)blockIdx.x * blockDim.x + threadIdx.x;
  long i = (long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float acc = 0.0f;
    for (long k = 0; k < n; ++k)
      acc += A[i * n + k] * B[k * n + j];
    C[i * n + j] = acc;
  }
}

__global__ void sgemm_rows(long n, const float *A, const float *B, float *C) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (long j = 0; j < n; ++j)
    C[i * n + j] = 0.0f;
  for (long k = 0; k < n; ++k) {
    float a = A[i * n + k];
    for (long j = 0; j < n; ++j)
      C[i * n + j] += a * B[k * n + j];
  }
}

namespace {
struct Matrices {
  DeviceBuffer A, B, C;
};
} // namespace

// Copies A and B in, runs Launch(GA, GB, GC), copies C out.
template <typename LaunchFn>
static void run(Matrices &M, KernelTimes &Times, long n, const float *A,
                const float *B, float *C, LaunchFn Launch) {
  if (n <= 0)
    return;
  size_t Bytes = (size_t)(n * n) * sizeof(float);
  float *GA = M.A.get<float>(Bytes), *GB = M.B.get<float>(Bytes),
        *GC = M.C.get<float>(Bytes);
  BENCH_CUDA(cudaMemcpy(GA, A, Bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(GB, B, Bytes, cudaMemcpyHostToDevice));
  Times.begin();
  Launch(GA, GB, GC);
  Times.end();
  BENCH_CUDA(cudaMemcpy(C, GC, Bytes, cudaMemcpyDeviceToHost));
  Times.collect();
}

extern "C" void kernel_sgemm(long n, const float *A, const float *B, float *C) {
  static Matrices M;
  static KernelTimes Times("sgemm");
  run(M, Times, n, A, B, C, [n](float *GA, float *GB, float *GC) {
    dim3 Block(Block2DX, Block2DY);
    dim3 Grid(bench_blocks(n, Block2DX), bench_blocks(n, Block2DY));
    sgemm<<<Grid, Block>>>(n, GA, GB, GC);
  });
}

extern "C" void kernel_sgemm_ikj(long n, const float *A, const float *B,
                                 float *C) {
  static Matrices M;
  static KernelTimes Times("sgemm_rows");
  run(M, Times, n, A, B, C, [n](float *GA, float *GB, float *GC) {
    sgemm_rows<<<bench_blocks(n, Block1D), Block1D>>>(n, GA, GB, GC);
  });
}
