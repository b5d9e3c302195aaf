//===- InstanceIncrement.cpp - Give instance loops their increment back ---===//
//
// GVN's scalar PRE sees a leaf's `c + 1` (a neighbour's index, computed in
// branches) and the instance loop's own `c + 1` as one value and merges
// them into a phi in the latch. The loop then no longer has an induction
// variable that ScalarEvolution can count, and the loop vectoriser gives up
// ("could not determine number of loop iterations") on exactly the
// stencil-shaped kernels it should vectorise. Every incoming value of such a
// phi is the instance id plus one, so the phi is replaced by one `add`:
// the same value, in the form the vectoriser recognises.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;

namespace hpvm::cpu {

namespace {

/// Whether V is IV + 1: the add itself, or a phi all of whose incoming
/// values are (Seen guards against cycles of phis).
bool isNextId(Value *V, PHINode *IV, SmallPtrSetImpl<PHINode *> &Seen) {
  using namespace PatternMatch;
  if (match(V, m_Add(m_Specific(IV), m_One())))
    return true;
  auto *P = dyn_cast<PHINode>(V);
  if (!P || P == IV || !Seen.insert(P).second)
    return P && P != IV; // a cycle adds no other value
  for (Value *In : P->incoming_values())
    if (!isNextId(In, IV, Seen))
      return false;
  return true;
}

/// The instance loop's header phi that starts it and is fed, at the latch,
/// by a phi standing for IV + 1; null if there is none.
PHINode *mergedIncrement(Loop &L, PHINode *&IV) {
  BasicBlock *Latch = L.getLoopLatch();
  if (!Latch)
    return nullptr;
  for (PHINode &P : L.getHeader()->phis()) {
    auto *Next = dyn_cast<PHINode>(P.getIncomingValueForBlock(Latch));
    if (!Next || !L.contains(Next))
      continue;
    SmallPtrSet<PHINode *, 4> Seen;
    if (isNextId(Next, &P, Seen)) {
      IV = &P;
      return Next;
    }
  }
  return nullptr;
}

} // namespace

PreservedAnalyses InstanceIncrementPass::run(Function &F,
                                             FunctionAnalysisManager &FAM) {
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  bool Changed = false;
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!isInstanceLoop(*L))
      continue;
    PHINode *IV = nullptr;
    PHINode *Merged = mergedIncrement(*L, IV);
    if (!Merged)
      continue;
    IRBuilder<> B(Merged->getParent(),
                  Merged->getParent()->getFirstInsertionPt());
    Value *Next = B.CreateAdd(IV, ConstantInt::get(IV->getType(), 1),
                              IV->getName() + ".next", /*HasNUW=*/true,
                              /*HasNSW=*/true);
    Merged->replaceAllUsesWith(Next);
    Merged->eraseFromParent();
    Changed = true;
  }
  if (!Changed)
    return PreservedAnalyses::all();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

} // namespace hpvm::cpu
