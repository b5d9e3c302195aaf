//===- SPIRVPrepare.cpp - A leaf as a kernel the emitter can translate ----===//
//
// The emitter translates one LLVM instruction at a time and knows nothing of
// calls, vectors, memcpy, switches or unstructured control flow; this file
// makes sure none is left:
//
//  * the kernel function: ids from the global invocation id (placeholder
//    calls), `id < extent` for every dim around the leaf (the dispatch is
//    rounded up to whole work groups), the leaf and everything it calls
//    inlined (SPIR-V shaders may not recurse, and a call per instance costs
//    more than the code);
//  * LLVM's -O2 function simplification pipeline (no vectorisers, no
//    library calls) so that private variables become SSA values, then the
//    Scalarizer (SPIR-V vectors exist, but LLVM's arbitrary widths and
//    shuffles do not map);
//  * memcpy/memset as loads and stores, float and other read-modify-write
//    atomics SPIR-V lacks as compare-and-swap loops, a few integer
//    intrinsics (funnel shifts, saturation, byte swaps) as plain arithmetic;
//  * `unreachable` as `ret` (undefined behaviour may do anything, and a
//    single exit is what structurisation needs);
//  * a load or store through a pointer merged from pointers into different
//    arrays (a buffer and a constant table) as one access per array behind
//    a branch;
//  * Vulkan: lowerswitch -> fix-irreducible -> loop-simplify ->
//    unify-loop-exits -> structurizecfg, then our own fix-ups so that every
//    loop has a preheader, one latch (the continue target, a block of its
//    own), one dedicated exit (the loop's merge block), a header that only
//    branches to its body, and every other conditional branch a merge block
//    (its immediate post-dominator) that no other construct claims;
//  * OpenCL: only lowerswitch; the Kernel environment needs no structure.
//
//===----------------------------------------------------------------------===//
#include "SPIRVInternal.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Inlining.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/AggressiveInstCombine/AggressiveInstCombine.h"
#include "llvm/Transforms/Scalar/DCE.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"
#include "llvm/Transforms/Scalar/StructurizeCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/FixIrreducible.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"
#include "llvm/Transforms/Utils/LowerMemIntrinsics.h"
#include "llvm/Transforms/Utils/LowerSwitch.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"
#include "llvm/Transforms/Utils/UnifyLoopExits.h"

using namespace llvm;

namespace hpvm::spirv {

Error nodeError(const KernelJob &Job, const Twine &Message) {
  return gpu::nodeError(*Job.N, Message);
}

std::optional<std::array<uint32_t, 3>> spirvWorkGroupSize(const Node &N) {
  if (N.Group.empty() || N.Group.size() > 3)
    return std::nullopt;
  std::array<uint32_t, 3> Size = {1, 1, 1};
  uint64_t Items = 1;
  size_t G = N.Group.size();
  for (size_t A = 0; A != G; ++A) {
    const Extent &E = N.Group[G - 1 - A];
    if (!E.isConstant() || E.value() < 1 || E.value() > 1024)
      return std::nullopt;
    Size[A] = static_cast<uint32_t>(E.value());
    Items *= E.value();
  }
  if (Items > 1024)
    return std::nullopt;
  return Size;
}

bool spirvHasWorkGroupKernel(const Node &N) {
  if (N.Group.empty() || N.Group.size() > 3)
    return false;
  uint64_t Items = 1;
  for (const Extent &E : N.Group)
    if (E.isConstant()) {
      if (E.value() < 1 || E.value() > 1024)
        return false;
      Items *= E.value();
    }
  return Items <= 1024;
}

Error unsupported(const KernelJob &Job, const Instruction *At,
                  const Twine &What) {
  return gpu::unsupportedIn(
      *Job.N, "spirv backend (" + Twine(toString(Job.Flavour)) + ")", At, What);
}

namespace {

/// A pure placeholder function, so that the optimisations may move, merge
/// or drop its calls like any arithmetic.
Function *getPlaceholder(Module &M, StringRef Name, unsigned NumArgs) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<Type *, 2> Params(NumArgs, Type::getInt32Ty(Ctx));
  FunctionType *Ty =
      FunctionType::get(Type::getInt64Ty(Ctx), Params, /*isVarArg=*/false);
  Function *F = M.getFunction(Name);
  if (!F) {
    F = Function::Create(Ty, GlobalValue::ExternalLinkage, Name, M);
    F->setDoesNotAccessMemory();
    F->setDoesNotThrow();
    F->setWillReturn();
    F->addFnAttr(Attribute::Speculatable);
    F->addFnAttr(Attribute::NoSync);
  }
  return F;
}

void runPasses(Function &F,
               function_ref<void(FunctionPassManager &, PassBuilder &)> Add) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  // The device has no C library: no call may be turned into another libc
  // function (printf into puts, a loop into memset), and the diagnostics
  // should name what the source called. The emitter recognises libm names
  // itself.
  TargetLibraryInfoImpl TLII(Triple(F.getParent()->getTargetTriple()));
  TLII.disableAllFunctions();
  FAM.registerPass([&] { return TargetLibraryAnalysis(TLII); });
  PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  FunctionPassManager FPM;
  Add(FPM, PB);
  FPM.run(F, FAM);
}

//===--------------------------------------------------------------------===//
// Lowerings
//===--------------------------------------------------------------------===//

/// The one access size (1, 2, 4 or 8 bytes) of the loads and stores into
/// the private array (alloca or constant global) Ptr points into, or 0.
/// The emitter indexes private arrays in elements of one size, so a memcpy
/// or memset into one must use that size too.
uint64_t privateElementBytes(Value *Ptr, const DataLayout &DL) {
  const Value *Root = getUnderlyingObject(Ptr, /*MaxLookup=*/0);
  if (!isa<AllocaInst>(Root) && !isa<GlobalVariable>(Root))
    return 0;
  uint64_t Size = 0;
  SmallVector<const Value *, 8> Work{Root};
  SmallPtrSet<const Value *, 16> Seen{Root};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      Type *T = nullptr;
      if (auto *L = dyn_cast<LoadInst>(U))
        T = L->getType();
      else if (auto *S = dyn_cast<StoreInst>(U);
               S && S->getPointerOperand() == V)
        T = S->getValueOperand()->getType();
      else if (isa<GetElementPtrInst>(U) || isa<PHINode>(U) ||
               isa<SelectInst>(U) || isa<BitCastInst>(U) ||
               isa<AddrSpaceCastInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
        continue;
      }
      if (!T || !T->isSized())
        continue;
      uint64_t Bytes = DL.getTypeStoreSize(T);
      if (Size && Size != Bytes)
        return 0;
      Size = Bytes;
    }
  }
  return isPowerOf2_64(Size) && Size <= 8 ? Size : 0;
}

