//===- BarrierPhases.cpp - A leaf split at its barriers -------------------===//
//
// The leaf's code is cut at the block after each barrier, at the header of
// each loop around one, and at the exit of such a loop when it tests at its
// end. A phase starts at one of these cuts (or at the start of the leaf)
// and runs until it reaches any cut. The leaf, in order, is:
//
//   phase from the start
//   for each barrier or loop around one, in the order they come:
//     a barrier:  the phase from it
//     a loop:     run in order, its trip count times: the phase from its
//                 header, then the steps of its body as here;
//                 then the phase from its header (the test that leaves it)
//                 or, for a loop that tests at its end, from its exit
//
// which every instance follows alike, since each barrier is reached once per
// iteration of its loop and every loop's trip count is the same for all.
//
// A value that crosses a cut is demoted to a stack slot. A phase loads the
// slots live into its start from the instance's record in the scratch
// memory and, where it reaches a cut, stores the slots live into that cut
// and returns; SROA makes the slots SSA values again. The record's fields are
// laid out as arrays over the instances (field offset times the number of
// instances, plus the instance's index times the field's size), so that
// neighbouring instances touch neighbouring bytes; its accesses are marked
// as the instance's own (hpvm.instance.private), which lets the CPU backend
// treat the phase's instances as independent. Pure arithmetic on the
// parameters (the ids, the extents, addresses computed from them) moves into
// the entry block every phase starts with: it is recomputed, not carried;
// so are a loop's counters that step by a uniform amount, from the loop's
// iteration, a parameter of the phases. A header phi shares its slot with
// the value the latch gives it where no cut needs both, and a phase that
// then changes nothing is left out.
//
// Trip counts come from scalar evolution, or, where it has no formula, from
// a function that runs the loop's test alone (tripCounter), for the caller
// to call in front of the launch.
//
//===----------------------------------------------------------------------===//
#include "BarrierPhases.h"
#include "CloneWithParameters.h"
#include "PipelineRunner.h"

#include "hpvm/ir/GraphMetadata.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <map>
#include <memory>
#include <tuple>

using namespace llvm;

namespace hpvm {

namespace {

class Splitter {
public:
  Splitter(Function &Leaf, function_ref<bool(const Instruction &)> IsBarrier,
           function_ref<bool(const Argument &)> IsUniform,
           function_ref<void(const Twine &, const Instruction *)> Error)
      : Leaf(Leaf), Ctx(Leaf.getContext()), IsBarrier(IsBarrier),
        IsUniform(IsUniform), Error(Error),
        TLII(Triple(Leaf.getParent()->getTargetTriple())), TLI(TLII), AC(Leaf) {
  }

  std::optional<BarrierPhases> run();

private:
  /// A step before its phase functions exist. A phase that starts at the
  /// test of a loop that tests first knows where the test goes: into the
  /// loop (Taken: an iteration's first phase) or out of it (the phase after
  /// the loop).
  struct Plan {
    BasicBlock *Start = nullptr;
    Loop *Tested = nullptr;
    bool Taken = false;
    Value *Trips = nullptr;
    unsigned LoopIndex = 0;
    std::vector<Plan> Body;
  };

  void prepare();
  void hoist();
  bool analyse();
  void recomputeCounters();
  void dropIterations();
  bool reachedAlike(BasicBlock *At, Loop *Scope, const Instruction *Report,
                    const char *What);
  std::vector<Plan> plan(Loop *Scope);
  bool carry();
  void sinkArrayPointers();
  bool intoArray(const Value *V) const;
  Function *phase(const Plan &P);
  std::vector<BarrierPhases::Step> steps(const std::vector<Plan> &Plans,
                                         BarrierPhases &Result);
  const Instruction *barrierIn(const Loop &L) const;
  bool uniform(const SCEV *S) const;
  Function *tripCounter(Loop *L);

  Function &Leaf;
  LLVMContext &Ctx;
  function_ref<bool(const Instruction &)> IsBarrier;
  function_ref<bool(const Argument &)> IsUniform;
  function_ref<void(const Twine &, const Instruction *)> Error;
  TargetLibraryInfoImpl TLII;
  TargetLibraryInfo TLI;
  AssumptionCache AC;
  /// LLVM's passes, set up once for every phase.
  PipelineRunner Run;
  FunctionPassManager Promote = Run.functionPipeline("sroa,early-cse");
  DominatorTree DT;
  LoopInfo LI;
  std::unique_ptr<ScalarEvolution> SE;

