//===- RegionVerifier.cpp - Rules of the region form ----------------------===//
//
// The rules of docs/ir.md §2.3 beyond the markers themselves (those are
// checked while parsing): values escaping a region, pointers it does not
// name, writes to input buffers, canonical loop nests, internal nodes doing
// work of their own, and extents that depend on instance ids.
//
//===----------------------------------------------------------------------===//
#include "RegionAnalysis.h"

#include "hpvm/ir/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hpvm {

namespace {

struct MemoryAccess {
  Value *Ptr;
  bool Writes;
};

/// Whether a call to F may write memory the caller can see: F (or a function
/// it calls) writes somewhere other than its own stack. Kernels call small
/// helpers without attributes, so the verifier looks inside them.
bool mayWriteCallerMemory(const Function &F,
                          SmallPtrSetImpl<const Function *> &Visiting) {
  if (F.onlyReadsMemory())
    return false;
  if (F.isDeclaration())
    return true;
  if (!Visiting.insert(&F).second)
    return false; // recursion: the other visit decides
  for (const Instruction &I : instructions(F)) {
    if (!hasSideEffect(I))
      continue;
    if (const auto *CB = dyn_cast<CallBase>(&I)) {
      const Function *Callee = CB->getCalledFunction();
      if (isa<MemIntrinsic>(CB) || !Callee ||
          mayWriteCallerMemory(*Callee, Visiting))
        return true;
      continue;
    }
    if (const auto *SI = dyn_cast<StoreInst>(&I))
      if (isa<AllocaInst>(getUnderlyingObject(SI->getPointerOperand())))
        continue;
    return true;
  }
  return false;
}

/// The pointers an instruction reads or writes through.
SmallVector<MemoryAccess, 2> accessesOf(Instruction &I) {
  SmallVector<MemoryAccess, 2> Result;
  if (auto *LI = dyn_cast<LoadInst>(&I))
    Result.push_back({LI->getPointerOperand(), false});
  else if (auto *SI = dyn_cast<StoreInst>(&I))
    Result.push_back({SI->getPointerOperand(), true});
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    Result.push_back({RMW->getPointerOperand(), true});
  else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    Result.push_back({CX->getPointerOperand(), true});
  else if (auto *MT = dyn_cast<MemTransferInst>(&I)) {
    Result.push_back({MT->getRawDest(), true});
    Result.push_back({MT->getRawSource(), false});
  } else if (auto *MS = dyn_cast<MemSetInst>(&I))
    Result.push_back({MS->getRawDest(), true});
  else if (auto *CB = dyn_cast<CallBase>(&I)) {
    if (isa<DbgInfoIntrinsic>(CB) || !CB->mayReadOrWriteMemory())
      return Result;
    if (auto *II = dyn_cast<IntrinsicInst>(CB))
      if (II->isLifetimeStartOrEnd() ||
          II->getIntrinsicID() == Intrinsic::assume)
        return Result;
    if (CB->getOperandBundle(tag::Node)) // a child region's entry
      return Result;
    bool Writes = !CB->onlyReadsMemory();
    if (Writes)
      if (const Function *Callee = CB->getCalledFunction()) {
        SmallPtrSet<const Function *, 8> Visiting;
        Writes = mayWriteCallerMemory(*Callee, Visiting);
      }
    for (unsigned K = 0; K != CB->arg_size(); ++K)
      if (CB->getArgOperand(K)->getType()->isPointerTy())
        Result.push_back(
            {CB->getArgOperand(K), Writes && !CB->onlyReadsMemory(K)});
  }
  return Result;
}

class Verifier {
public:
  Verifier(FunctionAnalyses &FA, Function &F) : FA(FA), F(F) {}
  unsigned run(const RegionForest &Forest);

private:
  void error(const std::string &Rule, const std::string &Message,
             const Region &R, const Instruction *At) {
    reportError(F.getContext(), Rule, Message, &F, R.Name, At);
    ++Errors;
  }
  void verify(const Region &R, const Region &Root);
  void checkEscapes(const Region &R);
  void checkMemory(const Region &R);
  void checkInternalWork(const Region &R);
  void checkIndirectBranches(const Region &R);
  void checkNonLocalControl(const Region &R);
  void checkExtents(const Region &R, const Region &Root);
  bool isPrivateAlloca(const AllocaInst *A, const Region &R);

  FunctionAnalyses &FA;
  Function &F;
  unsigned Errors = 0;
};

} // namespace

