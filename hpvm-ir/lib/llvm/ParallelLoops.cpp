//===- ParallelLoops.cpp - The loop nest of a replicated region -----------===//
//
// A replicated node's instance ids are the induction variables of a loop
// nest. The frontend writes `for (i = 0; i < n; ++i)`, but LLVM's
// simplification pipeline may rotate the loop, widen or duplicate the
// induction variable and hoist code out of it, so the nest is recognised
// through ScalarEvolution rather than by its syntax.
//
//===----------------------------------------------------------------------===//
#include "RegionAnalysis.h"

#include "hpvm/ir/Diagnostics.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace hpvm {

FunctionAnalyses::FunctionAnalyses(Function &F)
    : TLII(Triple(F.getParent()->getTargetTriple())), TLI(TLII), AC(F), DT(F),
      LI(DT), SE(F, TLI, AC, DT, LI) {}

bool hasSideEffect(const Instruction &I) {
  if (isa<DbgInfoIntrinsic>(I))
    return false;
  if (const auto *II = dyn_cast<IntrinsicInst>(&I))
    switch (II->getIntrinsicID()) {
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
    case Intrinsic::assume:
    case Intrinsic::experimental_noalias_scope_decl:
      return false;
    default:
      break;
    }
  return I.mayWriteToMemory() || I.mayThrow();
}

/// Whether entering BB means reaching its `unreachable` terminator.
static bool endsInUnreachable(const BasicBlock &BB) {
  return isa<UnreachableInst>(BB.getTerminator()) &&
         isGuaranteedToTransferExecutionToSuccessor(
             BB.begin(), BB.getTerminator()->getIterator());
}

static std::string str(const SCEV *S) {
  std::string Text;
  raw_string_ostream OS(Text);
  S->print(OS);
  return OS.str();
}

/// The SCEVs a trip count may equal when it means `Dim` iterations: the
/// frontend's bound itself, or the forms LLVM gives it when it cannot prove
/// the bound positive (`smax(n, 0)`, and `smax(n, 1)` for a rotated loop
/// whose guard already skips it when n <= 0).
static bool tripCountIs(ScalarEvolution &SE, const SCEV *Trips,
                        const SCEV *Dim) {
  Type *T = Trips->getType();
  SmallVector<const SCEV *, 2> Fitted;
  unsigned TripBits = SE.getTypeSizeInBits(T),
           DimBits = SE.getTypeSizeInBits(Dim->getType());
  if (DimBits == TripBits) {
    Fitted.push_back(Dim);
  } else if (DimBits > TripBits) {
    // A loop counting in a narrower type than the dim: only where the dim
    // is that narrower value extended (a C `int` loop with a `long`
    // extent from an `int`). Otherwise extents past the narrow type would
    // run instances the loop, wrapping or stopping early, never runs.
    const SCEV *Narrow = SE.getTruncateExpr(Dim, T);
    if (SE.getSignExtendExpr(Narrow, Dim->getType()) == Dim ||
        SE.getZeroExtendExpr(Narrow, Dim->getType()) == Dim)
      Fitted.push_back(Narrow);
  } else {
    Fitted.push_back(SE.getZeroExtendExpr(Dim, T));
    Fitted.push_back(SE.getSignExtendExpr(Dim, T));
  }
  for (const SCEV *D : Fitted) {
    const SCEV *Zero = SE.getZero(T), *One = SE.getOne(T);
    for (const SCEV *Candidate :
         {D, SE.getSMaxExpr(D, Zero), SE.getSMaxExpr(D, One),
          SE.getUMaxExpr(D, One)})
      if (Candidate == Trips)
        return true;
  }
  return false;
}

namespace {
class NestFinder {
public:
  NestFinder(const Region &R, FunctionAnalyses &FA, unsigned &Errors)
      : R(R), FA(FA), F(*R.Entry->getFunction()), Errors(Errors) {}

