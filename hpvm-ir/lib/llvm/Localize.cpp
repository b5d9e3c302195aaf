//===- Localize.cpp - Give regions back the pure values passes shared -----===//
//
// The simplification passes a frontend runs before EXTRACT (EarlyCSE, GVN,
// LICM) see the region markers as opaque calls, but pure values move across
// them freely: `&s[1]` computed in one task and again in the next becomes one
// GEP in the first, used by both. The first region then has a value that
// escapes it, which the region rules forbid (escaping-value). Such values
// touch no memory and need no order, so they are recomputed where they are
// used: each use outside the region that defines one gets a clone of it,
// and of the pure values inside the region that it is computed from.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Passes.h"
#include "hpvm/ir/RegionForm.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hpvm {

namespace {

bool recomputable(const Instruction &I) {
  if (I.mayReadOrWriteMemory() || I.mayHaveSideEffects() || I.isTerminator() ||
      isa<PHINode>(I) || isa<AllocaInst>(I) || I.getType()->isTokenTy())
    return false;
  return !isa<CallBase>(I) || isa<IntrinsicInst>(I);
}

class Localizer {
public:
  explicit Localizer(const Region &R) : R(R) {}

  /// Whether V can be computed again outside R.
  bool canClone(Value *V) {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !R.contains(I))
      return true;
    if (!recomputable(*I))
      return false;
    for (Value *Op : I->operands())
      if (!canClone(Op))
        return false;
    return true;
  }

  /// V computed again before At, from what it is computed from.
  Value *cloneBefore(Value *V, Instruction *At,
                     DenseMap<Instruction *, Value *> &Made) {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !R.contains(I))
      return V;
    if (auto It = Made.find(I); It != Made.end())
      return It->second;
    Instruction *Copy = I->clone();
    Copy->setName(I->getName());
    for (Use &Op : Copy->operands())
      Op.set(cloneBefore(Op.get(), At, Made));
    Copy->insertBefore(At);
    Made[I] = Copy;
    return Copy;
  }

private:
  const Region &R;
};

unsigned localize(const Region &R) {
  unsigned Count = 0;
  for (const auto &C : R.Children)
    Count += localize(*C);
  Localizer L(R);
  for (Instruction *I : R.instructions()) {
    SmallVector<Use *, 4> Outside;
    for (Use &U : I->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      Instruction *At = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        At = Phi->getIncomingBlock(U)->getTerminator();
      if (User != R.Exit && !R.contains(At))
        Outside.push_back(&U);
    }
    if (Outside.empty() || !L.canClone(I))
      continue;
    for (Use *U : Outside) {
      auto *User = cast<Instruction>(U->getUser());
      Instruction *At = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        At = Phi->getIncomingBlock(*U)->getTerminator();
      DenseMap<Instruction *, Value *> Made;
      U->set(L.cloneBefore(I, At, Made));
      ++Count;
    }
  }
  return Count;
}

/// Swallows diagnostics: malformed markers are the verifier's to report.
struct Quiet : DiagnosticHandler {
  bool handleDiagnostics(const DiagnosticInfo &) override { return true; }
};

} // namespace

unsigned localizeRegionValues(Module &M) {
  LLVMContext &Ctx = M.getContext();
  std::unique_ptr<DiagnosticHandler> Saved = Ctx.getDiagnosticHandler();
  Ctx.setDiagnosticHandler(std::make_unique<Quiet>());
  unsigned Count = 0;
  for (Function &F : M) {
    if (F.isDeclaration() || !hasRegions(F))
      continue;
    unsigned Errors = 0;
    RegionForest Forest = parseRegions(F, Errors);
    if (Errors)
      continue;
    for (const auto &Root : Forest.Roots)
      Count += localize(*Root);
  }
  Ctx.setDiagnosticHandler(std::move(Saved));
  return Count;
}

} // namespace hpvm
