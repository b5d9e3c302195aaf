//===- SPIRVKernels.cpp - Leaves to validated SPIR-V modules --------------===//
//
// buildSPIRVKernels: for every spirv leaf, a kernel function in a copy of the
// module, prepared and emitted (SPIRVPrepare.cpp, SPIRVEmitter.cpp), then
// validated with SPIRV-Tools so that an emitter bug shows up here, naming
// the node, rather than as a driver crash on some device.
//
//===----------------------------------------------------------------------===//
#include "SPIRVInternal.h"

#include "hpvm/backends/LeafKernel.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/rt/hpvm_rt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <spirv-tools/libspirv.hpp>

using namespace llvm;

namespace hpvm {
namespace {

spv_target_env targetEnv(SPIRVFlavour F) {
  // Vulkan 1.2 takes SPIR-V 1.5 (physical storage buffers and 8-bit storage
  // are core there); OpenCL 2.1 is the first OpenCL with SPIR-V in core
  // (clCreateProgramWithIL).
  return F == SPIRVFlavour::Vulkan ? SPV_ENV_VULKAN_1_2 : SPV_ENV_OPENCL_2_1;
}

} // namespace

Error validateSPIRV(ArrayRef<uint32_t> Words, SPIRVFlavour F) {
  spvtools::SpirvTools Tools(targetEnv(F));
  std::string Messages;
  Tools.SetMessageConsumer([&](spv_message_level_t, const char *,
                               const spv_position_t &Position,
                               const char *Message) {
    Messages += "\n  word " + std::to_string(Position.index) + ": " + Message;
  });
  spvtools::ValidatorOptions Options;
  if (!Tools.Validate(Words.data(), Words.size(), Options))
    return spirv::makeError(
        "the SPIR-V module is not valid for " +
        Twine(F == SPIRVFlavour::Vulkan ? "Vulkan 1.2" : "OpenCL 2.1") + ":" +
        Messages);
  return Error::success();
}

Expected<std::string> disassembleSPIRV(ArrayRef<uint32_t> Words) {
  spvtools::SpirvTools Tools(SPV_ENV_UNIVERSAL_1_5);
  std::string Messages;
  Tools.SetMessageConsumer(
      [&](spv_message_level_t, const char *, const spv_position_t &,
          const char *Message) { Messages += std::string("\n  ") + Message; });
  std::string Text;
  std::vector<uint32_t> Binary(Words.begin(), Words.end());
  if (!Tools.Disassemble(Binary, &Text,
                         SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
                             SPV_BINARY_TO_TEXT_OPTION_INDENT))
    return spirv::makeError("cannot disassemble the SPIR-V module:" + Messages);
  return Text;
}

Expected<std::vector<SPIRVKernel>> buildSPIRVKernels(const Module &GraphForm,
                                                     const SPIRVOptions &Opts) {
  using namespace spirv;
  auto Leaves = gpu::collectLeafKernelJobs(
      GraphForm, TargetSPIRV, "spirv",
      [](const Node &N) { return getSPIRVEntryName(N.Function); });
  if (!Leaves)
    return Leaves.takeError();

  std::vector<SPIRVKernel> Kernels;
  if (Leaves->Jobs.empty())
    return Kernels;
  // One copy for all kernels: each kernel function is new, and preparing
  // one touches nothing the others use (leaf functions are only inlined).
  std::unique_ptr<Module> M = gpu::cloneForKernels(GraphForm, ".spirv");
  if (Opts.Flavour == SPIRVFlavour::Vulkan)
    if (Error E = linkF64Math(*M))
      return E;
  // What the flavour cannot express: fatal, or a leaf left out.
  for (auto [Index, Leaf] : enumerate(Leaves->Jobs)) {
    auto Unsupported = [&](Error E) -> Error {
      if (!Opts.Skipped)
        return E;
      Opts.Skipped->push_back(gpu::skippedLeaf(*Leaf.N, std::move(E)));
      return Error::success();
    };
    // A work-group leaf also gets its work-group kernel, after the kernel
    // every leaf has (a thread per instance).
    bool WorkGroups = spirvHasWorkGroupKernel(*Leaf.N);
    for (bool Native : {false, true}) {
      if (Native && !WorkGroups)
        break;
      KernelJob Job;
      static_cast<gpu::LeafKernelJob &>(Job) = Leaf;
      Job.Flavour = Opts.Flavour;
      Job.WorkGroups = Native;
      std::string Entry =
          Job.EntryName + (Native ? HPVM_WORK_GROUP_ENTRY_SUFFIX : "");
      // Nodes sharing a leaf function get one kernel each, with distinct
      // names in the copy (the entry point's name is set when emitting).
      Job.EntryName = Entry;
      if (M->getNamedValue(Entry))
        Job.EntryName = Entry + ".for." + std::to_string(Index);
      auto F = buildKernelFunction(*M, Job);
      if (!F)
        return F.takeError();
      // The work-group kernel is optional: where the flavour cannot express
      // it, the groups run a thread each, and the other kernel says why
      // when it cannot either.
      auto Drop = [&](Error E) -> Error {
        if (Native) {
          consumeError(std::move(E));
          return Error::success();
        }
        return Unsupported(std::move(E));
      };
      PreparedKernel PK;
      if (Error E = prepareKernel(**F, Job, PK)) {
        if (Error Fatal = Drop(std::move(E)))
          return Fatal;
        break;
      }
      Job.EntryName = Entry;
      auto K = emitKernel(PK, Job);
      if (!K) {
        if (Error Fatal = Drop(K.takeError()))
          return Fatal;
        break;
      }
      if (Opts.Validate)
        if (Error E = validateSPIRV(K->Words, Opts.Flavour))
          return nodeError(Job, "internal error: " + toString(std::move(E)));
      Kernels.push_back(std::move(*K));
    }
  }
  return Kernels;
}

} // namespace hpvm
