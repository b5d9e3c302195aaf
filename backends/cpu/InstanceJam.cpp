//===- InstanceJam.cpp - Run VF instances of a leaf side by side ----------===//
//
// LLVM's loop vectoriser only vectorises innermost loops, so a leaf whose
// instances run a loop of their own (the k loop of an i-j-k sgemm) stays
// scalar, although the instance loop around it is parallel by construction.
// This pass unrolls such an instance loop by VF and jams the copies: every
// instruction that depends on the instance id is repeated VF times in place,
// one copy per lane, and everything else (the inner loops' control flow
// above all) is shared. The SLP vectoriser, which runs later in the same
// pipeline, then packs the lanes into vector instructions: consecutive
// instances touch consecutive elements in the common case. The instances
// left over (fewer than VF) run in the original loop.
//
// Jamming changes the order in which the operations of different instances
// interleave, which is legal because instances are independent (no instance
// reads what another writes; atomics commute). It needs every lane to take
// the same path, so an instance loop with a branch that depends on the
// instance id is left alone, as is one with anything whose per-instance copy
// the lanes would share (private allocas) or that every instance writes to
// the same address.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace hpvm::cpu {
namespace {

/// Jamming repeats the varying part of the body VF times; past this many
/// instructions the copies cost more in registers and code size than the
/// vectors gain.
constexpr unsigned MaxJammedInstructions = 4000;

bool isInstanceLoop(const Loop &L) {
  return findOptionMDForLoop(&L, InstanceLoopProperty) != nullptr;
}

/// The instructions of Blocks whose value or effect differs between
/// instances: those that depend on IV (other than through Step, the jammed
/// loop's own step), and everything with a side effect (each instance must
/// perform its own).
SetVector<Instruction *> findVarying(ArrayRef<BasicBlock *> Blocks, PHINode *IV,
                                     const Value *Step = nullptr) {
  SmallPtrSet<BasicBlock *, 16> InBlocks(Blocks.begin(), Blocks.end());
  SetVector<Instruction *> Varying;
  SmallVector<Instruction *, 32> Work{IV};
  for (BasicBlock *BB : Blocks)
    for (Instruction &I : *BB)
      if (!I.isTerminator() && (I.mayHaveSideEffects() || I.isAtomic()))
        Work.push_back(&I);
  while (!Work.empty()) {
    Instruction *I = Work.pop_back_val();
    if (!Varying.insert(I))
      continue;
    for (User *U : I->users())
      if (auto *UI = dyn_cast<Instruction>(U))
        if (UI != Step && InBlocks.count(UI->getParent()))
          Work.push_back(UI);
  }
  return Varying;
}

/// Why L cannot be jammed (empty when it can). Latch is exempt from the
/// uniform-branch rule: the jammed loop gets a latch of its own.
std::string whyNotJammable(Loop &L, PHINode *IV, unsigned VF) {
  SetVector<Instruction *> Varying = findVarying(L.getBlocks(), IV);
  unsigned Size = 0;
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB) {
      ++Size;
      if (isa<AllocaInst>(I))
        return "allocates memory in every instance";
      if (I.isTerminator() && BB != L.getLoopLatch() &&
          any_of(I.operands(), [&](Value *V) {
            auto *Op = dyn_cast<Instruction>(V);
            return Op && Varying.count(Op);
          }))
        return "branches on the instance id";
      if (auto *Call = dyn_cast<CallBase>(&I))
        if (Call->isConvergent() || Call->cannotDuplicate())
          return "calls a function that cannot be duplicated";
      if (Value *Ptr = getLoadStorePointerOperand(&I)) {
        if (isa<AllocaInst>(getUnderlyingObject(Ptr)))
          return "uses a private variable in memory";
        auto *PtrI = dyn_cast<Instruction>(Ptr);
        if (isa<StoreInst>(I) && !(PtrI && Varying.count(PtrI)))
          return "stores to the same address in every instance";
      }
      for (User *U : I.users())
        if (!L.contains(cast<Instruction>(U)))
          return "has values used after the instance loop";
    }
  if (Size * VF > MaxJammedInstructions)
    return "is too large to repeat for every lane";
  return "";
}

/// The header's only phi, the instance id, counting up by one.
PHINode *instanceId(Loop &L) {
  auto Phis = L.getHeader()->phis();
  if (std::distance(Phis.begin(), Phis.end()) != 1)
    return nullptr;
  PHINode *IV = &*Phis.begin();
  using namespace PatternMatch;
  if (!match(IV->getIncomingValueForBlock(L.getLoopLatch()),
             m_Add(m_Specific(IV), m_One())))
    return nullptr;
  return IV;
}

