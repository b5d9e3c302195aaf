//===- RegionForm.cpp - Finding and checking region markers ---------------===//
#include "hpvm/ir/RegionForm.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphMetadata.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>

using namespace llvm;

namespace hpvm {

static bool isCallTo(const Instruction *I, StringRef Name) {
  if (const auto *CI = dyn_cast<CallInst>(I))
    if (const Function *Callee = CI->getCalledFunction())
      return Callee->getName() == Name;
  return false;
}

bool hasMarkers(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (const auto *CI = dyn_cast<CallInst>(&I))
        if (const Function *Callee = CI->getCalledFunction())
          if (Callee->getName() == MarkerBeginName)
            return true;
  return false;
}

bool hasRegions(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (isCallTo(&I, RegionEntryName) || isCallTo(&I, RegionExitName))
        return true;
  return false;
}

bool hasRegions(const Module &M) {
  for (const char *Name : {RegionEntryName, RegionExitName})
    if (const Function *F = M.getFunction(Name))
      if (!F->use_empty())
        return true;
  return false;
}

bool Region::contains(const Instruction *I) const {
  const BasicBlock *BB = I->getParent();
  const BasicBlock *EB = Entry->getParent(), *XB = Exit->getParent();
  if (EB == XB)
    return BB == EB && Entry->comesBefore(I) && I->comesBefore(Exit);
  if (BB == EB)
    return Entry->comesBefore(I);
  if (BB == XB)
    return I->comesBefore(Exit);
  return Blocks.count(const_cast<BasicBlock *>(BB));
}

std::vector<Instruction *> Region::instructions() const {
  std::vector<Instruction *> Result;
  BasicBlock *EB = Entry->getParent(), *XB = Exit->getParent();
  for (Instruction *I = Entry->getNextNode(); I && I != Exit;
       I = I->getNextNode())
    Result.push_back(I);
  if (EB == XB)
    return Result;
  for (BasicBlock &BB : *EB->getParent())
    if (Blocks.count(&BB))
      for (Instruction &I : BB)
        Result.push_back(&I);
  for (Instruction &I : *XB) {
    if (&I == Exit)
      break;
    Result.push_back(&I);
  }
  return Result;
}

unsigned Region::depth() const {
  unsigned D = 0;
  for (const Region *R = Parent; R; R = R->Parent)
    ++D;
  return D;
}

namespace {

/// Parses one function's markers; every problem is reported, then parsing
/// continues so that one run shows all of them.
class RegionParser {
public:
  RegionParser(Function &F) : F(F), Ctx(F.getContext()) {}

  RegionForest run(unsigned &NumErrors);

private:
  void error(std::string Rule, std::string Message, const Instruction *At,
             const std::string &Node = "") {
    reportError(Ctx, std::move(Rule), std::move(Message), &F, Node, At);
    ++Errors;
  }
  bool parseBundles(Region &R);
  bool parseBuffers(Region &R, const OperandBundleUse &B, Access Mode);
  bool computeBlocks(Region &R);
  bool nest(std::vector<std::unique_ptr<Region>> &All, RegionForest &Forest);