/// memcpy/memmove/memset of a constant size become loads and stores of one
/// integer width: the element size of the private array they touch, or
/// else the widest that the size and both alignments allow. Up to 16 are
/// written out, more go in a loop (memmove only unrolled: it may overlap).
bool expandConstantMemIntrinsic(MemIntrinsic *MI) {
  auto *Len = dyn_cast<ConstantInt>(MI->getLength());
  if (!Len || Len->getZExtValue() == 0 || Len->getZExtValue() > (1u << 20))
    return false;
  const DataLayout &DL = MI->getModule()->getDataLayout();
  uint64_t Bytes = Len->getZExtValue();
  Align A = MI->getDestAlign().valueOrOne();
  auto *Transfer = dyn_cast<MemTransferInst>(MI);
  if (Transfer)
    A = std::min(A, Transfer->getSourceAlign().valueOrOne());
  uint64_t W = privateElementBytes(MI->getDest(), DL);
  if (!W && Transfer)
    W = privateElementBytes(Transfer->getSource(), DL);
  if (!W || Bytes % W) {
    W = 8;
    while (W > 1 && (Bytes % W || A.value() < W))
      W /= 2;
  }
  uint64_t Count = Bytes / W;
  bool Move = isa<MemMoveInst>(MI);
  if (Count > 16 && Move)
    return false;
  LLVMContext &Ctx = MI->getContext();
  Type *T = Type::getIntNTy(Ctx, W * 8);
  bool Volatile = MI->isVolatile();

  IRBuilder<> B(MI);
  Value *Fill = nullptr;
  if (auto *Set = dyn_cast<MemSetInst>(MI)) {
    Value *Byte = Set->getValue();
    if (auto *C = dyn_cast<ConstantInt>(Byte))
      Fill = ConstantInt::get(T, APInt::getSplat(W * 8, C->getValue()));
    else
      Fill =
          B.CreateMul(B.CreateZExt(Byte, T),
                      ConstantInt::get(T, APInt::getSplat(W * 8, APInt(8, 1))));
  } else if (!Transfer) {
    return false;
  }
  auto Element = [&](IRBuilder<> &IB, Value *Base, Value *Index) {
    return IB.CreateInBoundsGEP(T, Base, Index);
  };
  if (Count <= 16) {
    // Load everything first: memmove allows overlap.
    SmallVector<Value *, 16> Values;
    if (Transfer)
      for (uint64_t K = 0; K < Count; ++K)
        Values.push_back(B.CreateAlignedLoad(
            T, Element(B, Transfer->getSource(), B.getInt64(K)),
            commonAlignment(A, K * W), Volatile));
    for (uint64_t K = 0; K < Count; ++K)
      B.CreateAlignedStore(Fill ? Fill : Values[K],
                           Element(B, MI->getDest(), B.getInt64(K)),
                           commonAlignment(A, K * W), Volatile);
    MI->eraseFromParent();
    return true;
  }
  // for (i = 0; i < Count; ++i) dst[i] = src[i] (or the fill value)
  BasicBlock *Before = MI->getParent();
  BasicBlock *After = SplitBlock(Before, MI);
  BasicBlock *Loop =
      BasicBlock::Create(Ctx, "mem.loop", Before->getParent(), After);
  Before->getTerminator()->setSuccessor(0, Loop);
  IRBuilder<> LB(Loop);
  PHINode *I = LB.CreatePHI(LB.getInt64Ty(), 2, "mem.i");
  I->addIncoming(LB.getInt64(0), Before);
  Align EA = commonAlignment(A, W);
  Value *V = Fill ? Fill
                  : LB.CreateAlignedLoad(
                        T, Element(LB, Transfer->getSource(), I), EA, Volatile);
  LB.CreateAlignedStore(V, Element(LB, MI->getDest(), I), EA, Volatile);
  Value *Next = LB.CreateNUWAdd(I, LB.getInt64(1));
  I->addIncoming(Next, Loop);
  LB.CreateCondBr(LB.CreateICmpULT(Next, LB.getInt64(Count)), Loop, After);
  MI->eraseFromParent();
  return true;
}

void lowerMemIntrinsics(Function &F) {
  SmallVector<MemIntrinsic *, 4> Work;
  for (Instruction &I : instructions(F))
    if (auto *MI = dyn_cast<MemIntrinsic>(&I))
      Work.push_back(MI);
  TargetTransformInfo TTI(F.getParent()->getDataLayout());
  for (MemIntrinsic *MI : Work) {
    if (expandConstantMemIntrinsic(MI))
      continue;
    if (auto *Cpy = dyn_cast<MemCpyInst>(MI)) {
      expandMemCpyAsLoop(Cpy, TTI);
      Cpy->eraseFromParent();
    } else if (auto *Move = dyn_cast<MemMoveInst>(MI)) {
      if (expandMemMoveAsLoop(Move, TTI))
        Move->eraseFromParent();
    } else if (auto *Set = dyn_cast<MemSetInst>(MI)) {
      expandMemSetAsLoop(Set);
      Set->eraseFromParent();
    }
  }
}

bool isNativeAtomicRMW(const AtomicRMWInst &AI) {
  if (!AI.getType()->isIntegerTy() && !AI.getType()->isPointerTy())
    return false;
  switch (AI.getOperation()) {
  case AtomicRMWInst::Xchg:
  case AtomicRMWInst::Add:
  case AtomicRMWInst::Sub:
  case AtomicRMWInst::And:
  case AtomicRMWInst::Or:
  case AtomicRMWInst::Xor:
  case AtomicRMWInst::Max:
  case AtomicRMWInst::Min:
  case AtomicRMWInst::UMax:
  case AtomicRMWInst::UMin:
    return !AI.getType()->isPointerTy() ||
           AI.getOperation() == AtomicRMWInst::Xchg;
  default:
    return false;
  }
}

/// atomicrmw that SPIR-V has no instruction for (fadd, fmin, nand, ...) as
/// a compare-and-swap loop on the value's bits. The C surface's reductions
/// on floats produce these; the float-atomic extensions would need device
/// features that a loop does not.
void expandToCompareAndSwap(AtomicRMWInst *AI) {
  BasicBlock *BB = AI->getParent();
  Function *F = BB->getParent();
  LLVMContext &Ctx = F->getContext();
  const DataLayout &DL = F->getParent()->getDataLayout();
  Type *T = AI->getType();
  Type *IntT =
      T->isIntegerTy() ? T : Type::getIntNTy(Ctx, DL.getTypeSizeInBits(T));
  Value *Addr = AI->getPointerOperand();

  IRBuilder<> B(AI);
  LoadInst *Guess =
      B.CreateAlignedLoad(T, Addr, AI->getAlign(), "atomic.guess");
  BasicBlock *End = BB->splitBasicBlock(AI->getIterator(), "atomicrmw.end");
  BasicBlock *Loop = BasicBlock::Create(Ctx, "atomicrmw.loop", F, End);
  BB->getTerminator()->setSuccessor(0, Loop);

  B.SetInsertPoint(Loop);
  PHINode *Old = B.CreatePHI(T, 2, "atomic.old");
  Old->addIncoming(Guess, BB);
  Value *New =
      buildAtomicRMWValue(AI->getOperation(), B, Old, AI->getValOperand());
  Value *OldBits =
      T == IntT ? static_cast<Value *>(Old) : B.CreateBitCast(Old, IntT);
  Value *NewBits = T == IntT ? New : B.CreateBitCast(New, IntT);
  AtomicCmpXchgInst *CX = B.CreateAtomicCmpXchg(
      Addr, OldBits, NewBits, AI->getAlign(), AI->getOrdering(),
      AtomicCmpXchgInst::getStrongestFailureOrdering(AI->getOrdering()),
      AI->getSyncScopeID());
  CX->setVolatile(AI->isVolatile());
  Value *SeenBits = B.CreateExtractValue(CX, 0, "atomic.seen");
  Value *Done = B.CreateExtractValue(CX, 1, "atomic.done");
  Value *Seen = T == IntT ? SeenBits : B.CreateBitCast(SeenBits, T);
  Old->addIncoming(Seen, Loop);
  B.CreateCondBr(Done, End, Loop);
  if (Seen != SeenBits)
    Seen->takeName(AI);
  AI->replaceAllUsesWith(Seen);
  AI->eraseFromParent();
}

