//===- VulkanSpirv.h - What the Vulkan device reads in SPIR-V ---*- C++ -*-===//
//
// Drivers are not required to survive malformed SPIR-V, and a missing entry
// point is undefined behaviour in vkCreateComputePipelines. So before a
// module reaches the driver the device checks its structure and finds the
// entry point, and reads the work-group size from the module (LocalSize,
// LocalSizeId or a WorkgroupSize built-in) rather than assuming the ABI's
// defaults.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_VULKANSPIRV_H
#define HPVM_RT_LIB_VULKANSPIRV_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hpvm::rt {

struct SpirvEntryInfo {
  /// False when the module states no work-group size (the ABI's default
  /// for the node's dimensions applies).
  bool HasLocalSize = false;
  uint32_t LocalSize[3] = {1, 1, 1};
  /// The module's OpCapability operands, so that the device can name a
  /// feature it lacks instead of leaving the driver to reject (or worse)
  /// the module.
  std::vector<uint32_t> Capabilities;
};

/// Checks that Words is a little-endian SPIR-V module whose instructions
/// are well formed and that it has a GLCompute entry point named Entry.
/// Returns why not, or "" with Info filled in.
std::string inspectSpirv(const uint32_t *Words, size_t NumWords,
                         const std::string &Entry, SpirvEntryInfo &Info);

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_VULKANSPIRV_H