  /// The block every phase starts with (allocas, arithmetic on the
  /// parameters, trip counts), and the leaf's code after it.
  BasicBlock *Prologue = nullptr, *Start = nullptr;
  SmallVector<Instruction *, 4> BarrierCalls;
  /// The block each barrier call starts.
  SmallVector<BasicBlock *, 4> Barriers;
  SetVector<Loop *> BarrierLoops;
  DenseMap<Loop *, Value *> Trips;
  /// Where the phase after a loop around a barrier starts.
  DenseMap<Loop *, BasicBlock *> After;
  SetVector<BasicBlock *> Cuts;
  /// The slots live into each cut, and where each slot's field is.
  DenseMap<BasicBlock *, SmallVector<AllocaInst *, 8>> LiveIn;
  DenseMap<AllocaInst *, uint64_t> FieldOffset;
  uint64_t RecordBytes = 0;
  std::map<std::tuple<BasicBlock *, Loop *, bool>, Function *> Phases;
  /// The functions that count the iterations of loops scalar evolution
  /// has no formula for.
  std::vector<Function *> TripCounters;
  /// Stands for a loop's iteration in the leaf (its one operand: the loop's
  /// index in BarrierLoops) until the phases take it as a parameter.
  Function *IterationFn = nullptr;
  std::vector<Function *> PhaseList;
};

void Splitter::prepare() {
  Start = &Leaf.getEntryBlock();
  SmallVector<AllocaInst *, 8> Static;
  for (Instruction &I : *Start)
    if (auto *A = dyn_cast<AllocaInst>(&I); A && A->isStaticAlloca())
      Static.push_back(A);
  Prologue = BasicBlock::Create(Ctx, "phase.entry", &Leaf, Start);
  for (AllocaInst *A : Static)
    A->moveBefore(*Prologue, Prologue->end());
  BranchInst::Create(Start, Prologue);
  hoist();
  for (Instruction &I : instructions(Leaf))
    if (IsBarrier(I))
      BarrierCalls.push_back(&I);
  for (Instruction *C : BarrierCalls)
    Barriers.push_back(SplitBlock(C->getParent(), C));
}

/// Arithmetic on the parameters (and on what is in the prologue already),
/// wherever it is, into the prologue.
void Splitter::hoist() {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock &BB : Leaf) {
      if (&BB == Prologue)
        continue;
      for (Instruction &I : make_early_inc_range(BB)) {
        if (isa<PHINode>(I) || isa<AllocaInst>(I) || I.isTerminator() ||
            isa<DbgInfoIntrinsic>(I) || I.mayReadFromMemory() ||
            !isSafeToSpeculativelyExecute(&I))
          continue;
        if (!all_of(I.operands(), [&](Value *V) {
              auto *D = dyn_cast<Instruction>(V);
              return !D || D->getParent() == Prologue;
            }))
          continue;
        I.moveBefore(Prologue->getTerminator());
        Changed = true;
      }
    }
  }
}

/// The counters of loops around barriers that test first, and whatever else
/// steps by a uniform amount from a uniform start in them ({start, +, step}
/// to scalar evolution), are recomputed in every phase from the loop's
/// iteration (a parameter of the phases: the iteration while in the loop,
/// its trip count after it) rather than carried: neither memory traffic nor,
/// for addresses computed from them, a value that may differ between
/// instances as far as the CPU's vectoriser knows.
void Splitter::recomputeCounters() {
  Module &M = *Leaf.getParent();
  Type *I64 = Type::getInt64Ty(Ctx);
  IterationFn =
      Function::Create(FunctionType::get(I64, {Type::getInt32Ty(Ctx)}, false),
                       GlobalValue::ExternalLinkage, "hpvm.phase.iteration", M);
  IterationFn->setDoesNotAccessMemory();
  IterationFn->setDoesNotThrow();
  SCEVExpander Expander(*SE, Leaf.getParent()->getDataLayout(), "counter");
  std::vector<std::pair<PHINode *, Value *>> Recomputed;
  for (auto [K, L] : enumerate(BarrierLoops)) {
    if (After[L] != L->getHeader())
      continue; // tests at its end: the value after it is another
    for (PHINode &Phi : L->getHeader()->phis()) {
      auto *AR = dyn_cast<SCEVAddRecExpr>(SE->getSCEV(&Phi));
      Type *T = Phi.getType();
      if (!AR || AR->getLoop() != L || !AR->isAffine() ||
          !uniform(AR->getStart()) || !uniform(AR->getStepRecurrence(*SE)) ||
          !(T->isIntegerTy() || T->isPointerTy()))
        continue;
      Instruction *At = Prologue->getTerminator();
      const SCEV *StepS = AR->getStepRecurrence(*SE);
      Value *Start = Expander.expandCodeFor(AR->getStart(), T, At);
      Value *Step = Expander.expandCodeFor(StepS, StepS->getType(), At);
      IRBuilder<> B(At);
      Value *Iteration = B.CreateCall(IterationFn, {B.getInt32(K)});
      Value *V;
      if (T->isIntegerTy())
        V = B.CreateAdd(
            Start, B.CreateMul(B.CreateTruncOrBitCast(Iteration, T), Step));
      else
        V = B.CreateGEP(B.getInt8Ty(), Start,
                        B.CreateMul(Iteration, B.CreateSExtOrTrunc(Step, I64)));
      Recomputed.push_back({&Phi, V});
    }
  }
  for (auto [Phi, V] : Recomputed) {
    SE->forgetValue(Phi);
    Phi->replaceAllUsesWith(V);
    Phi->eraseFromParent();
  }
  hoist();
}

