//===- VulkanSpirv.cpp - What the Vulkan device reads in SPIR-V -----------===//

#include "VulkanSpirv.h"

#include <unordered_map>

using namespace hpvm::rt;

namespace {

// The few parts of the SPIR-V specification this file needs.
constexpr uint32_t MagicNumber = 0x07230203;
constexpr uint32_t OpCapability = 17;
constexpr uint32_t CapabilityShader = 1;
constexpr uint32_t CapabilityKernel = 6;
constexpr uint32_t OpEntryPoint = 15;
constexpr uint32_t OpExecutionMode = 16;
constexpr uint32_t OpConstant = 43;
constexpr uint32_t OpConstantComposite = 44;
constexpr uint32_t OpSpecConstant = 50;
constexpr uint32_t OpSpecConstantComposite = 51;
constexpr uint32_t OpDecorate = 71;
constexpr uint32_t OpExecutionModeId = 331;
constexpr uint32_t ExecutionModelGLCompute = 5;
constexpr uint32_t ExecutionModelKernel = 6;
constexpr uint32_t ExecutionModeLocalSize = 17;
constexpr uint32_t ExecutionModeLocalSizeId = 38;
constexpr uint32_t DecorationBuiltIn = 11;
constexpr uint32_t DecorationSpecId = 1;
constexpr uint32_t BuiltInWorkgroupSize = 25;

/// The nul-terminated literal string starting at Words[0], at most N words.
std::string literalString(const uint32_t *Words, size_t N) {
  std::string S;
  for (size_t I = 0; I != N; ++I)
    for (unsigned B = 0; B != 4; ++B) {
      char C = static_cast<char>((Words[I] >> (8 * B)) & 0xff);
      if (!C)
        return S;
      S += C;
    }
  return S;
}

} // namespace

