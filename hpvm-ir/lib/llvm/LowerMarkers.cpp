//===- LowerMarkers.cpp - Marker calls to region form ---------------------===//
//
// Frontends that cannot write operand bundles (C through Clang, or any
// language that can only emit calls) mark a node with two ordinary calls:
//
//   void *h = __hpvm_region_begin(const char *name, TAG, operands...,
//                                 ..., 0);
//   ...
//   __hpvm_region_end(h);
//
// with the tags of frontends/c/include/hpvm.h. This pass rewrites them into
// the region form of docs/ir.md §2. The calls go through C varargs, so the
// values the source named were promoted (float -> double, char/short ->
// int); the promotions are stripped again so that `hpvm.value` names the
// value the body uses; extents lose their integer extensions too, for the
// same reason. It needs SSA form (run sroa or mem2reg first): the
// handle must be the begin call itself, not a load of a stack slot.
//
// Problems are reported as rule "marker" and leave the module unchanged.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Passes.h"
#include "hpvm/ir/RegionForm.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <string>

using namespace llvm;

namespace hpvm {

/// The marker form's calls, by the names this pass looks for.
namespace marker {
constexpr const char *BeginName = MarkerBeginName;
constexpr const char *EndName = MarkerEndName;
} // namespace marker

namespace {

/// One begin call, decoded.
struct Marker {
  CallInst *Begin = nullptr;
  Value *Name = nullptr;
  SmallVector<Value *, 3> Dims, Group;
  bool HasDims = false;
  SmallVector<Value *, 4> Buffers[3]; // in, out, inout: pairs
  SmallVector<Value *, 4> Values;
  Value *Target = nullptr;
  SmallVector<CallInst *, 2> After; // begin calls
  bool NoWait = false;
  bool Sequential = false;
  SmallVector<CallInst *, 1> Ends;
  CallInst *Entry = nullptr; // the region entry that replaces Begin
};

class MarkerLowering {
public:
  explicit MarkerLowering(Function &F) : F(F), Ctx(F.getContext()) {}
  /// Decodes every marker of F; returns the number of errors reported.
  unsigned analyze();
  /// Rewrites the decoded markers; only after analyze() found no errors.
  void rewrite();
  bool empty() const { return Markers.empty(); }

private:
  void error(const std::string &Message, const Instruction *At) {
    reportError(Ctx, "marker", Message, &F, "", At);
    ++Errors;
  }
  bool decode(Marker &M);
  bool checkUses(Marker &M);

