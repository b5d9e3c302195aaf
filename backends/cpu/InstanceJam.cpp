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
// Where consecutive instances do not touch consecutive elements (an i-k-j
// matrix product: one instance per row, whose inner loop the loop
// vectoriser vectorises along the row), jamming a few instances still pays:
// what they share (the row of B) is loaded once for all of them. Such loops
// are jammed by BlockFactor, and only when their inner loops load something
// the instances share.
//
// Each lane's memory accesses get an alias scope of their own, declared not
// to alias the other lanes' nor the shared loads: that is what independence
// says, and it lets the loop vectoriser treat the lanes' streams apart
// instead of giving up on (or checking at run time) every pair of them.
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
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
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

/// Instances jammed for what they share when their lanes do not pack into
/// vectors: enough to load a shared row once for several (4 of them run an
/// i-k-j sgemm 1.6 times as fast as one on AVX-512), few enough that their
/// streams stay in registers and the first-level cache.
constexpr unsigned BlockFactor = 4;

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
std::string whyNotJammable(Loop &L, PHINode *IV) {
  SetVector<Instruction *> Varying = findVarying(L.getBlocks(), IV);
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB) {
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
    }
  return "";
}

/// The memory accesses whose lane alias scopes say something: plain loads
/// and stores and memory intrinsics. Not atomics or volatile accesses,
/// through which instances may communicate on purpose.
bool isLaneAccess(const Instruction &I) {
  if (auto *Load = dyn_cast<LoadInst>(&I))
    return Load->isSimple();
  if (auto *Store = dyn_cast<StoreInst>(&I))
    return Store->isSimple();
  if (auto *Mem = dyn_cast<MemIntrinsic>(&I))
    return !Mem->isVolatile();
  return false;
}

void addAliasMetadata(Instruction &I, unsigned Kind, MDNode *Scopes) {
  I.setMetadata(Kind, MDNode::concatenate(I.getMetadata(Kind), Scopes));
}

/// Repeats every varying instruction of Blocks VF-1 times after itself,
/// copy k computing lane k, i.e. instance IV + k, and puts each lane's
/// memory accesses in an alias scope of its own.
void replicateLanes(ArrayRef<BasicBlock *> Blocks, PHINode *IV,
                    const Value *Step, unsigned VF) {
  SetVector<Instruction *> Varying = findVarying(Blocks, IV, Step);
  SmallVector<Instruction *, 16> SharedLoads;
  for (BasicBlock *BB : Blocks)
    for (Instruction &I : *BB)
      if (isa<LoadInst>(I) && isLaneAccess(I) && !Varying.count(&I))
        SharedLoads.push_back(&I);
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
    Copies[0].push_back(I);
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

  // Different instances never touch the same location where one of them
  // writes, so no lane's access aliases another lane's, nor a load of an
  // address every instance shares (which no instance may write).
  LLVMContext &Ctx = IV->getContext();
  MDBuilder MDB(Ctx);
  MDNode *Domain = MDB.createAnonymousAliasScopeDomain("hpvm.jam");
  SmallVector<Metadata *, 16> Scopes;
  for (unsigned K = 0; K < VF; ++K)
    Scopes.push_back(
        MDB.createAnonymousAliasScope(Domain, ("lane " + Twine(K)).str()));
  for (unsigned K = 0; K < VF; ++K) {
    SmallVector<Metadata *, 16> Others(Scopes);
    Others.erase(Others.begin() + K);
    MDNode *Own = MDNode::get(Ctx, Scopes[K]);
    MDNode *NotOwn = MDNode::get(Ctx, Others);
    for (Instruction *I : Copies[K])
      if (isLaneAccess(*I)) {
        addAliasMetadata(*I, LLVMContext::MD_alias_scope, Own);
        addAliasMetadata(*I, LLVMContext::MD_noalias, NotOwn);
      }
  }
  MDNode *AllLanes = MDNode::get(Ctx, Scopes);
  for (Instruction *I : SharedLoads)
    addAliasMetadata(*I, LLVMContext::MD_noalias, AllLanes);
}

/// L's loop ID without the instance-loop mark, so that neither copy is
/// jammed again.
MDNode *withoutInstanceMark(LLVMContext &Ctx, MDNode *LoopID) {
  return loopIDWith(Ctx, LoopID, {InstanceLoopProperty}, {});
}

constexpr const char *PassName = "hpvm-instance-jam";

/// How far Addr moves from one iteration of L to the next, looking through
/// the loops inside L; null when that is not a constant.
const SCEVConstant *strideIn(const SCEV *Addr, const Loop &L) {
  while (auto *Rec = dyn_cast<SCEVAddRecExpr>(Addr)) {
    if (Rec->getLoop() == &L)
      return Rec->isAffine() ? dyn_cast<SCEVConstant>(Rec->getOperand(1))
                             : nullptr;
    if (!L.contains(Rec->getLoop()))
      return nullptr;
    Addr = Rec->getStart();
  }
  return nullptr;
}

