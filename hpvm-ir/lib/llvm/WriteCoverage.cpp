//===- WriteCoverage.cpp - Does a leaf write all of an out buffer? --------===//
//
// The bytes of an out buffer that a node leaves unwritten keep their values,
// as in the sequential program, so a device copy of the buffer must be
// filled before the node runs there, except for what the node overwrites.
// This proves the common cases, and nothing else: one store (or
// memset/memcpy) that every iteration of the leaf's loops executes, whose
// address walks the buffer densely, element after element, in rows that
// may have gaps between them (the interior of a grid), and, for the whole
// buffer, from its start to exactly its declared size. Anything it cannot
// prove counts as unwritten, which costs a copy, never a wrong result.
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

struct Walk {
  const SCEV *Step, *Trip;
};

class Coverage {
public:
  Coverage(const Region &R, const ParallelNest *Nest, FunctionAnalyses &FA)
      : R(R), Nest(Nest), FA(FA), SE(FA.SE),
        I64(Type::getInt64Ty(R.Entry->getContext())) {}

  std::optional<RowsWritten> written(const RegionBuffer &B) {
    const Value *Object = getUnderlyingObject(B.Ptr, 0);
    const SCEV *Bytes = wide(SE.getSCEV(B.Bytes));
    std::optional<RowsWritten> Best;
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
      if (!Dst || getUnderlyingObject(Dst, 0) != Object ||
          !runsEveryIteration(I->getParent()))
        continue;
      std::optional<RowsWritten> Rows =
          rowsOf(I, SE.getSCEV(Dst), wide(Size), SE.getSCEV(B.Ptr));
      if (!Rows)
        continue;
      Rows->Whole = Rows->Start->isZero() && Rows->Rows->isOne() &&
                    Rows->RowBytes == Bytes;
      if (Rows->Whole)
        return Rows;
      if (!Best)
        Best = Rows;
    }
    return Best;
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
  /// iteration of the loops it varies in, as rows from Base: walks that step
  /// by exactly what the finer ones cover make a row; at most one walk may
  /// step further (the row stride), and the walks above it must again step
  /// by exactly what is below them.
  std::optional<RowsWritten> rowsOf(const Instruction *Store, const SCEV *Addr,
                                    const SCEV *Size, const SCEV *Base) {
    const SCEV *Off = SE.getMinusSCEV(Addr, Base);
    if (isa<SCEVCouldNotCompute>(Off))
      return std::nullopt;
    SmallVector<Walk, 4> Walks;
    SmallPtrSet<const Loop *, 4> Varies;
    while (auto *AR = dyn_cast<SCEVAddRecExpr>(Off)) {
      const SCEV *Trip = tripCount(AR->getLoop(), Store);
      if (!AR->isAffine() || !Trip)
        return std::nullopt;
      Walks.push_back({wide(AR->getStepRecurrence(SE)), Trip});
      Varies.insert(AR->getLoop());
      Off = AR->getStart();
    }
    // Instances that all store to the same place write it, not the buffer;
    // and the first row must not move with an ancestor's instance.
    if (SCEVExprContains(Off,
                         [](const SCEV *E) { return isa<SCEVAddRecExpr>(E); }))
      return std::nullopt;
    if (Nest)
      for (const ParallelLoop &Level : Nest->Levels)
        if (!Varies.count(Level.L))
          return std::nullopt;
    // A loop of the leaf the address does not step in must run at least
    // once, or the store may not run at all (a loop whose address steps in
    // it counts its own trips, zero included).
    for (Loop *L = FA.LI.getLoopFor(Store->getParent());
         L && R.contains(L->getHeader()->getFirstNonPHI());
         L = L->getParentLoop())
      if (!Varies.count(L) && (!Nest || !is_contained(Nest->loops(), L))) {
        const SCEV *Trip = tripCount(L, Store);
        if (!Trip || !SE.isKnownPositive(Trip))
          return std::nullopt;
      }
    const SCEV *RowBytes = denseFrom(Size, Walks);
    if (Walks.empty())
      return RowsWritten{wide(Off), RowBytes, RowBytes, SE.getOne(I64), false};
    for (size_t K = 0; K != Walks.size(); ++K) {
      SmallVector<Walk, 4> Above(Walks);
      Walk Gap = Above[K];
      Above.erase(Above.begin() + K);
      // Rows: the gap walk's trips, times those of the walks that step
      // by exactly the rows below them.
      const SCEV *Rows = Gap.Trip;
      while (true) {
        const SCEV *Span = SE.getMulExpr(Gap.Step, Rows);
        auto *It =
            llvm::find_if(Above, [&](const Walk &W) { return W.Step == Span; });
        if (It == Above.end())
          break;
        Rows = SE.getMulExpr(Rows, It->Trip);
        Above.erase(It);
      }
      if (Above.empty())
        return RowsWritten{wide(Off), RowBytes, Gap.Step, Rows, false};
    }
    return std::nullopt;
  }

  /// Takes from Walks, while one steps by exactly Covered, that walk, and
  /// returns what they cover together.
  const SCEV *denseFrom(const SCEV *Covered, SmallVectorImpl<Walk> &Walks) {
    while (true) {
      auto *It = llvm::find_if(
          Walks, [&](const Walk &W) { return W.Step == Covered; });
      if (It == Walks.end())
        return Covered;
      Covered = SE.getMulExpr(It->Step, It->Trip);
      Walks.erase(It);
    }
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

std::optional<RowsWritten> rowsWritten(const Region &R,
                                       const ParallelNest *Nest,
                                       const RegionBuffer &B,
                                       FunctionAnalyses &FA) {
  if (B.Mode != Access::Out || !R.isLeaf())
    return std::nullopt;
  return Coverage(R, Nest, FA).written(B);
}

} // namespace hpvm