void Verifier::checkEscapes(const Region &R) {
  for (Instruction *I : R.instructions())
    for (Use &U : I->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      const Instruction *Where = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        Where = Phi->getIncomingBlock(U)->getTerminator();
      if (User != R.Exit && !R.contains(Where)) {
        error("escaping-value",
              "value " + describe(I) +
                  " is defined inside the region and used outside it",
              R, User);
        break;
      }
    }
}

/// An alloca is private to R if R is the only place it is used. Address
/// arithmetic on it may lie outside: LICM hoists `&a[1]` of a leaf's local
/// array out of the leaf's loop into an enclosing parallel loop, and EXTRACT
/// recomputes such pure values inside the leaf.
bool Verifier::isPrivateAlloca(const AllocaInst *A, const Region &R) {
  if (R.contains(A))
    return true;
  SmallVector<const Value *, 8> Work{A};
  SmallPtrSet<const Value *, 8> Seen;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (const User *U : V->users()) {
      const auto *UI = cast<Instruction>(U);
      bool Address = isa<GetElementPtrInst>(UI) || isa<CastInst>(UI);
      if (!Address && !R.contains(UI))
        return false;
      if (Address)
        Work.push_back(UI);
    }
  }
  return true;
}

void Verifier::checkMemory(const Region &R) {
  // Underlying object of each named buffer -> does the region write it?
  DenseMap<const Value *, bool> Named;
  for (const RegionBuffer &B : R.Buffers) {
    const Value *Obj = getUnderlyingObject(B.Ptr, 0);
    Named[Obj] |= writes(B.Mode);
  }
  for (Instruction *I : R.instructions())
    for (const MemoryAccess &A : accessesOf(*I)) {
      // The base the pointer is indexed from decides when it is one of the
      // node's buffers (a buffer may itself be a phi, e.g. arrays swapped
      // between launches); only otherwise look through phis and selects.
      SmallVector<const Value *, 4> Objects;
      const Value *Base = getUnderlyingObject(A.Ptr, 0);
      if (Named.count(Base))
        Objects.push_back(Base);
      else
        getUnderlyingObjects(A.Ptr, Objects, nullptr, 0);
      for (const Value *Obj : Objects) {
        if (const auto *AI = dyn_cast<AllocaInst>(Obj))
          if (isPrivateAlloca(AI, R))
            continue;
        // A constant (a string literal) that a call is given is read: a
        // function writing it would be undefined behaviour. A global
        // pointer read for its value (`fprintf(stderr, ...)`) is no buffer
        // of any node: what the host set.
        if (const auto *GV = dyn_cast<GlobalVariable>(Obj)) {
          if (GV->isConstant() && (!A.Writes || isa<CallBase>(I)))
            continue;
          if (isa<LoadInst>(I) && I->getType()->isPointerTy() &&
              GV->getValueType()->isPointerTy() && A.Ptr == GV)
            continue;
        }
        // ...and what it points to (a FILE), handed to a call.
        if (const auto *Load = dyn_cast<LoadInst>(Obj))
          if (isa<CallBase>(I) &&
              isa<GlobalVariable>(
                  Load->getPointerOperand()->stripPointerCasts()))
            continue;
        // What a call returned (strchr into a buffer the node reads): only
        // the host runs such code (GPU targets leave it out), where a
        // read sees what the node's buffers hold. Where it writes, no
        // buffer can be said to be written.
        if (const auto *Call = dyn_cast<CallBase>(Obj);
            Call && !isa<IntrinsicInst>(Call) && !Named.count(Obj)) {
          if (!A.Writes)
            continue;
          const Function *Callee = Call->getCalledFunction();
          error("unnamed-pointer",
                "writes through " + describe(A.Ptr) + ", a pointer that " +
                    (Callee ? "'" + Callee->getName().str() + "'"
                            : std::string("a call")) +
                    " returned, so the node cannot say which of its buffers "
                    "it writes; write through the buffer's own pointer",
                R, I);
          return;
        }
        auto It = Named.find(Obj);
        if (It == Named.end()) {
          error("unnamed-pointer",
                "pointer " + describe(A.Ptr) + " (based on " + describe(Obj) +
                    ") is dereferenced but not named in any hpvm.in, "
                    "hpvm.out or hpvm.inout bundle of the node",
                R, I);
          return;
        }
        if (A.Writes && !It->second) {
          error("write-to-input",
                "writes through " + describe(A.Ptr) + ", part of buffer " +
                    describe(Obj) + " which the node declares hpvm.in only",
                R, I);
          return;
        }
      }
    }
}