/// A function of the leaf's parameters that counts L's iterations by
/// running its test alone: L's header phis that the test depends on, from
/// their values before the loop, through the code that computes their next
/// values. Null where that code does anything but arithmetic on them, on
/// constants and on the parameters IsUniform accepts, or does it only on
/// some paths through the loop (the count would not be the same for every
/// instance). The leaf calls it in its prologue (TripCounters); it reads
/// nothing, so the call is dead code in the phases.
Function *Splitter::tripCounter(Loop *L) {
  BasicBlock *Header = L->getHeader(), *Latch = L->getLoopLatch();
  auto *Test = dyn_cast<BranchInst>(Header->getTerminator());
  if (!Test || !Test->isConditional())
    return nullptr;
  // The instructions the test needs, in the loop; what they need from
  // outside it must be known before it (the prologue's arithmetic).
  SetVector<Instruction *> Slice;
  SmallVector<Value *, 16> Work = {Test->getCondition()};
  auto Pure = [](const Instruction &I) {
    return !I.mayReadFromMemory() && isSafeToSpeculativelyExecute(&I);
  };
  while (!Work.empty()) {
    Value *V = Work.pop_back_val();
    if (isa<Constant>(V))
      continue;
    if (auto *A = dyn_cast<Argument>(V)) {
      if (!IsUniform(*A))
        return nullptr;
      continue;
    }
    auto *I = cast<Instruction>(V);
    if (I->getParent() == Prologue) {
      if (isa<AllocaInst>(I))
        return nullptr;
      if (Slice.insert(I))
        append_range(Work, I->operands());
      continue;
    }
    if (!L->contains(I))
      return nullptr; // computed before the loop, from memory or ids
    if (!Slice.insert(I))
      continue;
    if (auto *Phi = dyn_cast<PHINode>(I)) {
      if (Phi->getParent() != Header)
        return nullptr;
      append_range(Work, Phi->incoming_values());
      continue;
    }
    if (!Pure(*I) || !DT.dominates(I->getParent(), Latch))
      return nullptr;
    append_range(Work, I->operands());
  }
  DT.updateDFSNumbers();
  // i64 count(leaf's parameters): entry, test, next, exit.
  Module &M = *Leaf.getParent();
  Type *I64 = Type::getInt64Ty(Ctx);
  Function *F = Function::Create(
      FunctionType::get(I64, Leaf.getFunctionType()->params(), false),
      GlobalValue::InternalLinkage, Leaf.getName() + ".trips", M);
  F->setDoesNotAccessMemory();
  F->setDoesNotThrow();
  F->setWillReturn();
  ValueToValueMapTy VMap;
  for (Argument &A : Leaf.args())
    VMap[&A] = F->getArg(A.getArgNo());
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F),
             *Loop = BasicBlock::Create(Ctx, "test", F),
             *Next = BasicBlock::Create(Ctx, "next", F),
             *Exit = BasicBlock::Create(Ctx, "exit", F);
  IRBuilder<> B(Loop);
  PHINode *Count = B.CreatePHI(I64, 2, "count");
  // In program order: the prologue's first, then the loop's by dominance.
  SmallVector<Instruction *, 16> Order(Slice.begin(), Slice.end());
  sort(Order, [&](Instruction *X, Instruction *Y) {
    if (X->getParent() == Y->getParent())
      return X->comesBefore(Y);
    if (X->getParent() == Prologue || Y->getParent() == Prologue)
      return X->getParent() == Prologue;
    return DT.getNode(X->getParent())->getDFSNumIn() <
           DT.getNode(Y->getParent())->getDFSNumIn();
  });
  SmallVector<PHINode *, 4> Phis;
  for (Instruction *I : Order) {
    Instruction *Copy;
    if (auto *Phi = dyn_cast<PHINode>(I)) {
      Copy = PHINode::Create(Phi->getType(), 2, Phi->getName());
      Copy->insertBefore(Count);
      Phis.push_back(Phi);
    } else {
      Copy = I->clone();
      Copy->insertInto(I->getParent() == Prologue ? Entry : Loop,
                       (I->getParent() == Prologue ? Entry : Loop)->end());
    }
    Copy->setName(I->getName());
    VMap[I] = Copy;
  }
  for (Instruction *I : Order)
    if (!isa<PHINode>(I))
      RemapInstruction(cast<Instruction>(VMap[I]), VMap,
                       RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
  BranchInst::Create(Loop, Entry);
  B.SetInsertPoint(Loop);
  bool InFirst = L->contains(Test->getSuccessor(0));
  Value *Cond = VMap.lookup(Test->getCondition());
  if (!Cond)
    Cond = Test->getCondition(); // a constant
  B.CreateCondBr(Cond, InFirst ? Next : Exit, InFirst ? Exit : Next);
  B.SetInsertPoint(Next);
  Value *More = B.CreateAdd(Count, B.getInt64(1));
  B.CreateBr(Loop);
  Count->addIncoming(B.getInt64(0), Entry);
  Count->addIncoming(More, Next);
  for (PHINode *Phi : Phis) {
    auto *Copy = cast<PHINode>(VMap[Phi]);
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      Value *In = Phi->getIncomingValue(K);
      Value *Mapped = VMap.lookup(In);
      if (!Mapped)
        Mapped = isa<Argument>(In) ? static_cast<Value *>(VMap[In]) : In;
      Copy->addIncoming(Mapped,
                        L->contains(Phi->getIncomingBlock(K)) ? Next : Entry);
    }
  }
  ReturnInst::Create(Ctx, Count, Exit);
  TripCounters.push_back(F);
  return F;
}