  std::optional<ParallelNest> run();

private:
  void error(const std::string &Message, const Instruction *At) {
    reportError(F.getContext(), "parallel-loop", Message, &F, R.Name, At);
    ++Errors;
  }
  bool checkLevel(unsigned K, Loop *L, ParallelNest &Nest);

  const Region &R;
  FunctionAnalyses &FA;
  Function &F;
  unsigned &Errors;
};
} // namespace

/// Whether X, a header phi's value, is a polynomial of the iteration number
/// that rewriteSecondaryInductions can compute from it: affine, or (for
/// integers) quadratic, with coefficients that do not change in L. The
/// simplification pipeline turns `i * i` or `i * (i - 1) / 2` into such a
/// second-order recurrence.
static bool isFunctionOfIteration(const SCEV *X, const Loop *L,
                                  ScalarEvolution &SE) {
  auto *AR = dyn_cast<SCEVAddRecExpr>(X);
  if (!AR || AR->getLoop() != L ||
      !(AR->isAffine() || (AR->isQuadratic() && AR->getType()->isIntegerTy())))
    return false;
  return all_of(AR->operands(),
                [&](const SCEV *Op) { return SE.isLoopInvariant(Op, L); });
}

/// How often L runs its body when it leaves from Exiting: once more than it
/// takes its back edge if it exits from its latch, as often if from its
/// header (SCEVCouldNotCompute if unknown).
/// bodyRuns for the loops compilers write, read off the exit test alone:
/// `i < n` in the header or `i + 1 < n` in the latch (signed or unsigned,
/// staying in the loop when true), i counting from 0 by 1, n invariant.
/// Null for any other shape. SCEV's exit counts would get there too, but
/// they gather the branch conditions of every block before the loop: in a
/// function of a thousand sibling nodes, each loop pays for all the earlier
/// ones (minutes for --verify).
static const SCEV *canonicalBodyRuns(ScalarEvolution &SE, const Loop *L,
                                     BasicBlock *Exiting) {
  auto *Br = dyn_cast<BranchInst>(Exiting->getTerminator());
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition())
                                        : nullptr;
  if (!Cmp || !L->contains(Br->getSuccessor(0)) ||
      L->contains(Br->getSuccessor(1)))
    return nullptr;
  ICmpInst::Predicate P = Cmp->getPredicate();
  if (P != ICmpInst::ICMP_SLT && P != ICmpInst::ICMP_ULT)
    return nullptr;
  const SCEV *Bound = SE.getSCEV(Cmp->getOperand(1));
  if (!SE.isLoopInvariant(Bound, L))
    return nullptr;
  auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(Cmp->getOperand(0)));
  if (!AR || AR->getLoop() != L || !AR->isAffine() ||
      !AR->getStepRecurrence(SE)->isOne())
    return nullptr;
  bool Signed = P == ICmpInst::ICMP_SLT;
  const SCEV *Zero = SE.getZero(Bound->getType());
  const SCEV *One = SE.getOne(Bound->getType());
  // Tested before the body: the values 0, 1, ... while below n.
  if (Exiting == L->getHeader() && Exiting != L->getLoopLatch() &&
      AR->getStart()->isZero())
    return Signed ? SE.getSMaxExpr(Bound, Zero) : Bound;
  // Tested after it, on the next value: 1, 2, ... while below n; the body
  // has run once before the first test.
  if (Exiting == L->getLoopLatch() && AR->getStart()->isOne())
    return Signed ? SE.getSMaxExpr(Bound, One) : SE.getUMaxExpr(Bound, One);
  return nullptr;
}

static const SCEV *bodyRuns(ScalarEvolution &SE, const Loop *L,
                            BasicBlock *Exiting) {
  if (const SCEV *Runs = canonicalBodyRuns(SE, L, Exiting))
    return Runs;
  const SCEV *ExitCount = SE.getExitCount(L, Exiting);
  if (isa<SCEVCouldNotCompute>(ExitCount) || Exiting != L->getLoopLatch())
    return ExitCount;
  return SE.getAddExpr(ExitCount, SE.getOne(ExitCount->getType()));
}

