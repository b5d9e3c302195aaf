//===- CpuDevice.cpp - Leaves compiled for the host CPU -------------------===//
//
// A launch is a parallel loop over the first dimension on the runtime's
// thread pool; each chunk is one call of the leaf's hpvm_cpu_kernel_fn,
// which loops over the remaining dimensions itself. It runs to completion
// inside launch(), with the calling thread taking part, so wait() has
// nothing left to do.
//
// A grid launch (a replicated parent whose only child is this leaf) is one
// parallel loop over parent instances x first leaf dimension: the chunks
// cover instances of several parents at once, instead of one loop per
// parent instance, each with its own frame and task.
//
// A leaf may come with a streaming-store variant (hpvm_rt.h,
// HPVM_CPU_STREAMING_ENTRY), whose non-temporal stores skip the cache: worth
// it when the launch's data would not stay there anyway, so by default the
// device asks for it when the launch's buffers are larger than the
// last-level cache.
//
//===----------------------------------------------------------------------===//

#include "Env.h"

#include "hpvm/rt/Clock.h"

#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/ThreadPool.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

using namespace hpvm::rt;

namespace {

/// Chunks per thread: enough to even out uneven instances and threads
/// that start late, few enough that claiming chunks costs nothing.
constexpr uint64_t ChunksPerThread = 4;
/// Launches shorter than this per thread (by their one-thread estimate)
/// get one chunk per thread instead: there, each chunk's claim, call and
/// cache misses at its edges cost more than uneven chunks would (a 250 x
/// 250 Jacobi sweep, 3 us per thread: 13% faster with 2 chunks than 8).
constexpr uint64_t ShortPerThreadNanos = 20000;

class CpuDevice final : public Device {
public:
  CpuDevice(ThreadPool &Pool, const CpuOptions &Options)
      : Pool(Pool), Name("cpu"), Options(Options) {}

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
  void copyFromHost(void *Dst, uint64_t Offset, const void *Src,
                    size_t Bytes) override {
    std::memcpy(static_cast<char *>(Dst) + Offset, Src, Bytes);
  }
  void copyToHost(void *Dst, const void *Src, uint64_t Offset,
                  size_t Bytes) override {
    std::memcpy(Dst, static_cast<const char *>(Src) + Offset, Bytes);
  }

  void launch(const KernelLaunch &L, LaunchToken &T) override {
    if (L.Grid) {
      launchGrid(L, T);
      return;
    }
    hpvm_cpu_kernel_fn Fn = L.Artifact->cpu_fn;
    share(L, L.Dims[0], T, [&](uint64_t Begin, uint64_t End) {
      Fn(L.Args, L.Outs, L.Dims, L.OuterIds, Begin, End);
    });
  }
  void wait(LaunchToken &) override {}
  bool canLaunchGrid(const KernelLaunch &) const override { return true; }
  bool useStreamingVariant(const KernelLaunch &L) const override {
    return Options.useStreamingStores(L.FootprintBytes);
  }
  uint64_t callingThreadInstances(double NanosPerInstance) const override {
    // share() runs a launch serially when runSerially() says so for its
    // estimate, PerInstance * N (at least 1): the largest such N.
    if (!(NanosPerInstance > 0) || !Options.SerialBelowNanos)
      return 0;
    double Below = double(Options.SerialBelowNanos);
    uint64_t N = uint64_t(std::min(Below / NanosPerInstance, 1e18));
    while (N && !Options.runSerially(
                    std::max<uint64_t>(1, NanosPerInstance * double(N))))
      --N;
    return N;
  }

  std::string description() const override {
    return "cpu (" + std::to_string(Pool.size()) + " threads)";
  }

private:
  ThreadPool &Pool;
  std::string Name;
  CpuOptions Options;