void lowerAtomics(Function &F) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  SmallVector<Instruction *, 8> Work;
  for (Instruction &I : instructions(F))
    if (isa<AtomicRMWInst>(I) || isa<LoadInst>(I) || isa<StoreInst>(I))
      Work.push_back(&I);
  for (Instruction *I : Work) {
    LLVMContext &Ctx = I->getContext();
    if (auto *AI = dyn_cast<AtomicRMWInst>(I)) {
      Type *T = AI->getType();
      if (isNativeAtomicRMW(*AI))
        continue;
      if (AI->getOperation() == AtomicRMWInst::Xchg && T->isFloatingPointTy()) {
        // An exchange only moves bits.
        IRBuilder<> B(AI);
        Type *IntT = Type::getIntNTy(Ctx, DL.getTypeSizeInBits(T));
        auto *X = B.CreateAtomicRMW(
            AtomicRMWInst::Xchg, AI->getPointerOperand(),
            B.CreateBitCast(AI->getValOperand(), IntT), AI->getAlign(),
            AI->getOrdering(), AI->getSyncScopeID());
        X->setVolatile(AI->isVolatile());
        Value *Cast = B.CreateBitCast(X, T);
        Cast->takeName(AI);
        AI->replaceAllUsesWith(Cast);
        AI->eraseFromParent();
        continue;
      }
      expandToCompareAndSwap(AI);
      continue;
    }
    // Atomic loads and stores of floats move bits too; SPIR-V's are
    // defined on integers everywhere.
    if (auto *LI = dyn_cast<LoadInst>(I);
        LI && LI->isAtomic() && LI->getType()->isFloatingPointTy()) {
      IRBuilder<> B(LI);
      Type *IntT = Type::getIntNTy(Ctx, DL.getTypeSizeInBits(LI->getType()));
      LoadInst *New = B.CreateAlignedLoad(IntT, LI->getPointerOperand(),
                                          LI->getAlign(), LI->isVolatile());
      New->setAtomic(LI->getOrdering(), LI->getSyncScopeID());
      Value *Cast = B.CreateBitCast(New, LI->getType());
      Cast->takeName(LI);
      LI->replaceAllUsesWith(Cast);
      LI->eraseFromParent();
    } else if (auto *SI = dyn_cast<StoreInst>(I);
               SI && SI->isAtomic() &&
               SI->getValueOperand()->getType()->isFloatingPointTy()) {
      IRBuilder<> B(SI);
      Type *T = SI->getValueOperand()->getType();
      Type *IntT = Type::getIntNTy(Ctx, DL.getTypeSizeInBits(T));
      StoreInst *New = B.CreateAlignedStore(
          B.CreateBitCast(SI->getValueOperand(), IntT), SI->getPointerOperand(),
          SI->getAlign(), SI->isVolatile());
      New->setAtomic(SI->getOrdering(), SI->getSyncScopeID());
      SI->eraseFromParent();
    }
  }
}

/// {result, overflowed} of `*.with.overflow` (InstCombine makes them of C's
/// overflow checks, e.g. `x * y / y != x`) for their extractvalue users.
/// Products are formed in twice the width, or for 64 bits checked by
/// dividing back.
void lowerWithOverflow(IntrinsicInst *II) {
  Type *T = II->getArgOperand(0)->getType();
  if (!T->isIntegerTy() || !all_of(II->users(), [](const User *U) {
        auto *EV = dyn_cast<ExtractValueInst>(U);
        return EV && EV->getNumIndices() == 1;
      }))
    return; // the emitter reports the intrinsic
  unsigned W = T->getIntegerBitWidth();
  IRBuilder<> B(II);
  Value *A = II->getArgOperand(0), *Bv = II->getArgOperand(1);
  Value *Zero = ConstantInt::get(T, 0);
  Value *R, *Ovf;
  switch (II->getIntrinsicID()) {
  case Intrinsic::uadd_with_overflow:
    R = B.CreateAdd(A, Bv);
    Ovf = B.CreateICmpULT(R, A);
    break;
  case Intrinsic::sadd_with_overflow:
    R = B.CreateAdd(A, Bv);
    Ovf = B.CreateICmpSLT(B.CreateAnd(B.CreateXor(R, A), B.CreateXor(R, Bv)),
                          Zero);
    break;
  case Intrinsic::usub_with_overflow:
    R = B.CreateSub(A, Bv);
    Ovf = B.CreateICmpULT(A, Bv);
    break;
  case Intrinsic::ssub_with_overflow:
    R = B.CreateSub(A, Bv);
    Ovf = B.CreateICmpSLT(B.CreateAnd(B.CreateXor(A, Bv), B.CreateXor(A, R)),
                          Zero);
    break;
  default: {
    bool Signed = II->getIntrinsicID() == Intrinsic::smul_with_overflow;
    R = B.CreateMul(A, Bv);
    if (W <= 32) {
      Type *Wide = B.getIntNTy(2 * W);
      Value *P =
          Signed ? B.CreateMul(B.CreateSExt(A, Wide), B.CreateSExt(Bv, Wide))
                 : B.CreateMul(B.CreateZExt(A, Wide), B.CreateZExt(Bv, Wide));
      Value *Back = Signed ? B.CreateSExt(R, Wide) : B.CreateZExt(R, Wide);
      Ovf = B.CreateICmpNE(P, Back);
    } else if (!Signed) {
      // a != 0 && r / a != b
      Value *Div = B.CreateUDiv(R, B.CreateSelect(B.CreateICmpEQ(A, Zero),
                                                  ConstantInt::get(T, 1), A));
      Ovf = B.CreateAnd(B.CreateICmpNE(A, Zero), B.CreateICmpNE(Div, Bv));
    } else {
      // a == -1: only b == MIN overflows; otherwise as unsigned, with a
      // divisor that is never 0 or -1 (whose quotient could overflow).
      Value *MinusOne = Constant::getAllOnesValue(T);
      Value *Safe = B.CreateSelect(
          B.CreateOr(B.CreateICmpEQ(A, Zero), B.CreateICmpEQ(A, MinusOne)),
          ConstantInt::get(T, 1), A);
      Value *Other = B.CreateAnd(B.CreateICmpNE(A, Zero),
                                 B.CreateICmpNE(B.CreateSDiv(R, Safe), Bv));
      Value *MinB =
          B.CreateICmpEQ(Bv, ConstantInt::get(T, APInt::getSignedMinValue(W)));
      Ovf = B.CreateSelect(B.CreateICmpEQ(A, MinusOne), MinB, Other);
    }
    break;
  }
  }
  for (User *U : make_early_inc_range(II->users())) {
    auto *EV = cast<ExtractValueInst>(U);
    EV->replaceAllUsesWith(EV->getIndices()[0] == 0 ? R : Ovf);
    EV->eraseFromParent();
  }
  II->eraseFromParent();
}