  Function &F;
  LLVMContext &Ctx;
  unsigned Errors = 0;
  DenseMap<const BasicBlock *, unsigned> RPOIndex;
  DenseMap<const CallInst *, Region *> ByEntry;
};

} // namespace

bool RegionParser::parseBuffers(Region &R, const OperandBundleUse &B,
                                Access Mode) {
  if (B.Inputs.empty() || B.Inputs.size() % 2) {
    error("marker",
          "bundle '" + B.getTagName().str() +
              "' must list pairs of (ptr, i64 bytes)",
          R.Entry, R.Name);
    return false;
  }
  bool OK = true;
  for (unsigned I = 0; I < B.Inputs.size(); I += 2) {
    Value *Ptr = B.Inputs[I], *Bytes = B.Inputs[I + 1];
    if (!Ptr->getType()->isPointerTy() || !Bytes->getType()->isIntegerTy() ||
        Bytes->getType()->getIntegerBitWidth() > 64) {
      error("marker",
            "bundle '" + B.getTagName().str() + "' operand " +
                std::to_string(I) +
                " must be a pointer followed by an integer byte size",
            R.Entry, R.Name);
      OK = false;
      continue;
    }
    if (auto *C = dyn_cast<ConstantInt>(Bytes); C && C->isNegative()) {
      error("buffer-size",
            "buffer " + describe(Ptr) + " has byte size " + describe(Bytes) +
                ", which is negative; sizes are read as signed integers of "
                "their width",
            R.Entry, R.Name);
      OK = false;
    }
    for (const RegionBuffer &Other : R.Buffers)
      if (Other.Ptr == Ptr) {
        error("marker", "buffer " + describe(Ptr) + " is named twice", R.Entry,
              R.Name);
        OK = false;
      }
    R.Buffers.push_back({Ptr, Bytes, Mode});
  }
  return OK;
}

bool RegionParser::parseBundles(Region &R) {
  CallInst *Entry = R.Entry;
  // The name first, so that other messages can mention it.
  if (auto B = Entry->getOperandBundle(tag::Node)) {
    StringRef Name;
    if (B->Inputs.size() != 1 || !getConstantStringInfo(B->Inputs[0], Name) ||
        Name.empty()) {
      error("marker",
            "'hpvm.node' must have one operand: a constant, non-empty C "
            "string naming the node",
            Entry);
      return false;
    }
    R.Name = Name.str();
  } else {
    error("marker", "region entry has no 'hpvm.node' bundle", Entry);
    return false;
  }

  bool OK = true;
  StringMap<bool> Seen;
  for (unsigned I = 0, E = Entry->getNumOperandBundles(); I != E; ++I) {
    OperandBundleUse B = Entry->getOperandBundleAt(I);
    StringRef Tag = B.getTagName();
    if (!Seen.insert({Tag, true}).second) {
      error("marker", "bundle '" + Tag.str() + "' appears more than once",
            Entry, R.Name);
      OK = false;
      continue;
    }
    if (Tag == tag::Node)
      continue;
    if (Tag == tag::Dims || Tag == tag::Group) {
      // The same rules (rule "dims" or "group") for both lists of extents.
      bool Dims = Tag == tag::Dims;
      const char *Rule = Dims ? "dims" : "group";
      if (B.Inputs.empty()) {
        error("marker", "'" + Tag.str() + "' needs 1 to 3 extents", Entry,
              R.Name);
        OK = false;
      } else if (B.Inputs.size() > 3) {
        error(Rule,
              Dims ? "node has " + std::to_string(B.Inputs.size()) +
                         " dims; at most 3 are allowed"
                   : "a work-group has " + std::to_string(B.Inputs.size()) +
                         " dims; at most 3 are allowed",
              Entry, R.Name);
        OK = false;
      }
      for (Value *V : B.Inputs) {
        if (!V->getType()->isIntegerTy() ||
            V->getType()->getIntegerBitWidth() > 64) {
          error(Rule,
                "extent " + describe(V) +
                    " is not an integer of at most 64 "
                    "bits",
                Entry, R.Name);
          OK = false;
        } else if (auto *C = dyn_cast<ConstantInt>(V); C && C->isNegative()) {
          error(Rule,
                "extent " + describe(V) +
                    " is negative; extents are read as signed integers of "
                    "their width",
                Entry, R.Name);
          OK = false;
        }
        (Dims ? R.Dims : R.Group).push_back(V);
      }
    } else if (Tag == tag::In) {
      OK &= parseBuffers(R, B, Access::In);
    } else if (Tag == tag::Out) {
      OK &= parseBuffers(R, B, Access::Out);
    } else if (Tag == tag::InOut) {
      OK &= parseBuffers(R, B, Access::InOut);
    } else if (Tag == tag::Value) {
      for (Value *V : B.Inputs) {
        if (V->getType()->isPointerTy()) {
          error("marker",
                "'hpvm.value' operand " + describe(V) +
                    " is a pointer; name buffers in hpvm.in/out/inout",
                Entry, R.Name);
          OK = false;
        } else if (!fromLLVMType(V->getType())) {
          error("marker",
                "'hpvm.value' operand " + describe(V) +
                    " has a type a node parameter cannot have",
                Entry, R.Name);
          OK = false;
        }
        R.Values.push_back(V);
      }
    } else if (Tag == tag::Target) {
      auto *Mask =
          B.Inputs.size() == 1 ? dyn_cast<ConstantInt>(B.Inputs[0]) : nullptr;
      if (!Mask || !Mask->getType()->isIntegerTy(32) || Mask->isZero() ||
          (Mask->getZExtValue() & ~AllTargets)) {
        error("marker",
              "'hpvm.target' must be one constant i32 mask of bits 1 (cpu), "
              "2 (nvptx), 4 (spirv)",
              Entry, R.Name);
        OK = false;
      } else {
        R.Targets = static_cast<TargetMask>(Mask->getZExtValue());
      }
    } else if (Tag == tag::After) {
      // Resolved in nest(), once every region exists.
    } else if (Tag == tag::NoWait) {
      if (!B.Inputs.empty()) {
        error("marker", "'hpvm.nowait' takes no operands", Entry, R.Name);
        OK = false;
      }
      R.NoWait = true;
    } else if (Tag == tag::Sequential) {
      if (!B.Inputs.empty()) {
        error("marker", "'hpvm.sequential' takes no operands", Entry, R.Name);
        OK = false;
      }
      R.Sequential = true;
    } else {
      error("marker", "unknown operand bundle '" + Tag.str() + "'", Entry,
            R.Name);
      OK = false;
    }
  }
  return OK;
}

bool RegionParser::computeBlocks(Region &R) {
  BasicBlock *EB = R.Entry->getParent(), *XB = R.Exit->getParent();
  if (EB == XB) {
    if (!R.Entry->comesBefore(R.Exit)) {
      error("sese", "the exit marker comes before the entry marker", R.Exit,
            R.Name);
      return false;
    }
    return true;
  }
  // Everything reachable from the entry without passing the exit.
  SmallVector<BasicBlock *, 16> Work(succ_begin(EB), succ_end(EB));
  bool ReachedExit = false, OK = true;
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == XB) {
      ReachedExit = true;
      continue;
    }
    if (BB == EB) {
      error("sese",
            "control flows from inside the region back to its entry block",
            R.Entry, R.Name);
      return false;
    }
    if (!R.Blocks.insert(BB).second)
      continue;
    const Instruction *Term = BB->getTerminator();
    if (isa<ReturnInst>(Term) || isa<ResumeInst>(Term) ||
        isa<CleanupReturnInst>(Term)) {
      error("sese",
            "the region leaves the function (returns or unwinds) before its "
            "exit",
            Term, R.Name);
      OK = false;
    }
    Work.append(succ_begin(BB), succ_end(BB));
  }
  if (!ReachedExit) {
    error("sese", "the exit marker is not reachable from the entry", R.Exit,
          R.Name);
    return false;
  }
  // Single entry: nothing outside jumps into the region.
  auto Inside = [&](BasicBlock *BB) { return BB == EB || R.Blocks.count(BB); };
  for (BasicBlock *BB : R.Blocks)
    for (BasicBlock *Pred : predecessors(BB))
      if (!Inside(Pred)) {
        error("sese",
              "block '" + BB->getName().str() +
                  "' is entered from outside the region",
              Pred->getTerminator(), R.Name);
        OK = false;
      }
  for (BasicBlock *Pred : predecessors(XB))
    if (!Inside(Pred)) {
      error("sese", "the exit block is entered from outside the region",
            Pred->getTerminator(), R.Name);
      OK = false;
    }
  return OK;
}

