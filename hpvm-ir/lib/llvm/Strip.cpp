//===- Strip.cpp - Remove the region markers ------------------------------===//
//
// hpvm-strip (docs/ir.md §5): a module in graph form is first PREPAREd; then
// every region marker is erased, which leaves the sequential program the
// region form means. The node-name strings the markers referred to go too
// once nothing else uses them.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"
#include "hpvm/ir/RegionForm.h"
#include "hpvm/ir/WorkGroups.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hpvm {

namespace {

bool isCallTo(const User *U, const Function *F) {
  const auto *Call = dyn_cast<CallInst>(U);
  return Call && Call->getCalledOperand() == F;
}

/// The calls to F, or none if F is absent.
SmallVector<CallInst *, 16> callsTo(Function *F) {
  SmallVector<CallInst *, 16> Calls;
  if (F)
    for (User *U : F->users())
      if (isCallTo(U, F))
        Calls.push_back(cast<CallInst>(U));
  return Calls;
}

/// Reports markers that cannot simply be deleted: a marker used other than
/// called, or an entry token that feeds something besides the markers
/// (deleting the entry would leave that use dangling).
unsigned checkMarkers(Module &M) {
  LLVMContext &Ctx = M.getContext();
  Function *EntryFn = M.getFunction(RegionEntryName);
  Function *ExitFn = M.getFunction(RegionExitName);
  unsigned NumErrors = 0;
  for (Function *Marker : {EntryFn, ExitFn}) {
    if (!Marker)
      continue;
    for (User *U : Marker->users())
      if (!isCallTo(U, Marker)) {
        reportError(Ctx, "marker",
                    "@" + Marker->getName().str() +
                        " is used other than called",
                    nullptr, "", dyn_cast<Instruction>(U));
        ++NumErrors;
      }
  }
  for (CallInst *Entry : callsTo(EntryFn))
    for (User *U : Entry->users())
      if (!isCallTo(U, EntryFn) && !isCallTo(U, ExitFn)) {
        reportError(Ctx, "marker",
                    "the token of a region entry is used by a non-marker",
                    Entry->getFunction(), "", cast<Instruction>(U));
        ++NumErrors;
      }
  return NumErrors;
}

} // namespace

unsigned stripRegions(Module &M) {
  // Checked first so that a failure leaves the module as it was, not
  // prepared but unstripped.
  if (unsigned NumErrors = checkMarkers(M))
    return NumErrors;
  if (hasGraphs(M))
    if (unsigned NumErrors = prepareRegions(M))
      return NumErrors;

  Function *EntryFn = M.getFunction(RegionEntryName);
  Function *ExitFn = M.getFunction(RegionExitName);

  for (CallInst *Exit : callsTo(ExitFn))
    Exit->eraseFromParent();

  // An entry's token may still be an "hpvm.after" operand of a later
  // sibling's entry: drop every entry's operands before erasing any of them.
  SmallVector<CallInst *, 16> Entries = callsTo(EntryFn);
  SmallPtrSet<GlobalVariable *, 16> NameStrings;
  for (CallInst *Entry : Entries) {
    if (auto Bundle = Entry->getOperandBundle(tag::Node))
      if (!Bundle->Inputs.empty())
        if (auto *GV = dyn_cast<GlobalVariable>(
                Bundle->Inputs.front().get()->stripPointerCasts()))
          NameStrings.insert(GV);
    Entry->dropAllReferences();
  }
  for (CallInst *Entry : Entries)
    Entry->eraseFromParent();

  for (Function *Marker : {EntryFn, ExitFn})
    if (Marker && Marker->use_empty())
      Marker->eraseFromParent();
  // The sequential program runs a work-group's phases.
  for (Function &F : M)
    if (!F.isDeclaration())
      resolveWorkGroupForm(F, /*Native=*/false);
  for (const char *Name : {WorkGroupNativeFunctionName, WorkItemIdFunctionName,
                           BarrierFunctionName})
    if (Function *F = M.getFunction(Name); F && F->use_empty())
      F->eraseFromParent();
  for (GlobalVariable *GV : NameStrings) {
    GV->removeDeadConstantUsers();
    if (GV->use_empty() && GV->isDiscardableIfUnused())
      GV->eraseFromParent();
  }
  return 0;
}

} // namespace hpvm