/// Integer intrinsics with no SPIR-V (or GLSL.std.450) counterpart, written
/// out in plain arithmetic.
void lowerIntrinsics(Function &F) {
  SmallVector<IntrinsicInst *, 8> Work;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      Work.push_back(II);
  for (IntrinsicInst *II : Work) {
    IRBuilder<> B(II);
    Type *T = II->getType();
    Value *Result = nullptr;
    switch (II->getIntrinsicID()) {
    case Intrinsic::fshl:
    case Intrinsic::fshr: {
      if (!T->isIntegerTy())
        break;
      unsigned W = T->getIntegerBitWidth();
      Value *A = II->getArgOperand(0), *Bv = II->getArgOperand(1);
      Value *S = B.CreateURem(II->getArgOperand(2), ConstantInt::get(T, W));
      Value *Rest = B.CreateSub(ConstantInt::get(T, W), S);
      bool Left = II->getIntrinsicID() == Intrinsic::fshl;
      Value *Hi = B.CreateShl(A, Left ? S : Rest);
      Value *Lo = B.CreateLShr(Bv, Left ? Rest : S);
      // A shift by the whole width is poison; the select drops it.
      Result = B.CreateSelect(B.CreateICmpEQ(S, ConstantInt::get(T, 0)),
                              Left ? A : Bv, B.CreateOr(Hi, Lo));
      break;
    }
    case Intrinsic::uadd_sat: {
      Value *S = B.CreateAdd(II->getArgOperand(0), II->getArgOperand(1));
      Result = B.CreateSelect(B.CreateICmpULT(S, II->getArgOperand(0)),
                              Constant::getAllOnesValue(T), S);
      break;
    }
    case Intrinsic::usub_sat: {
      Value *A = II->getArgOperand(0), *Bv = II->getArgOperand(1);
      Result = B.CreateSelect(B.CreateICmpULT(A, Bv), Constant::getNullValue(T),
                              B.CreateSub(A, Bv));
      break;
    }
    case Intrinsic::sadd_sat:
    case Intrinsic::ssub_sat: {
      if (!T->isIntegerTy())
        break;
      unsigned W = T->getIntegerBitWidth();
      Value *A = II->getArgOperand(0), *Bv = II->getArgOperand(1);
      bool Add = II->getIntrinsicID() == Intrinsic::sadd_sat;
      Value *R = Add ? B.CreateAdd(A, Bv) : B.CreateSub(A, Bv);
      // Overflow: the operands' signs agree (add) or differ (sub) and the
      // result's sign differs from the first operand's.
      Value *Ovf = Add ? B.CreateAnd(B.CreateXor(R, A), B.CreateXor(R, Bv))
                       : B.CreateAnd(B.CreateXor(A, Bv), B.CreateXor(A, R));
      Value *IsOvf = B.CreateICmpSLT(Ovf, ConstantInt::get(T, 0));
      Value *Sat =
          B.CreateSelect(B.CreateICmpSLT(A, ConstantInt::get(T, 0)),
                         ConstantInt::get(T, APInt::getSignedMinValue(W)),
                         ConstantInt::get(T, APInt::getSignedMaxValue(W)));
      Result = B.CreateSelect(IsOvf, Sat, R);
      break;
    }
    case Intrinsic::bswap: {
      if (!T->isIntegerTy())
        break;
      unsigned Bytes = T->getIntegerBitWidth() / 8;
      Value *X = II->getArgOperand(0);
      for (unsigned K = 0; K < Bytes; ++K) {
        Value *Byte = B.CreateAnd(B.CreateLShr(X, 8 * K), 0xff);
        Value *Moved = B.CreateShl(Byte, 8 * (Bytes - 1 - K));
        Result = Result ? B.CreateOr(Result, Moved) : Moved;
      }
      break;
    }
    case Intrinsic::powi: {
      Value *N = B.CreateSIToFP(II->getArgOperand(1), T);
      Result = B.CreateBinaryIntrinsic(Intrinsic::pow, II->getArgOperand(0), N);
      break;
    }
    case Intrinsic::uadd_with_overflow:
    case Intrinsic::sadd_with_overflow:
    case Intrinsic::usub_with_overflow:
    case Intrinsic::ssub_with_overflow:
    case Intrinsic::umul_with_overflow:
    case Intrinsic::smul_with_overflow:
      lowerWithOverflow(II);
      continue;
    default:
      break;
    }
    if (Result) {
      II->replaceAllUsesWith(Result);
      II->eraseFromParent();
    }
  }
}

/// Undefined behaviour may do anything, including return: one exit is what
/// structurisation works with, and SPIR-V's OpUnreachable would only make
/// a merge block unreachable.
void replaceUnreachable(Function &F) {
  for (BasicBlock &BB : F)
    if (auto *U = dyn_cast<UnreachableInst>(BB.getTerminator())) {
      ReturnInst::Create(F.getContext(), nullptr, U);
      U->eraseFromParent();
    }
}

//===--------------------------------------------------------------------===//
// Accesses through pointers into different arrays
//===--------------------------------------------------------------------===//

/// What a pointer may point into, as the emitter tells private arrays from
/// buffers: nothing known yet (undef), buffer memory, one private array
/// (its alloca or global), or several of these.
struct Origin {
  enum Kind { None, Buffer, Object, Mixed } K = None;
  const Value *Root = nullptr;

  bool operator==(const Origin &O) const { return K == O.K && Root == O.Root; }
  bool operator!=(const Origin &O) const { return !(*this == O); }
  static Origin join(Origin A, Origin B) {
    if (A.K == None)
      return B;
    if (B.K == None || A == B)
      return A;
    return {Mixed, nullptr};
  }
};

using OriginMap = DenseMap<const Value *, Origin>;

Origin originOf(const Value *V, const OriginMap &Known) {
  while (auto *CE = dyn_cast<ConstantExpr>(V)) {
    if (CE->getOpcode() != Instruction::GetElementPtr &&
        CE->getOpcode() != Instruction::BitCast &&
        CE->getOpcode() != Instruction::AddrSpaceCast)
      return {Origin::Buffer, nullptr};
    V = CE->getOperand(0);
  }
  if (isa<UndefValue>(V))
    return {};
  if (isa<GlobalVariable>(V) || isa<AllocaInst>(V))
    return {Origin::Object, V};
  if (isa<Instruction>(V))
    return Known.lookup(V);
  return {Origin::Buffer, nullptr};
}

/// The origin of every pointer instruction of F: a fixed point over phis
/// and selects (the lattice None < Buffer, Object < Mixed only rises).
OriginMap pointerOrigins(Function &F) {
  OriginMap Known;
  ReversePostOrderTraversal<Function *> RPOT(&F);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock *BB : RPOT)
      for (Instruction &I : *BB) {
        if (!I.getType()->isPointerTy())
          continue;
        Origin O;
        if (isa<AllocaInst>(I))
          O = {Origin::Object, &I};
        else if (auto *GEP = dyn_cast<GetElementPtrInst>(&I))
          O = originOf(GEP->getPointerOperand(), Known);
        else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) ||
                 isa<FreezeInst>(I))
          O = originOf(I.getOperand(0), Known);
        else if (auto *Phi = dyn_cast<PHINode>(&I))
          for (const Value *In : Phi->incoming_values())
            O = Origin::join(O, originOf(In, Known));
        else if (auto *Sel = dyn_cast<SelectInst>(&I))
          O = Origin::join(originOf(Sel->getTrueValue(), Known),
                           originOf(Sel->getFalseValue(), Known));
        else
          O = {Origin::Buffer, nullptr};
        if (O != Known.lookup(&I)) {
          Known[&I] = O;
          Changed = true;
        }
      }
  }
  return Known;
}

/// The memory accesses that reach pointer M only through address
/// arithmetic, each with the chain of instructions from M to its pointer
/// operand (outermost first). False when M has a use of another kind (it
/// is stored, compared, merged again...).
bool collectAccesses(Instruction *M,
                     SmallVectorImpl<SmallVector<Instruction *, 4>> &Out) {
  SmallVector<Instruction *, 4> Chain;
  std::function<bool(Instruction *)> Walk = [&](Instruction *P) {
    for (User *U : P->users()) {
      auto *I = cast<Instruction>(U);
      bool Address = false, Access = false;
      if (auto *GEP = dyn_cast<GetElementPtrInst>(I))
        Address = GEP->getPointerOperand() == P;
      else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) ||
               isa<FreezeInst>(I))
        Address = true;
      else if (auto *L = dyn_cast<LoadInst>(I))
        Access = L->getPointerOperand() == P;
      else if (auto *S = dyn_cast<StoreInst>(I))
        Access = S->getPointerOperand() == P && S->getValueOperand() != P;
      else if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
        Access = RMW->getPointerOperand() == P && RMW->getValOperand() != P;
      else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
        Access = CX->getPointerOperand() == P && CX->getCompareOperand() != P &&
                 CX->getNewValOperand() != P;
      if (Address) {
        Chain.push_back(I);
        bool OK = Walk(I);
        Chain.pop_back();
        if (!OK)
          return false;
      } else if (Access) {
        Out.emplace_back(Chain);
        Out.back().push_back(I);
      } else {
        return false;
      }
    }
    return true;
  };
  return Walk(M);
}

