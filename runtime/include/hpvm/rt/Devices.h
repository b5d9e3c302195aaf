//===- Devices.h - Finding the devices of this machine ----------*- C++ -*-===//
//
// Each kind of device (cpu, cuda, vulkan, opencl) is one entry of
// deviceKinds(): a name for HPVM_DEVICES, the targets its devices run, and a
// function that finds the devices of that kind, loading its driver if it has
// one. Adding a kind is adding its entry; a kind whose driver is missing
// finds no devices and says why, it does not fail.
//
// Loading a driver is not free (Vulkan on lavapipe: tens of milliseconds and
// tens of megabytes), so the runtime discovers a kind nobody named only when
// a program first needs it (docs/runtime.md §4): discoverDevices(..., Lazy)
// leaves such kinds in Discovery::Deferred, and discoverKind finds them
// later.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_DEVICES_H
#define HPVM_RT_DEVICES_H

#include "hpvm/rt/Device.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpvm::rt {

class ThreadPool;
class Trace;
struct CudaOptions;
struct VulkanOptions;
struct OpenCLOptions;

/// Settings of the CPU device.
struct CpuOptions {
  /// HPVM_STREAMING_STORES: whether a leaf's streaming-store variant runs
  /// (hpvm_rt.h, HPVM_CPU_STREAMING_ENTRY): Auto when the launch's buffers
  /// are larger than the last-level cache, Always, Never.
  enum class Streaming {
    Auto,
    Always,
    Never
  } StreamingStores = Streaming::Auto;
  /// What Auto compares with.
  uint64_t LastLevelCacheBytes = 32ull << 20;
  /// HPVM_SERIAL_BELOW_NS: a launch whose work, learned from the leaf's
  /// earlier launches, takes less than this on one thread runs on the
  /// calling thread alone; sharing it out would cost more (waking the pool,
  /// moving its data between cores' caches) than it saves. 0: never.
  uint64_t SerialBelowNanos = 5000;
  /// Set when an HPVM_* setting above has a value that means nothing.
  std::string Error;

  /// The settings of the environment and the cache size of this machine.
  static CpuOptions fromEnvironment();
  /// Whether a launch whose buffers hold FootprintBytes runs the variant.
  bool useStreamingStores(uint64_t FootprintBytes) const;
  /// Whether a launch estimated to take SerialNanos on one thread (0:
  /// not known yet) runs on the calling thread alone.
  bool runSerially(uint64_t SerialNanos) const {
    return SerialNanos && SerialNanos < SerialBelowNanos;
  }
  /// Whether the estimate is too rough to rule that out: not known yet, or
  /// within a few times the threshold (it may come from a launch shared
  /// out, whose time counts waking the threads as work).
  bool mayRunSerially(uint64_t SerialNanos) const {
    return SerialBelowNanos &&
           (!SerialNanos || SerialNanos / 8 < SerialBelowNanos);
  }
};

/// The size of the largest (highest-level) cache that Linux lists for CPU 0
/// in Dir (index*/level and index*/size, e.g. "32768K"); Fallback when it
/// lists none.
uint64_t lastLevelCacheBytes(
    const std::string &Dir = "/sys/devices/system/cpu/cpu0/cache",
    uint64_t Fallback = 32ull << 20);

/// What a device kind's discovery may use.
struct DiscoveryContext {
  ThreadPool &Pool;
  /// Hands out memory space ids for devices with their own memory.
  MemorySpace (*NewSpace)(void *Cookie);
  void *Cookie;
  /// Where devices with their own clocks put device-side events; may be
  /// null (no device events).
  Trace *Events = nullptr;
  /// The HPVM_VULKAN_* settings as the runtime read them when it started,
  /// so that a kind discovered later still uses those; null reads the
  /// environment now.
  const VulkanOptions *Vulkan = nullptr;
  /// The HPVM_OPENCL_* settings, likewise.
  const OpenCLOptions *OpenCL = nullptr;
  /// The same for HPVM_CUDA_*.
  const CudaOptions *Cuda = nullptr;
  /// The same for the CPU device's settings.
  const CpuOptions *Cpu = nullptr;
};

struct DeviceKind {
  const char *Name;
  /// The hpvm_target bits of the artifacts its devices run: what a program
  /// must have for the runtime to look for this kind when nothing named it.
  uint32_t Targets;
  /// Looked for at start-up even when no program needs it yet: the CPU,
  /// which costs nothing to find and is every program's fallback.
  bool Eager;
  /// Appends the devices found; returns why there are none, if there are
  /// none (e.g. "libcuda.so.1 not found"). When it found some, a returned
  /// text is a note (e.g. the devices it skipped and why).
  std::string (*Discover)(const DiscoveryContext &Ctx,
                          std::vector<std::unique_ptr<Device>> &Out);
};

/// Every kind this build of hpvm-rt knows, in discovery order.
const std::vector<DeviceKind> &deviceKinds();

struct Discovery {
  std::vector<std::unique_ptr<Device>> Devices;
  /// Requested kinds that are unknown or found nothing (non-strict), and
  /// what kinds that found devices had to say.
  std::vector<std::string> Notes;
  /// Strict mode: the requested kinds that are missing, and why.
  std::string Error;
  /// With Lazy and nothing requested: the kinds that are not Eager, left
  /// for discoverKind once a program has an artifact one of them runs.
  std::vector<const DeviceKind *> Deferred;
};

/// Finds the devices of the kinds in Requested ("cpu,vulkan"; empty means
/// every kind). With Strict, a requested kind that is unknown or has no
/// device is an Error naming it; otherwise it is a note. With Lazy and
/// nothing requested, only Eager kinds are discovered and the others are
/// returned in Deferred; kinds that Requested names are always discovered
/// now, so that strict mode reports a missing one at once.
Discovery discoverDevices(const DiscoveryContext &Ctx,
                          const std::string &Requested, bool Strict,
                          bool Lazy = false);

/// Discovers one kind that HPVM_DEVICES did not name: its devices and, when
/// it found some, its note. A kind without devices is silent, as nothing
/// asked for it.
Discovery discoverKind(const DiscoveryContext &Ctx, const DeviceKind &K);

/// The CPU device: host memory, launches run on Pool.
std::unique_ptr<Device> makeCpuDevice(ThreadPool &Pool,
                                      const CpuOptions &Options = {});

} // namespace hpvm::rt

#endif // HPVM_RT_DEVICES_H
