//===- InstanceLoop.cpp - What the CPU passes know of instance loops ------===//
//
// The loop over a leaf's instances in a wrapper (WrapperBuilder marks it),
// as InstanceJam.cpp, InstanceSplit.cpp and AlignStores.cpp find and split
// it.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace hpvm::cpu {

PreservedAnalyses preservedAfterLoopSimplify(bool Changed) {
  if (!Changed)
    return PreservedAnalyses::all();
  PreservedAnalyses PA;
  PA.preserve<DominatorTreeAnalysis>();
  PA.preserve<LoopAnalysis>();
  PA.preserve<ScalarEvolutionAnalysis>();
  return PA;
}

bool isInstanceLoop(const Loop &L) {
  return findOptionMDForLoop(&L, InstanceLoopProperty) != nullptr;
}

MDNode *loopIDWith(LLVMContext &Ctx, MDNode *LoopID,
                   ArrayRef<StringRef> Dropped, ArrayRef<Metadata *> Added) {
  SmallVector<Metadata *, 8> Ops{nullptr};
  if (LoopID)
    for (const MDOperand &Op : drop_begin(LoopID->operands())) {
      auto *Prop = dyn_cast<MDNode>(Op.get());
      auto *Name = Prop && Prop->getNumOperands()
                       ? dyn_cast<MDString>(Prop->getOperand(0))
                       : nullptr;
      if (!Name || !is_contained(Dropped, Name->getString()))
        Ops.push_back(Op.get());
    }
  append_range(Ops, Added);
  MDNode *ID = MDNode::getDistinct(Ctx, Ops);
  ID->replaceOperandWith(0, ID);
  return ID;
}

MDNode *scalarCopyLoopID(LLVMContext &Ctx) {
  auto Prop = [&](StringRef Name, Metadata *V = nullptr) -> Metadata * {
    SmallVector<Metadata *, 2> Ops{MDString::get(Ctx, Name)};
    if (V)
      Ops.push_back(V);
    return MDNode::get(Ctx, Ops);
  };
  Metadata *False = ConstantAsMetadata::get(ConstantInt::getFalse(Ctx));
  return loopIDWith(Ctx, nullptr, {},
                    {Prop("llvm.loop.mustprogress"),
                     Prop("llvm.loop.vectorize.enable", False),
                     Prop("llvm.loop.unroll.disable")});
}

PHINode *instanceId(Loop &L) {
  using namespace PatternMatch;
  // The widest counter by one: the simplification pipeline may add others,
  // narrower ones (an i3 counting instances modulo 8 for an inner trip count
  // `id & 7`; an i32 for a 32-bit index, which the latch may then test),
  // which wrap where the id does not. Among equals, the one the latch tests.
  BasicBlock *Latch = L.getLoopLatch();
  if (!Latch)
    return nullptr;
  auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
  auto *Exit = Br && Br->isConditional()
                   ? dyn_cast<ICmpInst>(Br->getCondition())
                   : nullptr;
  PHINode *Best = nullptr;
  bool BestTested = false;
  for (PHINode &P : L.getHeader()->phis()) {
    Value *Next = P.getIncomingValueForBlock(Latch);
    if (!P.getType()->isIntegerTy() ||
        !match(Next, m_Add(m_Specific(&P), m_One())))
      continue;
    bool Tested = Exit && is_contained(Exit->operands(), Next);
    unsigned Bits = P.getType()->getIntegerBitWidth();
    unsigned BestBits = Best ? Best->getType()->getIntegerBitWidth() : 0;
    if (Bits > BestBits || (Bits == BestBits && Tested && !BestTested)) {
      Best = &P;
      BestTested = Tested;
    }
  }
  return Best;
}

SmallVector<BasicBlock *, 16> cloneLoopBlocks(Loop &L, ValueToValueMapTy &VMap,
                                              const Twine &Suffix) {
  SmallVector<BasicBlock *, 16> Copies;
  for (BasicBlock *BB : L.blocks()) {
    BasicBlock *C = CloneBasicBlock(BB, VMap, Suffix, BB->getParent());
    VMap[BB] = C;
    Copies.push_back(C);
  }
  remapInstructionsInBlocks(Copies, VMap);
  return Copies;
}