bool RegionParser::nest(std::vector<std::unique_ptr<Region>> &All,
                        RegionForest &Forest) {
  bool OK = true;
  // A region's parent is the smallest region containing its entry.
  for (auto &R : All) {
    Region *Best = nullptr;
    for (auto &Other : All) {
      if (Other.get() == R.get() || !Other->contains(R->Entry))
        continue;
      if (!Best || Best->contains(Other->Entry))
        Best = Other.get();
    }
    if (Best && !Best->contains(R->Exit)) {
      error("nesting",
            "region '" + R->Name + "' starts inside region '" + Best->Name +
                "' but ends outside it",
            R->Exit, R->Name);
      OK = false;
    }
    R->Parent = Best;
  }
  if (!OK)
    return false;
  for (auto &R : All) {
    unsigned Depth = 0;
    for (const Region *A = R.get(); A && Depth <= MaxNodeDepth; A = A->Parent)
      ++Depth;
    if (Depth > MaxNodeDepth) {
      error("nesting",
            "regions nested more than " + std::to_string(MaxNodeDepth) +
                " levels deep",
            R->Entry, R->Name);
      return false;
    }
  }

  auto ProgramOrder = [&](const std::unique_ptr<Region> &A,
                          const std::unique_ptr<Region> &B) {
    const BasicBlock *BA = A->Entry->getParent(), *BB = B->Entry->getParent();
    if (BA != BB)
      return RPOIndex.lookup(BA) < RPOIndex.lookup(BB);
    return A->Entry->comesBefore(B->Entry);
  };
  std::stable_sort(All.begin(), All.end(), ProgramOrder);
  std::vector<std::pair<Region *, std::unique_ptr<Region>>> Moves;
  for (auto &R : All)
    Moves.emplace_back(R->Parent, std::move(R));
  for (auto &[Parent, R] : Moves)
    (Parent ? Parent->Children : Forest.Roots).push_back(std::move(R));

  // Explicit edges must point at earlier siblings.
  std::function<void(std::vector<std::unique_ptr<Region>> &)> ResolveAfter =
      [&](std::vector<std::unique_ptr<Region>> &Siblings) {
        for (unsigned I = 0; I < Siblings.size(); ++I) {
          Region &R = *Siblings[I];
          if (auto B = R.Entry->getOperandBundle(tag::After))
            for (Value *V : B->Inputs) {
              auto *Tok = dyn_cast<CallInst>(V);
              Region *Target = Tok ? ByEntry.lookup(Tok) : nullptr;
              bool Earlier = false;
              for (unsigned J = 0; J < I; ++J)
                Earlier |= Siblings[J].get() == Target;
              if (!Earlier) {
                error("marker",
                      "'hpvm.after' operand " + describe(V) +
                          " is not the entry of an earlier sibling region",
                      R.Entry, R.Name);
                OK = false;
                continue;
              }
              R.After.push_back(Target);
            }
          ResolveAfter(R.Children);
        }
      };
  ResolveAfter(Forest.Roots);
  // Only a graph's launch can go on while the code after it runs: a node
  // inside another is part of its parent's launch.
  std::function<void(std::vector<std::unique_ptr<Region>> &)> NestedNoWait =
      [&](std::vector<std::unique_ptr<Region>> &Children) {
        for (auto &C : Children) {
          if (C->NoWait) {
            error("marker",
                  "'hpvm.nowait' on a region inside region '" +
                      C->Parent->Name +
                      "': only a top-level region is a launch that can go "
                      "on in the background",
                  C->Entry, C->Name);
            OK = false;
          }
          NestedNoWait(C->Children);
        }
      };
  for (auto &Root : Forest.Roots)
    NestedNoWait(Root->Children);
  // Only child graphs can run one iteration after another; a leaf's
  // instances are independent.
  std::function<void(Region &)> CheckSequential = [&](Region &R) {
    if (!R.Group.empty() && !R.Children.empty()) {
      error("group",
            "'hpvm.group' on a region with child regions: only a leaf's "
            "instances are work-groups of work-items",
            R.Entry, R.Name);
      OK = false;
    }
    if (R.Sequential && (R.Dims.empty() || R.Children.empty())) {
      error("marker",
            R.Dims.empty()
                ? "'hpvm.sequential' on a region without 'hpvm.dims': "
                  "there are no iterations to run in order"
                : "'hpvm.sequential' on a region without child regions: "
                  "only the child graphs of a loop run in order",
            R.Entry, R.Name);
      OK = false;
    }
    for (auto &C : R.Children)
      CheckSequential(*C);
  };
  for (auto &Root : Forest.Roots)
    CheckSequential(*Root);
  // Graphs launch in program order; an edge between two would be a no-op
  // that EXTRACT could not keep.
  for (auto &Root : Forest.Roots)
    if (!Root->After.empty()) {
      error("marker",
            "'hpvm.after' on a top-level region: graphs already launch in "
            "program order",
            Root->Entry, Root->Name);
      OK = false;
    }
  return OK;
}