bool NestFinder::checkLevel(unsigned K, Loop *L, ParallelNest &Nest) {
  ScalarEvolution &SE = FA.SE;
  BasicBlock *Header = L->getHeader();
  std::string Where =
      "loop '" + Header->getName().str() + "' (dim " + std::to_string(K) + ")";
  if (!L->getLoopPredecessor()) {
    error(Where + " is entered from more than one block outside it",
          Header->getFirstNonPHI());
    return false;
  }
  // An edge into a block that can only end in `unreachable` is not an exit:
  // taking it is undefined behaviour. SimplifyCFG makes such edges of every
  // switch whose cases cover all values (`switch (x & 3)` with cases 0-3)
  // as its default, so a body with an ordinary switch would otherwise
  // "break".
  BasicBlock *Exiting = nullptr;
  bool SeveralExits = false;
  for (BasicBlock *BB : L->blocks())
    for (BasicBlock *Succ : successors(BB)) {
      if (L->contains(Succ) || endsInUnreachable(*Succ))
        continue;
      if (inEndlessLoop(*Succ, FA.LI)) {
        Nest.Endless.insert(Succ);
        continue;
      }
      SeveralExits |= Exiting && Exiting != BB;
      Exiting = BB;
    }
  if (!Exiting || SeveralExits) {
    error(Where + " has more than one exit; a parallel loop may not break",
          Header->getTerminator());
    return false;
  }

  PHINode *IV = nullptr;
  SmallVector<PHINode *, 4> Others;
  for (PHINode &Phi : Header->phis()) {
    auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
    bool Canonical = AR && AR->getLoop() == L && AR->isAffine() &&
                     Phi.getType()->isIntegerTy() && AR->getStart()->isZero() &&
                     AR->getStepRecurrence(SE)->isOne();
    if (Canonical && (!IV || Phi.getType()->getIntegerBitWidth() >
                                 IV->getType()->getIntegerBitWidth())) {
      if (IV)
        Others.push_back(IV);
      IV = &Phi;
    } else {
      Others.push_back(&Phi);
    }
  }
  if (!IV) {
    error(Where + " has no induction variable that starts at 0 and steps "
                  "by 1",
          Header->getFirstNonPHI());
    return false;
  }
  for (PHINode *Phi : Others) {
    if (!isFunctionOfIteration(SE.getSCEV(Phi), L, SE)) {
      error(Where + " carries a value from one iteration to the next that "
                    "is not a function of the instance id (a reduction or "
                    "recurrence); instances run in any order and at once, "
                    "so combine their values with reduction(op: x) or "
                    "atomics",
            Phi);
      return false;
    }
  }

  // A top-tested loop runs its header once more than its body: that last
  // run must not do anything an instance would then miss.
  if (Exiting == Header && Exiting != L->getLoopLatch())
    for (Instruction &I : *Header)
      if (hasSideEffect(I)) {
        error(Where + " writes memory in its header before the exit test", &I);
        return false;
      }

  const SCEV *Trips = bodyRuns(SE, L, Exiting);
  if (isa<SCEVCouldNotCompute>(Trips)) {
    error(Where + ": the number of iterations cannot be computed",
          Exiting->getTerminator());
    return false;
  }
  const SCEV *Dim = SE.getSCEV(R.Dims[K]);
  if (!tripCountIs(SE, Trips, Dim)) {
    error(Where + " runs " + str(Trips) + " times but the node's dims[" +
              std::to_string(K) + "] is " + str(Dim),
          Exiting->getTerminator());
    return false;
  }
  Nest.Levels.push_back({L, IV, K});
  return true;
}

