//===- SPIRVInternal.h - Shared pieces of the SPIR-V backend ----*- C++ -*-===//
//
// The backend works in three steps per leaf:
//  1. SPIRVPrepare.cpp builds a kernel function in a copy of the module (the
//     bounds check around the inlined leaf, instance ids as placeholder
//     calls), and brings it into a form the emitter can translate one
//     instruction at a time: everything inlined, no vectors, no memcpy, no
//     switch, float atomics as compare-and-swap loops, and (Vulkan) a
//     structured CFG with a merge block for every header.
//  2. SPIRVEmitter.cpp writes the SPIR-V module of that function.
//  3. SPIRVKernels.cpp drives both and validates the result.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_SPIRV_SPIRVINTERNAL_H
#define HPVM_BACKENDS_SPIRV_SPIRVINTERNAL_H

#include "hpvm/backends/LeafKernel.h"
#include "hpvm/backends/SPIRVBackend.h"
#include "hpvm/ir/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Function;
class Instruction;
class Module;
} // namespace llvm

namespace hpvm::spirv {

/// i64 @hpvm.spirv.global.id(i32 dim): the instance id of the leaf's node
/// dim `dim`, i.e. one component of the global invocation id.
constexpr const char *GlobalIdFunctionName = "hpvm.spirv.global.id";
/// i64 @hpvm.spirv.outer.id(i32 level, i32 dim): an ancestor's id, read from
/// its push-constant slot (Vulkan) or kernel argument (OpenCL).
constexpr const char *OuterIdFunctionName = "hpvm.spirv.outer.id";
/// In a work-group kernel (a device work-group per instance of a work-group
/// leaf, a thread per work-item: docs/ir.md §3.4): i64
/// @hpvm.spirv.group.id(i32 dim), the instance id of the node's dim `dim`,
/// one component of the work-group id; and i64 @hpvm.spirv.local.id(i32
/// dim), the work-item's id along group dim `dim`, one component of the
/// local invocation id.
constexpr const char *GroupIdFunctionName = "hpvm.spirv.group.id";
constexpr const char *LocalIdFunctionName = "hpvm.spirv.local.id";
/// i64 @hpvm.spirv.loop.status(): specialization constant
/// SPIRVLoopStatusSpecId, the address of the loop guard's status word
/// (Vulkan; hpvm/abi/SPIRVABI.h).
constexpr const char *LoopStatusFunctionName = "hpvm.spirv.loop.status";
/// void @hpvm.spirv.loop.report(i64 address): stores 1 there.
constexpr const char *LoopReportFunctionName = "hpvm.spirv.loop.report";

using gpu::makeError;

/// One leaf to compile.
struct KernelJob : gpu::LeafKernelJob {
  SPIRVFlavour Flavour = SPIRVFlavour::Vulkan;
  /// The node's work-group kernel (spirvWorkGroupSize): a device work-group
  /// per instance, a thread per work-item, the device's barriers.
  bool WorkGroups = false;
};

/// Replaces every double-precision exp, exp2, exp10, log, log2, log10, sin,
/// cos, tan and pow in M (libm calls and intrinsics) by a call of our own
/// implementation (math/f64.c), linked into M: GLSL.std.450 has them for
/// 32-bit floats only. For the Vulkan flavour, before the kernels are built.
llvm::Error linkF64Math(llvm::Module &M);

/// "node 'p': message"
llvm::Error nodeError(const KernelJob &Job, const llvm::Twine &Message);

/// The work-group size (x, y, z) of the work-group kernel of N, a
/// work-group leaf: its group extents, x the last (as node dims map); the
/// module's LocalSize. None where an extent is not a constant, or the group
/// has more than 1024 work-items, which no device runs.
std::optional<std::array<uint32_t, 3>> spirvWorkGroupSize(const Node &N);

/// Whether N, a work-group leaf, gets a work-group kernel: its group has
/// at most 3 extents, and those that are constants allow at most 1024
/// work-items. A size known only at run time is specialised then
/// (SPIRVWorkGroupSizeSpecId).
bool spirvHasWorkGroupKernel(const Node &N);

/// The diagnostic for IR the backend cannot compile: names the node, the
/// leaf function, what is unsupported and the instruction (with its source
/// line when it has one).
llvm::Error unsupported(const KernelJob &Job, const llvm::Instruction *At,
                        const llvm::Twine &What);

/// Where the structured constructs of a block end (Vulkan only).
struct BlockStructure {
  /// The merge block of the selection or loop this block heads.
  llvm::BasicBlock *Merge = nullptr;
  /// Loop headers only: the continue target (the loop's only latch).
  llvm::BasicBlock *Continue = nullptr;
};

/// A kernel function ready for the emitter.
struct PreparedKernel {
  llvm::Function *F = nullptr;
  /// Every block, each after its dominators.
  std::vector<llvm::BasicBlock *> Order;
  /// The headers of structured constructs (Vulkan).
  llvm::DenseMap<const llvm::BasicBlock *, BlockStructure> Headers;
};

/// Adds the kernel function of Job to M (a copy of the graph-form module):
/// void @<entry>(<the leaf's parameters>), with the bounds check around
/// the inlined leaf and every instance-id call replaced.
llvm::Expected<llvm::Function *> buildKernelFunction(llvm::Module &M,
                                                     const KernelJob &Job);

/// Lowers and (Vulkan) structurises the kernel function; fills Out.
llvm::Error prepareKernel(llvm::Function &F, const KernelJob &Job,
                          PreparedKernel &Out);

/// Reports the first call the emitter would reject (an external function,
/// a recursive call, a trap, an unknown intrinsic), before structurisation
/// reshapes the code around it (a noreturn call ends paths that never meet
/// again).
llvm::Error checkCalls(const llvm::Function &F, const KernelJob &Job);

/// Writes the SPIR-V module of a prepared kernel.
llvm::Expected<SPIRVKernel> emitKernel(const PreparedKernel &PK,
                                       const KernelJob &Job);

} // namespace hpvm::spirv

#endif // HPVM_BACKENDS_SPIRV_SPIRVINTERNAL_H