RegionForest RegionParser::run(unsigned &NumErrors) {
  RegionForest Forest;
  Forest.F = &F;
  unsigned Index = 0;
  for (BasicBlock *BB : ReversePostOrderTraversal<Function *>(&F))
    RPOIndex[BB] = Index++;

  std::vector<std::unique_ptr<Region>> All;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (isCallTo(&I, RegionExitName)) {
        auto *Exit = cast<CallInst>(&I);
        auto *Tok = Exit->arg_size() == 1
                        ? dyn_cast<CallInst>(Exit->getArgOperand(0))
                        : nullptr;
        if (!Tok || !isCallTo(Tok, RegionEntryName))
          error("marker",
                "region exit's operand is not the token of a region entry",
                Exit);
        continue;
      }
      if (!isCallTo(&I, RegionEntryName))
        continue;
      auto R = std::make_unique<Region>();
      R->Entry = cast<CallInst>(&I);
      unsigned NumExits = 0;
      for (User *U : R->Entry->users()) {
        auto *UI = cast<Instruction>(U);
        if (isCallTo(UI, RegionExitName)) {
          ++NumExits;
          R->Exit = cast<CallInst>(UI);
        } else if (!isCallTo(UI, RegionEntryName)) {
          error("marker",
                "a region's token may only be used by its exit marker and "
                "by 'hpvm.after' bundles",
                UI);
        }
      }
      if (!parseBundles(*R))
        continue;
      if (NumExits != 1) {
        error("marker",
              NumExits ? "region has more than one exit marker"
                       : "region has no exit marker",
              R->Entry, R->Name);
        continue;
      }
      if (!computeBlocks(*R))
        continue;
      ByEntry[R->Entry] = R.get();
      All.push_back(std::move(R));
    }
  if (Errors == 0)
    nest(All, Forest);
  NumErrors = Errors;
  return Forest;
}

RegionForest parseRegions(Function &F, unsigned &NumErrors) {
  return RegionParser(F).run(NumErrors);
}

} // namespace hpvm