/// Repeats every varying instruction of Blocks VF-1 times after itself,
/// copy k computing lane k, i.e. instance IV + k.
void replicateLanes(ArrayRef<BasicBlock *> Blocks, PHINode *IV,
                    const Value *Step, unsigned VF) {
  SetVector<Instruction *> Varying = findVarying(Blocks, IV, Step);
  IRBuilder<> B(&*IV->getParent()->getFirstInsertionPt());
  auto Lanes = std::make_unique<ValueToValueMapTy[]>(VF);
  SmallVector<SmallVector<Instruction *, 0>, 16> Copies(VF);
  for (unsigned K = 1; K < VF; ++K)
    Lanes[K][IV] = B.CreateAdd(IV, ConstantInt::get(IV->getType(), K),
                               IV->getName() + ".lane" + Twine(K),
                               /*HasNUW=*/true, /*HasNSW=*/true);
  for (Instruction *I : Varying) {
    // Branches are uniform (whyNotJammable); the lanes share them.
    if (I == IV || I->isTerminator())
      continue;
    Instruction *Pos = I;
    for (unsigned K = 1; K < VF; ++K) {
      Instruction *C = I->clone();
      if (I->hasName())
        C->setName(I->getName() + ".lane" + Twine(K));
      C->insertAfter(Pos);
      Pos = C;
      Lanes[K][I] = C;
      Copies[K].push_back(C);
    }
  }
  for (unsigned K = 1; K < VF; ++K)
    for (Instruction *C : Copies[K])
      RemapInstruction(C, Lanes[K],
                       RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
}

/// L's loop ID without the instance-loop mark, so that neither copy is
/// jammed again.
MDNode *withoutInstanceMark(LLVMContext &Ctx, MDNode *LoopID) {
  SmallVector<Metadata *, 4> Ops{nullptr};
  if (LoopID)
    for (const MDOperand &Op : drop_begin(LoopID->operands())) {
      auto *Prop = dyn_cast<MDNode>(Op.get());
      auto *Name = Prop && Prop->getNumOperands()
                       ? dyn_cast<MDString>(Prop->getOperand(0))
                       : nullptr;
      if (!(Name && Name->getString() == InstanceLoopProperty))
        Ops.push_back(Op.get());
    }
  MDNode *ID = MDNode::getDistinct(Ctx, Ops);
  ID->replaceOperandWith(0, ID);
  return ID;
}

constexpr const char *PassName = "hpvm-instance-jam";

/// Jams L by VF; false (and L untouched) when it cannot, with a missed
/// remark saying why (-pass-remarks-missed=hpvm-instance-jam).
bool jam(Loop &L, unsigned VF, ScalarEvolution &SE,
         OptimizationRemarkEmitter &ORE) {
  auto Missed = [&](const Twine &Why) {
    ORE.emit([&] {
      return OptimizationRemarkMissed(PassName, "NotJammed", L.getStartLoc(),
                                      L.getHeader())
             << "instance loop of '" << L.getHeader()->getParent()->getName()
             << "' not jammed: the leaf " << Why.str();
    });
    return false;
  };
  BasicBlock *PH = L.getLoopPreheader(), *H = L.getHeader();
  BasicBlock *Latch = L.getLoopLatch(), *Exit = L.getUniqueExitBlock();
  if (!PH || !Latch || !Exit || L.getExitingBlock() != Latch ||
      !isa<BranchInst>(PH->getTerminator()))
    return Missed("leaves the instance loop in more than one place");
  if (!Exit->phis().empty())
    return Missed("has values used after the instance loop");
  PHINode *IV = instanceId(L);
  if (!IV)
    return Missed("carries values from one instance to the next");
  const SCEV *BackedgeTaken = SE.getBackedgeTakenCount(&L);
  if (isa<SCEVCouldNotCompute>(BackedgeTaken) ||
      BackedgeTaken->getType() != IV->getType())
    return Missed("runs an instance count the compiler cannot compute");
  std::string Why = whyNotJammable(L, IV, VF);
  if (!Why.empty())
    return Missed(Why);

  Function &F = *H->getParent();
  LLVMContext &Ctx = F.getContext();
  Type *IdTy = IV->getType();
  MDNode *LoopID = L.getLoopID();

  // The instances [Start, Start + Jammed) run VF at a time, the rest one at
  // a time in the original loop. Trip counts are below 2^63, so nothing
  // here wraps.
  SCEVExpander Expander(SE, F.getDataLayout(), "hpvm.jam");
  Value *Trips = Expander.expandCodeFor(
      SE.getAddExpr(BackedgeTaken, SE.getOne(IdTy)), IdTy, PH->getTerminator());
  IRBuilder<> B(PH->getTerminator());
  Value *Start = IV->getIncomingValueForBlock(PH);
  Value *Jammed = B.CreateAnd(Trips, ~uint64_t(VF - 1), "jam.trips");
  Value *JamEnd = B.CreateAdd(Start, Jammed, "jam.end");
  Value *AnyJammed = B.CreateICmpNE(Jammed, ConstantInt::get(IdTy, 0));
  Value *AllJammed = B.CreateICmpEQ(Jammed, Trips);

  ValueToValueMapTy VMap;
  SmallVector<BasicBlock *, 16> JamBlocks;
  for (BasicBlock *BB : L.blocks()) {
    BasicBlock *C = CloneBasicBlock(BB, VMap, ".jam", &F);
    VMap[BB] = C;
    JamBlocks.push_back(C);
  }
  remapInstructionsInBlocks(JamBlocks, VMap);
  auto *JamH = cast<BasicBlock>(VMap[H]);
  auto *JamLatch = cast<BasicBlock>(VMap[Latch]);
  auto *JamIV = cast<PHINode>(VMap[IV]);

  BasicBlock *Middle = BasicBlock::Create(Ctx, "jam.middle", &F);
  BasicBlock *Rest = BasicBlock::Create(Ctx, "jam.rest", &F);

  // The jammed loop steps by VF and leaves for the middle block.
  Instruction *OldBranch = JamLatch->getTerminator();
  B.SetInsertPoint(OldBranch);
  Value *Next = B.CreateAdd(JamIV, ConstantInt::get(IdTy, VF), "jam.next",
                            /*HasNUW=*/true, /*HasNSW=*/true);
  BranchInst *Back = B.CreateCondBr(B.CreateICmpNE(Next, JamEnd), JamH, Middle);
  Back->setMetadata(LLVMContext::MD_loop, withoutInstanceMark(Ctx, LoopID));
  Value *OldCond = cast<BranchInst>(OldBranch)->getCondition();
  OldBranch->eraseFromParent();
  RecursivelyDeleteTriviallyDeadInstructions(OldCond);
  JamIV->setIncomingValueForBlock(JamLatch, Next);

  B.SetInsertPoint(Middle);
  B.CreateCondBr(AllJammed, Exit, Rest);
  B.SetInsertPoint(Rest);
  PHINode *RestStart = B.CreatePHI(IdTy, 2, "jam.rest.start");
  RestStart->addIncoming(Start, PH);
  RestStart->addIncoming(JamEnd, Middle);
  B.CreateBr(H);
  IV->setIncomingBlock(IV->getBasicBlockIndex(PH), Rest);
  IV->setIncomingValueForBlock(Rest, RestStart);
  Latch->getTerminator()->setMetadata(LLVMContext::MD_loop,
                                      withoutInstanceMark(Ctx, LoopID));

  PH->getTerminator()->eraseFromParent();
  B.SetInsertPoint(PH);
  B.CreateCondBr(AnyJammed, JamH, Rest);

  replicateLanes(JamBlocks, JamIV, Next, VF);
  return true;
}

} // namespace

PreservedAnalyses InstanceJamPass::run(Function &F,
                                       FunctionAnalysisManager &FAM) {
  auto &TTI = FAM.getResult<TargetIRAnalysis>(F);
  // Lanes of 32-bit elements in a vector register (8 with AVX2, 16 when
  // 512-bit vectors are preferred).
  unsigned Bits =
      TTI.getRegisterBitWidth(TargetTransformInfo::RGK_FixedWidthVector)
          .getFixedValue();
  unsigned VF = std::min(Bits / 32, 16u);
  if (VF < 2)
    return PreservedAnalyses::all();
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &AC = FAM.getResult<AssumptionAnalysis>(F);
  // A wrapper has one instance loop; innermost ones are the loop
  // vectoriser's.
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!isInstanceLoop(*L) || L->isInnermost())
      continue;
    // The simplification pipeline may have folded the preheader away.
    bool Simplified = simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr,
                                   /*PreserveLCSSA=*/false);
    if (jam(*L, VF, SE, ORE))
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

} // namespace hpvm::cpu