/// Whether S is the same for every instance: computed from constants and
/// the parameters IsUniform accepts, in no loop.
bool Splitter::uniform(const SCEV *S) const {
  return !SCEVExprContains(S, [&](const SCEV *E) {
    if (isa<SCEVAddRecExpr>(E))
      return true;
    if (auto *U = dyn_cast<SCEVUnknown>(E)) {
      auto *A = dyn_cast<Argument>(U->getValue());
      return !A || !IsUniform(*A);
    }
    return false;
  });
}

const Instruction *Splitter::barrierIn(const Loop &L) const {
  for (Instruction *C : BarrierCalls)
    if (L.contains(C))
      return C;
  return nullptr;
}

/// Whether every instance that reaches an iteration of Scope (or the leaf,
/// for none) reaches At once in it.
bool Splitter::reachedAlike(BasicBlock *At, Loop *Scope,
                            const Instruction *Report, const char *What) {
  bool Alike = true;
  if (Scope)
    Alike = DT.dominates(At, Scope->getLoopLatch());
  else
    for (BasicBlock &BB : Leaf)
      if (isa<ReturnInst>(BB.getTerminator()) && !DT.dominates(At, &BB))
        Alike = false;
  if (!Alike)
    Error(Twine(What) +
              " is under a condition (or after a return): every instance "
              "must reach each __hpvm__barrier, and as often",
          Report);
  return Alike;
}

bool Splitter::analyse() {
  DT.recalculate(Leaf);
  LI.analyze(DT);
  // Preheaders, one latch and exits of their own, for the trip counts.
  for (Loop *L : LI)
    simplifyLoop(L, &DT, &LI, nullptr, &AC, nullptr, false);
  for (BasicBlock *B : Barriers)
    for (Loop *L = LI.getLoopFor(B); L; L = L->getParentLoop())
      BarrierLoops.insert(L);
  SE = std::make_unique<ScalarEvolution>(Leaf, TLI, AC, DT, LI);
  Type *I64 = Type::getInt64Ty(Ctx);
  bool OK = true;
  for (Loop *L : BarrierLoops) {
    const Instruction *Report = barrierIn(*L);
    BasicBlock *Header = L->getHeader(), *Exiting = L->getExitingBlock(),
               *Exit = L->getExitBlock(), *Latch = L->getLoopLatch();
    if (!Latch || !Exiting || !Exit ||
        (Exiting != Header && Exiting != Latch)) {
      Error("a loop around __hpvm__barrier may only be left by its test (no "
            "break, goto or return in it): every instance must reach the "
            "barrier as often",
            Report);
      OK = false;
      continue;
    }
    const SCEV *Backedges = SE->getBackedgeTakenCount(L);
    if (isa<SCEVCouldNotCompute>(Backedges) || !uniform(Backedges)) {
      // Scalar evolution has no formula (a halving loop from a parameter,
      // a doubling one): counted by running the loop's test alone.
      if (Function *Count = Exiting == Header ? tripCounter(L) : nullptr) {
        SmallVector<Value *, 16> Args;
        for (Argument &A : Leaf.args())
          Args.push_back(&A);
        Trips[L] = CallInst::Create(Count, Args, "trips",
                                    Prologue->getTerminator()->getIterator());
        After[L] = Header;
        continue;
      }
      Error("the trip count of a loop around __hpvm__barrier must follow "
            "from the node's parameters and extents alone (not from memory, "
            "instance ids or an enclosing loop's counter), to be the same "
            "for every instance and known when the graph starts",
            Report);
      OK = false;
      continue;
    }
    // A loop that tests first runs its body once per back edge; one that
    // tests at its end once more.
    const SCEV *Runs = SE->getTruncateOrZeroExtend(Backedges, I64);
    if (Exiting != Header) {
      Runs = SE->getAddExpr(Runs, SE->getOne(I64));
    } else if (auto *Max = dyn_cast<SCEVSMaxExpr>(Backedges);
               Max && Max->getNumOperands() == 2 &&
               Max->getOperand(0)->isZero()) {
      // n for `i < n` rather than max(n, 0): a count below zero runs no
      // iterations anyway (the runtime reads it so), and the loop's own
      // count, as scalar evolution sees it behind the loop's guard, is n.
      Runs = SE->getTruncateOrSignExtend(Max->getOperand(1), I64);
    }
    SCEVExpander Expander(*SE, Leaf.getParent()->getDataLayout(), "trips");
    Trips[L] = Expander.expandCodeFor(Runs, I64, Prologue->getTerminator());
    After[L] = Exiting == Header ? Header : Exit;
  }
  if (!OK)
    return false;
  for (auto [B, C] : zip(Barriers, BarrierCalls))
    OK &= reachedAlike(B, LI.getLoopFor(B), C, "__hpvm__barrier");
  for (Loop *L : BarrierLoops)
    OK &= reachedAlike(L->getHeader(), L->getParentLoop(), barrierIn(*L),
                       "the loop around __hpvm__barrier");
  if (!OK)
    return false;
  Cuts.insert(Barriers.begin(), Barriers.end());
  for (Loop *L : BarrierLoops) {
    Cuts.insert(L->getHeader());
    Cuts.insert(After[L]);
  }
  DT.updateDFSNumbers();
  return true;
}

