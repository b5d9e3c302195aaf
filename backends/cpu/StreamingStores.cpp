//===- StreamingStores.cpp - A variant of a wrapper with non-temporal stores =//
//
// A leaf that only writes a buffer (`out(dst[...])`) still makes every store
// fetch the line it writes (write-allocate), so a memory-bound loop moves
// 12 bytes per float where 8 would do. Non-temporal stores skip that fetch,
// but they pay off only when the data would not stay in the cache anyway,
// which only the runtime knows (how large a launch's buffers are). So the
// backend builds a second wrapper, `<wrapper>.stream`, with non-temporal
// stores, and hpvm-rt picks one per launch (docs/runtime.md, "CPU device").
//
// Non-temporal vector stores must be aligned to their size (vmovntps), and
// LLVM's loop vectoriser does not peel for alignment. Three steps make them:
//
//  1. when the wrappers are built: writeOnlyBufferParams finds the buffer
//     parameters the leaf only stores to, and makeStreamingVariant clones
//     the wrapper and names them in the StreamingStoresAttribute;
//  2. where the vectorisers start, StreamingPeelPass splits the innermost
//     instance loop of a variant: a scalar peel runs until one store to such
//     a buffer reaches a 64-byte boundary, and the loop after it computes
//     that store's address from a pointer masked to 64 bytes (llvm.ptrmask)
//     plus an offset counted from 0, so that the vector stores the loop
//     vectoriser makes of it are provably aligned;
//  3. at the end of the pipeline, StreamingStoresPass marks the aligned
//     vector stores to those buffers !nontemporal, and fences the wrapper's
//     returns (non-temporal stores are weakly ordered: the chunk's end must
//     publish them). A variant in which no store became non-temporal is
//     deleted, and the program then has no variant for the leaf.
//
// The marking has to wait until after vectorisation: the loop vectoriser
// refuses a loop whose stores are non-temporal with an alignment it cannot
// guarantee.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace hpvm::cpu {
namespace {

/// A cache line: what one non-temporal write combines to, and the
/// alignment the peel reaches.
constexpr uint64_t LineBytes = 64;

/// The value of wrapper parameter K: `load (load (args + K * ptrsize))`,
/// as WrapperBuilder loads it, wherever the optimiser has moved it.
Value *paramValue(Function &W, unsigned K) {
  const DataLayout &DL = W.getDataLayout();
  Argument *Args = W.getArg(0);
  uint64_t Offset = uint64_t(K) * DL.getPointerSize();
  for (Instruction &I : instructions(W)) {
    auto *Param = dyn_cast<LoadInst>(&I);
    auto *Slot =
        Param ? dyn_cast<LoadInst>(Param->getPointerOperand()) : nullptr;
    if (!Slot || !Param->getType()->isPointerTy())
      continue;
    APInt Off(DL.getIndexTypeSizeInBits(Args->getType()), 0);
    const Value *Base =
        Slot->getPointerOperand()->stripAndAccumulateConstantOffsets(
            DL, Off, /*AllowNonInbounds=*/true);
    if (Base == Args && Off == Offset)
      return Param;
  }
  return nullptr;
}

/// The buffers a variant may write with non-temporal stores: the values of
/// the parameters its attribute lists.
SmallPtrSet<Value *, 4> streamedBuffers(Function &F) {
  SmallPtrSet<Value *, 4> Buffers;
  StringRef List =
      F.getFnAttribute(StreamingStoresAttribute).getValueAsString();
  SmallVector<StringRef, 4> Items;
  List.split(Items, ',', -1, false);
  for (StringRef Item : Items) {
    unsigned K;
    if (!Item.getAsInteger(10, K))
      if (Value *V = paramValue(F, K))
        Buffers.insert(V);
  }
  return Buffers;
}

/// Whether Ptr points into one of Buffers (and nothing else).
bool intoBuffers(const Value *Ptr, const SmallPtrSetImpl<Value *> &Buffers) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(Ptr, Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
  return !Objects.empty() && all_of(Objects, [&](const Value *O) {
    return Buffers.count(const_cast<Value *>(O));
  });
}

/// A store the peel can align: to a streamed buffer, in every iteration
/// (so that its address in any iteration is one it really writes, within
/// the buffer), one element further each time, and at least
/// element-aligned (so that some number of iterations reaches a 64-byte
/// boundary).
struct AlignableStore {
  StoreInst *S;
  /// Its address in the first iteration.
  const SCEV *Start;
  uint64_t Size;
};

std::optional<AlignableStore>
alignableStore(StoreInst *S, Loop &L, ScalarEvolution &SE,
               const DominatorTree &DT,
               const SmallPtrSetImpl<Value *> &Buffers) {
  if (!S->isSimple() || !DT.dominates(S->getParent(), L.getLoopLatch()) ||
      !intoBuffers(S->getPointerOperand(), Buffers))
    return std::nullopt;
  const DataLayout &DL = S->getDataLayout();
  Type *T = S->getValueOperand()->getType();
  uint64_t Size = DL.getTypeStoreSize(T);
  if (!isPowerOf2_64(Size) || Size > LineBytes ||
      Size != DL.getTypeAllocSize(T) || S->getAlign().value() < Size)
    return std::nullopt;
  auto *Rec = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(S->getPointerOperand()));
  if (!Rec || Rec->getLoop() != &L || !Rec->isAffine())
    return std::nullopt;
  auto *Step = dyn_cast<SCEVConstant>(Rec->getStepRecurrence(SE));
  if (!Step || Step->getAPInt() != Size)
    return std::nullopt;
  return AlignableStore{S, Rec->getStart(), Size};
}