  /// Runs Body over [0, N) in chunks on the pool, or on this thread alone
  /// when the launch is too small to share (CpuOptions::runSerially), and
  /// says in T how many threads took part. While the launch's work is not
  /// known well enough to tell, a shared launch also sums its chunks' run
  /// times: its run time times the threads would count waking them as work.
  template <class BodyFn>
  void share(const KernelLaunch &L, uint64_t N, LaunchToken &T, BodyFn &&Body) {
    bool Short =
        L.SerialNanos && L.SerialNanos / Pool.size() < ShortPerThreadNanos;
    uint64_t Parts = Pool.size() * (Short ? 1 : ChunksPerThread);
    uint64_t Grain = N / Parts + (N % Parts != 0);
    if (Options.runSerially(L.SerialNanos) || Grain >= N) {
      T.HostThreads = 1;
      Body(uint64_t(0), N);
      return;
    }
    T.HostThreads = static_cast<unsigned>(
        std::min<uint64_t>(Pool.size(), (N - 1) / Grain + 1));
    if (!Options.mayRunSerially(L.SerialNanos)) {
      Pool.parallelFor(N, Grain, Body);
      return;
    }
    std::atomic<uint64_t> Work{0};
    Pool.parallelFor(N, Grain, [&](uint64_t Begin, uint64_t End) {
      uint64_t Start = nowNanos();
      Body(Begin, End);
      Work.fetch_add(nowNanos() - Start, std::memory_order_relaxed);
    });
    T.HostWorkNanos = std::max<uint64_t>(1, Work.load());
  }

  void launchGrid(const KernelLaunch &L, LaunchToken &T) {
    hpvm_cpu_kernel_fn Fn = L.Artifact->cpu_fn;
    const uint64_t *PD = L.ParentDims;
    uint64_t N = L.Dims[0];
    // The executor checked that all instances together fit 64 bits.
    uint64_t Total = PD[0] * PD[1] * PD[2] * N;
    size_t NumIds = 3 * size_t(L.OuterLevels);
    share(L, Total, T, [&](uint64_t Begin, uint64_t End) {
      // This chunk's copy of the outer ids, level 1 rewritten per parent
      // instance; on the stack unless the nest is unusually deep.
      constexpr size_t InlineIds = 24;
      uint64_t Inline[InlineIds];
      std::unique_ptr<uint64_t[]> Heap;
      uint64_t *Ids = Inline;
      if (NumIds > InlineIds) {
        Heap.reset(new uint64_t[NumIds]);
        Ids = Heap.get();
      }
      std::memcpy(Ids, L.OuterIds, NumIds * sizeof(uint64_t));
      while (Begin < End) {
        uint64_t P = Begin / N, First = Begin % N;
        uint64_t Last = std::min(N, First + (End - Begin));
        Ids[0] = P / (PD[1] * PD[2]);
        Ids[1] = P / PD[2] % PD[1];
        Ids[2] = P % PD[2];
        Fn(L.Args, nullptr, L.Dims, Ids, First, Last);
        Begin += Last - First;
      }
    });
  }
};

} // namespace

uint64_t hpvm::rt::lastLevelCacheBytes(const std::string &Dir,
                                       uint64_t Fallback) {
  unsigned BestLevel = 0;
  uint64_t Bytes = 0;
  for (unsigned I = 0;; ++I) {
    std::string Index = Dir + "/index" + std::to_string(I) + "/";
    std::ifstream LevelFile(Index + "level"), SizeFile(Index + "size");
    unsigned Level = 0;
    std::string Size;
    if (!(LevelFile >> Level) || !(SizeFile >> Size))
      break;
    // "32K", "2048K", "16M", or plain bytes.
    char *End;
    uint64_t N = std::strtoull(Size.c_str(), &End, 10);
    switch (std::toupper(static_cast<unsigned char>(*End))) {
    case 'K':
      N <<= 10;
      break;
    case 'M':
      N <<= 20;
      break;
    case 'G':
      N <<= 30;
      break;
    default:
      break;
    }
    if (N && (Level > BestLevel || (Level == BestLevel && N > Bytes))) {
      BestLevel = Level;
      Bytes = N;
    }
  }
  return Bytes ? Bytes : Fallback;
}

CpuOptions CpuOptions::fromEnvironment() {
  CpuOptions O;
  O.LastLevelCacheBytes = lastLevelCacheBytes();
  O.Error = envAutoAlwaysNever("HPVM_STREAMING_STORES", O.StreamingStores);
  if (O.Error.empty())
    O.Error = envNumber<uint64_t>("HPVM_SERIAL_BELOW_NS", "nanoseconds", 0,
                                  uint64_t(1) << 40, O.SerialBelowNanos);
  return O;
}

bool CpuOptions::useStreamingStores(uint64_t FootprintBytes) const {
  switch (StreamingStores) {
  case Streaming::Always:
    return true;
  case Streaming::Never:
    return false;
  case Streaming::Auto:
    break;
  }
  return FootprintBytes > LastLevelCacheBytes;
}

std::unique_ptr<Device> hpvm::rt::makeCpuDevice(ThreadPool &Pool,
                                                const CpuOptions &Options) {
  return std::make_unique<CpuDevice>(Pool, Options);
}
