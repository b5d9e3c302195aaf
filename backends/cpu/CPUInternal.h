//===- CPUInternal.h - Shared pieces of the CPU backend ---------*- C++ -*-===//
//
// Target set-up, the optimisation pipeline and code emission, shared by the
// kernel builder, emitObjectFile and the JIT so that all three compile for
// exactly the same machine.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_CPU_CPUINTERNAL_H
#define HPVM_BACKENDS_CPU_CPUINTERNAL_H

#include "hpvm/backends/CPUBackend.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/ValueMap.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace llvm {
class BasicBlock;
class Function;
class Loop;
class Module;
class LLVMContext;
class MDNode;
class Metadata;
class PHINode;
class SCEV;
class ScalarEvolution;
class Value;
class TargetMachine;
class raw_pwrite_stream;
} // namespace llvm

namespace hpvm::cpu {

/// An llvm::Error with a plain message (the tools print it after
/// "hpvm-backend: error: ").
llvm::Error makeError(const llvm::Twine &Message);

/// Checks that M may be compiled by TM (same architecture) and gives it TM's
/// triple and data layout.
llvm::Error adoptTarget(llvm::Module &M, const llvm::TargetMachine &TM);

/// Gives every function defined in M TM's processor and features (replacing
/// what the frontend wrote, e.g. clang's generic x86-64), and Opts' preferred
/// vector width.
void setTargetAttributes(llvm::Module &M, const llvm::TargetMachine &TM,
                         const CPUOptions &Opts);

/// Runs the default per-module pipeline of Opts.OptLevel on M.
void optimiseModule(llvm::Module &M, llvm::TargetMachine &TM,
                    const CPUOptions &Opts);

/// The loop property (an MDNode holding just this string) that marks the
/// loop over a leaf's fastest dim in a wrapper: the instance loop.
constexpr const char *InstanceLoopProperty = "hpvm.cpu.instance_loop";

/// Unrolls and jams an instance loop that has loops inside it, so that the
/// SLP vectoriser can run several instances in one vector (InstanceJam.cpp).
/// Runs where the vectorisers start, after the simplification pipeline.
/// Replaces a latch phi that GVN's PRE made of an instance loop's
/// increment (every incoming value the instance id plus one) with the
/// increment itself, so that the loop's trip count can be computed again
/// (InstanceIncrement.cpp).
struct InstanceIncrementPass : llvm::PassInfoMixin<InstanceIncrementPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

/// Splits an innermost instance loop whose leaf tests its instance id
/// against borders (`c == 0`, `0 <= c - 1`, `c + 1 < w`) into the instances
/// before, between and after the borders, the middle part without the
/// tests, under a run-time check that they are constant there
/// (InstanceSplit.cpp). Runs where the function simplification pipeline
/// ends.
struct InstanceSplitPass : llvm::PassInfoMixin<InstanceSplitPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

struct InstanceJamPass : llvm::PassInfoMixin<InstanceJamPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

/// The function attribute of a wrapper's streaming-store variant
/// (StreamingStores.cpp): the indices of the buffer parameters it may write
/// with non-temporal stores, "1,3".
constexpr const char *StreamingStoresAttribute = "hpvm.cpu.streaming-stores";

/// The buffer parameters (among BufferParams) that wrapper W, before
/// optimisation, only stores to: every pointer based on one is the address
/// of a plain (non-atomic, non-volatile) store or goes into address
/// arithmetic, never loaded from, passed to a call or stored as a value.
llvm::SmallVector<unsigned, 4>
writeOnlyBufferParams(llvm::Function &W, llvm::ArrayRef<unsigned> BufferParams);

/// A copy of wrapper W called Name, marked as the streaming-store variant
/// for the parameters WriteOnly, for the two passes below.
llvm::Function *makeStreamingVariant(llvm::Function &W,
                                     llvm::ArrayRef<unsigned> WriteOnly,
                                     llvm::StringRef Name);

/// The values of wrapper W's pointer parameters, with their indices: each
/// `load (load (args + K * ptrsize))` as WrapperBuilder loads it, wherever
/// the optimiser has moved it.
llvm::SmallVector<std::pair<unsigned, llvm::Value *>, 8>
wrapperPointerParams(llvm::Function &W);

/// The buffers a streaming-store variant may write with non-temporal
/// stores: the values of the parameters its attribute lists.
llvm::SmallPtrSet<llvm::Value *, 4> streamedBuffers(llvm::Function &F);

/// Whether Ptr points into one of Buffers (and nothing else).
bool intoBuffers(const llvm::Value *Ptr,
                 const llvm::SmallPtrSetImpl<llvm::Value *> &Buffers);

/// Peels a wrapper's innermost instance loop until one of its stores to a
/// buffer parameter (in a streaming-store variant: to a write-only buffer)
/// is 64-byte aligned, and makes that alignment provable to the loop
/// vectoriser's output. Runs where the vectorisers start.
struct AlignStoresPass : llvm::PassInfoMixin<AlignStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

/// At the end of the pipeline: marks the aligned vector stores of each
/// variant to its write-only buffers !nontemporal and fences its returns
/// (x86 sfence); deletes a variant that has no such store.
struct StreamingStoresPass : llvm::PassInfoMixin<StreamingStoresPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
};