/// Peels L until the first of Stores is 64-byte aligned and rewrites the
/// addresses of Stores in L relative to that aligned address; false (and L
/// untouched) when L does not have the shape this needs.
bool peelForAlignment(Loop &L, ScalarEvolution &SE, const DominatorTree &DT,
                      const SmallPtrSetImpl<Value *> &Buffers) {
  if (!whyNotSplittable(L).empty())
    return false;
  BasicBlock *PH = L.getLoopPreheader(), *H = L.getHeader();
  BasicBlock *Latch = L.getLoopLatch();
  PHINode *IV = instanceId(L);
  if (!IV)
    return false;
  Function &F = *H->getParent();
  const DataLayout &DL = F.getDataLayout();
  Type *IdTy = IV->getType();
  const SCEV *Trips = instanceCount(L, IV, SE);
  if (IdTy->getIntegerBitWidth() != DL.getPointerSizeInBits() || !Trips)
    return false;

  // The first alignable store sets the peel; the others of the same size
  // get aligned addresses too where they lie a constant distance from it.
  SmallVector<std::pair<StoreInst *, int64_t>, 4> Stores;
  const SCEV *FirstStart = nullptr;
  uint64_t Size = 0;
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB) {
      auto *S = dyn_cast<StoreInst>(&I);
      std::optional<AlignableStore> A;
      if (S)
        A = alignableStore(S, L, SE, DT, Buffers);
      if (!A)
        continue;
      if (!FirstStart) {
        FirstStart = A->Start;
        Size = A->Size;
        Stores.push_back({S, 0});
        continue;
      }
      auto *Distance =
          dyn_cast<SCEVConstant>(SE.getMinusSCEV(A->Start, FirstStart));
      if (A->Size == Size && Distance &&
          Distance->getAPInt().getSignificantBits() <= 64)
        Stores.push_back({S, Distance->getAPInt().getSExtValue()});
    }
  if (Stores.empty())
    return false;
  SCEVExpander Expander(SE, DL, "hpvm.stream");
  Instruction *At = PH->getTerminator();
  if (!Expander.isSafeToExpandAt(FirstStart, At) ||
      !Expander.isSafeToExpandAt(Trips, At) || !foldInductions(L, IV, SE))
    return false;

  LLVMContext &Ctx = F.getContext();
  Type *PtrTy = Stores[0].first->getPointerOperandType();

  // Iterations [0, Peel) run in a scalar copy of L (at most 63 of them),
  // the rest in L, from MainStart on. Peel < 64 / Size, and trip counts are
  // below 2^63, so nothing here wraps.
  Value *Start = Expander.expandCodeFor(FirstStart, PtrTy, At);
  Value *TripCount = Expander.expandCodeFor(Trips, IdTy, At);
  IRBuilder<> B(At);
  Value *Lo = IV->getIncomingValueForBlock(PH);
  Value *ToLine = B.CreateAnd(B.CreateNeg(B.CreatePtrToInt(Start, IdTy)),
                              LineBytes - 1, "stream.to.line");
  Value *Peel = B.CreateBinaryIntrinsic(Intrinsic::umin,
                                        B.CreateLShr(ToLine, Log2_64(Size)),
                                        TripCount, nullptr, "stream.peel");
  Value *MainStart = B.CreateNSWAdd(Lo, Peel, "stream.main.start");
  BasicBlock *MainPH =
      splitInstances(L, IV, MainStart, TripCount, 1, ".peel",
                     scalarCopyLoopID(Ctx), "stream.peel.done", "stream.main")
          .RestPreheader;

  // L's stores to the aligned buffer: the aligned address of MainStart's
  // iteration, masked so that the optimiser knows its alignment, plus
  // Size per iteration from there.
  B.SetInsertPoint(MainPH->getTerminator());
  Value *Aligned = B.CreateInBoundsGEP(
      B.getInt8Ty(), Start, B.CreateNUWMul(Peel, ConstantInt::get(IdTy, Size)),
      "stream.aligned");
  Value *Base = B.CreateIntrinsic(Intrinsic::ptrmask, {PtrTy, IdTy},
                                  {Aligned, ConstantInt::get(IdTy, -LineBytes)},
                                  nullptr, "stream.base");

  // The offset from Base counts up from 0 in an induction of its own: the
  // loop vectoriser then computes a vector's offset as the vector loop's
  // index times Size, whose low bits it knows are 0, where IV - MainStart
  // would leave it a difference it does not simplify.
  PHINode *Offset = PHINode::Create(IdTy, 2, "stream.offset");
  Offset->insertBefore(IV->getIterator());
  Offset->addIncoming(ConstantInt::get(IdTy, 0), MainPH);
  B.SetInsertPoint(Latch->getTerminator());
  Offset->addIncoming(B.CreateNUWAdd(Offset, ConstantInt::get(IdTy, Size),
                                     "stream.offset.next"),
                      Latch);
  for (auto [S, Distance] : Stores) {
    B.SetInsertPoint(S);
    Value *Old = S->getPointerOperand();
    S->setOperand(
        S->getPointerOperandIndex(),
        B.CreateInBoundsGEP(
            B.getInt8Ty(),
            Distance ? B.CreateInBoundsGEP(B.getInt8Ty(), Base,
                                           ConstantInt::get(IdTy, Distance))
                     : Base,
            Offset, "stream.addr"));
    RecursivelyDeleteTriviallyDeadInstructions(Old);
  }
  return true;
}

} // namespace