std::vector<Splitter::Plan> Splitter::plan(Loop *Scope) {
  // What comes in order at this level: barriers and loops around them.
  SmallVector<BasicBlock *, 8> At;
  for (BasicBlock *B : Barriers)
    if (LI.getLoopFor(B) == Scope)
      At.push_back(B);
  for (Loop *L : BarrierLoops)
    if (L->getParentLoop() == Scope)
      At.push_back(L->getHeader());
  // Each dominates the next (reachedAlike), so dominator tree order is
  // program order.
  sort(At, [&](BasicBlock *A, BasicBlock *B) {
    return DT.getNode(A)->getDFSNumIn() < DT.getNode(B)->getDFSNumIn();
  });
  auto TestedAt = [&](Loop *L) {
    return After[L] == L->getHeader() ? L : nullptr;
  };
  std::vector<Plan> Plans;
  if (Scope)
    Plans.push_back(
        {Scope->getHeader(), TestedAt(Scope), true, nullptr, 0, {}});
  else
    Plans.push_back({Start, nullptr, false, nullptr, 0, {}});
  for (BasicBlock *B : At) {
    Loop *L = LI.getLoopFor(B);
    if (L != Scope && L->getHeader() == B) {
      unsigned Index = find(BarrierLoops, L) - BarrierLoops.begin();
      Plans.push_back({nullptr, nullptr, false, Trips[L], Index, plan(L)});
      Plans.push_back({After[L], TestedAt(L), false, nullptr, 0, {}});
    } else {
      Plans.push_back({B, nullptr, false, nullptr, 0, {}});
    }
  }
  return Plans;
}

/// A pointer into one of the leaf's arrays points into a phase's copy of
/// it: such a pointer is recomputed where it is used (an address
/// computation cloned next to each use in another block, its indices
/// carried if need be), never carried across a cut. One that cannot be
/// recomputed (chosen by a phi or a select) is an error when it crosses one
/// (carry).
/// Where to report a problem with I: I, or, as a phi has no line of its
/// own, the first of its users that has one.
const Instruction *located(const Instruction *I) {
  auto HasLine = [](const Instruction *X) {
    return X->getDebugLoc() && X->getDebugLoc().getLine();
  };
  if (!HasLine(I))
    for (const User *U : I->users())
      if (HasLine(cast<Instruction>(U)))
        return cast<Instruction>(U);
  return I;
}

bool Splitter::intoArray(const Value *V) const {
  if (!V->getType()->isPointerTy() || isa<AllocaInst>(V))
    return false;
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(V, Objects, nullptr, 0);
  return any_of(Objects, [&](const Value *O) {
    auto *A = dyn_cast<AllocaInst>(O);
    return A && A->getParent() == Prologue;
  });
}

void Splitter::sinkArrayPointers() {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock &BB : Leaf) {
      if (&BB == Prologue)
        continue;
      for (Instruction &I : BB) {
        if (!intoArray(&I) || !(isa<GetElementPtrInst>(I) || isa<CastInst>(I)))
          continue;
        for (Use &U : make_early_inc_range(I.uses())) {
          auto *User = cast<Instruction>(U.getUser());
          Instruction *At = User;
          if (auto *Phi = dyn_cast<PHINode>(User))
            At = Phi->getIncomingBlock(U)->getTerminator();
          if (At->getParent() == &BB)
            continue;
          Instruction *Copy = I.clone();
          Copy->insertBefore(At);
          U.set(Copy);
          Changed = true;
        }
      }
    }
  }
}

