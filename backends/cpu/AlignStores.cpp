//===- AlignStores.cpp - Peel an instance loop to align its stores ------===//
//
// LLVM's loop vectoriser does not peel for alignment, so the vector stores
// of a leaf's instance loop are as aligned as the buffer happens to be plus
// the loop's first index: a 1-D stencil from i = 1 over a malloc'd array
// (16-byte aligned) splits one 32-byte store in two across cache lines every
// other iteration. The streaming-store variant cannot have that at all
// (vmovntps needs aligned addresses), and a normal wrapper pays for it: the
// sweeps benchmark (4000 floats in the first-level cache) ran 1.18 times as
// fast with its stores aligned, whatever the arrays' alignment, and as fast
// as the best-aligned sequential loop where it had been 0.94-0.97 of it.
//
// So where the vectorisers start, this pass splits a wrapper's innermost
// instance loop: a scalar peel runs until one store to a buffer parameter
// (in a streaming-store variant: to a write-only one) reaches a 64-byte
// boundary, and the loop after it computes that store's address from a
// pointer masked to 64 bytes (llvm.ptrmask) plus an offset counted from 0,
// so that the vector stores the loop vectoriser makes of it are provably
// aligned. Other stores of the same size at a constant distance from it are
// rewritten likewise. At most 63 bytes' worth of iterations run in the
// peel, once per chunk of a launch.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace hpvm::cpu {
namespace {

/// A cache line: the alignment the peel reaches (a whole line for one
/// 512-bit store, two 256-bit ones, or one non-temporal write).
constexpr uint64_t LineBytes = 64;

/// A store the peel can align: to one of the buffers, in every iteration
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
  SCEVExpander Expander(SE, DL, "hpvm.align");
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
                              LineBytes - 1, "align.to.line");
  Value *Peel = B.CreateBinaryIntrinsic(Intrinsic::umin,
                                        B.CreateLShr(ToLine, Log2_64(Size)),
                                        TripCount, nullptr, "align.peel");
  Value *MainStart = B.CreateNSWAdd(Lo, Peel, "align.main.start");
  BasicBlock *MainPH =
      splitInstances(L, IV, MainStart, TripCount, 1, ".peel",
                     scalarCopyLoopID(Ctx), "align.peel.done", "align.main")
          .RestPreheader;

  // L's stores to the aligned buffer: the aligned address of MainStart's
  // iteration, masked so that the optimiser knows its alignment, plus
  // Size per iteration from there.
  B.SetInsertPoint(MainPH->getTerminator());
  Value *Aligned = B.CreateInBoundsGEP(
      B.getInt8Ty(), Start, B.CreateNUWMul(Peel, ConstantInt::get(IdTy, Size)),
      "align.aligned");
  Value *Base = B.CreateIntrinsic(Intrinsic::ptrmask, {PtrTy, IdTy},
                                  {Aligned, ConstantInt::get(IdTy, -LineBytes)},
                                  nullptr, "align.base");

  // The offset from Base counts up from 0 in an induction of its own: the
  // loop vectoriser then computes a vector's offset as the vector loop's
  // index times Size, whose low bits it knows are 0, where IV - MainStart
  // would leave it a difference it does not simplify.
  PHINode *Offset = PHINode::Create(IdTy, 2, "align.offset");
  Offset->insertBefore(IV->getIterator());
  Offset->addIncoming(ConstantInt::get(IdTy, 0), MainPH);
  B.SetInsertPoint(Latch->getTerminator());
  Offset->addIncoming(
      B.CreateNUWAdd(Offset, ConstantInt::get(IdTy, Size), "align.offset.next"),
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
            Offset, "align.addr"));
    RecursivelyDeleteTriviallyDeadInstructions(Old);
  }
  return true;
}

} // namespace

PreservedAnalyses AlignStoresPass::run(Function &F,
                                       FunctionAnalysisManager &FAM) {
  // Only wrappers have instance loops, and their first argument is args.
  if (F.isDeclaration() || F.arg_empty() ||
      !F.getArg(0)->getType()->isPointerTy())
    return PreservedAnalyses::all();
  SmallPtrSet<Value *, 4> Buffers;
  if (F.hasFnAttribute(StreamingStoresAttribute))
    Buffers = streamedBuffers(F);
  else
    for (auto [K, V] : wrapperPointerParams(F))
      Buffers.insert(V);
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
    return preservedAfterLoopSimplify(Simplified);
  }
  return PreservedAnalyses::all();
}

} // namespace hpvm::cpu
