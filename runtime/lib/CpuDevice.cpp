//===- CpuDevice.cpp - Leaves compiled for the host CPU -------------------===//
//
// A launch is a parallel loop over the first dimension on the runtime's
// thread pool; each chunk is one call of the leaf's hpvm_cpu_kernel_fn,
// which loops over the remaining dimensions itself. It runs to completion
// inside launch(), with the calling thread taking part, so wait() has
// nothing left to do.
//
//===----------------------------------------------------------------------===//

#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/ThreadPool.h"

#include <cstdlib>
#include <cstring>

using namespace hpvm::rt;

namespace {

/// Chunks per thread: enough to even out uneven instances and threads
/// that start late, few enough that claiming chunks costs nothing.
constexpr uint64_t ChunksPerThread = 4;

class CpuDevice final : public Device {
public:
  explicit CpuDevice(ThreadPool &Pool) : Pool(Pool), Name("cpu") {}

  const std::string &name() const override { return Name; }
  uint32_t target() const override { return HPVM_TARGET_CPU; }
  MemorySpace memorySpace() const override { return HostSpace; }

  void *allocate(size_t Bytes) override {
    void *P = std::malloc(Bytes ? Bytes : 1);
    if (!P)
      throw RtError(HPVM_ERR_DEVICE,
                    "cpu: cannot allocate " + std::to_string(Bytes) + " bytes");
    return P;
  }
  void free(void *P) override { std::free(P); }
  void copyFromHost(void *Dst, const void *Src, size_t Bytes) override {
    std::memcpy(Dst, Src, Bytes);
  }
  void copyToHost(void *Dst, const void *Src, size_t Bytes) override {
    std::memcpy(Dst, Src, Bytes);
  }

  void launch(const KernelLaunch &L, LaunchToken &) override {
    hpvm_cpu_kernel_fn Fn = L.Artifact->cpu_fn;
    uint64_t N = L.Dims[0];
    uint64_t Parts = Pool.size() * ChunksPerThread;
    uint64_t Grain = N / Parts + (N % Parts != 0);
    Pool.parallelFor(N, Grain, [&](uint64_t Begin, uint64_t End) {
      Fn(L.Args, L.Outs, L.Dims, L.OuterIds, Begin, End);
    });
  }
  void wait(LaunchToken &) override {}

  std::string description() const override {
    return "cpu (" + std::to_string(Pool.size()) + " threads)";
  }

private:
  ThreadPool &Pool;
  std::string Name;
};

} // namespace

std::unique_ptr<Device> hpvm::rt::makeCpuDevice(ThreadPool &Pool) {
  return std::make_unique<CpuDevice>(Pool);
}
