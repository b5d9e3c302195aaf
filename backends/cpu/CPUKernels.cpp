//===- CPUKernels.cpp - Leaf functions to hpvm_cpu_kernel_fn wrappers -----===//
//
// For each cpu leaf, a wrapper
//
//   void @hpvm.cpu.<name>(ptr %args, ptr %outs, ptr %dims, ptr %outer_ids,
//                         i64 %begin, i64 %end)
//
// loads the parameters, runs a loop nest over the instances (the first id in
// [begin, min(end, extent0)), the others over their whole extent) around a
// call of the leaf, inlines the leaf and everything it calls, replaces the
// instance-id calls by the induction variables (level 0) or by loads from
// outer_ids (ancestors), and marks the innermost loop parallel. The leaf's
// instances are independent by construction of the graph, which is what
// llvm.loop.parallel_accesses states, and what lets the loop vectoriser skip
// its dependence analysis and run-time alias checks between buffers.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "hpvm/backends/LeafKernel.h"
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Inlining.h"
#include "hpvm/ir/WorkGroups.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace hpvm {

std::string getCPUWrapperName(StringRef LeafFunctionName) {
  LeafFunctionName.consume_front("hpvm.node.");
  return (CPUWrapperPrefix + LeafFunctionName).str();
}

std::string getCPUStreamingVariantName(StringRef LeafFunctionName) {
  return getCPUWrapperName(LeafFunctionName) + ".stream";
}

