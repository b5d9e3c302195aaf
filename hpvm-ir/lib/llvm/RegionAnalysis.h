//===- RegionAnalysis.h - Loop nests and rules of regions -------*- C++ -*-===//
//
// Internal to HPVMIR: what the verifier and EXTRACT both need to know about
// regions beyond their markers.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_LIB_REGIONANALYSIS_H
#define HPVM_IR_LIB_REGIONANALYSIS_H

#include "hpvm/ir/RegionForm.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"

#include <optional>

namespace hpvm {

/// The analyses of one function, built without a pass manager so that the
/// verifier and EXTRACT can rebuild them after changing the function.
struct FunctionAnalyses {
  explicit FunctionAnalyses(llvm::Function &F);
  llvm::TargetLibraryInfoImpl TLII;
  llvm::TargetLibraryInfo TLI;
  llvm::AssumptionCache AC;
  llvm::DominatorTree DT;
  llvm::LoopInfo LI;
  llvm::ScalarEvolution SE;
};

/// One level of a replicated node's loop nest: the loop and its canonical
/// induction variable {0,+,1}, which is the instance id of that dimension.
struct ParallelLoop {
  llvm::Loop *L = nullptr;
  llvm::PHINode *IV = nullptr;
  /// The dim whose id IV is: a dim of extent 1 may have no loop (below).
  unsigned Dim = 0;
};

/// The canonical loop nest of a replicated region, outermost first. LLVM
/// folds a loop that runs exactly once into its body, so a dim whose extent
/// is the constant 1 may have no loop: its id is 0, and the nest has fewer
/// levels than the region has dims (none, if every dim is 1).
struct ParallelNest {
  llvm::SmallVector<ParallelLoop, 3> Levels;
  /// Blocks the nest's loops branch to that are in loops nothing leaves
  /// (inEndlessLoop): part of the body, which the leaf keeps.
  llvm::SmallPtrSet<const llvm::BasicBlock *, 4> Endless;
  llvm::Loop *innermost() const { return Levels.back().L; }
  llvm::SmallVector<llvm::Loop *, 3> loops() const {
    llvm::SmallVector<llvm::Loop *, 3> Ls;
    for (const ParallelLoop &P : Levels)
      Ls.push_back(P.L);
    return Ls;
  }
};

/// Finds R's loop nest and checks it is canonical (rule parallel-loop):
/// one loop per dim, each starting at 0, stepping by 1, running dims[k]
/// times, with one entering and one exiting block, whose other loop-carried
/// values are affine in the induction variable. For leaves, nothing outside
/// the innermost loop may write memory. Returns nullopt after reporting.
std::optional<ParallelNest>
findParallelNest(const Region &R, FunctionAnalyses &FA, unsigned &NumErrors);

/// Whether BB is in a loop nothing leaves, or outside every loop and can
/// only go on into one (a preheader). The optimiser leaves such loops
/// where the rest of the path cannot matter (it would be undefined
/// behaviour, or is never taken); an instance that got there would never
/// end. An edge into one is no exit of a parallel loop, the loop no loop of
/// the nest, and the leaf keeps it as it is.
bool inEndlessLoop(const llvm::BasicBlock &BB, const llvm::LoopInfo &LI);

/// Replaces every loop-carried value of the nest other than the induction
/// variables by start + step * IV, so that one iteration can run alone.
void rewriteSecondaryInductions(const ParallelNest &Nest, FunctionAnalyses &FA);

/// What leaf R (with its loop nest, if replicated) provably writes of out
/// buffer B each time it runs: Rows rows of RowBytes bytes, Stride bytes
/// apart, the first Start bytes from B's pointer (in the function's values);
/// Whole when that is every byte of B (Param::WritesAll, else
/// Param::Written).
struct RowsWritten {
  const llvm::SCEV *Start, *RowBytes, *Stride, *Rows;
  bool Whole;
};
std::optional<RowsWritten> rowsWritten(const Region &R,
                                       const ParallelNest *Nest,
                                       const RegionBuffer &B,
                                       FunctionAnalyses &FA);

/// Checks the rules of docs/ir.md §2.3 that go beyond the markers for every
/// region of Forest; returns the number of errors reported.
unsigned verifyRegionForest(const RegionForest &Forest, FunctionAnalyses &FA);

/// EXTRACT without the verification first: for inputs known to pass the
/// region rules (and for the verifier's own trial run on a copy).
unsigned extractGraphsUnchecked(llvm::Module &M);

/// True if the instruction may write memory or have other side effects that
/// matter to a parallel node (debug and lifetime intrinsics do not).
bool hasSideEffect(const llvm::Instruction &I);

} // namespace hpvm

#endif // HPVM_IR_LIB_REGIONANALYSIS_H