bool Splitter::carry() {
  sinkArrayPointers();
  auto AllocaPoint = Prologue->getFirstInsertionPt();
  // The leaf's own arrays may be used on both sides of any cut.
  SmallVector<AllocaInst *, 4> Arrays;
  for (Instruction &I : *Prologue)
    if (auto *A = dyn_cast<AllocaInst>(&I))
      Arrays.push_back(A);
  // The value a loop's latch gives each phi of its header.
  // (A handle: the value may be a phi that is demoted, and gone, below.)
  std::vector<std::pair<AllocaInst *, WeakVH>> Stepped;
  for (BasicBlock *C : Cuts) {
    LiveIn[C].append(Arrays.begin(), Arrays.end());
    // A phi of a cut takes its value where a phase stops at the cut.
    Loop *L = LI.getLoopFor(C);
    BasicBlock *Latch = L && L->getHeader() == C && BarrierLoops.contains(L)
                            ? L->getLoopLatch()
                            : nullptr;
    while (auto *Phi = dyn_cast<PHINode>(&C->front())) {
      if (Phi->getType()->isPointerTy() && !Phi->use_empty()) {
        Error("a pointer that changes from one iteration to the next of a "
              "loop around __hpvm__barrier, other than by the same step "
              "every time, is not supported (index the buffer instead)",
              located(Phi));
        return false;
      }
      Value *Next = Latch ? Phi->getIncomingValueForBlock(Latch) : nullptr;
      AllocaInst *Slot = DemotePHIToStack(Phi, AllocaPoint);
      if (!Slot)
        continue; // a phi no one used, gone
      LiveIn[C].push_back(Slot);
      if (Next)
        Stepped.push_back({Slot, WeakVH(Next)});
    }
  }
  // Values live into a cut: found by walking back from each use to the
  // definition.
  std::vector<std::pair<Instruction *, SmallVector<BasicBlock *, 4>>> Crossing;
  // Pointers into buffers that cross, with their buffer.
  std::vector<std::pair<Instruction *, Argument *>> Rebased;
  for (BasicBlock &BB : Leaf) {
    if (&BB == Prologue)
      continue;
    for (Instruction &I : BB) {
      SmallPtrSet<BasicBlock *, 16> Live;
      SmallVector<BasicBlock *, 16> Work;
      auto MarkLive = [&](BasicBlock *B) {
        if (B != &BB && Live.insert(B).second)
          Work.push_back(B);
      };
      for (Use &U : I.uses()) {
        auto *User = cast<Instruction>(U.getUser());
        if (auto *Phi = dyn_cast<PHINode>(User))
          MarkLive(Phi->getIncomingBlock(U));
        else if (User->getParent() != &BB)
          MarkLive(User->getParent());
      }
      while (!Work.empty())
        for (BasicBlock *Pred : predecessors(Work.pop_back_val()))
          MarkLive(Pred);
      SmallVector<BasicBlock *, 4> Into;
      for (BasicBlock *C : Cuts)
        if (Live.contains(C))
          Into.push_back(C);
      if (Into.empty())
        continue;
      if (intoArray(&I)) {
        const Instruction *At = located(&I);
        Error("a pointer into an array of the leaf's own is chosen before "
              "__hpvm__barrier and used after it, which is not supported "
              "(index the array after the barrier instead)",
              At);
        return false;
      }
      if (I.getType()->isPointerTy()) {
        // An address is carried as an offset into its buffer. (Phases once ran
        // as nodes of their own, the next maybe on another device; now a
        // group's phases run in one kernel, and a raw address would do.)
        SmallVector<const Value *, 4> Objects;
        getUnderlyingObjects(&I, Objects, nullptr, 0);
        auto *Base = Objects.size() == 1
                         ? dyn_cast<Argument>(const_cast<Value *>(Objects[0]))
                         : nullptr;
        if (!Base) {
          Error("a pointer that may point into one buffer or another is "
                "chosen before __hpvm__barrier and used after it, which is "
                "not supported (choose an index into one buffer instead)",
                &I);
          return false;
        }
        Rebased.push_back({&I, Base});
      }
      Crossing.push_back({&I, Into});
    }
  }
  Type *I64 = Type::getInt64Ty(Ctx);
  for (auto &[I, Base] : Rebased) {
    IRBuilder<> B(isa<PHINode>(I) ? &*I->getParent()->getFirstInsertionPt()
                                  : I->getNextNode());
    Value *Offset = B.CreateSub(B.CreatePtrToInt(I, I64),
                                B.CreatePtrToInt(Base, I64), "offset");
    for (Use &U : make_early_inc_range(I->uses())) {
      auto *User = cast<Instruction>(U.getUser());
      Instruction *At = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        At = Phi->getIncomingBlock(U)->getTerminator();
      if (At->getParent() == I->getParent() || User == Offset ||
          User == cast<Instruction>(Offset)->getOperand(0))
        continue;
      U.set(IRBuilder<>(At).CreateGEP(B.getInt8Ty(), Base, Offset));
    }
    // The offset crosses the cuts in the pointer's place.
    for (auto &[Carried, Into] : Crossing)
      if (Carried == I)
        Carried = cast<Instruction>(Offset);
  }
  DenseMap<Value *, AllocaInst *> SlotOf;
  for (auto &[I, Into] : Crossing) {
    AllocaInst *Slot = DemoteRegToStack(*I, false, AllocaPoint);
    SlotOf[I] = Slot;
    for (BasicBlock *C : Into)
      LiveIn[C].push_back(Slot);
  }
  // A header phi and the value the latch gives it (a partial sum and its
  // next value) share a slot where no cut needs both: the phase that goes
  // round the loop then copies nothing, and may be left out (steps).
  // (A value that two phis take has a slot of its own: once in one phi's,
  // it is that phi's; and a phi's slot holds that phi's first value too.)
  SmallPtrSet<AllocaInst *, 8> Shared;
  for (auto &[PhiSlot, Next] : Stepped)
    Shared.insert(PhiSlot);
  for (auto &[PhiSlot, Next] : Stepped) {
    AllocaInst *NextSlot = Next ? SlotOf.lookup(Next) : nullptr;
    if (!NextSlot || !Shared.insert(NextSlot).second ||
        any_of(Cuts, [&](BasicBlock *C) {
          return is_contained(LiveIn[C], PhiSlot) &&
                 is_contained(LiveIn[C], NextSlot);
        }))
      continue;
    NextSlot->replaceAllUsesWith(PhiSlot);
    NextSlot->eraseFromParent();
    for (auto &[Next2, Slot] : SlotOf)
      if (Slot == NextSlot)
        Slot = PhiSlot;
    for (BasicBlock *C : Cuts)
      for (AllocaInst *&A : LiveIn[C])
        if (A == NextSlot)
          A = PhiSlot;
  }
  // The record: widest alignment first, so that every field is aligned.
  const DataLayout &DL = Leaf.getParent()->getDataLayout();
  SetVector<AllocaInst *> Fields;
  for (BasicBlock *C : Cuts)
    Fields.insert(LiveIn[C].begin(), LiveIn[C].end());
  SmallVector<AllocaInst *, 16> Ordered(Fields.begin(), Fields.end());
  stable_sort(Ordered, [](AllocaInst *A, AllocaInst *B) {
    return A->getAlign() > B->getAlign();
  });
  for (AllocaInst *A : Ordered) {
    RecordBytes = alignTo(RecordBytes, A->getAlign());
    FieldOffset[A] = RecordBytes;
    RecordBytes += *A->getAllocationSize(DL);
  }
  return true;
}