namespace cpu {
namespace {

/// A leaf to compile, and how many dims each of its ancestors has (what its
/// instance-id calls may name).
struct LeafJob {
  const Node *N = nullptr;
  /// AncestorDims[l - 1]: the number of dims of the ancestor at level l.
  SmallVector<unsigned, 4> AncestorDims;
};

Error nodeError(const Node &N, const Twine &Message) {
  return makeError("node '" + N.path() + "': " + Message);
}

/// What the wrapper relies on; the graph-form verifier checks more, but the
/// backend must not crash on a module that skipped it.
Error checkLeaf(const Module &M, const Node &N) {
  std::string Problem = leafInterfaceProblem(M, N);
  if (!Problem.empty())
    return nodeError(N, Problem);
  if (!N.Outputs.empty() && !N.Dims.empty())
    return nodeError(
        N, "a replicated leaf with outputs is not supported on the cpu: "
           "every instance would write the same outs[k]; write the results "
           "to a buffer, or produce them in a leaf without dims");
  return Error::success();
}

bool sameInterface(const LeafJob &A, const LeafJob &B) {
  const Node &X = *A.N, &Y = *B.N;
  return X.Dims == Y.Dims && X.Params == Y.Params && X.Outputs == Y.Outputs &&
         A.AncestorDims == B.AncestorDims;
}

bool basedOnAlloca(const Value *Ptr) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(Ptr, Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
  return any_of(Objects, [](const Value *O) { return isa<AllocaInst>(O); });
}

/// Puts AccessGroup on every memory access of L that is independent across
/// instances. Not on accesses to private allocas: after inlining, all
/// instances share one copy in the wrapper's frame, so they do carry
/// dependences from one iteration to the next (SROA removes most of them
/// before the vectoriser runs, and the loop then counts as parallel). Not at
/// all if an alloca's address escapes, since then any pointer may reach it.
/// Not on atomic or volatile accesses, which instances may use on purpose to
/// communicate.
///
/// Whether, within one iteration of L (never through its header again),
/// control can go from From to To.
bool reachableInIteration(const Instruction *From, const Instruction *To,
                          const Loop &L) {
  const BasicBlock *FB = From->getParent(), *TB = To->getParent();
  if (FB == TB && From->comesBefore(To))
    return true;
  SmallVector<const BasicBlock *, 16> Work(succ_begin(FB), succ_end(FB));
  SmallPtrSet<const BasicBlock *, 16> Seen;
  while (!Work.empty()) {
    const BasicBlock *BB = Work.pop_back_val();
    if (BB == L.getHeader() || !L.contains(BB) || !Seen.insert(BB).second)
      continue;
    if (BB == TB)
      return true;
    append_range(Work, successors(BB));
  }
  return false;
}

/// Not at all if an instance writes a buffer and then accesses it again
/// (`o[2*i] = x; o[2*i+1] = o[2*i];`): in a loop annotated parallel, LLVM 19's
/// loop vectoriser skips the dependence analysis also within one iteration,
/// and its interleaved-access groups then move the load above the store (or
/// a store past another). Without the annotation it analyses the loop, and
/// still vectorises it where the dependences allow. Accesses on paths that
/// exclude each other (the two branches of an `if`, each storing) never
/// both run in one iteration, so nothing within one can be reordered.
void tagParallelAccesses(Function &W, Loop &L, const DominatorTree &DT,
                         MDNode *AccessGroup) {
  for (Instruction &I : instructions(W))
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (PointerMayBeCaptured(AI, /*ReturnCaptures=*/false,
                               /*StoreCaptures=*/true))
        return;

  struct Access {
    Instruction *I;
    SmallVector<const Value *, 2> Objects;
    bool Taggable;
  };
  SmallVector<Access, 16> Accesses;
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB) {
      if (!I.mayReadOrWriteMemory())
        continue;
      SmallVector<const Value *, 4> Pointers;
      if (auto *Load = dyn_cast<LoadInst>(&I))
        Pointers.push_back(Load->getPointerOperand());
      else if (auto *Store = dyn_cast<StoreInst>(&I))
        Pointers.push_back(Store->getPointerOperand());
      else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        Pointers.push_back(RMW->getPointerOperand());
      else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
        Pointers.push_back(CX->getPointerOperand());
      else if (auto *Call = dyn_cast<CallBase>(&I)) {
        for (const Use &Arg : Call->args())
          if (Arg->getType()->isPtrOrPtrVectorTy())
            Pointers.push_back(Arg.get());
      } else {
        continue;
      }
      if (any_of(Pointers, basedOnAlloca))
        continue;
      Access A{&I, {}, !I.isAtomic() && !I.isVolatile()};
      for (const Value *P : Pointers)
        getUnderlyingObjects(P, A.Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
      Accesses.push_back(std::move(A));
    }
  // Every access to a buffer the instance writes must come before the
  // write (dominate it), as the read of `y[i] = a * x[i] + y[i]` does, or
  // be on a path that excludes it. Two accesses to the instance's own record
  // (InstancePrivateMetadataName: the fields of a barrier leaf's scratch,
  // each an array over the instances, read before they are written) are
  // never to the same bytes unless the first dominates, nor interleaved.
  auto Private = [](const Access &A) {
    return A.I->getMetadata(InstancePrivateMetadataName) != nullptr;
  };
  for (const Access &Write : Accesses) {
    if (!Write.I->mayWriteToMemory())
      continue;
    for (const Access &Other : Accesses)
      if (&Other != &Write && !(Private(Write) && Private(Other)) &&
          !DT.dominates(Other.I, Write.I) &&
          any_of(
              Other.Objects,
              [&](const Value *O) { return is_contained(Write.Objects, O); }) &&
          (reachableInIteration(Write.I, Other.I, L) ||
           reachableInIteration(Other.I, Write.I, L)))
        return;
  }

  for (const Access &A : Accesses)
    if (A.Taggable)
      A.I->setMetadata(
          LLVMContext::MD_access_group,
          uniteAccessGroups(A.I->getMetadata(LLVMContext::MD_access_group),
                            AccessGroup));
}

MDNode *makeLoopID(LLVMContext &Ctx, ArrayRef<Metadata *> Properties) {
  SmallVector<Metadata *, 4> Ops{nullptr};
  append_range(Ops, Properties);
  MDNode *ID = MDNode::getDistinct(Ctx, Ops);
  ID->replaceOperandWith(0, ID);
  return ID;
}

/// Builds the wrapper of one leaf in M (the leaf is M's copy).
class WrapperBuilder {
public:
  WrapperBuilder(Module &M, const LeafJob &Job)
      : M(M), Ctx(M.getContext()), DL(M.getDataLayout()), Job(Job), N(*Job.N),
        Leaf(M.getFunction(N.Function)) {}

  Expected<Function *> build(StringRef Name);

private:
  DebugLoc makeDebugInfo();
  Value *extentValue(IRBuilder<> &B, const Extent &E);
  Value *outerId(unsigned Level, unsigned Dim);
  Error replaceInstanceIds();
  void foldBoundChecks();
  void attachLoopMetadata();

