//===- InstanceSplit.cpp - Border tests out of the instance loop ----------===//
//
// Stencil-shaped leaves test their instance id against the borders:
// `c == 0 || c == w - 1`, `0 <= c + dc && c + dc < w`, `0 < c && c < w - 1`.
// In the instance loop these tests change value only at a few instances
// near either end, yet the loop vectoriser has to keep them: it turns their
// branches into masks, masked loads and gathers, for every instance. This
// pass splits the loop over [start, end) into three:
//
//   [start, lo)   the original body, not vectorised (a few instances)
//   [lo, hi)      each test replaced by the value it has in the interior
//   [hi, end)     the original body, vectorised as before
//
// A test is an integer compare of x = instance id + k (any addrec of the
// loop with step 1) with a loop-invariant B. Its "interior value" is a
// guess made from its form (x == B false, x < n true, x > 0 true, ...).
// lo and hi come from the instances where some x equals its B or wraps
// (those near the start move lo past them, those near the end hold hi
// before them); that is a heuristic too, and none of it is trusted: the
// preheader checks, for every test, that x does not wrap over [lo, hi) (x
// at hi - 1 is not below x at lo), so that x is strictly increasing there
// and a relational test is monotone; that the test has its guessed value
// at both ends (hence everywhere in between); and for == / != that B lies
// outside [x(lo), x(hi - 1)]. If any check fails, lo = hi = start and the
// third loop, the original, runs every instance. So the result is the
// original's whatever the guesses, and a wrong guess only costs speed.
//
// It runs where the function simplification pipeline ends, so that the
// SimplifyCFG and InstCombine after it fold the constants away before the
// loop is rotated and vectorised.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace hpvm::cpu {

namespace {

/// The property of a loop this pass made: the interior copy, which is still
/// an instance loop and must not be split again.
constexpr const char *SplitProperty = "hpvm.cpu.instance_split";

/// More tests than this in one loop: left alone (each adds a few
/// instructions to the preheader).
constexpr unsigned MaxTests = 32;

/// A border test: Pred(X, Bound), X = Start + iteration (an addrec of the
/// loop with step 1), Bound invariant in the loop.
struct BorderTest {
  ICmpInst *Cmp;
  CmpInst::Predicate Pred;
  const SCEV *Start;
  Value *Bound;
  bool Interior;
};

/// The value a test of this form has away from the borders. Tests against
/// a small constant are borders near the start (`x > 0`, `x >= 0`,
/// `x < 1` false), others borders near the end (`x < w`, `x >= w` false).
bool interiorValue(CmpInst::Predicate Pred, Value *Bound) {
  auto *C = dyn_cast<ConstantInt>(Bound);
  bool Small = C && C->getValue().getSignificantBits() <= 8;
  switch (Pred) {
  case CmpInst::ICMP_EQ:
    return false;
  case CmpInst::ICMP_NE:
    return true;
  case CmpInst::ICMP_SLT:
  case CmpInst::ICMP_SLE:
  case CmpInst::ICMP_ULT:
  case CmpInst::ICMP_ULE:
    return !Small;
  default: // greater
    return Small;
  }
}

/// The border tests in L's own blocks (not its inner loops'), except the
/// latch's exit test.
SmallVector<BorderTest, 8>
findBorderTests(Loop &L, LoopInfo &LI, ScalarEvolution &SE, unsigned IdBits) {
  SmallVector<BorderTest, 8> Tests;
  auto *ExitCond = dyn_cast<BranchInst>(L.getLoopLatch()->getTerminator());
  Value *Exit = ExitCond && ExitCond->isConditional() ? ExitCond->getCondition()
                                                      : nullptr;
  for (BasicBlock *BB : L.blocks()) {
    if (LI.getLoopFor(BB) != &L)
      continue;
    for (Instruction &I : *BB) {
      auto *Cmp = dyn_cast<ICmpInst>(&I);
      // Wider than the id, X would not be the id plus a value.
      if (!Cmp || Cmp == Exit ||
          !Cmp->getOperand(0)->getType()->isIntegerTy() ||
          Cmp->getOperand(0)->getType()->getIntegerBitWidth() > IdBits)
        continue;
      for (unsigned Side = 0; Side != 2; ++Side) {
        Value *X = Cmp->getOperand(Side), *Bound = Cmp->getOperand(1 - Side);
        if (!L.isLoopInvariant(Bound))
          continue;
        auto *Rec = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(X));
        if (!Rec || Rec->getLoop() != &L || !Rec->isAffine() ||
            !Rec->getStepRecurrence(SE)->isOne())
          continue;
        CmpInst::Predicate Pred =
            Side ? Cmp->getSwappedPredicate() : Cmp->getPredicate();
        Tests.push_back(
            {Cmp, Pred, Rec->getStart(), Bound, interiorValue(Pred, Bound)});
        break;
      }
    }
  }
  return Tests;
}

