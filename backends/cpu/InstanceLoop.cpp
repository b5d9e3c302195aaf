//===- InstanceLoop.cpp - What the CPU passes know of instance loops ------===//
//
// The loop over a leaf's instances in a wrapper (WrapperBuilder marks it),
// as InstanceJam.cpp and StreamingStores.cpp both find and split it.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace hpvm::cpu {

bool isInstanceLoop(const Loop &L) {
  return findOptionMDForLoop(&L, InstanceLoopProperty) != nullptr;
}

PHINode *instanceId(Loop &L) {
  using namespace PatternMatch;
  for (PHINode &P : L.getHeader()->phis())
    if (match(P.getIncomingValueForBlock(L.getLoopLatch()),
              m_Add(m_Specific(&P), m_One())))
      return &P;
  return nullptr;
}

SmallVector<BasicBlock *, 16> cloneLoopBlocks(Loop &L, ValueToValueMapTy &VMap,
                                              const Twine &Suffix) {
  SmallVector<BasicBlock *, 16> Copies;
  for (BasicBlock *BB : L.blocks()) {
    BasicBlock *C = CloneBasicBlock(BB, VMap, Suffix, BB->getParent());
    VMap[BB] = C;
    Copies.push_back(C);
  }
  remapInstructionsInBlocks(Copies, VMap);
  return Copies;
}

} // namespace hpvm::cpu