bool foldInductions(Loop &L, PHINode *IV, ScalarEvolution &SE) {
  BasicBlock *PH = L.getLoopPreheader();
  SmallVector<std::pair<PHINode *, const SCEV *>, 4> Others;
  for (PHINode &P : L.getHeader()->phis()) {
    if (&P == IV)
      continue;
    auto *Rec = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&P));
    if (!Rec || Rec->getLoop() != &L || !Rec->isAffine() ||
        !(P.getType()->isIntegerTy() || P.getType()->isPointerTy()))
      return false;
    Others.push_back({&P, Rec->getStepRecurrence(SE)});
  }
  if (Others.empty())
    return true;
  const DataLayout &DL = PH->getDataLayout();
  SCEVExpander Expander(SE, DL, "hpvm.jam");
  IRBuilder<> B(&*L.getHeader()->getFirstInsertionPt());
  Value *Index = B.CreateSub(IV, IV->getIncomingValueForBlock(PH),
                             "instance.index", /*HasNUW=*/true,
                             /*HasNSW=*/true);
  for (auto [P, Step] : Others) {
    Type *StepTy = P->getType()->isPointerTy() ? DL.getIndexType(P->getType())
                                               : P->getType();
    Value *StepV = Expander.expandCodeFor(Step, StepTy, PH->getTerminator());
    Value *Offset =
        B.CreateMul(B.CreateSExtOrTrunc(Index, StepTy), StepV, P->getName());
    Value *Start = P->getIncomingValueForBlock(PH);
    Value *Now = P->getType()->isPointerTy()
                     ? B.CreatePtrAdd(Start, Offset, P->getName())
                     : B.CreateAdd(Start, Offset, P->getName());
    P->replaceAllUsesWith(Now);
    P->eraseFromParent();
  }
  SE.forgetLoop(&L);
  return true;
}

std::string whyNotSplittable(const Loop &L) {
  BasicBlock *PH = L.getLoopPreheader(), *Latch = L.getLoopLatch();
  BasicBlock *Exit = L.getUniqueExitBlock();
  if (!PH || !Latch || !Exit || L.getExitingBlock() != Latch ||
      !isa<BranchInst>(PH->getTerminator()))
    return "leaves the instance loop in more than one place";
  if (!Exit->phis().empty())
    return "has values used after the instance loop";
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB)
      for (User *U : I.users())
        if (!L.contains(cast<Instruction>(U)))
          return "has values used after the instance loop";
  return "";
}

const SCEV *instanceCount(Loop &L, PHINode *IV, ScalarEvolution &SE) {
  const SCEV *BackedgeTaken = SE.getBackedgeTakenCount(&L);
  if (isa<SCEVCouldNotCompute>(BackedgeTaken) ||
      BackedgeTaken->getType() != IV->getType())
    return nullptr;
  return SE.getAddExpr(BackedgeTaken, SE.getOne(IV->getType()));
}

SplitInstances splitInstances(Loop &L, PHINode *IV, Value *Split, Value *Count,
                              unsigned Step, const Twine &Suffix,
                              MDNode *CopyLoopID, const Twine &DoneName,
                              const Twine &RestName, ValueToValueMapTy *Map) {
  BasicBlock *PH = L.getLoopPreheader(), *H = L.getHeader();
  BasicBlock *Latch = L.getLoopLatch(), *Exit = L.getUniqueExitBlock();
  Function &F = *H->getParent();
  LLVMContext &Ctx = F.getContext();
  Type *IdTy = IV->getType();

  IRBuilder<> B(PH->getTerminator());
  Value *First = B.CreateSub(Split, IV->getIncomingValueForBlock(PH));
  Value *AnyFirst = B.CreateICmpNE(First, ConstantInt::get(IdTy, 0));
  Value *AllFirst = B.CreateICmpEQ(First, Count);

  SplitInstances Copy;
  ValueToValueMapTy OwnMap;
  ValueToValueMapTy &VMap = Map ? *Map : OwnMap;
  Copy.Blocks = cloneLoopBlocks(L, VMap, Suffix);
  auto *CopyH = cast<BasicBlock>(VMap[H]);
  auto *CopyLatch = cast<BasicBlock>(VMap[Latch]);
  Copy.IV = cast<PHINode>(VMap[IV]);
  BasicBlock *Done = BasicBlock::Create(Ctx, DoneName, &F);
  Copy.RestPreheader = BasicBlock::Create(Ctx, RestName, &F);

  // The copy steps by Step and leaves for Done at Split.
  Instruction *OldBranch = CopyLatch->getTerminator();
  B.SetInsertPoint(OldBranch);
  Copy.Next = B.CreateAdd(Copy.IV, ConstantInt::get(IdTy, Step),
                          IV->getName() + Suffix + ".next", /*HasNUW=*/true,
                          /*HasNSW=*/true);
  BranchInst *Back =
      B.CreateCondBr(B.CreateICmpNE(Copy.Next, Split), CopyH, Done);
  Back->setMetadata(LLVMContext::MD_loop, CopyLoopID);
  Value *OldCond = cast<BranchInst>(OldBranch)->getCondition();
  OldBranch->eraseFromParent();
  RecursivelyDeleteTriviallyDeadInstructions(OldCond);
  Copy.IV->setIncomingValueForBlock(CopyLatch, Copy.Next);

  // After the copy, or instead of it, L runs from Split on, if any remain.
  B.SetInsertPoint(Done);
  B.CreateCondBr(AllFirst, Exit, Copy.RestPreheader);
  B.SetInsertPoint(Copy.RestPreheader);
  B.CreateBr(H);
  IV->setIncomingBlock(IV->getBasicBlockIndex(PH), Copy.RestPreheader);
  IV->setIncomingValueForBlock(Copy.RestPreheader, Split);

  PH->getTerminator()->eraseFromParent();
  B.SetInsertPoint(PH);
  B.CreateCondBr(AnyFirst, CopyH, Done);
  return Copy;
}

} // namespace hpvm::cpu