  Module &M;
  LLVMContext &Ctx;
  const DataLayout &DL;
  const LeafJob &Job;
  const Node &N;
  Function *Leaf;
  Function *W = nullptr;
  Argument *ArgsArg = nullptr, *OutsArg = nullptr, *OuterIdsArg = nullptr;
  SmallVector<Value *, 8> Actuals;
  /// Where loop-invariant loads (outer ids) go: runs once, only when the
  /// range is not empty.
  BasicBlock *Instances = nullptr;
  SmallVector<PHINode *, 3> IVs;
  /// Per dim: the extent as the i64 the loops use, and the parameter's own
  /// value (null for a constant extent).
  SmallVector<Value *, 3> Extents, ExtentParams;
  SmallVector<BranchInst *, 3> LatchBranches;
  DenseMap<std::pair<unsigned, unsigned>, Value *> OuterIds;
};

/// The wrapper gets an artificial subprogram when the leaf has one, so that
/// the inlined body keeps its source locations (profilers, debuggers).
DebugLoc WrapperBuilder::makeDebugInfo() {
  DISubprogram *LeafSP = Leaf->getSubprogram();
  if (!LeafSP || !LeafSP->getUnit())
    return DebugLoc();
  DIBuilder DIB(M, /*AllowUnresolved=*/false, LeafSP->getUnit());
  DISubroutineType *Ty =
      DIB.createSubroutineType(DIB.getOrCreateTypeArray(std::nullopt));
  DISubprogram::DISPFlags Flags = DISubprogram::SPFlagDefinition;
  if (LeafSP->isOptimized())
    Flags |= DISubprogram::SPFlagOptimized;
  DISubprogram *SP = DIB.createFunction(
      LeafSP->getFile(), W->getName(), W->getName(), LeafSP->getFile(),
      LeafSP->getLine(), Ty, LeafSP->getScopeLine(),
      DINode::FlagArtificial | DINode::FlagPrototyped, Flags);
  W->setSubprogram(SP);
  DIB.finalizeSubprogram(SP);
  // The loop over instances is the source's parallel loop: where the
  // leaf's own code starts (its first location outside inlined code).
  unsigned Line = LeafSP->getLine(), Column = 0;
  for (const Instruction &I : instructions(*Leaf))
    if (const DILocation *L = I.getDebugLoc(); L && !L->getInlinedAt()) {
      Line = L->getLine();
      Column = L->getColumn();
      break;
    }
  return DILocation::get(Ctx, Line, Column, SP);
}

Value *WrapperBuilder::extentValue(IRBuilder<> &B, const Extent &E) {
  if (E.isConstant())
    return B.getInt64(E.value());
  Value *V = Actuals[E.paramIndex()];
  // A bool extent counts 0 or 1 instances; narrower integers are signed like
  // the i64 instance ids they bound.
  if (V->getType()->isIntegerTy(1))
    return B.CreateZExt(V, B.getInt64Ty());
  return B.CreateSExtOrTrunc(V, B.getInt64Ty(), V->getName() + ".i64");
}

Value *WrapperBuilder::outerId(unsigned Level, unsigned Dim) {
  Value *&Id = OuterIds[{Level, Dim}];
  if (!Id) {
    IRBuilder<> B(Instances->getTerminator());
    Value *Slot = B.CreateConstInBoundsGEP1_64(B.getInt64Ty(), OuterIdsArg,
                                               (Level - 1) * 3 + Dim);
    Id = B.CreateAlignedLoad(B.getInt64Ty(), Slot, Align(8),
                             "outer.id." + Twine(Level) + "." + Twine(Dim));
  }
  return Id;
}

Error WrapperBuilder::replaceInstanceIds() {
  return hpvm::replaceInstanceIds(
      *W, N, Job.AncestorDims, SmallVector<Value *, 3>(IVs.begin(), IVs.end()),
      [&](IRBuilder<> &, unsigned Level, unsigned Dim) {
        return outerId(Level, Dim);
      },
      [&](const Instruction *At, const Twine &What) {
        return nodeError(N, What + ": " + describe(At));
      });
}

/// The leaf still checks its ids against the extents of the loops EXTRACT cut
/// away (`id < n`, or `trunc(id) < n` for a C `int` loop). With a 64-bit
/// extent the optimiser proves these true from the wrapper's loop bounds, but
/// not through the truncation of a narrower one: the check then survives
/// into the loop and the vectoriser masks every access (and the widening of
/// the truncated id back to i64 costs run-time overflow checks). The loops
/// give 0 <= id < extent, so such comparisons and widenings fold here.
void WrapperBuilder::foldBoundChecks() {
  SmallVector<WeakTrackingVH, 16> Dead;
  for (auto [D, IV] : enumerate(IVs)) {
    if (D >= ExtentParams.size() || !ExtentParams[D] ||
        ExtentParams[D]->getType()->isIntegerTy(1))
      continue;
    Value *Param = ExtentParams[D];
    Type *ParamTy = Param->getType();
    // The id, in the extent's type or in i64; the extent, likewise.
    auto IsId = [&](Value *V) {
      if (V == IV)
        return true;
      auto *T = dyn_cast<TruncInst>(V);
      return T && T->getOperand(0) == IV && T->getType() == ParamTy;
    };
    auto IsExtent = [&](Value *V) {
      if (V == Param || V == Extents[D])
        return true;
      auto *S = dyn_cast<SExtInst>(V);
      return S && S->getOperand(0) == Param && S->getType() == IV->getType();
    };
    SmallSetVector<ICmpInst *, 8> Compares;
    SmallSetVector<CastInst *, 8> WidenedBack;
    for (User *U : IV->users()) {
      if (auto *Cmp = dyn_cast<ICmpInst>(U))
        Compares.insert(Cmp);
      else if (IsId(U))
        for (User *TU : U->users()) {
          if (auto *Cmp = dyn_cast<ICmpInst>(TU))
            Compares.insert(Cmp);
          else if ((isa<SExtInst>(TU) || isa<ZExtInst>(TU)) &&
                   TU->getType() == IV->getType())
            WidenedBack.insert(cast<CastInst>(TU));
        }
    }
    // The truncation is exact, so widening it again (the C index `a[i]`)
    // gives the id itself.
    for (CastInst *Ext : WidenedBack) {
      Ext->replaceAllUsesWith(IV);
      Dead.push_back(Ext);
    }
    for (ICmpInst *Cmp : Compares) {
      CmpInst::Predicate Pred = Cmp->getPredicate();
      Value *L = Cmp->getOperand(0), *R = Cmp->getOperand(1);
      if (IsExtent(L) && IsId(R)) {
        std::swap(L, R);
        Pred = CmpInst::getSwappedPredicate(Pred);
      }
      if (!IsId(L) || !IsExtent(R) || L->getType() != R->getType())
        continue;
      // 0 <= id < extent, signed and unsigned alike.
      bool Value;
      switch (Pred) {
      case CmpInst::ICMP_SLT:
      case CmpInst::ICMP_ULT:
      case CmpInst::ICMP_SLE:
      case CmpInst::ICMP_ULE:
      case CmpInst::ICMP_NE:
        Value = true;
        break;
      default:
        Value = false;
        break;
      }
      Cmp->replaceAllUsesWith(ConstantInt::getBool(Cmp->getType(), Value));
      Dead.push_back(Cmp);
    }
  }
  RecursivelyDeleteTriviallyDeadInstructions(Dead);
}

void WrapperBuilder::attachLoopMetadata() {
  DominatorTree DT(*W);
  LoopInfo LI(DT);
  // The leaf's loop guard branches may still carry the metadata of the
  // source loops EXTRACT cut away; once inlined into the instance loop they
  // would be merged into its latch and override its properties.
  for (BasicBlock &BB : *W) {
    Instruction *T = BB.getTerminator();
    if (!T || !T->getMetadata(LLVMContext::MD_loop))
      continue;
    Loop *L = LI.getLoopFor(&BB);
    if (!L || !L->isLoopLatch(&BB))
      T->setMetadata(LLVMContext::MD_loop, nullptr);
  }

  MDNode *MustProgress =
      MDNode::get(Ctx, MDString::get(Ctx, "llvm.loop.mustprogress"));
  // The properties of a loop whose iterations are independent instances: L's
  // accesses tagged, and the mark the jamming and splitting passes look for.
  auto InstanceLoop = [&](Loop &L, SmallVectorImpl<Metadata *> &Props) {
    MDNode *AccessGroup = MDNode::getDistinct(Ctx, {});
    tagParallelAccesses(*W, L, DT, AccessGroup);
    Props.push_back(MDNode::get(
        Ctx, {MDString::get(Ctx, "llvm.loop.parallel_accesses"), AccessGroup}));
    Props.push_back(
        MDNode::get(Ctx, {MDString::get(Ctx, InstanceLoopProperty)}));
    // Only the innermost loop of the nest is vectorised; a leaf with a loop
    // of its own would only earn a "loop not vectorized" warning.
    if (L.isInnermost())
      Props.push_back(MDNode::get(
          Ctx, {MDString::get(Ctx, "llvm.loop.vectorize.enable"),
                ConstantAsMetadata::get(ConstantInt::getTrue(Ctx))}));
  };
  // A leaf split at its barriers runs once per work-group, the instances of
  // the group in loops of its own (WorkItemsLoopProperty): those are the
  // loops to vectorise, and the loop over the groups is not jammed.
  SmallVector<Loop *, 8> WorkItems;
  for (Loop *L : LI.getLoopsInPreorder())
    if (findOptionMDForLoop(L, WorkItemsLoopProperty))
      WorkItems.push_back(L);
  unsigned Depth = LatchBranches.size();
  for (unsigned D = 0; D < Depth; ++D) {
    SmallVector<Metadata *, 4> Props{MustProgress};
    Loop *L = LI.getLoopFor(LatchBranches[D]->getParent());
    // A leaf without dims runs once per call; it has no instances to run in
    // parallel.
    if (D == Depth - 1 && !N.Dims.empty() && L && WorkItems.empty())
      InstanceLoop(*L, Props);
    LatchBranches[D]->setMetadata(LLVMContext::MD_loop, makeLoopID(Ctx, Props));
  }
  for (Loop *L : WorkItems) {
    SmallVector<Metadata *, 4> Props{MustProgress};
    // Only the innermost of a group's loops over its dims.
    if (none_of(L->getSubLoops(), [](const Loop *Inner) {
          return findOptionMDForLoop(Inner, WorkItemsLoopProperty);
        }))
      InstanceLoop(*L, Props);
    L->setLoopID(makeLoopID(Ctx, Props));
  }
}

Expected<Function *> WrapperBuilder::build(StringRef Name) {
  Type *I64 = Type::getInt64Ty(Ctx);
  PointerType *Ptr = PointerType::getUnqual(Ctx);
  // void (void *const *args, void *const *outs, const uint64_t *dims,
  //       const uint64_t *outer_ids, uint64_t begin, uint64_t end)
  FunctionType *Ty = FunctionType::get(Type::getVoidTy(Ctx),
                                       {Ptr, Ptr, Ptr, Ptr, I64, I64}, false);
  W = Function::Create(Ty, GlobalValue::ExternalLinkage, Name, M);
  ArgsArg = W->getArg(0);
  OutsArg = W->getArg(1);
  OuterIdsArg = W->getArg(3);
  ArgsArg->setName("args");
  OutsArg->setName("outs");
  W->getArg(2)->setName("dims");
  OuterIdsArg->setName("outer_ids");
  Argument *Begin = W->getArg(4), *End = W->getArg(5);
  Begin->setName("begin");
  End->setName("end");

  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", W);
  IRBuilder<> B(Entry);
  B.SetCurrentDebugLocation(makeDebugInfo());

  // args[i] points to parameter i: to the data pointer for a buffer, to the
  // scalar for a value (a C bool, one byte, for i1).
  FunctionType *LeafTy = Leaf->getFunctionType();
  for (auto [I, P] : enumerate(N.Params)) {
    Value *Slot =
        B.CreateAlignedLoad(Ptr, B.CreateConstInBoundsGEP1_64(Ptr, ArgsArg, I),
                            DL.getABITypeAlign(Ptr), P.Name + ".addr");
    Type *T = LeafTy->getParamType(I);
    Value *V;
    if (T->isIntegerTy(1))
      V = B.CreateTrunc(B.CreateLoad(B.getInt8Ty(), Slot), T, P.Name);
    else
      V = B.CreateAlignedLoad(T, Slot, DL.getABITypeAlign(T), P.Name);
    Actuals.push_back(V);
  }

  // Bounds of each loop; signed, like the leaf's own bound checks (EXTRACT
  // leaves `id < extent` guards in the leaf), so that those fold away. The
  // first dim's range is clamped to [0, extent) for the same reason (with
  // 0 <= id, a guard on the id truncated to the extent's type folds too), and
  // so that a caller's overlong range cannot run instances that do not
  // exist.
  unsigned NumDims = N.Dims.size();
  unsigned Depth = std::max(NumDims, 1u);
  for (const Extent &E : N.Dims) {
    Extents.push_back(extentValue(B, E));
    ExtentParams.push_back(E.isParam() ? Actuals[E.paramIndex()] : nullptr);
  }
  SmallVector<Value *, 3> Lo, Hi;
  if (NumDims) {
    Lo.push_back(B.CreateBinaryIntrinsic(Intrinsic::smax, Begin, B.getInt64(0),
                                         nullptr, "begin.clamped"));
    Hi.push_back(B.CreateBinaryIntrinsic(Intrinsic::smin, End, Extents[0],
                                         nullptr, "end.clamped"));
  } else {
    Lo.push_back(Begin);
    Hi.push_back(End);
  }
  for (unsigned D = 1; D < NumDims; ++D) {
    Lo.push_back(B.getInt64(0));
    Hi.push_back(Extents[D]);
  }
  Value *NonEmpty = nullptr;
  for (unsigned D = 0; D < Depth; ++D) {
    Value *C = B.CreateICmpSLT(Lo[D], Hi[D]);
    NonEmpty = NonEmpty ? B.CreateAnd(NonEmpty, C) : C;
  }
  BasicBlock *Exit = BasicBlock::Create(Ctx, "exit");
  Instances = BasicBlock::Create(Ctx, "instances", W);
  B.CreateCondBr(NonEmpty, Instances, Exit);

  // Rotated loops (the range is known not to be empty): header with the
  // induction variable, the leaf in the innermost one, latches inside out.
  B.SetInsertPoint(Instances);
  BasicBlock *Pred = Instances;
  for (unsigned D = 0; D < Depth; ++D) {
    BasicBlock *Header = BasicBlock::Create(Ctx, "i" + Twine(D), W);
    B.CreateBr(Header);
    B.SetInsertPoint(Header);
    PHINode *IV = B.CreatePHI(I64, 2, "i" + Twine(D));
    IV->addIncoming(Lo[D], Pred);
    IVs.push_back(IV);
    Pred = Header;
  }
  CallInst *Call = B.CreateCall(Leaf, Actuals);
  Call->setCallingConv(Leaf->getCallingConv());
  // Outputs of a one-instance leaf: outs[k] points to where output k goes.
  for (auto [K, Out] : enumerate(N.Outputs)) {
    Value *V = N.Outputs.size() == 1 ? static_cast<Value *>(Call)
                                     : B.CreateExtractValue(Call, K);
    Value *Dst =
        B.CreateAlignedLoad(Ptr, B.CreateConstInBoundsGEP1_64(Ptr, OutsArg, K),
                            DL.getABITypeAlign(Ptr), Out.Name + ".dst");
    if (V->getType()->isIntegerTy(1))
      V = B.CreateZExt(V, B.getInt8Ty());
    B.CreateAlignedStore(V, Dst, DL.getABITypeAlign(V->getType()));
  }

  SmallVector<BasicBlock *, 3> Latches;
  for (unsigned D = 0; D < Depth; ++D)
    Latches.push_back(BasicBlock::Create(Ctx, "i" + Twine(D) + ".latch", W));
  LatchBranches.resize(Depth);
  B.CreateBr(Latches[Depth - 1]);
  for (unsigned D = Depth; D-- > 0;) {
    B.SetInsertPoint(Latches[D]);
    Value *Next =
        B.CreateNSWAdd(IVs[D], B.getInt64(1), "i" + Twine(D) + ".next");
    IVs[D]->addIncoming(Next, Latches[D]);
    LatchBranches[D] =
        B.CreateCondBr(B.CreateICmpSLT(Next, Hi[D]), IVs[D]->getParent(),
                       D ? Latches[D - 1] : Exit);
  }
  Exit->insertInto(W);
  B.SetInsertPoint(Exit);
  B.CreateRetVoid();

  InlineFunctionInfo IFI;
  InlineResult Inlined = InlineFunction(*Call, IFI);
  if (!Inlined.isSuccess())
    return nodeError(N,
                     "cannot inline leaf function '@" + Leaf->getName() +
                         "' into its wrapper: " + Inlined.getFailureReason());
  inlineTransitively(Leaf, IFI.InlinedCallSites);
  if (!W->getSubprogram())
    stripDebugInfo(*W);
  // A work-group leaf's groups run their phases here.
  resolveWorkGroupForm(*W, /*Native=*/false);

  if (Error E = replaceInstanceIds())
    return E;
  foldBoundChecks();
  attachLoopMetadata();
  return W;
}

/// Leaves only the wrappers and what they use: every other definition
/// becomes internal (and is deleted when unused); mutable globals become
/// declarations of the host program's. Graph metadata and llvm.used-style
/// arrays (which keep leaf functions alive) go.
Error keepOnlyKernels(Module &M, const StringMap<std::string> &Wrappers) {
  if (NamedMDNode *Graphs = M.getNamedMetadata(GraphsMetadataName))
    M.eraseNamedMetadata(Graphs);
  for (GlobalVariable &GV : make_early_inc_range(M.globals()))
    if (GV.getName().starts_with("llvm."))
      GV.eraseFromParent();

  auto Internalise = [](GlobalValue &GV) {
    GV.setLinkage(GlobalValue::InternalLinkage);
    GV.setVisibility(GlobalValue::DefaultVisibility);
    GV.setDLLStorageClass(GlobalValue::DefaultStorageClass);
    if (auto *GO = dyn_cast<GlobalObject>(&GV))
      GO->setComdat(nullptr);
  };
  for (Function &F : M)
    if (!F.isDeclaration() && !Wrappers.count(F.getName()))
      Internalise(F);
  for (GlobalVariable &GV : M.globals()) {
    if (GV.isDeclaration())
      continue;
    if (GV.isConstant()) {
      Internalise(GV);
    } else if (!GV.hasLocalLinkage()) {
      // The kernel must see the host program's variable, not a copy.
      GV.setInitializer(nullptr);
      GV.setLinkage(GlobalValue::ExternalLinkage);
      GV.setComdat(nullptr);
    }
  }
  for (GlobalAlias &GA : M.aliases())
    Internalise(GA);
  for (GlobalIFunc &GI : M.ifuncs())
    Internalise(GI);

  {
    ModuleAnalysisManager MAM;
    PassBuilder PB;
    PB.registerModuleAnalyses(MAM);
    GlobalDCEPass().run(M, MAM);
  }
  for (Function &F : make_early_inc_range(M))
    if (F.isDeclaration() && F.use_empty())
      F.eraseFromParent();
  for (GlobalVariable &GV : make_early_inc_range(M.globals()))
    if (GV.isDeclaration() && GV.use_empty())
      GV.eraseFromParent();
  // What the kernels import comes from the host program or a shared library
  // (or, in the JIT, from anywhere in the process): a frontend's dso_local
  // on it (e.g. from -fno-pic) would ask for direct references that need
  // not reach.
  for (GlobalObject &GO : M.global_objects())
    if (GO.isDeclaration() && GO.hasDefaultVisibility() &&
        !GO.getName().starts_with("llvm."))
      GO.setDSOLocal(false);

  // Which wrapper (and so which node) a leftover use belongs to.
  auto UsedBy = [&](const Value *V) -> std::string {
    for (const User *U : V->users())
      if (const auto *I = dyn_cast<Instruction>(U)) {
        StringRef F = I->getFunction()->getName();
        auto It = Wrappers.find(F);
        return It != Wrappers.end() ? "node '" + It->second + "'"
                                    : "function '@" + F.str() + "'";
      }
    return "a constant";
  };
  if (Function *IdFn = M.getFunction(InstanceIdFunctionName))
    if (!IdFn->use_empty())
      return makeError(UsedBy(IdFn) +
                       ": reads an instance id outside the leaf function "
                       "(e.g. in a recursive helper, which cannot be "
                       "inlined); pass the id as an argument instead");
  if (Function *Launch = M.getFunction(LaunchFunctionName))
    if (!Launch->use_empty())
      return makeError(UsedBy(Launch) +
                       ": launches a graph from inside a leaf, which is not "
                       "supported");
  for (GlobalVariable &GV : M.globals())
    if (!GV.isConstant() && GV.hasLocalLinkage())
      return makeError(UsedBy(&GV) + ": uses the mutable internal global '@" +
                       GV.getName() +
                       "', which a separately compiled kernel cannot share "
                       "with the host program");
  return Error::success();
}

} // namespace
} // namespace cpu

