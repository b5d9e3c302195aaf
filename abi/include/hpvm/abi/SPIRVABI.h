//===- SPIRVABI.h - How the runtime launches SPIR-V kernels -----*- C++ -*-===//
//
// The launch interface of the SPIR-V backend's kernels (docs/backends.md,
// "SPIR-V backend"), kept free of LLVM so that the runtime can include it:
// it depends only on the graph model (hpvm/ir/Graph.h) and is header-only.
//
// One SPIR-V module per leaf, one entry point in it:
//
//  * name: "hpvm.spirv." + the leaf function's name without "hpvm.node.";
//  * Vulkan flavour: GLCompute, LocalSize from spirvLocalSize(); OpenCL
//    flavour: Kernel, with the same LocalSize;
//  * node dim D-1 (the last, fastest) is the x component of the global
//    invocation id, D-2 is y, D-3 is z. The runtime dispatches
//    ceil(extent / local size) work groups per component; instances past an
//    extent return at once, so the rounding up is harmless;
//  * Vulkan: the parameters live in a push-constant block, one 8-byte slot
//    each (spirvPushConstantLayout). Where the slots need more than the 128
//    bytes of push constants every Vulkan device has (SPIRVMinPushBytes),
//    the block is in device memory instead (the slots laid out the same,
//    8-byte aligned, at most SPIRVMaxParamBlockBytes), and the push
//    constants hold its 64-bit device address, in the first slot: the
//    kernel reads its parameters through a PhysicalStorageBuffer pointer.
//    OpenCL: the same values are kernel arguments in the same order
//    (buffers as `global uchar *`, every other slot as a scalar argument
//    of its slot's type).
//
// What a slot holds (little-endian; "low bytes" = the first bytes):
//
//   buffer parameter   the buffer's 64-bit device address (Vulkan: from
//                      vkGetBufferDeviceAddress; the kernel converts it to a
//                      PhysicalStorageBuffer pointer)
//   i1 value           a 32-bit 0 or 1 in the low 4 bytes
//   i8, i16 value      the value in the low 1 or 2 bytes (the kernel reads a
//                      32-bit word and truncates it; the rest is ignored)
//   i32, f32 value     the value in the low 4 bytes
//   f16 value          the IEEE half in the low 2 bytes
//   i64, f64 value     all 8 bytes
//   ptr value          the 8 bytes as given (the runtime does not translate
//                      a pointer passed by value)
//   outer ids          3 slots per ancestor level, level 1 (the parent)
//                      first: the ids of that ancestor's instance, dim 0
//                      first, 0 for missing dims; every level up to the root
//
// Vulkan kernels watch their loops for an early end. Mesa's lavapipe
// (llvmpipe) ends every loop of a group of invocations once the group has
// run SPIRVLoopLimit iterations of its loops in all (a guard against
// shaders that hang), and the shader then goes on with wrong values. A
// kernel whose loop ended without taking its exit stores 1 to the 32-bit
// word at the device address in specialization constant
// SPIRVLoopStatusSpecId (64-bit), unless that is 0, its default: other
// devices have no such limit. The runtime gives lavapipe's pipelines such a
// word and fails a launch that set it.
//
// Extents must be below 2^32 per dim in Vulkan (global invocation ids are
// 32-bit there) and below 2^63 overall (ids are signed 64-bit in the IR).
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_ABI_SPIRVABI_H
#define HPVM_ABI_SPIRVABI_H

#include "hpvm/abi/IdComponents.h"
#include "hpvm/ir/Graph.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hpvm {

/// The loop guard of lavapipe (see above): the specialization constant
/// with the status word's address, and the iterations per group after
/// which lavapipe ends loops early (what the runtime's error names).
constexpr uint32_t SPIRVLoopStatusSpecId = 0;
constexpr uint64_t SPIRVLoopLimit = 65535;

/// A work-group kernel (hpvm_rt.h, HPVM_WORK_GROUP_ENTRY_SUFFIX) whose
/// group's size is known only at run time: in Vulkan its WorkgroupSize
/// built-in is made of 32-bit specialization constants of these ids, x then
/// y then z (1 unless specialised); in OpenCL it has no LocalSize and takes
/// the size at enqueue.
constexpr uint32_t SPIRVWorkGroupSizeSpecId = 1;