Function *Splitter::phase(const Plan &Step) {
  BasicBlock *From = Step.Start;
  Function *&Known = Phases[{From, Step.Tested, Step.Taken}];
  if (Known)
    return Known;
  Module &M = *Leaf.getParent();
  const DataLayout &DL = M.getDataLayout();
  SmallVector<Type *, 8> Extra = {PointerType::get(Ctx, 0)};
  Extra.append(BarrierLoops.size(), Type::getInt64Ty(Ctx));
  ValueToValueMapTy VMap;
  SmallVector<ReturnInst *, 4> Returns;
  Function *P = cloneWithParameters(Leaf, Type::getVoidTy(Ctx), Extra,
                                    Leaf.getName() + ".phase", VMap, Returns);
  P->setAttributes(P->getAttributes().removeAttributesAtIndex(
      Ctx, AttributeList::ReturnIndex));
  for (ReturnInst *R : Returns) {
    ReturnInst::Create(Ctx, nullptr, R->getIterator());
    R->eraseFromParent();
  }
  unsigned N = Leaf.arg_size();
  Value *Index = P->getArg(N - 2), *Count = P->getArg(N - 1),
        *Scratch = P->getArg(N);
  // The loops' iterations, from the parameters after the scratch.
  for (Instruction &I : make_early_inc_range(instructions(*P)))
    if (auto *C = dyn_cast<CallInst>(&I);
        C && C->getCalledFunction() == IterationFn) {
      auto *K = cast<ConstantInt>(C->getArgOperand(0));
      C->replaceAllUsesWith(P->getArg(N + 1 + K->getZExtValue()));
      C->eraseFromParent();
    }
  auto *Entry = cast<BasicBlock>(VMap[Prologue]);
  IRBuilder<> B(Entry->getTerminator());
  Type *I64 = B.getInt64Ty();
  DenseMap<AllocaInst *, Value *> Fields;
  auto Field = [&](AllocaInst *A) {
    Value *&F = Fields[A];
    if (!F) {
      IRBuilder<> At(Entry->getTerminator());
      uint64_t Size = *A->getAllocationSize(DL);
      // (Within the scratch memory: no wrapping.)
      Value *Offset = At.CreateAdd(
          At.CreateMul(Count, ConstantInt::get(I64, FieldOffset[A]), "", true,
                       true),
          At.CreateMul(Index, ConstantInt::get(I64, Size), "", true, true), "",
          true, true);
      F = At.CreateInBoundsGEP(At.getInt8Ty(), Scratch, Offset, "field");
    }
    return F;
  };
  // The instance's own record (GraphMetadata.h).
  MDNode *Private = MDNode::get(Ctx, {});
  auto Copy = [&](IRBuilder<> &At, AllocaInst *A, bool In) {
    auto *Local = cast<AllocaInst>(VMap[A]);
    Value *Mem = Field(A);
    if (A->isArrayAllocation() || !A->getAllocatedType()->isSingleValueType()) {
      Value *Size = ConstantInt::get(I64, *A->getAllocationSize(DL));
      if (In)
        At.CreateMemCpy(Local, A->getAlign(), Mem, A->getAlign(), Size);
      else
        At.CreateMemCpy(Mem, A->getAlign(), Local, A->getAlign(), Size);
      return;
    }
    Type *T = A->getAllocatedType();
    if (In) {
      LoadInst *L = At.CreateAlignedLoad(T, Mem, A->getAlign());
      L->setMetadata(InstancePrivateMetadataName, Private);
      At.CreateAlignedStore(L, Local, A->getAlign());
    } else {
      StoreInst *S = At.CreateAlignedStore(
          At.CreateAlignedLoad(T, Local, A->getAlign()), Mem, A->getAlign());
      S->setMetadata(InstancePrivateMetadataName, Private);
    }
  };
  // The trip count says where the test goes: its operands need not be
  // carried, nor the code on the other side kept.
  auto *Test =
      Step.Tested
          ? dyn_cast<BranchInst>(Step.Tested->getHeader()->getTerminator())
          : nullptr;
  if (Test && Test->isConditional()) {
    bool FirstIn = Step.Tested->contains(Test->getSuccessor(0));
    BasicBlock *Go = Test->getSuccessor(FirstIn == Step.Taken ? 0 : 1);
    auto *Copy = cast<Instruction>(VMap[Test]);
    BranchInst::Create(cast<BasicBlock>(VMap[Go]), Copy->getIterator());
    Copy->eraseFromParent();
  }
  // Reaching a cut ends the phase.
  DenseMap<BasicBlock *, BasicBlock *> CutOf, Stops;
  for (BasicBlock *C : Cuts)
    CutOf[cast<BasicBlock>(VMap[C])] = C;
  SmallVector<BasicBlock *, 32> Blocks;
  for (BasicBlock &BB : *P)
    if (&BB != Entry)
      Blocks.push_back(&BB);
  for (BasicBlock *BB : Blocks) {
    Instruction *T = BB->getTerminator();
    for (unsigned K = 0; K < T->getNumSuccessors(); ++K) {
      BasicBlock *Cut = CutOf.lookup(T->getSuccessor(K));
      if (!Cut)
        continue;
      BasicBlock *&Stop = Stops[Cut];
      if (!Stop) {
        Stop = BasicBlock::Create(Ctx, "phase.stop", P);
        IRBuilder<> At(Stop);
        for (AllocaInst *A : LiveIn[Cut])
          Copy(At, A, /*In=*/false);
        At.CreateRetVoid();
      }
      T->setSuccessor(K, Stop);
    }
  }
  if (From != Start)
    for (AllocaInst *A : LiveIn[From])
      Copy(B, A, /*In=*/true);
  cast<BranchInst>(Entry->getTerminator())
      ->setSuccessor(0, cast<BasicBlock>(VMap[From]));
  removeUnreachableBlocks(*P);
  // The slots as SSA values again.
  Promote.run(*P, Run.functionAnalyses());
  Known = P;
  PhaseList.push_back(P);
  return P;
}