SmallVector<unsigned, 4>
writeOnlyBufferParams(Function &W, ArrayRef<unsigned> BufferParams) {
  SmallVector<unsigned, 4> Result;
  for (unsigned K : BufferParams) {
    Value *Buffer = paramValue(W, K);
    if (!Buffer)
      continue;
    // Every pointer derived from the buffer is only ever a store's address.
    SmallVector<Value *, 8> Work{Buffer};
    SmallPtrSet<Value *, 8> Seen{Buffer};
    bool WriteOnly = true, Stored = false;
    while (WriteOnly && !Work.empty()) {
      Value *P = Work.pop_back_val();
      for (User *U : P->users()) {
        if (auto *S = dyn_cast<StoreInst>(U)) {
          WriteOnly = S->isSimple() && S->getPointerOperand() == P &&
                      S->getValueOperand() != P;
          Stored = true;
        } else if (isa<GetElementPtrInst>(U) || isa<PHINode>(U) ||
                   isa<SelectInst>(U)) {
          // Address arithmetic; a select's condition is no pointer use.
          if (auto *Sel = dyn_cast<SelectInst>(U))
            WriteOnly = Sel->getCondition() != P;
          if (auto *GEP = dyn_cast<GetElementPtrInst>(U))
            WriteOnly = GEP->getPointerOperand() == P;
          if (WriteOnly && Seen.insert(U).second)
            Work.push_back(U);
        } else {
          WriteOnly = false;
        }
        if (!WriteOnly)
          break;
      }
    }
    if (WriteOnly && Stored)
      Result.push_back(K);
  }
  return Result;
}