/// What a loop pass that changed nothing but, where Changed, the shape of
/// the loop (simplifyLoop: a preheader, dedicated exits) keeps valid.
llvm::PreservedAnalyses preservedAfterLoopSimplify(bool Changed);

/// Whether L is a wrapper's instance loop (it has InstanceLoopProperty).
bool isInstanceLoop(const llvm::Loop &L);

/// LoopID's properties but those named in Dropped, plus Added, in a new
/// distinct loop ID (for the copies of a loop that a pass splits).
llvm::MDNode *loopIDWith(llvm::LLVMContext &Ctx, llvm::MDNode *LoopID,
                         llvm::ArrayRef<llvm::StringRef> Dropped,
                         llvm::ArrayRef<llvm::Metadata *> Added);

/// The loop ID of a copy of an instance loop that runs a few instances
/// only (a peel, the head of a split): makes progress, neither vectorised
/// nor unrolled, and no instance loop.
llvm::MDNode *scalarCopyLoopID(llvm::LLVMContext &Ctx);

/// The instance id of instance loop L: the widest header phi that counts up
/// by one (among equals, the one the latch compares to end the loop; L may
/// have other phis); null if there is none.
llvm::PHINode *instanceId(llvm::Loop &L);

/// Rewrites every other header phi of L, each an affine recurrence in L (the
/// simplification pipeline adds some: a 0-based counter for a memset, a
/// pointer stepping by a row), as a function of the instance id IV, so that
/// IV is all the loop carries from one instance to the next. False, and L
/// untouched, when another phi is not such a recurrence.
bool foldInductions(llvm::Loop &L, llvm::PHINode *IV,
                    llvm::ScalarEvolution &SE);

/// Why splitInstances cannot split L (empty when it can): it needs a
/// preheader ending in a branch, a latch that is L's only exit, and nothing
/// computed in L used after it.
std::string whyNotSplittable(const llvm::Loop &L);

/// How many instances L runs, in IV's type; null when SCEV cannot tell.
const llvm::SCEV *instanceCount(llvm::Loop &L, llvm::PHINode *IV,
                                llvm::ScalarEvolution &SE);

/// The copy of an instance loop that splitInstances puts in front of it.
struct SplitInstances {
  llvm::SmallVector<llvm::BasicBlock *, 16> Blocks;
  /// The copy's instance id, and its value in the next iteration.
  llvm::PHINode *IV = nullptr;
  llvm::Value *Next = nullptr;
  /// The block from which L is now entered (ends in a branch to L's header).
  llvm::BasicBlock *RestPreheader = nullptr;
};

/// Splits splittable instance loop L, which runs Count instances from IV's
/// start: a copy of L in front of it runs the instances up to Split, Step
/// at a time (Split - start is a multiple of Step), and L the rest, from
/// Split on. Split and Count are computed in L's preheader. The copy's
/// blocks get Suffix, its latch CopyLoopID; DoneName names the block after
/// the copy, RestName L's new preheader. Map, if given, gets every block
/// and instruction of L mapped to its copy.
SplitInstances splitInstances(llvm::Loop &L, llvm::PHINode *IV,
                              llvm::Value *Split, llvm::Value *Count,
                              unsigned Step, const llvm::Twine &Suffix,
                              llvm::MDNode *CopyLoopID,
                              const llvm::Twine &DoneName,
                              const llvm::Twine &RestName,
                              llvm::ValueToValueMapTy *Map = nullptr);

/// Copies of L's blocks in L's function, named with Suffix, their
/// instructions remapped to one another through VMap (which maps every
/// original block and instruction to its copy); the copies' edges that
/// leave L still go where L's do.
llvm::SmallVector<llvm::BasicBlock *, 16>
cloneLoopBlocks(llvm::Loop &L, llvm::ValueToValueMapTy &VMap,
                const llvm::Twine &Suffix);

/// Emits M with TM as an object or assembly file.
llvm::Error emitCode(llvm::Module &M, llvm::TargetMachine &TM,
                     llvm::raw_pwrite_stream &OS, llvm::CodeGenFileType Kind);

} // namespace hpvm::cpu

#endif // HPVM_BACKENDS_CPU_CPUINTERNAL_H
