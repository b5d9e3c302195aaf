//===- Inlining.cpp - Inline a leaf's whole call tree ---------------------===//
#include "hpvm/ir/Inlining.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

void hpvm::inlineTransitively(Function *Root, ArrayRef<CallBase *> Calls) {
  // (callee, index of the history entry of the call site it came from): the
  // chain of callees that led to a call site, to see recursion.
  SmallVector<std::pair<Function *, int>, 8> History{{Root, -1}};
  SmallVector<std::pair<CallBase *, int>, 16> Work;
  for (CallBase *CB : Calls)
    Work.push_back({CB, 0});
  while (!Work.empty()) {
    auto [CB, From] = Work.pop_back_val();
    Function *Callee = CB->getCalledFunction();
    // A variadic function reads its arguments through va_start, which
    // means nothing once inlined: it stays a call (which the CPU runs).
    if (!Callee || Callee->isDeclaration() || Callee->isIntrinsic() ||
        Callee->isVarArg())
      continue;
    bool Recursive = false;
    for (int H = From; H >= 0 && !Recursive; H = History[H].second)
      Recursive = History[H].first == Callee;
    if (Recursive)
      continue;
    InlineFunctionInfo IFI;
    if (!InlineFunction(*CB, IFI).isSuccess())
      continue;
    History.push_back({Callee, From});
    for (CallBase *New : IFI.InlinedCallSites)
      Work.push_back({New, static_cast<int>(History.size()) - 1});
  }
}