/// `load (phi [a, %x], [t, %y])`, with `a` in a buffer and `t` in a private
/// array, is what InstCombine makes of `c ? a[i] : t[j]`; the emitter keeps
/// buffer pointers as addresses and private ones as offsets into their
/// array, so it cannot translate the load. Each such access is split into
/// one access per array, chosen by a branch on where the pointer came from
/// (which incoming block, or the select's condition).
void splitMixedAccesses(Instruction *M, const OriginMap &Known,
                        ArrayRef<SmallVector<Instruction *, 4>> Accesses) {
  LLVMContext &Ctx = M->getContext();
  // The arrays, and which one each operand of M points into.
  SmallVector<Origin, 4> Groups;
  auto GroupOf = [&](const Value *V) {
    Origin O = originOf(V, Known);
    for (unsigned G = 0; G < Groups.size(); ++G)
      if (Groups[G] == O)
        return G;
    Groups.push_back(O);
    return unsigned(Groups.size() - 1);
  };
  Value *Which;
  SmallVector<Value *, 4> Pointers;
  if (auto *Sel = dyn_cast<SelectInst>(M)) {
    // Group 0 is the false operand: the condition is the group's index.
    GroupOf(Sel->getFalseValue());
    GroupOf(Sel->getTrueValue());
    Which = Sel->getCondition();
    Pointers = {Sel->getFalseValue(), Sel->getTrueValue()};
  } else {
    auto *Phi = cast<PHINode>(M);
    SmallVector<unsigned, 8> Of;
    for (const Value *In : Phi->incoming_values())
      Of.push_back(isa<UndefValue>(In) ? 0 : GroupOf(In));
    IRBuilder<> B(Phi);
    auto *WhichPhi =
        B.CreatePHI(Type::getInt32Ty(Ctx), Phi->getNumIncomingValues(), "from");
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K)
      WhichPhi->addIncoming(B.getInt32(Of[K]), Phi->getIncomingBlock(K));
    Which = WhichPhi;
    for (unsigned G = 0; G < Groups.size(); ++G) {
      auto *P = B.CreatePHI(Phi->getType(), Phi->getNumIncomingValues(),
                            Phi->getName() + ".a" + Twine(G));
      for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K)
        P->addIncoming(Of[K] == G ? Phi->getIncomingValue(K)
                                  : PoisonValue::get(Phi->getType()),
                       Phi->getIncomingBlock(K));
      Pointers.push_back(P);
    }
  }

  for (const SmallVector<Instruction *, 4> &Path : Accesses) {
    Instruction *Access = Path.back();
    BasicBlock *Head = Access->getParent();
    BasicBlock *Tail = Head->splitBasicBlock(Access, Head->getName() + ".join");
    Head->getTerminator()->eraseFromParent();
    SmallVector<BasicBlock *, 4> Arms;
    PHINode *Result = nullptr;
    if (!Access->getType()->isVoidTy())
      Result = PHINode::Create(Access->getType(), Groups.size(),
                               Access->getName(), Tail->begin());
    for (unsigned G = 0; G < Groups.size(); ++G) {
      BasicBlock *Arm = BasicBlock::Create(
          Ctx, Head->getName() + ".in" + Twine(G), &*Head->getParent(), Tail);
      Value *Prev = M, *New = Pointers[G];
      for (Instruction *I : Path) {
        Instruction *Copy = I->clone();
        Copy->replaceUsesOfWith(Prev, New);
        Copy->insertInto(Arm, Arm->end());
        Copy->setName(I->getName());
        Prev = I;
        New = Copy;
      }
      BranchInst::Create(Tail, Arm);
      if (Result)
        Result->addIncoming(New, Arm);
      Arms.push_back(Arm);
    }
    IRBuilder<> B(Head);
    if (Which->getType()->isIntegerTy(1)) {
      B.CreateCondBr(Which, Arms[1], Arms[0]);
    } else {
      SwitchInst *SI = B.CreateSwitch(Which, Arms[0], Arms.size() - 1);
      for (unsigned G = 1; G < Arms.size(); ++G)
        SI->addCase(B.getInt32(G), Arms[G]);
    }
    if (Result)
      Access->replaceAllUsesWith(Result);
    Access->eraseFromParent();
  }
  // The address arithmetic on M is dead now, and so is M. A chain
  // instruction comes after the one it uses in every path, so erasing from
  // the back erases users first.
  SmallSetVector<Instruction *, 8> Chain;
  for (const SmallVector<Instruction *, 4> &Path : Accesses)
    for (Instruction *I : ArrayRef(Path).drop_back())
      Chain.insert(I);
  for (Instruction *I : reverse(Chain))
    if (I->use_empty())
      I->eraseFromParent();
  if (M->use_empty())
    M->eraseFromParent();
}

/// Splits the accesses through every pointer that may point into more than
/// one array (private arrays, buffers) where that pointer is merged from
/// pointers that each point into one; any other use of such a pointer is
/// left to the emitter's diagnostic.
void splitMixedPointers(Function &F) {
  SmallPtrSet<Instruction *, 4> Skipped;
  for (;;) {
    OriginMap Known = pointerOrigins(F);
    Instruction *M = nullptr;
    SmallVector<SmallVector<Instruction *, 4>, 4> Accesses;
    for (Instruction &I : instructions(F)) {
      if (!(isa<PHINode>(I) || isa<SelectInst>(I)) || Skipped.count(&I) ||
          Known.lookup(&I).K != Origin::Mixed)
        continue;
      bool Merges = all_of(I.operands(), [&](const Use &U) {
        return !U->getType()->isPointerTy() ||
               originOf(U.get(), Known).K != Origin::Mixed;
      });
      Accesses.clear();
      if (Merges && collectAccesses(&I, Accesses)) {
        M = &I;
        break;
      }
      Skipped.insert(&I);
    }
    if (!M)
      return;
    splitMixedAccesses(M, Known, Accesses);
  }
}

