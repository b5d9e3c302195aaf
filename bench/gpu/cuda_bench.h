// What the hand-written CUDA versions of the benchmarks share (bench/gpu/*.cu).
//
// Each .cu defines the same extern "C" kernel_<name>() function as
// bench/kernels/<name>.c and is linked with the same driver and timing
// objects (bench/drivers/<name>.c, bench/common/bench.c), so it is called
// with host arrays, timed by the same loop and checked against the same
// scalar reference as the HPVM build of the kernel. Like hpvm_launch, every
// call returns with its results in host memory: it copies in what the
// kernels read, runs them, and copies out what they wrote (bench/README.md,
// "On a GPU", lists the copies of both sides).
#ifndef HPVM_BENCH_CUDA_BENCH_H
#define HPVM_BENCH_CUDA_BENCH_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

// A failed CUDA call ends the program: the driver would otherwise time or
// check garbage.
#define BENCH_CUDA(call) bench_cuda_check((call), #call, __FILE__, __LINE__)

static inline void bench_cuda_check(cudaError_t E, const char *Call,
                                    const char *File, int Line) {
  if (E == cudaSuccess)
    return;
  std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", File, Line, Call,
               cudaGetErrorString(E), cudaGetErrorName(E));
  std::exit(3);
}

// A device buffer kept from call to call: the drivers call the kernel
// function with the same arrays every repetition, and hpvm-rt's CUDA device
// pools its allocations too, so neither side times cudaMalloc.
struct DeviceBuffer {
  void *Ptr = nullptr;
  size_t Bytes = 0;

  template <typename T> T *get(size_t NewBytes) {
    if (NewBytes > Bytes) {
      if (Ptr)
        BENCH_CUDA(cudaFree(Ptr));
      BENCH_CUDA(cudaMalloc(&Ptr, NewBytes ? NewBytes : 1));
      Bytes = NewBytes;
    }
    return static_cast<T *>(Ptr);
  }
};

// The time of every launch of one kernel, from CUDA events around it (the
// GPU's own clock, so the launch itself is not counted), summed over the
// program's life and printed at exit as
//   KERNEL <node path> launches=<n> total_s=<seconds>
// for bench/gpu/run.sh, which sets it next to the time hpvm-rt's statistics
// give the HPVM node of the same name. The events are read after the call's
// last copy has synchronised, so timing adds no synchronisation of its own.
class KernelTimes {
public:
  explicit KernelTimes(const char *Node) : Node(Node) {}
  ~KernelTimes() {
    if (Launches)
      std::printf("KERNEL %s launches=%ld total_s=%.9g\n", Node, Launches,
                  TotalS);
  }

  void begin() {
    if (Used == Events.size()) {
      cudaEvent_t Pair[2];
      BENCH_CUDA(cudaEventCreate(&Pair[0]));
      BENCH_CUDA(cudaEventCreate(&Pair[1]));
      Events.push_back({Pair[0], Pair[1]});
    }
    BENCH_CUDA(cudaEventRecord(Events[Used].Start));
  }
  void end() {
    BENCH_CUDA(cudaGetLastError()); // the launch's own error
    BENCH_CUDA(cudaEventRecord(Events[Used++].Stop));
  }
  // After the stream has synchronised: add up the launches since last time.
  void collect() {
    for (size_t I = 0; I != Used; ++I) {
      float Ms = 0;
      BENCH_CUDA(cudaEventSynchronize(Events[I].Stop));
      BENCH_CUDA(cudaEventElapsedTime(&Ms, Events[I].Start, Events[I].Stop));
      TotalS += 1e-3 * Ms;
      ++Launches;
    }
    Used = 0;
  }

private:
  struct Pair {
    cudaEvent_t Start, Stop;
  };
  const char *Node;
  std::vector<Pair> Events;
  size_t Used = 0;
  long Launches = 0;
  double TotalS = 0;
};

// Blocks of a 1-D launch over N threads of Block each (N > 0).
static inline unsigned bench_blocks(long N, unsigned Block) {
  return static_cast<unsigned>((N + Block - 1) / Block);
}

// The block shapes of hpvm's PTX kernels (nvptxBlockSize in
// abi/include/hpvm/abi/NVPTXABI.h), common choices for such
// kernels: the comparison is then about the code, not the shape.
constexpr unsigned Block1D = 256;
constexpr unsigned Block2DX = 32, Block2DY = 8;

#endif // HPVM_BENCH_CUDA_BENCH_H