Expected<std::unique_ptr<Module>> buildCPUKernels(const Module &GraphForm,
                                                  const CPUOptions &Opts) {
  using namespace cpu;
  auto Graphs = readGraphs(GraphForm);
  if (!Graphs)
    return Graphs.takeError();

  // The cpu leaves, one job per leaf function.
  std::vector<LeafJob> Jobs;
  StringMap<size_t> JobOfFunction;
  for (const Graph &G : *Graphs) {
    Error Err = Error::success();
    forEachNode(G.root(), [&](const Node &N) {
      if (Err || !N.isLeaf() || !(N.Targets & TargetCPU))
        return;
      if (Error E = checkLeaf(GraphForm, N)) {
        Err = std::move(E);
        return;
      }
      LeafJob Job;
      Job.N = &N;
      for (const Node *P = N.parent(); P; P = P->parent())
        Job.AncestorDims.push_back(P->Dims.size());
      auto [It, New] = JobOfFunction.try_emplace(N.Function, Jobs.size());
      if (New) {
        Jobs.push_back(std::move(Job));
      } else if (!sameInterface(Jobs[It->second], Job)) {
        Err = nodeError(N, "shares leaf function '@" + N.Function +
                               "' with node '" + Jobs[It->second].N->path() +
                               "', whose dims, parameters or outputs differ");
      }
    });
    if (Err)
      return Err;
  }

  auto TM = createCPUTargetMachine(Opts);
  if (!TM)
    return TM.takeError();

  std::unique_ptr<Module> M = CloneModule(GraphForm);
  M->setModuleIdentifier(GraphForm.getModuleIdentifier() + ".cpu");
  if (Error E = adoptTarget(*M, **TM))
    return E;

  StringMap<std::string> Wrappers; // wrapper name -> node path
  SmallVector<std::pair<Function *, const LeafJob *>, 8> Built;
  for (const LeafJob &Job : Jobs) {
    std::string Name = getCPUWrapperName(Job.N->Function);
    if (M->getNamedValue(Name))
      return nodeError(*Job.N, "the name of its wrapper, '@" + Name +
                                   "', is already taken in the module");
    auto W = WrapperBuilder(*M, Job).build(Name);
    if (!W)
      return W.takeError();
    Wrappers[Name] = Job.N->path();
    Built.push_back({*W, &Job});
  }
  // Streaming-store variants (StreamingStores.cpp), where the vectoriser
  // runs and the target has sfence; after every wrapper, so that a variant
  // never takes a wrapper's name (a variant whose name is taken is not
  // made).
  if (Opts.OptLevel >= 2 &&
      (*TM)->getTargetTriple().getArch() == Triple::x86_64)
    for (auto [W, Job] : Built) {
      SmallVector<unsigned, 8> Buffers;
      for (auto [I, P] : enumerate(Job->N->Params))
        if (P.isBuffer())
          Buffers.push_back(I);
      SmallVector<unsigned, 4> WriteOnly = writeOnlyBufferParams(*W, Buffers);
      std::string Name = getCPUStreamingVariantName(Job->N->Function);
      if (WriteOnly.empty() || M->getNamedValue(Name))
        continue;
      makeStreamingVariant(*W, WriteOnly, Name);
      Wrappers[Name] = Job->N->path();
    }
  if (Error E = keepOnlyKernels(*M, Wrappers))
    return E;

  for (Function &F : *M) {
    // Frontends at -O0 mark everything optnone/noinline; the kernels are
    // optimised whatever the host program was compiled with.
    F.removeFnAttr(Attribute::OptimizeNone);
    F.removeFnAttr(Attribute::NoInline);
  }
  setTargetAttributes(*M, **TM, Opts);
  optimiseModule(*M, **TM, Opts);

  std::string Broken;
  raw_string_ostream OS(Broken);
  if (verifyModule(*M, &OS))
    return makeError("internal error: the CPU kernels are not valid LLVM "
                     "IR:\n" +
                     OS.str());
  return M;
}

} // namespace hpvm
