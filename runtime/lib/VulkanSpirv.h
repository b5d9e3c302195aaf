//===- VulkanSpirv.h - What the Vulkan device reads in SPIR-V ---*- C++ -*-===//
//
// Drivers are not required to survive malformed SPIR-V, and a missing entry
// point is undefined behaviour in vkCreateComputePipelines (the OpenCL
// device reads its modules here too, for the same reasons). So before a
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
  /// The work-group size is the WorkgroupSize built-in made of
  /// specialization constants, of these ids (x, y, z); LocalSize holds
  /// their defaults.
  bool SpecializableSize = false;
  uint32_t SizeSpecIds[3] = {0, 0, 0};
  /// The module's OpCapability operands, so that the device can name a
  /// feature it lacks instead of leaving the driver to reject (or worse)
  /// the module.
  std::vector<uint32_t> Capabilities;
};

/// Which kind of entry point a device runs: Vulkan's compute shaders, or
/// OpenCL's kernels (the OpenCL device reads modules with this too).
enum class SpirvEntryModel { GLCompute, Kernel };

/// Checks that Words is a little-endian SPIR-V module whose instructions
/// are well formed, of the flavour Model belongs to, and that it has an
/// entry point of Model named Entry. Returns why not, or "" with Info
/// filled in.
std::string inspectSpirv(const uint32_t *Words, size_t NumWords,
                         const std::string &Entry, SpirvEntryInfo &Info,
                         SpirvEntryModel Model = SpirvEntryModel::GLCompute);

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_VULKANSPIRV_H
