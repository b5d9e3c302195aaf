//===- WriteCoverage.cpp - Does a leaf write all of an out buffer? --------===//
//
// The bytes of an out buffer that a node leaves unwritten keep their values,
// as in the sequential program, so a device copy of the buffer must be
// filled before the node runs there, unless the node writes all of it. This
// proves the common case, and nothing else: one store (or memset/memcpy)
// that every iteration of the leaf's loops executes, whose address walks
// the buffer densely from its start, element after element and row after
// row, to exactly its declared size. Anything it cannot prove counts as a
// partial write, which costs a copy, never a wrong result.
//
//===----------------------------------------------------------------------===//
#include "RegionAnalysis.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hpvm {

namespace {

class Coverage {
public:
  Coverage(const Region &R, const ParallelNest *Nest, FunctionAnalyses &FA)
      : R(R), Nest(Nest), FA(FA), SE(FA.SE),
        I64(Type::getInt64Ty(R.Entry->getContext())) {}

  bool writesAll(const RegionBuffer &B) {
    const Value *Object = getUnderlyingObject(B.Ptr, 0);
    for (Instruction *I : R.instructions()) {
      Value *Dst = nullptr;
      const SCEV *Size = nullptr;
      if (auto *SI = dyn_cast<StoreInst>(I)) {
        Dst = SI->getPointerOperand();
        const DataLayout &DL = I->getModule()->getDataLayout();
        Size = SE.getConstant(
            I64, DL.getTypeStoreSize(SI->getValueOperand()->getType())
                     .getFixedValue());
      } else if (auto *MI = dyn_cast<MemIntrinsic>(I)) {
        Dst = MI->getRawDest();
        Size = SE.getSCEV(MI->getLength());
      }
      if (!Dst || getUnderlyingObject(Dst, 0) != Object)
        continue;
      if (coversFromStart(I, SE.getSCEV(Dst), wide(Size), SE.getSCEV(B.Ptr),
                          wide(SE.getSCEV(B.Bytes))) &&
          runsEveryIteration(I->getParent()))
        return true;
    }
    return false;
  }

private:
  const Region &R;
  const ParallelNest *Nest;
  FunctionAnalyses &FA;
  ScalarEvolution &SE;
  Type *I64;

  const SCEV *wide(const SCEV *S) {
    return S->getType()->isIntegerTy() ? SE.getNoopOrZeroExtend(S, I64) : S;
  }

  /// How often Store, which runs in every iteration of L that completes,
  /// runs in one execution of L, or null.
  const SCEV *tripCount(const Loop *L, const Instruction *Store) {
    // The nest runs each parallel loop's body dims[k] times.
    if (Nest)
      for (unsigned K = 0; K < Nest->Levels.size(); ++K)
        if (Nest->Levels[K].L == L)
          return wide(SE.getSCEV(R.Dims[K]));
    if (!R.contains(L->getHeader()->getFirstNonPHI()))
      return nullptr; // an enclosing node's loop
    const SCEV *Taken = SE.getBackedgeTakenCount(L);
    BasicBlock *Exiting = L->getExitingBlock();
    if (isa<SCEVCouldNotCompute>(Taken) || !Exiting)
      return nullptr;
    // Before the exit test the store runs once more than the back edge is
    // taken; after it (a loop tested at the top), as often.
    if (FA.DT.dominates(Store->getParent(), Exiting))
      return SE.getAddExpr(wide(Taken), SE.getOne(I64));
    if (FA.DT.dominates(Exiting, Store->getParent()))
      return wide(Taken);
    return nullptr;
  }

  /// The addresses Addr of Store takes, Size bytes each, over every
  /// iteration of the loops it varies in, tile [Base, Base + Bytes) exactly.
  bool coversFromStart(const Instruction *Store, const SCEV *Addr,
                       const SCEV *Size, const SCEV *Base, const SCEV *Bytes) {
    const SCEV *Off = SE.getMinusSCEV(Addr, Base);
    if (isa<SCEVCouldNotCompute>(Off))
      return false;
    struct Walk {
      const SCEV *Step, *Trip;
    };
    SmallVector<Walk, 4> Walks;
    SmallPtrSet<const Loop *, 4> Varies;
    while (auto *AR = dyn_cast<SCEVAddRecExpr>(Off)) {
      const SCEV *Trip = tripCount(AR->getLoop(), Store);
      if (!AR->isAffine() || !Trip)
        return false;
      Walks.push_back({wide(AR->getStepRecurrence(SE)), Trip});
      Varies.insert(AR->getLoop());
      Off = AR->getStart();
    }
    if (!Off->isZero())
      return false;
    // Instances that all store to the same place write it, not the buffer.
    if (Nest)
      for (const ParallelLoop &Level : Nest->Levels)
        if (!Varies.count(Level.L))
          return false;
    // Element by element: each walk steps by what the finer ones cover.
    const SCEV *Covered = Size;
    while (!Walks.empty()) {
      auto *It = llvm::find_if(
          Walks, [&](const Walk &W) { return W.Step == Covered; });
      if (It == Walks.end())
        return false;
      Covered = SE.getMulExpr(It->Step, It->Trip);
      Walks.erase(It);
    }
    return Covered == Bytes;
  }

  /// BB runs in every iteration of the loops around it inside the node, and
  /// in every execution of a node without loops of its own.
  bool runsEveryIteration(BasicBlock *BB) {
    const Loop *Innermost = Nest ? Nest->innermost() : nullptr;
    BasicBlock *At = BB;
    for (Loop *L = FA.LI.getLoopFor(BB); L; L = L->getParentLoop()) {
      if (!R.contains(L->getHeader()->getFirstNonPHI()) && L != Innermost)
        break;
      BasicBlock *Latch = L->getLoopLatch();
      if (!Latch || !FA.DT.dominates(At, Latch))
        return false;
      if (L == Innermost)
        return true;
      // A loop behind a guard may not run at all; its preheader must be
      // reached every time round the loop around it.
      At = L->getLoopPreheader();
      if (!At)
        return false;
    }
    return !Nest && FA.DT.dominates(At, R.Exit->getParent());
  }
};

} // namespace

bool writesWholeBuffer(const Region &R, const ParallelNest *Nest,
                       const RegionBuffer &B, FunctionAnalyses &FA) {
  if (B.Mode != Access::Out || !R.isLeaf())
    return false;
  return Coverage(R, Nest, FA).writesAll(B);
}

} // namespace hpvm