  Function &F;
  LLVMContext &Ctx;
  unsigned Errors = 0;
  /// In reverse post-order, so that an earlier sibling comes first.
  std::vector<Marker> Markers;
  DenseMap<const CallInst *, unsigned> Index;
};

} // namespace

static bool isCallTo(const Value *V, StringRef Name) {
  if (const auto *CI = dyn_cast<CallInst>(V))
    if (const Function *Callee = CI->getCalledFunction())
      return Callee->getName() == Name;
  return false;
}

Value *stripVarargPromotion(Value *V) {
  if (auto *Ext = dyn_cast<FPExtInst>(V))
    if (Ext->getSrcTy()->isFloatTy() || Ext->getSrcTy()->isHalfTy())
      return Ext->getOperand(0);
  if (isa<SExtInst>(V) || isa<ZExtInst>(V)) {
    auto *Cast = cast<CastInst>(V);
    unsigned Bits = Cast->getSrcTy()->getIntegerBitWidth();
    if (Cast->getDestTy()->isIntegerTy(32) &&
        (Bits == 1 || Bits == 8 || Bits == 16))
      return Cast->getOperand(0);
  }
  return V;
}

/// Extents are named at the width the loop nest uses: a C loop over `int n`
/// runs n times whether the call passed n as int or as (long long)n, and
/// EXTRACT compares the loop's trip count with the extent's own value. Only
/// extensions that keep the value as the runtime reads it (signed, at its
/// width) go: a sign extension, or a zero extension of a value known not to
/// be negative. `zext i32 3000000000` must stay 64 bits wide.
static Value *stripExtension(Value *V) {
  for (;;) {
    if (auto *SExt = dyn_cast<SExtInst>(V))
      V = SExt->getOperand(0);
    else if (auto *ZExt = dyn_cast<ZExtInst>(V); ZExt && ZExt->hasNonNeg())
      V = ZExt->getOperand(0);
    else
      return V;
  }
}

static const char *tagName(uint64_t Tag) {
  switch (Tag) {
  case marker::Dims:
    return "DIMS";
  case marker::In:
    return "IN";
  case marker::Out:
    return "OUT";
  case marker::InOut:
    return "INOUT";
  case marker::Value:
    return "VALUE";
  case marker::Target:
    return "TARGET";
  case marker::After:
    return "AFTER";
  case marker::NoWait:
    return "NOWAIT";
  case marker::Sequential:
    return "SEQUENTIAL";
  case marker::Group:
    return "GROUP";
  default:
    return "?";
  }
}

static bool isExtent(const Value *V) {
  return V->getType()->isIntegerTy() &&
         V->getType()->getIntegerBitWidth() <= 64;
}

bool MarkerLowering::decode(Marker &M) {
  CallInst *Call = M.Begin;
  unsigned N = Call->arg_size();
  if (N < 2) {
    error("__hpvm_region_begin needs a name and a 0-terminated tag list", Call);
    return false;
  }
  StringRef Name;
  M.Name = Call->getArgOperand(0);
  if (!getConstantStringInfo(M.Name, Name) || Name.empty()) {
    error("the first operand of __hpvm_region_begin must be a constant, "
          "non-empty C string naming the node",
          Call);
    return false;
  }
  std::string Where = "node '" + Name.str() + "': ";

  unsigned I = 1;
  auto Need = [&](unsigned Count, uint64_t Tag) {
    if (I + Count < N) // the terminator must still follow
      return true;
    error(Where + "tag " + tagName(Tag) + " needs " + std::to_string(Count) +
              " operand(s) and the list must end with 0",
          Call);
    return false;
  };
  while (true) {
    if (I >= N) {
      error(Where + "the tag list does not end with 0", Call);
      return false;
    }
    auto *TagC = dyn_cast<ConstantInt>(Call->getArgOperand(I));
    if (!TagC) {
      error(Where + "operand " + std::to_string(I) +
                " must be a constant tag, found " +
                describe(Call->getArgOperand(I)),
            Call);
      return false;
    }
    uint64_t Tag = TagC->getZExtValue();
    ++I;
    if (Tag == marker::End) {
      if (I != N) {
        error(Where + "operands follow the terminating 0", Call);
        return false;
      }
      return true;
    }
    switch (Tag) {
    case marker::Dims:
    case marker::Group: {
      SmallVectorImpl<Value *> &Extents =
          Tag == marker::Dims ? M.Dims : M.Group;
      std::string Name = tagName(Tag);
      if (Tag == marker::Dims ? M.HasDims : !M.Group.empty()) {
        error(Where + Name + " appears more than once", Call);
        return false;
      }
      if (!Need(1, Tag))
        return false;
      auto *Count = dyn_cast<ConstantInt>(Call->getArgOperand(I));
      if (!Count || Count->getZExtValue() < 1 || Count->getZExtValue() > 3) {
        error(Where + Name + " must be followed by a constant count 1 to 3",
              Call);
        return false;
      }
      unsigned C = Count->getZExtValue();
      ++I;
      if (!Need(C, Tag))
        return false;
      for (unsigned K = 0; K < C; ++K, ++I) {
        Value *V = stripExtension(Call->getArgOperand(I));
        if (!isExtent(V)) {
          error(Where + "extent " + describe(V) +
                    " is not an integer of at most 64 bits",
                Call);
          return false;
        }
        Extents.push_back(V);
      }
      M.HasDims |= Tag == marker::Dims;
      break;
    }
    case marker::In:
    case marker::Out:
    case marker::InOut: {
      if (!Need(2, Tag))
        return false;
      Value *Ptr = Call->getArgOperand(I), *Bytes = Call->getArgOperand(I + 1);
      if (!Ptr->getType()->isPointerTy() || !isExtent(Bytes) ||
          isCallTo(Ptr, marker::BeginName)) {
        error(Where + tagName(Tag) +
                  " must be followed by a pointer and an integer byte "
                  "size, found " +
                  describe(Ptr) + ", " + describe(Bytes),
              Call);
        return false;
      }
      M.Buffers[Tag - marker::In].append({Ptr, Bytes});
      I += 2;
      break;
    }
    case marker::Value: {
      if (!Need(1, Tag))
        return false;
      Value *V = stripVarargPromotion(Call->getArgOperand(I));
      Type *T = V->getType();
      if (T->isPointerTy()) {
        error(Where + "VALUE " + describe(V) +
                  " is a pointer; name buffers with IN, OUT or INOUT",
              Call);
        return false;
      }
      if (!(T->isIntegerTy(1) || T->isIntegerTy(8) || T->isIntegerTy(16) ||
            T->isIntegerTy(32) || T->isIntegerTy(64) || T->isHalfTy() ||
            T->isFloatTy() || T->isDoubleTy())) {
        error(Where + "VALUE " + describe(V) +
                  " has a type a node parameter cannot have",
              Call);
        return false;
      }
      M.Values.push_back(V);
      ++I;
      break;
    }
    case marker::Target: {
      if (!Need(1, Tag))
        return false;
      if (M.Target) {
        error(Where + "TARGET appears more than once", Call);
        return false;
      }
      auto *Mask = dyn_cast<ConstantInt>(Call->getArgOperand(I));
      if (!Mask || Mask->isZero() || (Mask->getZExtValue() & ~uint64_t(7))) {
        error(Where + "TARGET must be followed by a constant mask of bits 1 "
                      "(cpu), 2 (nvptx), 4 (spirv)",
              Call);
        return false;
      }
      M.Target = ConstantInt::get(Type::getInt32Ty(Ctx), Mask->getZExtValue());
      ++I;
      break;
    }
    case marker::After: {
      if (!Need(1, Tag))
        return false;
      Value *H = Call->getArgOperand(I);
      auto *Other = dyn_cast<CallInst>(H);
      if (!Other || !isCallTo(Other, marker::BeginName) || Other == Call) {
        error(Where +
                  "AFTER must be followed by the handle of an earlier "
                  "__hpvm_region_begin, found " +
                  describe(H) +
                  " (markers are lowered in SSA form: run "
                  "sroa or mem2reg first)",
              Call);
        return false;
      }
      M.After.push_back(Other);
      ++I;
      break;
    }
    case marker::NoWait:
      M.NoWait = true;
      break;
    case marker::Sequential:
      M.Sequential = true;
      break;
    default:
      error(Where + "unknown tag " + std::to_string(Tag), Call);
      return false;
    }
  }
}

/// The handle may only reach __hpvm_region_end and the AFTER operands of
/// other begins: anything else (a store, a phi) means the code is not in
/// SSA form or the handle escapes, and the region would have no clear end.
bool MarkerLowering::checkUses(Marker &M) {
  bool OK = true;
  for (User *U : M.Begin->users()) {
    if (isCallTo(U, marker::EndName) &&
        cast<CallInst>(U)->getArgOperand(0) == M.Begin) {
      M.Ends.push_back(cast<CallInst>(U));
      continue;
    }
    if (isCallTo(U, marker::BeginName) && Index.count(cast<CallInst>(U)))
      continue; // AFTER operand, checked when decoding that call
    error("the handle of __hpvm_region_begin is used by something other "
          "than __hpvm_region_end or AFTER (markers are lowered in SSA "
          "form: run sroa or mem2reg first)",
          isa<Instruction>(U) ? cast<Instruction>(U) : M.Begin);
    OK = false;
  }
  if (OK && M.Ends.size() != 1) {
    error(M.Ends.empty() ? "__hpvm_region_begin has no __hpvm_region_end"
                         : "__hpvm_region_begin has more than one "
                           "__hpvm_region_end",
          M.Begin);
    OK = false;
  }
  return OK;
}

unsigned MarkerLowering::analyze() {
  // Reachable blocks in reverse post-order, then any unreachable ones.
  ReversePostOrderTraversal<Function *> RPO(&F);
  std::vector<BasicBlock *> Order(RPO.begin(), RPO.end());
  SmallPtrSet<BasicBlock *, 32> Seen(Order.begin(), Order.end());
  for (BasicBlock &BB : F)
    if (!Seen.count(&BB))
      Order.push_back(&BB);
  for (BasicBlock *BB : Order)
    for (Instruction &I : *BB)
      if (isCallTo(&I, marker::BeginName)) {
        Index[cast<CallInst>(&I)] = Markers.size();
        Markers.emplace_back();
        Markers.back().Begin = cast<CallInst>(&I);
      }
  // Ends in unreachable code or without any begin are reported too.
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (isCallTo(&I, marker::EndName)) {
        auto *H = dyn_cast<CallInst>(cast<CallInst>(I).getArgOperand(0));
        if (!H || !Index.count(H))
          error("__hpvm_region_end must be given the handle that "
                "__hpvm_region_begin returned (markers are lowered in SSA "
                "form: run sroa or mem2reg first)",
                &I);
      }
  if (Markers.empty())
    return Errors;
  DominatorTree DT(F);
  for (Marker &M : Markers) {
    if (!decode(M))
      continue;
    for (CallInst *Other : M.After)
      if (!Index.count(Other) || !DT.dominates(Other, M.Begin))
        error("AFTER names a region that does not come before this one",
              M.Begin);
    checkUses(M);
  }
  return Errors;
}

void MarkerLowering::rewrite() {
  Module &Mod = *F.getParent();
  FunctionCallee EntryFn = Mod.getOrInsertFunction(
      RegionEntryName, FunctionType::get(Type::getTokenTy(Ctx), false));
  FunctionCallee ExitFn = Mod.getOrInsertFunction(
      RegionExitName,
      FunctionType::get(Type::getVoidTy(Ctx), {Type::getTokenTy(Ctx)}, false));
  // Reverse post-order: every AFTER target already has its entry.
  for (Marker &M : Markers) {
    SmallVector<OperandBundleDef, 8> Bundles;
    Bundles.emplace_back(tag::Node, std::vector<Value *>{M.Name});
    if (M.HasDims)
      Bundles.emplace_back(tag::Dims,
                           std::vector<Value *>(M.Dims.begin(), M.Dims.end()));
    const char *BufferTags[] = {tag::In, tag::Out, tag::InOut};
    for (unsigned K = 0; K < 3; ++K)
      if (!M.Buffers[K].empty())
        Bundles.emplace_back(
            BufferTags[K],
            std::vector<Value *>(M.Buffers[K].begin(), M.Buffers[K].end()));
    if (!M.Values.empty())
      Bundles.emplace_back(
          tag::Value, std::vector<Value *>(M.Values.begin(), M.Values.end()));
    if (M.Target)
      Bundles.emplace_back(tag::Target, std::vector<Value *>{M.Target});
    if (!M.After.empty()) {
      std::vector<Value *> Tokens;
      for (CallInst *Other : M.After)
        Tokens.push_back(Markers[Index[Other]].Entry);
      Bundles.emplace_back(tag::After, std::move(Tokens));
    }
    if (M.NoWait)
      Bundles.emplace_back(tag::NoWait, std::vector<Value *>{});
    if (M.Sequential)
      Bundles.emplace_back(tag::Sequential, std::vector<Value *>{});
    if (!M.Group.empty())
      Bundles.emplace_back(
          tag::Group, std::vector<Value *>(M.Group.begin(), M.Group.end()));
    M.Entry =
        CallInst::Create(EntryFn, {}, Bundles, "", M.Begin->getIterator());
    M.Entry->setDebugLoc(M.Begin->getDebugLoc());
    M.Entry->takeName(M.Begin);
  }
  for (Marker &M : Markers) {
    CallInst *End = M.Ends.front();
    CallInst *Exit =
        CallInst::Create(ExitFn, {M.Entry}, "", End->getIterator());
    Exit->setDebugLoc(End->getDebugLoc());
    End->eraseFromParent();
  }
  // Begins last: they may still be AFTER operands of each other.
  for (Marker &M : Markers)
    M.Begin->replaceAllUsesWith(PoisonValue::get(M.Begin->getType()));
  for (Marker &M : Markers)
    M.Begin->eraseFromParent();
}

unsigned lowerMarkers(Module &M) {
  Function *Begin = M.getFunction(marker::BeginName);
  Function *End = M.getFunction(marker::EndName);
  if ((!Begin || Begin->use_empty()) && (!End || End->use_empty()))
    return 0;
  if (Begin && (!Begin->isVarArg() || !Begin->getReturnType()->isPointerTy() ||
                Begin->arg_size() != 1)) {
    reportError(M.getContext(), "marker",
                "__hpvm_region_begin must be declared as "
                "void *__hpvm_region_begin(const char *, ...)");
    return 1;
  }
  if (End && (End->isVarArg() || End->arg_size() != 1 ||
              !End->getReturnType()->isVoidTy() ||
              !End->getArg(0)->getType()->isPointerTy())) {
    reportError(M.getContext(), "marker",
                "__hpvm_region_end must be declared as "
                "void __hpvm_region_end(void *)");
    return 1;
  }
  for (Function *Decl : {Begin, End})
    if (Decl)
      for (User *U : Decl->users())
        if (!isa<CallInst>(U) ||
            cast<CallInst>(U)->getCalledOperand() != Decl) {
          reportError(M.getContext(), "marker",
                      Decl->getName().str() +
                          " may only be called directly, not used as a value",
                      nullptr, "", dyn_cast<Instruction>(U));
          return 1;
        }

  // All functions are checked before any changes, so that an error leaves
  // the whole module as it was.
  std::vector<std::unique_ptr<MarkerLowering>> Lowerings;
  unsigned Errors = 0;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    auto L = std::make_unique<MarkerLowering>(F);
    Errors += L->analyze();
    if (!L->empty())
      Lowerings.push_back(std::move(L));
  }
  if (Errors)
    return Errors;
  for (auto &L : Lowerings)
    L->rewrite();
  for (Function *Decl : {Begin, End})
    if (Decl && Decl->use_empty())
      Decl->eraseFromParent();
  return 0;
}

PreservedAnalyses LowerMarkersPass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  return lowerMarkers(M) ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

} // namespace hpvm