/// Which SPIR-V environment a module is made for.
enum class SPIRVFlavour {
  /// Shader + PhysicalStorageBufferAddresses, GLCompute entry point,
  /// structured control flow, GLSL.std.450 math; SPIR-V 1.5 for Vulkan 1.2.
  Vulkan,
  /// Kernel + Addresses (Physical64), Kernel entry point, OpenCL.std math;
  /// SPIR-V 1.0 for OpenCL 2.1 (clCreateProgramWithIL).
  OpenCL,
};

inline const char *toString(SPIRVFlavour F) {
  return F == SPIRVFlavour::Vulkan ? "vulkan" : "opencl";
}

/// The entry points' name prefix.
constexpr const char *SPIRVEntryPrefix = "hpvm.spirv.";

/// "hpvm.spirv." + LeafFunctionName without its "hpvm.node." prefix.
inline std::string getSPIRVEntryName(std::string_view LeafFunctionName) {
  constexpr std::string_view NodePrefix = "hpvm.node.";
  if (LeafFunctionName.substr(0, NodePrefix.size()) == NodePrefix)
    LeafFunctionName.remove_prefix(NodePrefix.size());
  return std::string(SPIRVEntryPrefix) + std::string(LeafFunctionName);
}

/// The work-group size (x, y, z) of a kernel of a node with NumDims dims:
/// 64 invocations in every case but 0-D, spread over the used components.
inline std::array<uint32_t, 3> spirvLocalSize(size_t NumDims) {
  switch (NumDims) {
  case 0:
    return {1, 1, 1};
  case 1:
    return {64, 1, 1};
  case 2:
    return {8, 8, 1};
  default:
    return {4, 4, 4};
  }
}

/// The invocation id component a node dim uses (idComponent).
inline unsigned spirvIdComponent(size_t NumDims, unsigned Dim) {
  return idComponent(NumDims, Dim);
}

/// The push constants every Vulkan device has (maxPushConstantsSize is at
/// least this), and the most a parameter block in device memory may hold.
constexpr uint32_t SPIRVMinPushBytes = 128;
constexpr uint32_t SPIRVMaxParamBlockBytes = 4096;

/// Byte offsets of the push-constant block (Vulkan) of a leaf; the OpenCL
/// flavour's kernel arguments are the same slots in the same order.
struct SPIRVPushConstantLayout {
  /// Bytes per slot; every slot starts at a multiple of it.
  static constexpr uint32_t SlotBytes = 8;
  /// Offset of parameter i's slot.
  std::vector<uint32_t> ParamOffsets;
  /// OuterIdsOffsets[l - 1]: offset of the 3 slots of the ancestor at level
  /// l (dim 0 first).
  std::vector<uint32_t> OuterIdsOffsets;
  /// Size of the whole block in bytes; the runtime checks it against the
  /// device's maxPushConstantsSize (at least 128 bytes = 16 slots).
  uint32_t Size = 0;
  /// Number of slots (= Size / SlotBytes): kernel arguments in OpenCL.
  uint32_t numSlots() const { return Size / SlotBytes; }
  /// Whether Vulkan reads the block from device memory, its address pushed.
  bool inMemory() const { return Size > SPIRVMinPushBytes; }
};

/// How many ancestor levels a node has (its depth below the graph's root).
inline unsigned spirvAncestorLevels(const Node &N) {
  unsigned Levels = 0;
  for (const Node *P = N.parent(); P; P = P->parent())
    ++Levels;
  return Levels;
}

/// The push-constant layout of leaf N's kernel: its parameters in order,
/// then the ids of every ancestor level. (Extents are not passed: kernels
/// read them from the parameters, and 128 bytes is all that is sure to be
/// pushed.)
inline SPIRVPushConstantLayout spirvPushConstantLayout(const Node &N) {
  SPIRVPushConstantLayout L;
  uint32_t Slot = 0;
  for (size_t I = 0; I < N.Params.size(); ++I)
    L.ParamOffsets.push_back(Slot++ * L.SlotBytes);
  for (unsigned Level = 1, E = spirvAncestorLevels(N); Level <= E; ++Level) {
    L.OuterIdsOffsets.push_back(Slot * L.SlotBytes);
    Slot += 3;
  }
  L.Size = Slot * L.SlotBytes;
  return L;
}

} // namespace hpvm

#endif // HPVM_ABI_SPIRVABI_H