/// Replaces the phis in L's exit block that only pass on a value from
/// outside L (LCSSA keeps them for the loop around L) by that value, which
/// splitInstances would otherwise have to give an entry per new way out.
bool dropPassThroughPhis(Loop &L) {
  BasicBlock *Exit = L.getUniqueExitBlock();
  if (!Exit || !Exit->getSinglePredecessor())
    return false;
  bool Dropped = false;
  for (PHINode &P : make_early_inc_range(Exit->phis())) {
    auto *I = dyn_cast<Instruction>(P.getIncomingValue(0));
    if (I && L.contains(I))
      continue;
    P.replaceAllUsesWith(P.getIncomingValue(0));
    P.eraseFromParent();
    Dropped = true;
  }
  return Dropped;
}

/// Splits the innermost instance loop L as the file comment says; false (and L
/// untouched but for dropPassThroughPhis, which sets Changed) when it has no
/// border tests or not the shape this needs.
bool splitAtBorders(Loop &L, LoopInfo &LI, ScalarEvolution &SE, bool &Changed) {
  if (findOptionMDForLoop(&L, SplitProperty))
    return false;
  Changed |= dropPassThroughPhis(L);
  if (!whyNotSplittable(L).empty())
    return false;
  PHINode *IV = instanceId(L);
  if (!IV)
    return false;
  SmallVector<BorderTest, 8> Tests =
      findBorderTests(L, LI, SE, IV->getType()->getIntegerBitWidth());
  if (Tests.empty() || Tests.size() > MaxTests)
    return false;
  const SCEV *Trips = instanceCount(L, IV, SE);
  BasicBlock *PH = L.getLoopPreheader();
  Instruction *At = PH->getTerminator();
  const DataLayout &DL = PH->getDataLayout();
  SCEVExpander Expander(SE, DL, "hpvm.split");
  if (!Trips || !Expander.isSafeToExpandAt(Trips, At) ||
      any_of(Tests,
             [&](const BorderTest &T) {
               return !Expander.isSafeToExpandAt(T.Start, At);
             }) ||
      !foldInductions(L, IV, SE))
    return false;
  Type *IdTy = IV->getType();
  unsigned IdBits = IdTy->getIntegerBitWidth();
  Value *Count = Expander.expandCodeFor(Trips, IdTy, At);
  // The loop may never evaluate a test whose bound or start is poison; the
  // checks evaluate every test, so they take frozen copies (the same values
  // where they are not poison).
  IRBuilder<> B(At);
  SmallVector<Value *, 8> Starts;
  for (BorderTest &T : Tests) {
    Starts.push_back(B.CreateFreeze(
        Expander.expandCodeFor(T.Start, T.Bound->getType(), At)));
    T.Bound = B.CreateFreeze(T.Bound);
  }

  // Iterations (0-based) where some test may change value, each moving lo
  // past it (near the start) or hi before it (near the end).
  Value *Zero = ConstantInt::get(IdTy, 0), *One = ConstantInt::get(IdTy, 1);
  Value *Half = B.CreateLShr(Count, 1, "split.half");
  Value *Lo = Zero, *Hi = Count;
  auto Border = [&](Value *Point) {
    Point = B.CreateZExtOrTrunc(Point, IdTy);
    Value *Inside = B.CreateICmpULT(Point, Count);
    Value *NearStart = B.CreateICmpULT(Point, Half);
    Value *PastIt =
        B.CreateBinaryIntrinsic(Intrinsic::umax, Lo, B.CreateAdd(Point, One));
    Value *BeforeIt = B.CreateBinaryIntrinsic(Intrinsic::umin, Hi, Point);
    Lo = B.CreateSelect(B.CreateAnd(Inside, NearStart), PastIt, Lo);
    Hi = B.CreateSelect(B.CreateAnd(Inside, B.CreateNot(NearStart)), BeforeIt,
                        Hi);
  };
  for (auto [T, Start] : zip(Tests, Starts)) {
    auto *Ty = cast<IntegerType>(T.Bound->getType());
    Border(B.CreateSub(T.Bound, Start));
    // Where X wraps: to 0 for unsigned tests, to the least signed value for
    // the others.
    APInt Wrap = CmpInst::isUnsigned(T.Pred)
                     ? APInt::getZero(Ty->getBitWidth())
                     : APInt::getSignedMinValue(Ty->getBitWidth());
    Border(B.CreateSub(ConstantInt::get(Ty, Wrap), Start));
  }

  // The checks, over iterations First = lo .. Last = hi - 1.
  Value *OK = B.CreateICmpULT(Lo, Hi, "split.some");
  Value *First = Lo, *Last = B.CreateSub(Hi, One);
  for (auto [T, Start] : zip(Tests, Starts)) {
    auto *Ty = cast<IntegerType>(T.Bound->getType());
    unsigned Bits = Ty->getBitWidth();
    // X's values at First and Last; in a narrower type than the id the
    // monotonicity argument needs fewer than 2^Bits iterations in between.
    if (Bits < IdBits)
      OK = B.CreateAnd(
          OK,
          B.CreateICmpEQ(B.CreateLShr(B.CreateSub(Last, First), Bits), Zero));
    Value *XFirst = B.CreateAdd(Start, B.CreateTrunc(First, Ty));
    Value *XLast = B.CreateAdd(Start, B.CreateTrunc(Last, Ty));
    Value *Rising;
    if (ICmpInst::isEquality(T.Pred)) {
      Rising = B.CreateICmpSLE(XFirst, XLast);
      Value *Outside = B.CreateOr(B.CreateICmpSLT(T.Bound, XFirst),
                                  B.CreateICmpSGT(T.Bound, XLast));
      OK = B.CreateAnd(OK, B.CreateAnd(Rising, Outside));
      continue;
    }
    Rising = CmpInst::isUnsigned(T.Pred) ? B.CreateICmpULE(XFirst, XLast)
                                         : B.CreateICmpSLE(XFirst, XLast);
    Value *AtFirst = B.CreateICmp(T.Pred, XFirst, T.Bound);
    Value *AtLast = B.CreateICmp(T.Pred, XLast, T.Bound);
    if (!T.Interior) {
      AtFirst = B.CreateNot(AtFirst);
      AtLast = B.CreateNot(AtLast);
    }
    OK = B.CreateAnd(OK, B.CreateAnd(Rising, B.CreateAnd(AtFirst, AtLast)));
  }
  Value *IdStart = IV->getIncomingValueForBlock(PH);
  Value *LoId = B.CreateAdd(IdStart, B.CreateSelect(OK, Lo, Zero), "split.lo");
  Value *HiId = B.CreateAdd(IdStart, B.CreateSelect(OK, Hi, Zero), "split.hi");

  LLVMContext &Ctx = PH->getContext();
  MDNode *LoopID = L.getLoopID();
  MDNode *Mark = MDNode::get(Ctx, MDString::get(Ctx, SplitProperty));
  MDNode *HeadID = scalarCopyLoopID(Ctx);
  MDNode *InteriorID = loopIDWith(Ctx, LoopID, {}, {Mark});
  MDNode *TailID = loopIDWith(Ctx, LoopID, {InstanceLoopProperty}, {});

  // [start, lo) in a copy; then [lo, hi) in a second copy, whose tests take
  // their interior values; L keeps [hi, end).
  splitInstances(L, IV, LoId, Count, 1, ".head", HeadID, "split.head.done",
                 "split.rest");
  B.SetInsertPoint(L.getLoopPreheader()->getTerminator());
  Value *Rest = B.CreateSub(Count, B.CreateSub(LoId, IdStart));
  ValueToValueMapTy VMap;
  splitInstances(L, IV, HiId, Rest, 1, ".interior", InteriorID,
                 "split.interior.done", "split.tail", &VMap);
  for (const BorderTest &T : Tests)
    if (auto *Copy = dyn_cast_or_null<ICmpInst>(VMap.lookup(T.Cmp))) {
      Copy->replaceAllUsesWith(ConstantInt::getBool(Ctx, T.Interior));
      Copy->eraseFromParent();
    }
  L.getLoopLatch()->getTerminator()->setMetadata(LLVMContext::MD_loop, TailID);
  SE.forgetLoop(&L);
  return true;
}

} // namespace