/// Constant expressions (getelementptr on a global, ptrtoint, ...) become
/// instructions, so that the emitter sees every operation once.
/// The optimiser merges neighbouring stores into a private array into one
/// wider store (`uint16_t a[2] = {x, y}` becomes one i32 store), and loads
/// likewise; a SPIR-V array has one element type, so each integer access
/// wider than the array's narrowest one is split into accesses of that
/// size, little-endian (random seed 693).
void splitWideArrayAccesses(Function &F) {
  const DataLayout &DL = F.getDataLayout();
  LLVMContext &Ctx = F.getContext();
  auto AccessType = [](Instruction *I) -> Type * {
    if (auto *L = dyn_cast<LoadInst>(I))
      return L->isSimple() ? L->getType() : nullptr;
    if (auto *S = dyn_cast<StoreInst>(I))
      return S->isSimple() ? S->getValueOperand()->getType() : nullptr;
    return nullptr;
  };
  SmallVector<AllocaInst *, 8> Arrays;
  for (Instruction &I : F.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      Arrays.push_back(AI);
  for (AllocaInst *AI : Arrays) {
    // Lifetime markers mean nothing to SPIR-V, and would hide the accesses.
    for (User *U : make_early_inc_range(AI->users()))
      if (auto *II = dyn_cast<IntrinsicInst>(U);
          II && II->isLifetimeStartOrEnd())
        II->eraseFromParent();
    SmallVector<SmallVector<Instruction *, 4>, 8> Accesses;
    if (!collectAccesses(AI, Accesses))
      continue;
    uint64_t Narrowest = 0;
    for (auto &Chain : Accesses) {
      Type *T = AccessType(Chain.back());
      if (!T || !(T->isIntegerTy() || T->isFloatingPointTy()))
        continue;
      uint64_t Bytes = DL.getTypeStoreSize(T);
      if (!Narrowest || Bytes < Narrowest)
        Narrowest = Bytes;
    }
    if (!Narrowest)
      continue;
    Type *Part = Type::getIntNTy(Ctx, 8 * Narrowest);
    for (auto &Chain : Accesses) {
      Instruction *I = Chain.back();
      Type *T = AccessType(I);
      if (!T || !T->isIntegerTy())
        continue;
      uint64_t Bytes = DL.getTypeStoreSize(T);
      if (Bytes == Narrowest || Bytes % Narrowest ||
          T->getIntegerBitWidth() != 8 * Bytes)
        continue;
      IRBuilder<> B(I);
      Value *Ptr = getLoadStorePointerOperand(I);
      Align A = commonAlignment(getLoadStoreAlignment(I), Narrowest);
      unsigned N = static_cast<unsigned>(Bytes / Narrowest);
      auto PartPtr = [&](unsigned K) {
        return K ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ptr,
                                                K * Narrowest)
                 : Ptr;
      };
      if (auto *S = dyn_cast<StoreInst>(I)) {
        Value *V = S->getValueOperand();
        for (unsigned K = 0; K != N; ++K)
          B.CreateAlignedStore(
              B.CreateTrunc(B.CreateLShr(V, K * 8 * Narrowest), Part),
              PartPtr(K), A, S->isVolatile());
      } else {
        auto *L = cast<LoadInst>(I);
        Value *Whole = ConstantInt::get(T, 0);
        for (unsigned K = 0; K != N; ++K) {
          Value *P = B.CreateAlignedLoad(Part, PartPtr(K), A, L->isVolatile());
          Whole = B.CreateOr(
              Whole, B.CreateShl(B.CreateZExt(P, T), K * 8 * Narrowest));
        }
        L->replaceAllUsesWith(Whole);
      }
      I->eraseFromParent();
    }
  }
}

void expandConstantExprs(Function &F) {
  // A phi may list one block twice; both entries must stay the same value.
  DenseMap<std::pair<PHINode *, BasicBlock *>, Instruction *> PhiDone;
  std::function<void(Instruction &)> Expand = [&](Instruction &I) {
    for (unsigned Op = 0; Op < I.getNumOperands(); ++Op) {
      auto *CE = dyn_cast<ConstantExpr>(I.getOperand(Op));
      if (!CE)
        continue;
      Instruction *At = &I;
      auto *Phi = dyn_cast<PHINode>(&I);
      if (Phi) {
        BasicBlock *In = Phi->getIncomingBlock(Op);
        if (Instruction *Done = PhiDone.lookup({Phi, In});
            Done && Phi->getIncomingValue(Op) == CE) {
          I.setOperand(Op, Done);
          continue;
        }
        At = In->getTerminator();
      }
      Instruction *New = CE->getAsInstruction();
      New->insertBefore(At);
      New->setDebugLoc(I.getDebugLoc());
      I.setOperand(Op, New);
      if (Phi)
        PhiDone[{Phi, Phi->getIncomingBlock(Op)}] = New;
      Expand(*New);
    }
  };
  SmallVector<Instruction *, 64> All;
  for (Instruction &I : instructions(F))
    All.push_back(&I);
  for (Instruction *I : All)
    Expand(*I);
}

//===--------------------------------------------------------------------===//
// Structure (Vulkan)
//===--------------------------------------------------------------------===//

Error structureError(const KernelJob &Job, const BasicBlock *BB,
                     const Twine &Why) {
  std::string Name;
  raw_string_ostream OS(Name);
  BB->printAsOperand(OS, /*PrintType=*/false);
  return nodeError(Job, "the spirv backend could not structure the control "
                        "flow of leaf function '@" +
                            Job.N->Function + "' for Vulkan: " + Why +
                            " (block " + OS.str() + ")");
}

/// A loop with no way out is left by the optimiser where nothing after it
/// can matter (an instance that got there would never end; it does not get
/// there in a program that terminates), but SPIR-V needs a merge block for
/// every loop. Each such loop's latch gets an exit that is never taken, to
/// a return.
void giveEndlessLoopsAnExit(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  LLVMContext &Ctx = F.getContext();
  for (Loop *L : LI.getLoopsInPreorder()) {
    SmallVector<BasicBlock *, 4> Latches;
    L->getLoopLatches(Latches);
    auto *Br = Latches.empty()
                   ? nullptr
                   : dyn_cast<BranchInst>(Latches.front()->getTerminator());
    if (!L->hasNoExitBlocks() || !Br || Br->isConditional())
      continue;
    BasicBlock *Never = BasicBlock::Create(Ctx, "endless.exit", &F);
    Type *Ret = F.getReturnType();
    ReturnInst::Create(Ctx, Ret->isVoidTy() ? nullptr : PoisonValue::get(Ret),
                       Never);
    BranchInst::Create(Never, L->getHeader(), ConstantInt::getFalse(Ctx), Br);
    Br->eraseFromParent();
  }
}