bool inEndlessLoop(const BasicBlock &BB, const LoopInfo &LI) {
  // A block outside every loop that can only go on into such a loop (its
  // preheader, say) is on the way in: a few steps are followed.
  const BasicBlock *B = &BB;
  for (unsigned Step = 0; B && Step != 8; ++Step) {
    const Loop *L = LI.getLoopFor(B);
    while (L && L->getParentLoop() && L->getParentLoop()->hasNoExitBlocks())
      L = L->getParentLoop();
    if (L)
      return L->hasNoExitBlocks();
    B = B->getSingleSuccessor();
  }
  return false;
}

std::optional<ParallelNest> NestFinder::run() {
  unsigned D = R.Dims.size();
  ParallelNest Nest;
  if (D == 0)
    return Nest;

  SmallVector<Loop *, 2> Top;
  for (Loop *L : FA.LI.getLoopsInPreorder())
    if (R.Blocks.count(L->getHeader()) && !L->hasNoExitBlocks() &&
        (!L->getParentLoop() ||
         !R.Blocks.count(L->getParentLoop()->getHeader())))
      Top.push_back(L);
  // LLVM deletes a loop that does nothing, or all but one iteration of it
  // (what is left of the body may still hold loops of its own); its node is
  // then a body with no effect, which any number of instances may run.
  if (R.isLeaf() && llvm::none_of(R.instructions(), [](Instruction *I) {
        return hasSideEffect(*I);
      }))
    return Nest;
  // Level by level: a dim of extent 1 keeps its loop only if the loop in
  // its place runs once (else that loop belongs to a later dim).
  auto RunsOnce = [&](const Loop *L) {
    BasicBlock *Exiting = L->getExitingBlock();
    return Exiting && bodyRuns(FA.SE, L, Exiting)->isOne();
  };
  auto IsOne = [&](unsigned K) { return FA.SE.getSCEV(R.Dims[K])->isOne(); };
  SmallVector<Loop *, 2> Candidates = Top;
  for (unsigned K = 0; K < D; ++K) {
    if (IsOne(K) && !(Candidates.size() == 1 && RunsOnce(Candidates[0])))
      continue; // folded away
    if (Candidates.size() != 1) {
      if (Nest.Levels.empty())
        error("a node with " + std::to_string(D) +
                  " dims must contain exactly one loop nest of that depth; "
                  "found " +
                  std::to_string(Top.size()) + " outermost loops" +
                  (Top.empty() ? std::string(" (LLVM removes a loop whose "
                                             "iterations all do the same "
                                             "thing: do all instances write "
                                             "the same location?)")
                               : ""),
              R.Entry);
      else
        error("loop '" + Nest.Levels.back().L->getHeader()->getName().str() +
                  "' (dim " + std::to_string(Nest.Levels.back().Dim) +
                  ") must contain exactly one loop (dim " + std::to_string(K) +
                  "); found " + std::to_string(Candidates.size()),
              Nest.Levels.back().L->getHeader()->getTerminator());
      return std::nullopt;
    }
    Loop *L = Candidates.front();
    if (!checkLevel(K, L, Nest))
      return std::nullopt;
    Candidates.assign(L->getSubLoops().begin(), L->getSubLoops().end());
  }
  if (Nest.Levels.empty())
    return Nest; // every dim is 1: the body is the one instance

  // An instance is one iteration of the innermost loop: work outside it
  // would be repeated by, or lost to, the other instances.
  if (R.isLeaf()) {
    Loop *Inner = Nest.innermost();
    for (Instruction *I : R.instructions())
      if (!Inner->contains(I) && !inEndlessLoop(*I->getParent(), FA.LI) &&
          hasSideEffect(*I)) {
        error("writes memory outside its innermost parallel loop", I);
        return std::nullopt;
      }
  }
  return Nest;
}

std::optional<ParallelNest>
findParallelNest(const Region &R, FunctionAnalyses &FA, unsigned &NumErrors) {
  return NestFinder(R, FA, NumErrors).run();
}