void Verifier::checkInternalWork(const Region &R) {
  for (Instruction *I : R.instructions()) {
    bool InChild = false;
    for (const auto &C : R.Children)
      InChild |= C->contains(I) || I == C->Entry || I == C->Exit;
    if (InChild || I->isTerminator() || isa<PHINode>(I) ||
        isa<DbgInfoIntrinsic>(I))
      continue;
    if (I->mayReadOrWriteMemory() && hasSideEffect(*I)) {
      error("internal-side-effect",
            "an internal node may not write memory or call functions with "
            "side effects outside its children",
            R, I);
      return;
    }
    if (I->mayReadFromMemory()) {
      error("internal-side-effect",
            "an internal node may not read memory outside its children; "
            "move the load into a child node",
            R, I);
      return;
    }
  }
}

/// EXTRACT moves a region's blocks into a function of their own: a block's
/// address (blockaddress, indirectbr, callbr) would still name the old one.
void Verifier::checkIndirectBranches(const Region &R) {
  for (Instruction *I : R.instructions()) {
    bool Address = isa<IndirectBrInst>(I) || isa<CallBrInst>(I);
    for (const Use &Op : I->operands())
      Address |= isa<BlockAddress>(Op.get());
    if (Address) {
      error("indirect-branch",
            "block addresses and indirect branches ('goto *p', asm goto) "
            "cannot be moved into a node's function",
            R, I);
      return;
    }
  }
}

/// A node's function is called by a runtime that neither unwinds through
/// it nor returns into it twice: exception handling (the landing pad also
/// needs the enclosing function's personality, which the node's function
/// does not get) and setjmp-like calls cannot be moved there.
void Verifier::checkNonLocalControl(const Region &R) {
  for (Instruction *I : R.instructions()) {
    if (I->isEHPad() || isa<InvokeInst>(I) || isa<ResumeInst>(I)) {
      error("exception-handling",
            "exception handling (invoke, landing pads: a try/catch, or a "
            "call that may throw with cleanups to run) cannot be moved into "
            "a node's function; catch outside the node, or call functions "
            "that do not throw (noexcept)",
            R, I);
      return;
    }
    if (auto *Call = dyn_cast<CallBase>(I);
        Call && Call->hasFnAttr(Attribute::ReturnsTwice)) {
      error("returns-twice",
            "a call that may return twice (setjmp, vfork) cannot be moved "
            "into a node's function",
            R, I);
      return;
    }
  }
}

void Verifier::checkExtents(const Region &R, const Region &Root) {
  SmallVector<Value *, 8> Extents(R.Dims.begin(), R.Dims.end());
  append_range(Extents, R.Group);
  for (const RegionBuffer &B : R.Buffers)
    Extents.push_back(B.Bytes);
  for (Value *Extent : Extents) {
    SmallVector<Value *, 8> Work{Extent};
    SmallPtrSet<Value *, 8> Seen;
    while (!Work.empty()) {
      auto *I = dyn_cast<Instruction>(Work.pop_back_val());
      if (!I || !Seen.insert(I).second || !Root.contains(I))
        continue;
      if (isa<PHINode>(I) || I->mayReadFromMemory()) {
        error("dynamic-extent",
              "extent " + describe(Extent) +
                  " depends on an instance id or on memory of an enclosing "
                  "node; extents must be known when the graph is launched",
              R, R.Entry);
        return;
      }
      for (Value *Op : I->operands())
        Work.push_back(Op);
    }
  }
}

void Verifier::verify(const Region &R, const Region &Root) {
  checkEscapes(R);
  checkMemory(R);
  checkIndirectBranches(R);
  checkNonLocalControl(R);
  if (!R.isLeaf())
    checkInternalWork(R);
  if (&R != &Root)
    checkExtents(R, Root);
  if (!R.Dims.empty())
    findParallelNest(R, FA, Errors);
  for (const auto &C : R.Children)
    verify(*C, Root);
}

unsigned Verifier::run(const RegionForest &Forest) {
  for (const auto &Root : Forest.Roots)
    verify(*Root, *Root);
  return Errors;
}

unsigned verifyRegionForest(const RegionForest &Forest, FunctionAnalyses &FA) {
  return Verifier(FA, *Forest.F).run(Forest);
}

} // namespace hpvm