PreservedAnalyses InstanceSplitPass::run(Function &F,
                                         FunctionAnalysisManager &FAM) {
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &AC = FAM.getResult<AssumptionAnalysis>(F);
  // The innermost instance loop, also where instances run loops of their
  // own (a matrix product's k loop): its tests are in its own blocks all
  // the same, and the guard of a GPU-style leaf (`if (i < n)` over a grid
  // rounded up to whole work-groups) keeps InstanceJam from running lanes
  // side by side until it is gone.
  SmallVector<Loop *, 4> Candidates;
  for (Loop *L : LI.getLoopsInPreorder())
    if (isInstanceLoop(*L) &&
        none_of(L->getLoopsInPreorder(), [&](Loop *Inner) {
          return Inner != L && isInstanceLoop(*Inner);
        }))
      Candidates.push_back(L);
  // Unswitching may have made copies of the instance loop (one for an
  // inner loop that runs, one for one that does not): the largest is the
  // one that matters.
  auto Size = [](const Loop *L) {
    size_t N = 0;
    for (const BasicBlock *BB : L->blocks())
      N += BB->size();
    return N;
  };
  stable_sort(Candidates, [&](Loop *A, Loop *B) { return Size(A) > Size(B); });
  bool Changed = false;
  for (Loop *L : Candidates) {
    // Once one loop is split, LoopInfo no longer describes the function:
    // one split per wrapper.
    if (Changed)
      break;
    Changed |= simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr,
                            /*PreserveLCSSA=*/false);
    if (splitAtBorders(*L, LI, SE, Changed))
      return PreservedAnalyses::none();
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace hpvm::cpu
