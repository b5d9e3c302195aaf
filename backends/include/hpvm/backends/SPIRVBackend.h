//===- SPIRVBackend.h - Compile HPVM leaves to SPIR-V -----------*- C++ -*-===//
//
// The SPIR-V backend (docs/backends.md "SPIR-V backend") turns
// every leaf of a graph-form module that may run on spirv into one SPIR-V
// module with one entry point, written by our own emitter (Debian's LLVM 19
// has no SPIR-V target). The launch interface (entry name, work-group size,
// id mapping, push-constant layout) is in SPIRVABI.h, which the runtime
// includes without LLVM.
//
// Two flavours from the same emitter:
//  * Vulkan: Shader, PhysicalStorageBufferAddresses, addressing model
//    PhysicalStorageBuffer64, memory model GLSL450, GLCompute entry point,
//    structured control flow, parameters in a push-constant block, math
//    through GLSL.std.450; SPIR-V 1.5, validated for Vulkan 1.2.
//  * OpenCL: Kernel, Addresses (Physical64), Kernel entry point, parameters
//    as kernel arguments, math through OpenCL.std; SPIR-V 1.0, validated for
//    OpenCL 2.1.
// Capabilities for 8-, 16- and 64-bit integers, halves and doubles (and the
// storage and atomic capabilities they need) are declared only when the
// kernel uses those types; SPIRVKernel::Capabilities lists them so that the
// runtime can check the device's features before creating the pipeline.
//
// Every module is validated in-process with SPIRV-Tools before it is
// returned; IR the emitter cannot translate is an error naming the node,
// the leaf function and the instruction, never an invalid module.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_SPIRVBACKEND_H
#define HPVM_BACKENDS_SPIRVBACKEND_H

#include "hpvm/abi/SPIRVABI.h"
#include "hpvm/backends/SkippedLeaf.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace hpvm {

struct SPIRVOptions {
  SPIRVFlavour Flavour = SPIRVFlavour::Vulkan;
  /// Validate every module with SPIRV-Tools (an invalid one is an internal
  /// error). Only tests that look at broken output turn this off.
  bool Validate = true;
  /// When set, a leaf whose code this flavour cannot express (e.g. halves
  /// in OpenCL) is left out and its diagnostic appended here instead of
  /// failing the whole build: programs carry the OpenCL flavour besides the
  /// Vulkan one, and a leaf only Vulkan can run must not stop that. Invalid
  /// output is still an error.
  std::vector<SkippedLeaf> *Skipped = nullptr;
};

/// One leaf compiled to SPIR-V.
struct SPIRVKernel {
  /// The node's path, "graph/child/leaf".
  std::string NodePath;
  /// The entry point's name (getSPIRVEntryName of the leaf function).
  std::string EntryName;
  /// The module, a whole SPIR-V binary (header included).
  std::vector<uint32_t> Words;
  SPIRVFlavour Flavour = SPIRVFlavour::Vulkan;
  /// The LocalSize execution mode (spirvLocalSize of the node's dims; a
  /// work-group kernel's group, or 0s where that is known at run time only).
  std::array<uint32_t, 3> LocalSize = {1, 1, 1};
  /// Every OpCapability of the module (spv::Capability values, ascending):
  /// what the device must support, e.g. Int8 or Float64.
  std::vector<uint32_t> Capabilities;
  /// The node's work-group kernel (docs/ir.md §3.4): a device work-group
  /// per instance, LocalSize the group's, beside the kernel every leaf has.
  bool WorkGroups = false;
};

/// Compiles every leaf whose targets include spirv, of every graph of
/// GraphForm, into one module each (in graph order, parents before
/// children; see SPIRVOptions::Skipped for leaving leaves out). A leaf function
/// shared by several nodes is compiled once per node. Fails on the first leaf
/// the backend cannot compile, naming the node, the leaf function and the
/// instruction (a call to an external function, an unsupported type or
/// intrinsic, a recursive call, a leaf with outputs, ...). GraphForm is not
/// changed.
llvm::Expected<std::vector<SPIRVKernel>>
buildSPIRVKernels(const llvm::Module &GraphForm, const SPIRVOptions &Opts);

/// Validates Words with SPIRV-Tools for the flavour's environment (Vulkan
/// 1.2, or OpenCL 2.1); the error carries the validator's messages.
llvm::Error validateSPIRV(llvm::ArrayRef<uint32_t> Words, SPIRVFlavour F);

/// The text form of Words (as spirv-dis writes it, with friendly names).
llvm::Expected<std::string> disassembleSPIRV(llvm::ArrayRef<uint32_t> Words);

} // namespace hpvm

#endif // HPVM_BACKENDS_SPIRVBACKEND_H
