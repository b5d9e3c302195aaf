//===- WorkGroups.cpp - The two forms of a work-group leaf ----------------===//
//
// WorkGroups.h.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/WorkGroups.h"

#include "hpvm/ir/GraphMetadata.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace hpvm {

void resolveWorkGroupForm(Function &F, bool Native) {
  Function *Query = F.getParent()->getFunction(WorkGroupNativeFunctionName);
  if (!Query)
    return;
  SmallVector<CallInst *, 4> Calls;
  for (User *U : Query->users())
    if (auto *C = dyn_cast<CallInst>(U); C && C->getFunction() == &F)
      Calls.push_back(C);
  if (Calls.empty())
    return;
  for (CallInst *C : Calls) {
    C->replaceAllUsesWith(ConstantInt::getBool(F.getContext(), Native));
    C->eraseFromParent();
  }
  for (BasicBlock &BB : F)
    ConstantFoldTerminator(&BB, /*DeleteDeadConditions=*/true);
  removeUnreachableBlocks(F);
}

} // namespace hpvm