/// {c0,+,c1,+,c2} at iteration I: c0 + c1*I + c2*I*(I-1)/2, in the
/// recurrence's width. I*(I-1)/2 is exact modulo 2^N when the even one of
/// I and I-1 is halved first, so no wider type is needed (the SPIR-V
/// backend has none beyond 64 bits); it is computed at I's width when that
/// is wider, since the result modulo 2^N depends on I modulo 2^(N+1).
static Value *quadraticAt(const SCEVAddRecExpr *AR, PHINode *IV,
                          SCEVExpander &Expander, Instruction *InPreheader,
                          IRBuilder<> &B) {
  Type *Ty = AR->getType();
  Type *Wide = Ty->getIntegerBitWidth() >= IV->getType()->getIntegerBitWidth()
                   ? Ty
                   : IV->getType();
  auto Coefficient = [&](unsigned K) {
    return Expander.expandCodeFor(AR->getOperand(K), Ty, InPreheader);
  };
  Value *C0 = Coefficient(0), *C1 = Coefficient(1), *C2 = Coefficient(2);
  Value *I = B.CreateZExtOrTrunc(IV, Wide);
  Value *Before = B.CreateSub(I, ConstantInt::get(Wide, 1));
  Value *Even = B.CreateICmpEQ(B.CreateAnd(I, 1), ConstantInt::get(Wide, 0));
  Value *Pairs =
      B.CreateSelect(Even, B.CreateMul(B.CreateLShr(I, 1), Before),
                     B.CreateMul(I, B.CreateLShr(Before, 1)), "hpvm.pairs");
  Value *Id = B.CreateZExtOrTrunc(I, Ty);
  return B.CreateAdd(B.CreateAdd(C0, B.CreateMul(C1, Id)),
                     B.CreateMul(C2, B.CreateZExtOrTrunc(Pairs, Ty)),
                     "hpvm.quadratic");
}

void rewriteSecondaryInductions(const ParallelNest &Nest,
                                FunctionAnalyses &FA) {
  ScalarEvolution &SE = FA.SE;
  for (const ParallelLoop &Level : Nest.Levels) {
    BasicBlock *Header = Level.L->getHeader();
    SmallVector<PHINode *, 4> Phis;
    for (PHINode &Phi : Header->phis())
      if (&Phi != Level.IV)
        Phis.push_back(&Phi);
    if (Phis.empty())
      continue;
    SCEVExpander Expander(SE, Header->getModule()->getDataLayout(), "hpvm");
    Instruction *InPreheader = Level.L->getLoopPredecessor()->getTerminator();
    IRBuilder<> B(&*Header->getFirstInsertionPt());
    for (PHINode *Phi : Phis) {
      auto *AR = cast<SCEVAddRecExpr>(SE.getSCEV(Phi));
      if (AR->isQuadratic()) {
        Value *Replacement =
            quadraticAt(AR, Level.IV, Expander, InPreheader, B);
        Phi->replaceAllUsesWith(Replacement);
        Phi->eraseFromParent();
        continue;
      }
      const SCEV *Step = AR->getStepRecurrence(SE);
      Value *Start =
          Expander.expandCodeFor(AR->getStart(), Phi->getType(), InPreheader);
      Value *StepV = Expander.expandCodeFor(Step, Step->getType(), InPreheader);
      Value *Id = B.CreateZExtOrTrunc(Level.IV, StepV->getType());
      Value *Offset = B.CreateMul(Id, StepV, Phi->getName() + ".offset");
      Value *Replacement =
          Phi->getType()->isPointerTy()
              ? B.CreatePtrAdd(Start, Offset, Phi->getName() + ".at")
              : B.CreateAdd(Start, Offset, Phi->getName() + ".at");
      Phi->replaceAllUsesWith(Replacement);
      Phi->eraseFromParent();
    }
  }
}

} // namespace hpvm