std::vector<BarrierPhases::Step> Splitter::steps(const std::vector<Plan> &Plans,
                                                 BarrierPhases &Result) {
  std::vector<BarrierPhases::Step> Steps;
  for (const Plan &P : Plans) {
    BarrierPhases::Step S;
    if (P.Start) {
      S.Phase = phase(P);
      // A phase that changes nothing (a loop's step, its counter recomputed
      // and its sums kept in place) is not run.
      if (none_of(instructions(*S.Phase),
                  [](const Instruction &I) { return I.mayHaveSideEffects(); }))
        continue;
    }
    S.Trips = P.Trips;
    S.Loop = P.LoopIndex;
    S.Body = steps(P.Body, Result);
    Steps.push_back(std::move(S));
  }
  return Steps;
}

/// The leaf's stand-ins for the loops' iterations, which no one reads once
/// the phases take them as parameters.
void Splitter::dropIterations() {
  if (!IterationFn)
    return;
  for (User *U : make_early_inc_range(IterationFn->users())) {
    auto *C = cast<CallInst>(U);
    C->replaceAllUsesWith(ConstantInt::get(C->getType(), 0));
    C->eraseFromParent();
  }
  IterationFn->eraseFromParent();
  IterationFn = nullptr;
}

std::optional<BarrierPhases> Splitter::run() {
  prepare();
  if (!analyse())
    return std::nullopt;
  recomputeCounters();
  std::vector<Plan> Plans = plan(nullptr);
  for (Instruction *C : BarrierCalls)
    C->eraseFromParent();
  if (!carry()) {
    dropIterations();
    return std::nullopt;
  }
  BarrierPhases Result;
  Result.Steps = steps(Plans, Result);
  Result.Functions = PhaseList;
  Result.RecordBytes = RecordBytes;
  Result.Loops = BarrierLoops.size();
  Result.TripCounters = TripCounters;
  dropIterations();
  return Result;
}

} // namespace

std::optional<BarrierPhases>
splitAtBarriers(Function &Leaf,
                function_ref<bool(const Instruction &)> IsBarrier,
                function_ref<bool(const Argument &)> IsUniform,
                function_ref<void(const Twine &, const Instruction *)> Error) {
  return Splitter(Leaf, IsBarrier, IsUniform, Error).run();
}

} // namespace hpvm
