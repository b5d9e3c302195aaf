// The image pipeline (blur -> gradient -> threshold), hand-written in CUDA:
// the same algorithm as bench/kernels/pipeline.c, one thread per pixel in
// each stage, three launches in order on one stream, the intermediate
// images kept on the GPU (as hpvm-rt keeps them between the nodes of one
// graph).
//
// Per call: img in; blurred and grad in too, because blur and gradient write
// only the interior and the border must come back as it was; the three
// kernels; blurred, grad and mask out. (hpvm-rt copies mask in as well: it
// copies every out() buffer in, not knowing that threshold writes all of it.)
// The sums are associated as in the C source, and there is nothing to
// contract into a multiply-add, so the results are bit-identical to the
// driver's reference, which checks them exactly.
#include "cuda_bench.h"

__device__ static float row3(const float *p, long i) {
  return p[i] + p[i + 1] + p[i + 2];
}

__global__ void blur(const float *img, float *blurred, long h, long w) {
  long x = 1 + (long)blockIdx.x * blockDim.x + threadIdx.x;
  long y = 1 + (long)blockIdx.y * blockDim.y + threadIdx.y;
  if (y < h - 1 && x < w - 1) {
    long corner = (y - 1) * w + (x - 1);
    float s =
        row3(img, corner) + row3(img, corner + w) + row3(img, corner + 2 * w);
    blurred[y * w + x] = s * (1.0f / 9.0f);
  }
}

__global__ void gradient(const float *blurred, float *grad, long h, long w) {
  long x = 1 + (long)blockIdx.x * blockDim.x + threadIdx.x;
  long y = 1 + (long)blockIdx.y * blockDim.y + threadIdx.y;
  if (y < h - 1 && x < w - 1) {
    long c = y * w + x;
    float dx = blurred[c + 1] - blurred[c - 1];
    float dy = blurred[c + w] - blurred[c - w];
    grad[c] = fabsf(dx) + fabsf(dy);
  }
}

__global__ void threshold(const float *grad, unsigned char *mask, long n,
                          float thr) {
  long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n)
    mask[k] = grad[k] > thr;
}

extern "C" void kernel_pipeline(const float *img, float *blurred, float *grad,
                                unsigned char *mask, long h, long w,
                                float thr) {
  static DeviceBuffer DImg, DBlurred, DGrad, DMask;
  static KernelTimes BlurTimes("pipeline/blur"),
      GradientTimes("pipeline/edges/gradient"),
      ThresholdTimes("pipeline/edges/threshold");
  long n = h * w;
  if (n <= 0)
    return;
  size_t Bytes = (size_t)n * sizeof(float);
  float *GImg = DImg.get<float>(Bytes), *GBlurred = DBlurred.get<float>(Bytes),
        *GGrad = DGrad.get<float>(Bytes);
  unsigned char *GMask = DMask.get<unsigned char>((size_t)n);
  BENCH_CUDA(cudaMemcpy(GImg, img, Bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(GBlurred, blurred, Bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(GGrad, grad, Bytes, cudaMemcpyHostToDevice));
  if (h > 2 && w > 2) {
    dim3 Block(Block2DX, Block2DY);
    dim3 Grid(bench_blocks(w - 2, Block2DX), bench_blocks(h - 2, Block2DY));
    BlurTimes.begin();
    blur<<<Grid, Block>>>(GImg, GBlurred, h, w);
    BlurTimes.end();
    GradientTimes.begin();
    gradient<<<Grid, Block>>>(GBlurred, GGrad, h, w);
    GradientTimes.end();
  }
  ThresholdTimes.begin();
  threshold<<<bench_blocks(n, Block1D), Block1D>>>(GGrad, GMask, n, thr);
  ThresholdTimes.end();
  BENCH_CUDA(cudaMemcpy(blurred, GBlurred, Bytes, cudaMemcpyDeviceToHost));
  BENCH_CUDA(cudaMemcpy(grad, GGrad, Bytes, cudaMemcpyDeviceToHost));
  BENCH_CUDA(cudaMemcpy(mask, GMask, (size_t)n, cudaMemcpyDeviceToHost));
  BlurTimes.collect();
  GradientTimes.collect();
  ThresholdTimes.collect();
}