std::string hpvm::rt::inspectSpirv(const uint32_t *Words, size_t NumWords,
                                   const std::string &Entry,
                                   SpirvEntryInfo &Info,
                                   SpirvEntryModel Model) {
  bool Kernel = Model == SpirvEntryModel::Kernel;
  uint32_t ExecutionModel =
      Kernel ? ExecutionModelKernel : ExecutionModelGLCompute;
  const char *ModelName = Kernel ? "Kernel" : "GLCompute";
  if (NumWords < 5)
    return "the code is not a SPIR-V module (" + std::to_string(NumWords) +
           " words, shorter than the header)";
  if (Words[0] != MagicNumber) {
    if (Words[0] == __builtin_bswap32(MagicNumber))
      return std::string("the SPIR-V module is big-endian; ") +
             (Kernel ? "OpenCL" : "Vulkan") + " takes host-order words";
    return "the code is not a SPIR-V module (bad magic number)";
  }

  bool Found = false;
  uint32_t Function = 0;
  std::vector<std::string> ComputeEntries;
  // Per function: LocalSize literals or LocalSizeId ids.
  std::unordered_map<uint32_t, std::pair<bool, std::vector<uint32_t>>> Sizes;
  std::unordered_map<uint32_t, uint32_t> Constants;
  std::unordered_map<uint32_t, std::vector<uint32_t>> Composites;
  std::unordered_map<uint32_t, uint32_t> SpecIds;
  uint32_t WorkgroupSizeId = 0;

  for (size_t At = 5; At < NumWords;) {
    uint32_t Count = Words[At] >> 16, Op = Words[At] & 0xffff;
    if (Count == 0 || Count > NumWords - At)
      return "the SPIR-V module is malformed (instruction at word " +
             std::to_string(At) + " has length " + std::to_string(Count) + ")";
    const uint32_t *I = Words + At;
    switch (Op) {
    case OpCapability:
      if (Count >= 2)
        Info.Capabilities.push_back(I[1]);
      break;
    case OpEntryPoint:
      if (Count >= 4 && I[1] == ExecutionModel) {
        std::string Name = literalString(I + 3, Count - 3);
        ComputeEntries.push_back(Name);
        if (Name == Entry && !Found) {
          Found = true;
          Function = I[2];
        }
      }
      break;
    case OpExecutionMode:
    case OpExecutionModeId:
      if (Count >= 6 &&
          ((Op == OpExecutionMode && I[2] == ExecutionModeLocalSize) ||
           (Op == OpExecutionModeId && I[2] == ExecutionModeLocalSizeId)))
        Sizes[I[1]] = {Op == OpExecutionModeId, {I[3], I[4], I[5]}};
      break;
    case OpConstant:
    case OpSpecConstant:
      // Result type, result id, value (low word for wider constants).
      if (Count >= 4)
        Constants[I[2]] = I[3];
      break;
    case OpConstantComposite:
    case OpSpecConstantComposite:
      if (Count >= 6)
        Composites[I[2]] = {I[3], I[4], I[5]};
      break;
    case OpDecorate:
      if (Count >= 4 && I[2] == DecorationBuiltIn &&
          I[3] == BuiltInWorkgroupSize)
        WorkgroupSizeId = I[1];
      if (Count >= 4 && I[2] == DecorationSpecId)
        SpecIds[I[1]] = I[3];
      break;
    default:
      break;
    }
    At += Count;
  }

  // Kernel is OpenCL's flavour of SPIR-V, Shader Vulkan's: say that rather
  // than "no entry".
  for (uint32_t Cap : Info.Capabilities) {
    if (!Kernel && Cap == CapabilityKernel)
      return "the module is OpenCL SPIR-V (capability Kernel); Vulkan runs "
             "Shader modules";
    if (Kernel && Cap == CapabilityShader)
      return "the module is Vulkan SPIR-V (capability Shader); OpenCL runs "
             "Kernel modules";
  }

  if (!Found) {
    std::string Have;
    for (const std::string &N : ComputeEntries)
      Have += (Have.empty() ? "'" : ", '") + N + "'";
    return "the SPIR-V module has no " + std::string(ModelName) +
           " entry point '" + Entry + "'" +
           (Have.empty() ? std::string(" (it has none)")
                         : " (it has " + Have + ")");
  }

  auto Resolve = [&](const std::vector<uint32_t> &Ids) {
    for (unsigned D = 0; D != 3; ++D) {
      auto It = Constants.find(Ids[D]);
      if (It == Constants.end())
        return false;
      Info.LocalSize[D] = It->second;
    }
    return true;
  };
  // A WorkgroupSize built-in overrides the execution mode (SPIR-V 2.x:
  // "WorkgroupSize ... takes precedence over LocalSize").
  if (WorkgroupSizeId) {
    auto It = Composites.find(WorkgroupSizeId);
    if (It != Composites.end() && Resolve(It->second)) {
      Info.HasLocalSize = true;
      Info.SpecializableSize = true;
      for (unsigned D = 0; D != 3; ++D) {
        auto Spec = SpecIds.find(It->second[D]);
        Info.SpecializableSize &= Spec != SpecIds.end();
        if (Spec != SpecIds.end())
          Info.SizeSpecIds[D] = Spec->second;
      }
    }
  }
  if (!Info.HasLocalSize) {
    auto It = Sizes.find(Function);
    if (It != Sizes.end()) {
      if (!It->second.first) {
        for (unsigned D = 0; D != 3; ++D)
          Info.LocalSize[D] = It->second.second[D];
        Info.HasLocalSize = true;
      } else if (Resolve(It->second.second)) {
        Info.HasLocalSize = true;
      } else {
        // Guessing would dispatch the wrong number of groups.
        return "the SPIR-V entry point '" + Entry + "' has a LocalSizeId " +
               "whose sizes are not constants";
      }
    }
  }
  for (unsigned D = 0; D != 3; ++D)
    if (Info.HasLocalSize && Info.LocalSize[D] == 0)
      return "the SPIR-V entry point '" + Entry + "' has a work-group size " +
             "of 0";
  return "";
}
