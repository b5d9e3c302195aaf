//===- LeafKernel.h - One leaf as one GPU kernel function -------*- C++ -*-===//
//
// What the GPU backends (SPIR-V, NVPTX) share between finding the leaves
// they compile and lowering a kernel for their device:
//
//  * the walk over the leaves of every graph that may run on the target,
//    each checked before anything is built;
//  * the copy of the module that kernels are built in;
//  * the kernel function: `void @<entry>(...)` whose body runs the leaf
//    for the instances a device thread owns. The backend builds the part
//    that maps its thread ids to instance ids (a bounds check, a loop);
//    this file calls the leaf there, inlines it and everything it calls
//    (GPU code wants one function per kernel), and replaces every
//    @hpvm.instance.id call: level 0 by the backend's ids, ancestors'
//    ids by what the backend's hook makes of them.
//
// The CPU backend builds a loop nest over chunks of instances instead; of
// this it uses only replaceInstanceIds.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_LEAFKERNEL_H
#define HPVM_BACKENDS_LEAFKERNEL_H

#include "hpvm/backends/SkippedLeaf.h"
#include "hpvm/ir/Graph.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Function;
class FunctionType;
class Instruction;
class Module;
class Value;
} // namespace llvm

namespace hpvm::gpu {

/// One leaf to compile into one kernel.
struct LeafKernelJob {
  const Node *N = nullptr;
  /// AncestorDims[l - 1]: the number of dims of the ancestor at level l
  /// (what the leaf's instance-id calls may name).
  llvm::SmallVector<unsigned, 4> AncestorDims;
  /// The kernel's name in the device code.
  std::string EntryName;
};

llvm::Error makeError(const llvm::Twine &Message);

/// "node 'p': message"
llvm::Error nodeError(const Node &N, const llvm::Twine &Message);

/// The diagnostic for IR a backend cannot compile: "node 'p' (leaf function
/// '@f'): the <Backend> cannot compile <What>", then the instruction (with
/// its source line when it has one). Backend is e.g. "nvptx backend". An
/// UnsupportedLeaf, so that a caller that leaves the leaf out of the target
/// can say why and where.
llvm::Error unsupportedIn(const Node &N, const llvm::Twine &Backend,
                          const llvm::Instruction *At, const llvm::Twine &What);

/// What unsupportedIn reports, in parts.
class UnsupportedLeaf : public llvm::ErrorInfo<UnsupportedLeaf> {
public:
  static char ID;
  UnsupportedLeaf(std::string Message, std::string Why, std::string Location)
      : Message(std::move(Message)), Why(std::move(Why)),
        Location(std::move(Location)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  /// The whole diagnostic, as printed.
  std::string Message;
  /// "the <Backend> cannot compile <What>".
  std::string Why;
  /// "file:line:col", or "".
  std::string Location;
};

/// N left out of a target for E, a backend's error about it (consumed):
/// the reason and place of an UnsupportedLeaf, otherwise the first line of
/// E without the "node '...': " that the record says apart.
SkippedLeaf skippedLeaf(const Node &N, llvm::Error E);

/// What every GPU backend needs of a leaf before building its kernel: the
/// interface the graph-form verifier checks (leafInterfaceProblem), and no
/// outputs, which a kernel has nowhere to return. Target names the backend
/// in the message ("spirv").
llvm::Error checkLeaf(const llvm::Module &M, const Node &N,
                      llvm::StringRef Target);

/// The leaves a backend compiles, and the graphs they belong to.
struct LeafKernelJobs {
  /// The module's graphs; the jobs point into them (their nodes are held
  /// by pointer, so moving this keeps the jobs valid).
  std::vector<Graph> Graphs;
  std::vector<LeafKernelJob> Jobs;
};

/// Every leaf of M's graphs whose targets include Target, in graph order
/// (parents before children), with its entry name from EntryName and
/// checked with checkLeaf (TargetName names the backend); the first error
/// stops the walk.
llvm::Expected<LeafKernelJobs>
collectLeafKernelJobs(const llvm::Module &M, TargetMask Target,
                      llvm::StringRef TargetName,
                      llvm::function_ref<std::string(const Node &)> EntryName);

/// A copy of M to build kernels in. Frontends at -O0 mark everything
/// optnone/noinline; kernels are optimised whatever the host program was
/// compiled with, so neither attribute survives in the copy.
std::unique_ptr<llvm::Module> cloneForKernels(const llvm::Module &M,
                                              llvm::StringRef Suffix);

/// The extent E of a node as an i64, Params being the node's parameter
/// values: like the CPU backend, a bool extent counts 0 or 1 instances and
/// narrower integers are signed like the ids they bound.
llvm::Value *extentAsI64(llvm::IRBuilder<> &B, const Extent &E,
                         llvm::ArrayRef<llvm::Value *> Params);

/// The backend's part of a kernel function.
struct InstanceCode {
  /// Where one instance runs: the leaf call goes before its terminator.
  llvm::BasicBlock *Body = nullptr;
  /// The instance's ids (level 0), node dim 0 first, i64, valid in Body.
  llvm::SmallVector<llvm::Value *, 3> Ids;
  /// The arguments of the leaf call, one per node parameter.
  llvm::SmallVector<llvm::Value *, 8> LeafArgs;
};

struct KernelHooks {
  /// Builds, from the entry block of K (B's insertion point), the code that
  /// finds the instances of this thread and reaches InstanceCode::Body for
  /// each; every path must end in a return.
  llvm::function_ref<InstanceCode(llvm::Function &K, llvm::IRBuilder<> &B)>
      BuildInstances;
  /// The id of the ancestor at Level (>= 1, checked against the job),
  /// dim Dim, at B's insertion point (where the leaf read it).
  llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &B, unsigned Level,
                                   unsigned Dim)>
      OuterId;
  /// The backend's diagnostic for IR it cannot compile (unsupportedIn).
  llvm::function_ref<llvm::Error(const llvm::Instruction *At,
                                 const llvm::Twine &What)>
      Unsupported;
  /// The kernel runs a work-group leaf's groups as device work-groups, a
  /// thread per work-item (WorkGroups.h): the leaf's work-item code is kept,
  /// its phases go. Otherwise a thread runs a whole group's phases.
  bool WorkGroups = false;
};

/// Adds `void @<Job.EntryName>` of type Ty (whose first parameters are
/// named after the node's) to M, a module from cloneForKernels, with the
/// leaf inlined in the body the hooks build and every instance-id call
/// replaced. When the leaf has debug information the kernel gets an
/// artificial subprogram so that the inlined code keeps its source lines.
llvm::Expected<llvm::Function *> buildLeafKernel(llvm::Module &M,
                                                 const LeafKernelJob &Job,
                                                 llvm::FunctionType *Ty,
                                                 const KernelHooks &Hooks);

} // namespace hpvm::gpu

namespace hpvm {

/// Replaces every @hpvm.instance.id call in F (a kernel, the leaf of node N
/// inlined in it) by the id it reads: level 0 dim d by Ids[d]; an
/// ancestor's (level l >= 1, dim d < AncestorDims[l - 1]) by what OuterId
/// makes at the call. A call with non-constant operands or another type is
/// Malformed's error; an id the node or its ancestors do not have is an
/// error naming the node.
llvm::Error replaceInstanceIds(
    llvm::Function &F, const Node &N, llvm::ArrayRef<unsigned> AncestorDims,
    llvm::ArrayRef<llvm::Value *> Ids,
    llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &B, unsigned Level,
                                     unsigned Dim)>
        OuterId,
    llvm::function_ref<llvm::Error(const llvm::Instruction *At,
                                   const llvm::Twine &What)>
        Malformed);

} // namespace hpvm

#endif // HPVM_BACKENDS_LEAFKERNEL_H