/// After structurizecfg every loop has one latch from which it also exits;
/// this makes the rest of SPIR-V's rules hold by splitting blocks (each
/// change starts the analysis over), then records the merge and continue
/// blocks of every header.
Error structure(Function &F, const KernelJob &Job, PreparedKernel &Out) {
  for (unsigned Round = 0;; ++Round) {
    if (Round > 100000)
      return structureError(Job, &F.getEntryBlock(),
                            "the fix-ups do not converge");
    DominatorTree DT(F);
    LoopInfo LI(DT);
    bool Changed = false;
    for (Loop *L : LI.getLoopsInPreorder()) {
      BasicBlock *H = L->getHeader();
      SmallVector<BasicBlock *, 4> Latches;
      L->getLoopLatches(Latches);
      if (Latches.size() != 1)
        return structureError(Job, H, "a loop with several back edges");
      BasicBlock *Latch = Latches.front();
      // Such a loop would need a merge block nothing reaches; a kernel that
      // never ends would hang the device anyway.
      if (L->hasNoExitBlocks())
        return structureError(Job, H, "a loop that never exits");
      SmallVector<BasicBlock *, 4> Exiting;
      L->getExitingBlocks(Exiting);
      if (Exiting.size() > 1 || (Exiting.size() == 1 && Exiting[0] != Latch))
        return structureError(Job, H,
                              "a loop that exits from another block than "
                              "its latch");
      // A preheader that only enters the loop: a selection before the loop
      // then merges there, not at the loop header.
      SmallVector<BasicBlock *, 4> Outside;
      for (BasicBlock *P : predecessors(H))
        if (!L->contains(P))
          Outside.push_back(P);
      if (Outside.size() != 1 ||
          Outside.front()->getTerminator()->getNumSuccessors() != 1) {
        SplitBlockPredecessors(H, Outside, ".preheader", &DT, &LI);
        Changed = true;
        break;
      }
      // The exit is the loop's merge block; it must belong to this loop.
      SmallVector<BasicBlock *, 2> Exits;
      L->getUniqueExitBlocks(Exits);
      if (Exits.size() > 1)
        return structureError(Job, H, "a loop with several exits");
      if (Exits.size() == 1 && !Exits.front()->getSinglePredecessor()) {
        SplitBlockPredecessors(Exits.front(), {Latch}, ".loopexit", &DT, &LI);
        Changed = true;
        break;
      }
      // The latch, the continue target, holds nothing but the back edge
      // (the exit test is computed before it): lavapipe (Mesa 22.3)
      // miscomputes loads in a continue construct that an atomic follows,
      // and such a construct is what compilers for GLSL never make.
      if (&Latch->front() != Latch->getTerminator()) {
        SplitBlock(Latch, Latch->getTerminator(), &DT, &LI, nullptr,
                   H->getName() + ".latch");
        Changed = true;
        break;
      }
      if (Latch == H)
        continue;
      // The header carries OpLoopMerge, so it cannot also be a selection
      // header.
      if (H->getTerminator()->getNumSuccessors() > 1) {
        SplitBlock(H, H->getFirstNonPHIIt(), &DT, &LI, nullptr,
                   H->getName() + ".body");
        Changed = true;
        break;
      }
      // The latch is the continue target; a selection in the body must
      // merge before it, in a block of the body.
      SmallVector<BasicBlock *, 4> LatchPreds(predecessors(Latch));
      if (LatchPreds.size() > 1 ||
          LatchPreds.front()->getTerminator()->getNumSuccessors() > 1) {
        SplitBlockPredecessors(Latch, LatchPreds, ".continue", &DT, &LI);
        Changed = true;
        break;
      }
    }
    if (Changed)
      continue;

    // Merge blocks: the loop's exit, a selection's immediate post-dominator.
    PostDominatorTree PDT(F);
    MapVector<BasicBlock *, BlockStructure> Headers;
    SmallPtrSet<BasicBlock *, 8> Continues, LoopHeaders;
    for (Loop *L : LI.getLoopsInPreorder()) {
      BlockStructure S;
      SmallVector<BasicBlock *, 2> Exits;
      L->getUniqueExitBlocks(Exits);
      S.Merge = Exits.front();
      S.Continue = L->getLoopLatch();
      Headers[L->getHeader()] = S;
      Continues.insert(S.Continue);
      LoopHeaders.insert(L->getHeader());
    }
    for (BasicBlock &BB : F) {
      auto *Br = dyn_cast<BranchInst>(BB.getTerminator());
      if (!Br || !Br->isConditional() ||
          Br->getSuccessor(0) == Br->getSuccessor(1))
        continue;
      Loop *L = LI.getLoopFor(&BB);
      if (L && (L->getHeader() == &BB || L->isLoopLatch(&BB)))
        continue;
      DomTreeNode *Node = PDT.getNode(&BB);
      BasicBlock *Merge =
          Node && Node->getIDom() ? Node->getIDom()->getBlock() : nullptr;
      if (!Merge)
        return structureError(Job, &BB,
                              "a branch whose paths never meet again");
      Headers[&BB].Merge = Merge;
    }

    // One construct per merge block: where several claim one, the deepest
    // gets a block of its own in front of it, reached from its part of the
    // graph.
    MapVector<BasicBlock *, SmallVector<BasicBlock *, 2>> Claims;
    for (auto &[H, S] : Headers)
      Claims[S.Merge].push_back(H);
    for (auto &[M, Hs] : Claims) {
      if (Hs.size() < 2)
        continue;
      BasicBlock *Deepest = *std::max_element(
          Hs.begin(), Hs.end(), [&](BasicBlock *A, BasicBlock *B) {
            return DT.getNode(A)->getLevel() < DT.getNode(B)->getLevel();
          });
      SmallVector<BasicBlock *, 4> Preds, AllPreds(predecessors(M));
      for (BasicBlock *P : AllPreds)
        if (DT.dominates(Deepest, P))
          Preds.push_back(P);
      if (Preds.empty() || Preds.size() == AllPreds.size())
        return structureError(Job, Deepest,
                              "constructs that share a merge block and do "
                              "not nest");
      SplitBlockPredecessors(M, Preds, ".merge", &DT, &LI);
      Changed = true;
      break;
    }
    if (Changed)
      continue;

    for (auto &[H, S] : Headers) {
      if (!DT.properlyDominates(H, S.Merge))
        return structureError(Job, H,
                              "a header that does not dominate its merge "
                              "block");
      if (Continues.count(S.Merge) || LoopHeaders.count(S.Merge))
        return structureError(Job, H,
                              "a merge block that is a loop's header or "
                              "continue target");
      Loop *L = LI.getLoopFor(H);
      if (L && L->getHeader() == H)
        L = L->getParentLoop();
      if (L && !L->contains(S.Merge))
        return structureError(Job, H,
                              "a construct whose merge block is outside "
                              "its loop");
    }

    for (auto &[H, S] : Headers)
      Out.Headers[H] = S;
    return Error::success();
  }
}

/// lavapipe's loop guard (hpvm/abi/SPIRVABI.h). lavapipe ends a loop at its
/// back edge once its budget of iterations is spent, and control goes on
/// after the loop as if the loop had exited. So the kernel notes, in the
/// block before each loop's latch and in every other block that leaves the
/// loop, whether the branch it takes leaves (`hpvm.loop.left`); a loop's
/// exit reached while that says "stays" was cut short, and `hpvm.loop.cut`
/// remembers it. Where the kernel returns it reports a cut to the status
/// word if the word has an address. This sees the cut itself, not a count
/// that would have to match lavapipe's: its budget is spent per SIMD group
/// (lanes running different loops spend it together) and its loops need not
/// be ours. The latch keeps only its branch (structure()); added after
/// structuring, the return block becomes a selection that merges where it
/// returns.
void guardLoopExits(Function &F, PreparedKernel &Out) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  if (LI.empty())
    return;
  ReturnInst *Ret = nullptr;
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator()))
      Ret = R; // one (UnifyFunctionExitNodes)
  if (!Ret)
    return;
  LLVMContext &Ctx = F.getContext();
  Module &M = *F.getParent();
  Type *I1 = Type::getInt1Ty(Ctx);
  IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
  AllocaInst *Left = B.CreateAlloca(I1, nullptr, "hpvm.loop.left");
  AllocaInst *Cut = B.CreateAlloca(I1, nullptr, "hpvm.loop.cut");
  B.CreateStore(B.getFalse(), Cut);
  for (Loop *L : LI.getLoopsInPreorder()) {
    BasicBlock *Exit = L->getExitBlock(); // one, dedicated (structure())
    BasicBlock *Latch = L->getLoopLatch();
    BasicBlock *BeforeLatch = Latch ? Latch->getSinglePredecessor() : nullptr;
    if (!Exit || !BeforeLatch)
      continue; // structure() makes both; nothing to note otherwise
    auto Leaves = [&](BasicBlock *From) -> Value * {
      auto *Br = dyn_cast<BranchInst>(From->getTerminator());
      if (!Br || !Br->isConditional())
        return B.getInt1(Br && Br->getSuccessor(0) == Exit);
      if (Br->getSuccessor(0) == Exit)
        return Br->getCondition();
      if (Br->getSuccessor(1) == Exit)
        return B.CreateNot(Br->getCondition());
      return B.getFalse();
    };
    SmallVector<BasicBlock *, 4> Exiting;
    L->getExitingBlocks(Exiting);
    for (BasicBlock *From : Exiting) {
      if (From == Latch)
        continue;
      B.SetInsertPoint(From->getTerminator());
      B.CreateStore(Leaves(From), Left);
    }
    // The latch's condition is computed before it (it holds only its
    // branch), so the block before it notes where the latch goes.
    auto *Cond = dyn_cast<Instruction>(
        cast<BranchInst>(Latch->getTerminator())->isConditional()
            ? cast<BranchInst>(Latch->getTerminator())->getCondition()
            : nullptr);
    B.SetInsertPoint(Cond && Cond->getParent() == Latch
                         ? Latch->getTerminator()
                         : BeforeLatch->getTerminator());
    B.CreateStore(Leaves(Latch), Left);
    B.SetInsertPoint(&*Exit->getFirstInsertionPt());
    B.CreateStore(
        B.CreateOr(B.CreateLoad(I1, Cut), B.CreateNot(B.CreateLoad(I1, Left))),
        Cut);
  }

  BasicBlock *Check = Ret->getParent();
  BasicBlock *Done = SplitBlock(Check, Ret, &DT, &LI, nullptr, "return");
  BasicBlock *Report = BasicBlock::Create(Ctx, "loop.report", &F, Done);
  B.SetInsertPoint(Check->getTerminator());
  Value *Address =
      B.CreateCall(getPlaceholder(M, LoopStatusFunctionName, 0), {}, "status");
  Value *Cond = B.CreateAnd(B.CreateLoad(I1, Cut, "loop.cut"),
                            B.CreateICmpNE(Address, B.getInt64(0)));
  Check->getTerminator()->eraseFromParent();
  BranchInst::Create(Report, Done, Cond, Check);
  FunctionCallee ReportFn = M.getOrInsertFunction(
      LoopReportFunctionName, Type::getVoidTy(Ctx), Type::getInt64Ty(Ctx));
  B.SetInsertPoint(Report);
  B.CreateCall(ReportFn, {Address});
  B.CreateBr(Done);
  Out.Headers[Check].Merge = Done;
}

} // namespace

