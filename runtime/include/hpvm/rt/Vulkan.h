//===- Vulkan.h - The Vulkan device of hpvm-rt ------------------*- C++ -*-===//
//
// Runs leaves compiled to SPIR-V (HPVM_TARGET_SPIRV) through Vulkan 1.2+.
// The loader (libvulkan.so.1) is dlopen'ed and every entry point is taken
// from vkGetInstanceProcAddr, so hpvm-rt has no link-time dependency on
// Vulkan: without a loader or a driver the device is simply absent.
// docs/runtime.md ("Vulkan device") describes the kernel ABI, memory,
// pipelines, batching and timestamps; this header is what discovery, tests
// and tools need. It does not include the Vulkan headers.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_VULKAN_H
#define HPVM_RT_VULKAN_H

#include "hpvm/rt/Device.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpvm::rt {

struct DiscoveryContext;

struct VulkanOptions {
  /// The loader to dlopen (HPVM_VULKAN_LOADER).
  std::string Loader = "libvulkan.so.1";
  /// HPVM_VULKAN_DEVICE: a physical device index or a case-insensitive
  /// substring of its name; empty picks the best usable device (discrete >
  /// integrated > virtual > cpu).
  std::string Select;
  /// HPVM_VULKAN_STAGING: Auto copies through host-visible staging buffers
  /// only when the device has device-local memory the host cannot map;
  /// Always forces that path (to exercise it on a unified-memory device),
  /// Never maps buffers directly.
  enum class Staging { Auto, Always, Never } StagingMode = Staging::Auto;
  /// HPVM_VULKAN_SPIN_US: how long a wait for a launch polls its fence
  /// before it blocks; -1 (unset) means 64 µs on a GPU and 0 on a CPU
  /// device (lavapipe), whose own threads need the cores. A blocking wait
  /// wakes late: about 33 µs on an H100 with NVIDIA's driver.
  int SpinMicros = -1;
  /// Set when an HPVM_VULKAN_* variable has a value that means nothing.
  std::string Error;

  static VulkanOptions fromEnvironment();
};

/// What discovery learnt about one physical device.
struct VulkanPhysicalInfo {
  unsigned Index = 0;
  std::string Name;
  /// "discrete", "integrated", "virtual", "cpu" or "other".
  std::string Type;
  uint32_t ApiVersion = 0;
  /// Why the device cannot be used ("Vulkan 1.1, needs 1.2", "no
  /// shaderInt64", ...); empty when it can.
  std::string Unusable;
};

/// Which of Devices to use: the usable one Select names (an index or a
/// name substring; several matches are ranked), or the best usable one by
/// type, earlier index first among equals. Returns -1 with Why set when
/// there is none.
int chooseVulkanDevice(const std::vector<VulkanPhysicalInfo> &Devices,
                       const std::string &Select, std::string &Why);

/// The discover function of the "vulkan" device kind: appends at most one
/// device. Returns why there is none (no loader, no driver, no usable
/// device), or, when it found one, a note naming the devices it skipped and
/// why. Never throws.
std::string discoverVulkanDevices(const DiscoveryContext &Ctx,
                                  const VulkanOptions &Options,
                                  std::vector<std::unique_ptr<Device>> &Out);

/// What only the Vulkan device can say about itself (tests, tools).
class VulkanDevice : public Device {
public:
  struct Counters {
    uint64_t PipelinesCreated = 0;
    uint64_t PipelineCacheHits = 0;
    /// vkQueueSubmit calls; one per launch, with the copies batched in it.
    uint64_t Submits = 0;
    /// vkCmdDispatch(Base) calls (a huge grid is split into several).
    uint64_t Dispatches = 0;
    /// Bytes that went through staging buffers (either direction).
    uint64_t StagingBytes = 0;
    /// Bytes copyToHost found copied home already by the launch that wrote
    /// them, in the launch's own submission (small buffers, with staging).
    uint64_t EagerDownloadBytes = 0;
    /// vkAllocateMemory calls for buffers, and allocations served from
    /// the pool of freed ones instead.
    uint64_t MemoryAllocations = 0;
    uint64_t PooledAllocations = 0;
  };
  virtual Counters counters() const = 0;
  virtual const VulkanPhysicalInfo &physicalDevice() const = 0;
  /// Whether buffers live in device-local memory behind staging copies.
  virtual bool usesStaging() const = 0;
  virtual uint32_t maxPushConstantsSize() const = 0;
  /// maxComputeWorkGroupCount[Axis]; larger grids take several dispatches.
  virtual uint32_t maxWorkGroups(unsigned Axis) const = 0;
  /// Whether launches write timestamps (the queue supports them).
  virtual bool hasTimestamps() const = 0;
};

} // namespace hpvm::rt

#endif // HPVM_RT_VULKAN_H
