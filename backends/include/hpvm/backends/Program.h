//===- Program.h - From graph form to a runnable program --------*- C++ -*-===//
//
// A program is the graphs plus, for every leaf, one artifact
// per target it was compiled for. compileProgram turns a module in graph
// form into the host code of that program: every @hpvm.launch becomes a call
// into hpvm-rt, and the program descriptor of hpvm_rt.h is embedded as a
// constant next to it. The kernels come back as separate modules, one per
// target, for the caller to emit and link.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_PROGRAM_H
#define HPVM_BACKENDS_PROGRAM_H

#include "hpvm/backends/CPUBackend.h"
#include "hpvm/backends/NVPTXBackend.h"
#include "hpvm/backends/SPIRVBackend.h"
#include "hpvm/ir/Graph.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace hpvm {

class CPUJIT;

struct ProgramOptions {
  /// The targets to compile leaves for.
  TargetMask Targets = TargetCPU;
  CPUOptions CPU;
  NVPTXOptions NVPTX;
  /// What launches in the host code call: a function with the signature of
  /// hpvm_launch_or_exit (hpvm_rt.h). The Python binding's reports the
  /// error to Python instead of ending the process.
  std::string LaunchFunction = "hpvm_launch_or_exit";
  /// What launches of `nowait` nodes call instead (same signature): one
  /// that returns while the graph runs. The Python binding's is its
  /// LaunchFunction: those launches run synchronously there, which a
  /// `nowait` allows.
  std::string NoWaitLaunchFunction = "hpvm_launch_nowait_or_exit";
  /// What a launch of a graph that is one CPU leaf calls instead of
  /// LaunchFunction, with a launch site (hpvm_launch_site_or_exit's
  /// signature): the generated code runs the launches the site allows
  /// itself (docs/runtime.md, "Launch sites"). Empty: no sites.
  std::string SiteLaunchFunction = "hpvm_launch_site_or_exit";
  /// The same for `nowait` launches (hpvm_launch_nowait_site_or_exit's
  /// signature); empty: none.
  std::string NoWaitSiteLaunchFunction = "hpvm_launch_nowait_site_or_exit";
  /// Leaves whose code a GPU target cannot express (a call of a function
  /// only the host has, a mutable global, ...) get no artifact for it,
  /// VulkanSkipped or NVPTXSkipped saying why, instead of failing the
  /// build: they run where they can. A leaf left with no artifact at all is
  /// still an error. For callers that compile for several targets and let
  /// the runtime use what exists (hpvm-clang, the Python binding).
  bool SkipUnsupported = false;
};

struct CompiledProgram {
  /// The host code: the input module without its leaf functions, launches
  /// lowered to hpvm_launch_or_exit, the descriptor embedded.
  std::unique_ptr<llvm::Module> Host;
  /// The optimised CPU kernels (null without the cpu target).
  std::unique_ptr<llvm::Module> CPUKernels;
  /// The PTX kernels, already embedded in Host.
  std::vector<NVPTXKernel> NVPTXKernels;
  /// The SPIR-V kernels (Vulkan flavour), already embedded in Host.
  std::vector<SPIRVKernel> SPIRVKernels;
  /// The same leaves in the OpenCL flavour, embedded as HPVM_TARGET_OPENCL
  /// artifacts; a leaf the OpenCL flavour cannot express has none, and
  /// OpenCLSkipped says why (it still runs on Vulkan or the CPU).
  std::vector<SPIRVKernel> OpenCLKernels;
  std::vector<SkippedLeaf> OpenCLSkipped;
  /// With ProgramOptions::SkipUnsupported: the leaves without a Vulkan
  /// artifact, and without a PTX one, and why.
  std::vector<SkippedLeaf> VulkanSkipped;
  std::vector<SkippedLeaf> NVPTXSkipped;
};

/// The artifact target of OpenCL-flavour SPIR-V (HPVM_TARGET_OPENCL in
/// hpvm_rt.h): not a node target, so not a TargetMask bit; every leaf that
/// allows spirv gets one where the flavour can express it.
constexpr uint32_t ArtifactTargetOpenCL = 1u << 3;

/// The targets this build can compile for.
TargetMask availableTargets();
/// What is compiled when nobody says: the CPU alone, so that a plain build
/// never depends on a GPU backend accepting every kernel.
TargetMask defaultTargets();

/// Compiles a module in graph form (it is consumed). Errors name the graph
/// and node concerned: a leaf none of whose targets is being compiled, a
/// backend failure, malformed graph metadata.
llvm::Expected<CompiledProgram>
compileProgram(std::unique_ptr<llvm::Module> GraphForm,
               const ProgramOptions &Options);

/// The name of the embedded hpvm_program_desc in CompiledProgram::Host.
constexpr const char *ProgramDescriptorName = "hpvm.program";

/// A program compiled into this process (the Python binding's): the host
/// code and the CPU kernels JIT-compiled (CPUJIT), PTX and SPIR-V embedded
/// as for an executable. hpvm-rt caches loads by the descriptor's address:
/// call hpvm_release_program(&descriptor()) before destroying it.
class LoadedProgram {
public:
  /// Builds from a module in graph form (consumed); errors as for
  /// compileProgram, and JIT failures. HostSymbols are what the host code
  /// calls that the JIT cannot find in the process: Options.LaunchFunction
  /// and hpvm_rt.h's other functions where the caller hides them.
  /// Objects, if given, receives the object code loaded (the CPU kernels,
  /// then the host code), from which load() makes the same program again.
  static llvm::Expected<std::unique_ptr<LoadedProgram>>
  build(std::unique_ptr<llvm::Module> GraphForm, const ProgramOptions &Options,
        llvm::ArrayRef<std::pair<llvm::StringRef, void *>> HostSymbols = {},
        std::vector<std::string> *Objects = nullptr);
  /// Loads the objects build() gave, written with the same Options on a
  /// host with the same processor (the caller's cache must ensure both).
  static llvm::Expected<std::unique_ptr<LoadedProgram>>
  load(llvm::ArrayRef<std::string> Objects, const ProgramOptions &Options,
       llvm::ArrayRef<std::pair<llvm::StringRef, void *>> HostSymbols = {});
  ~LoadedProgram();
  LoadedProgram(const LoadedProgram &) = delete;
  LoadedProgram &operator=(const LoadedProgram &) = delete;

  const hpvm_program_desc &descriptor() const;
  const std::vector<Graph> &graphs() const;
  /// The address of a function or variable of the host code.
  llvm::Expected<void *> lookup(llvm::StringRef Name) const;

private:
  struct Parts;
  explicit LoadedProgram(std::unique_ptr<Parts> P);
  /// Looks up the descriptor and reads the graphs back.
  static llvm::Expected<std::unique_ptr<LoadedProgram>>
  finish(std::unique_ptr<CPUJIT> JIT);
  std::unique_ptr<Parts> P;
};

} // namespace hpvm

#endif // HPVM_BACKENDS_PROGRAM_H