Expected<Function *> buildKernelFunction(Module &M, const KernelJob &Job) {
  const Node &N = *Job.N;
  Function *Leaf = M.getFunction(N.Function);
  FunctionType *Ty =
      FunctionType::get(Type::getVoidTy(M.getContext()),
                        Leaf->getFunctionType()->params(), false);
  // Ids from the global invocation id, `id < extent` for every dim around
  // the leaf (the dispatch is rounded up to whole work groups). A
  // work-group kernel runs one work-group per instance: its ids are the
  // work-group's, all of them in bounds.
  auto BuildInstances = [&](Function &K, IRBuilder<> &B) {
    gpu::InstanceCode IC;
    append_range(IC.LeafArgs, make_pointer_range(K.args()));
    Function *GlobalId = getPlaceholder(
        M, Job.WorkGroups ? GroupIdFunctionName : GlobalIdFunctionName, 1);
    Value *InBounds = nullptr;
    for (auto [D, E] : enumerate(N.Dims)) {
      Value *Id = B.CreateCall(GlobalId, {B.getInt32(D)}, "id" + Twine(D));
      IC.Ids.push_back(Id);
      if (Job.WorkGroups)
        continue;
      Value *In = B.CreateICmpSLT(Id, gpu::extentAsI64(B, E, IC.LeafArgs),
                                  "in" + Twine(D));
      InBounds = InBounds ? B.CreateAnd(InBounds, In) : In;
    }
    LLVMContext &Ctx = M.getContext();
    BasicBlock *Exit = BasicBlock::Create(Ctx, "exit", &K);
    IC.Body = &K.getEntryBlock();
    if (InBounds) {
      IC.Body = BasicBlock::Create(Ctx, "instance", &K, Exit);
      B.CreateCondBr(InBounds, IC.Body, Exit);
      B.SetInsertPoint(IC.Body);
    }
    B.CreateBr(Exit);
    B.SetInsertPoint(Exit);
    B.CreateRetVoid();
    return IC;
  };
  // Ancestors' ids come from the push constants.
  auto OuterId = [&](IRBuilder<> &B, unsigned Level, unsigned Dim) -> Value * {
    return B.CreateCall(getPlaceholder(M, OuterIdFunctionName, 2),
                        {B.getInt32(Level), B.getInt32(Dim)},
                        "outer.id." + Twine(Level) + "." + Twine(Dim));
  };
  auto Unsupported = [&](const Instruction *At, const Twine &What) {
    return unsupported(Job, At, What);
  };
  auto K = gpu::buildLeafKernel(
      M, Job, Ty, {BuildInstances, OuterId, Unsupported, Job.WorkGroups});
  if (K && Job.WorkGroups)
    if (Function *ItemId = M.getFunction(WorkItemIdFunctionName)) {
      // The work-item's ids: the local invocation id.
      Function *LocalId = getPlaceholder(M, LocalIdFunctionName, 1);
      for (User *U : make_early_inc_range(ItemId->users()))
        if (auto *C = dyn_cast<CallInst>(U); C && C->getFunction() == *K)
          C->setCalledFunction(LocalId);
    }
  return K;
}

Error prepareKernel(Function &F, const KernelJob &Job, PreparedKernel &Out) {
  Out.F = &F;
  // Optimise what the frontend and inlining left, as -O2 would before code
  // generation: private variables become SSA values (the emitter handles
  // the remaining arrays), invariant code leaves loops, dead loops go. The
  // function simplification pipeline has no vectorisers; the Scalarizer
  // then removes whatever vectors the source had.
  runPasses(F, [](FunctionPassManager &FPM, PassBuilder &PB) {
    FPM.addPass(PB.buildFunctionSimplificationPipeline(
        OptimizationLevel::O2, ThinOrFullLTOPhase::None));
    // Induction-variable rewriting computes sums like i*(i+1)/2 in an
    // integer one bit wider than the value (i65 for i64), which SPIR-V
    // cannot declare; the truncation that follows lets AggressiveInstCombine
    // do it in the narrow type.
    FPM.addPass(AggressiveInstCombinePass());
    ScalarizerPassOptions SO;
    SO.ScalarizeLoadStore = true;
    SO.ScalarizeVariableInsertExtract = true;
    FPM.addPass(ScalarizerPass(SO));
    FPM.addPass(EarlyCSEPass());
    FPM.addPass(DCEPass());
  });
  lowerMemIntrinsics(F);
  lowerAtomics(F);
  lowerIntrinsics(F);
  if (Error E = checkCalls(F, Job))
    return E;
  replaceUnreachable(F);
  splitMixedPointers(F);
  splitWideArrayAccesses(F);

  bool Vulkan = Job.Flavour == SPIRVFlavour::Vulkan;
  if (Vulkan)
    giveEndlessLoopsAnExit(F);
  runPasses(F, [&](FunctionPassManager &FPM, PassBuilder &) {
    FPM.addPass(DCEPass());
    FPM.addPass(LowerSwitchPass());
    FPM.addPass(UnifyFunctionExitNodesPass());
    if (Vulkan) {
      FPM.addPass(FixIrreduciblePass());
      FPM.addPass(LoopSimplifyPass());
      FPM.addPass(UnifyLoopExitsPass());
      FPM.addPass(StructurizeCFGPass());
    }
  });
  // Blocks no path reaches would still be named by the phis of reachable
  // ones; the emitter writes only reachable blocks.
  EliminateUnreachableBlocks(F);
  // What LLVM cannot have structured, our fix-ups cannot either: they need
  // each loop to leave from its latch.
  if (Vulkan) {
    if (Error E = structure(F, Job, Out))
      return E;
    guardLoopExits(F, Out);
  }
  expandConstantExprs(F);
  // SimplifyCFG may have merged the entry block into another; the name
  // keeps the disassembly readable.
  F.getEntryBlock().setName("entry");

  std::string Broken;
  raw_string_ostream OS(Broken);
  if (verifyFunction(F, &OS))
    return nodeError(Job, "internal error: the prepared kernel is not valid "
                          "LLVM IR:\n" +
                              OS.str());

  // Reverse post-order puts every block after its dominators.
  ReversePostOrderTraversal<Function *> RPOT(&F);
  append_range(Out.Order, RPOT);
  return Error::success();
}

} // namespace hpvm::spirv