/// How many instances to jam: VF when the lanes can share vectors (some
/// access of each instance sits next to its neighbour's), BlockFactor when
/// they cannot but load something in common in their inner loops, 0 when
/// jamming would gain nothing.
unsigned jamFactor(Loop &L, PHINode *IV, unsigned VF, ScalarEvolution &SE) {
  SetVector<Instruction *> Varying = findVarying(L.getBlocks(), IV);
  const DataLayout &DL = L.getHeader()->getDataLayout();
  bool SharedLoads = false;
  for (Loop *Inner : L.getSubLoops())
    for (BasicBlock *BB : Inner->blocks())
      for (Instruction &I : *BB) {
        Value *Ptr = getLoadStorePointerOperand(&I);
        if (!Ptr)
          continue;
        if (!Varying.count(&I)) {
          SharedLoads = true;
          continue;
        }
        const SCEVConstant *Stride = strideIn(SE.getSCEV(Ptr), L);
        TypeSize Size = DL.getTypeStoreSize(getLoadStoreType(&I));
        if (Stride && !Size.isScalable() &&
            Stride->getAPInt() == Size.getFixedValue())
          return VF;
      }
  return SharedLoads ? BlockFactor : 0;
}

/// Jams L by VF or BlockFactor (jamFactor); false (and L as it was, but for
/// foldInductions, which sets Changed) when it cannot, with a missed remark
/// saying why (-pass-remarks-missed=hpvm-instance-jam).
bool jam(Loop &L, unsigned VF, ScalarEvolution &SE,
         OptimizationRemarkEmitter &ORE, bool &Changed) {
  auto Missed = [&](const Twine &Why) {
    ORE.emit([&] {
      return OptimizationRemarkMissed(PassName, "NotJammed", L.getStartLoc(),
                                      L.getHeader())
             << "instance loop of '" << L.getHeader()->getParent()->getName()
             << "' not jammed: the leaf " << Why.str();
    });
    return false;
  };
  if (std::string Why = whyNotSplittable(L); !Why.empty())
    return Missed(Why);
  BasicBlock *PH = L.getLoopPreheader(), *H = L.getHeader();
  PHINode *IV = instanceId(L);
  bool OtherPhis = std::next(H->phis().begin()) != H->phis().end();
  if (!IV || !foldInductions(L, IV, SE))
    return Missed("carries values from one instance to the next");
  Changed |= OtherPhis;
  const SCEV *Count = instanceCount(L, IV, SE);
  if (!Count)
    return Missed("runs an instance count the compiler cannot compute");
  std::string Why = whyNotJammable(L, IV);
  if (!Why.empty())
    return Missed(Why);
  VF = jamFactor(L, IV, VF, SE);
  if (!VF)
    return Missed("neither runs side by side in vectors nor loads anything "
                  "its instances share");
  size_t Size = 0;
  for (BasicBlock *BB : L.blocks())
    Size += BB->size();
  if (Size * VF > MaxJammedInstructions)
    return Missed("is too large to repeat for every lane");

  // Said before the loop changes, while its location and name are L's.
  ORE.emit([&] {
    return OptimizationRemark(PassName, "Jammed", L.getStartLoc(),
                              L.getHeader())
           << "instance loop of '" << L.getHeader()->getParent()->getName()
           << "' jammed: " << ore::NV("Lanes", VF)
           << " instances run side by side";
  });

  // The instances up to the last multiple of VF run VF at a time in a
  // jammed copy of L, the rest one at a time in L. Trip counts are below
  // 2^63, so nothing here wraps.
  LLVMContext &Ctx = H->getContext();
  Type *IdTy = IV->getType();
  MDNode *LoopID = L.getLoopID();
  SCEVExpander Expander(SE, H->getDataLayout(), "hpvm.jam");
  Value *Trips = Expander.expandCodeFor(Count, IdTy, PH->getTerminator());
  IRBuilder<> B(PH->getTerminator());
  Value *Jammed = B.CreateAnd(Trips, ~uint64_t(VF - 1), "jam.trips");
  Value *JamEnd =
      B.CreateAdd(IV->getIncomingValueForBlock(PH), Jammed, "jam.end");
  // Neither loop is jammed again.
  SplitInstances Jam = splitInstances(L, IV, JamEnd, Trips, VF, ".jam",
                                      withoutInstanceMark(Ctx, LoopID),
                                      "jam.middle", "jam.rest");
  L.getLoopLatch()->getTerminator()->setMetadata(
      LLVMContext::MD_loop, withoutInstanceMark(Ctx, LoopID));
  replicateLanes(Jam.Blocks, Jam.IV, Jam.Next, VF);
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
    bool Folded = false;
    if (jam(*L, VF, SE, ORE, Folded))
      return PreservedAnalyses::none();
    return preservedAfterLoopSimplify(Simplified || Folded);
  }
  return PreservedAnalyses::all();
}

} // namespace hpvm::cpu