Function *makeStreamingVariant(Function &W, ArrayRef<unsigned> WriteOnly,
                               StringRef Name) {
  ValueToValueMapTy VMap;
  Function *V = CloneFunction(&W, VMap);
  V->setName(Name);
  V->setLinkage(W.getLinkage());
  SmallVector<std::string, 4> Items;
  for (unsigned K : WriteOnly)
    Items.push_back(utostr(K));
  V->addFnAttr(StreamingStoresAttribute, join(Items, ","));
  // A 64-byte vector fills a line in one non-temporal store, where two
  // 32-byte ones rely on the write-combining buffer to merge them (the
  // stencil of bench/ runs 15% faster with AVX-512 stores). What usually
  // speaks against 512-bit vectors, their clock penalty, does not matter in
  // a loop that waits for memory. No effect without AVX-512; an explicit
  // CPUOptions::PreferVectorWidth still wins (setTargetAttributes).
  V->addFnAttr("prefer-vector-width", "512");
  return V;
}

PreservedAnalyses StreamingPeelPass::run(Function &F,
                                         FunctionAnalysisManager &FAM) {
  if (!F.hasFnAttribute(StreamingStoresAttribute))
    return PreservedAnalyses::all();
  SmallPtrSet<Value *, 4> Buffers = streamedBuffers(F);
  if (Buffers.empty())
    return PreservedAnalyses::all();
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &AC = FAM.getResult<AssumptionAnalysis>(F);
  // Only an innermost instance loop: the loop vectoriser's. One with loops
  // inside is InstanceJamPass's, whose SLP vectors this does not align.
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!isInstanceLoop(*L) || !L->isInnermost())
      continue;
    bool Simplified = simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr,
                                   /*PreserveLCSSA=*/false);
    if (peelForAlignment(*L, SE, DT, Buffers))
      return PreservedAnalyses::none();
    if (!Simplified)
      return PreservedAnalyses::all();
    PreservedAnalyses PA;
    PA.preserve<DominatorTreeAnalysis>();
    PA.preserve<LoopAnalysis>();
    PA.preserve<ScalarEvolutionAnalysis>();
    return PA;
  }
  return PreservedAnalyses::all();
}

PreservedAnalyses StreamingStoresPass::run(Module &M, ModuleAnalysisManager &) {
  SmallVector<Function *, 4> Dropped;
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration() || !F.hasFnAttribute(StreamingStoresAttribute))
      continue;
    SmallPtrSet<Value *, 4> Buffers = streamedBuffers(F);
    const DataLayout &DL = M.getDataLayout();
    unsigned NonTemporal = 0;
    for (Instruction &I : instructions(F)) {
      auto *S = dyn_cast<StoreInst>(&I);
      if (!S || !S->isSimple() ||
          !S->getValueOperand()->getType()->isVectorTy())
        continue;
      // vmovnt* stores whole registers of 16 bytes and more, aligned.
      uint64_t Size = DL.getTypeStoreSize(S->getValueOperand()->getType());
      if (Size < 16 || !isPowerOf2_64(Size) || S->getAlign().value() < Size ||
          !intoBuffers(S->getPointerOperand(), Buffers))
        continue;
      S->setMetadata(LLVMContext::MD_nontemporal,
                     MDNode::get(M.getContext(),
                                 ConstantAsMetadata::get(ConstantInt::get(
                                     Type::getInt32Ty(M.getContext()), 1))));
      ++NonTemporal;
    }
    if (!NonTemporal) {
      Dropped.push_back(&F);
      continue;
    }
    Changed = true;
    Function *SFence = Intrinsic::getDeclaration(&M, Intrinsic::x86_sse_sfence);
    for (BasicBlock &BB : F)
      if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
        CallInst::Create(SFence, "", Ret->getIterator());
  }
  for (Function *F : Dropped)
    F->eraseFromParent();
  return Changed || !Dropped.empty() ? PreservedAnalyses::none()
                                     : PreservedAnalyses::all();
}

} // namespace hpvm::cpu
