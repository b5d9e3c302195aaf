//===- Extract.cpp - Region form to graph form ----------------------------===//
//
// EXTRACT turns every top-level region of a function into one graph:
//  * each region becomes a node whose parameters are its named buffers and
//    values, the extents it needs, and the scalars its body uses from
//    outside the graph;
//  * each leaf's body becomes an SPMD function of the instance id: one
//    iteration of its innermost parallel loop, with the induction variables
//    of its own and its ancestors' loops replaced by @hpvm.instance.id;
//  * pure values an internal node computes are recomputed in the leaves
//    that use them, so internal nodes keep no code;
//  * siblings are ordered by their buffer conflicts in program order;
//  * the region itself is replaced by a call to @hpvm.launch.
//
//===----------------------------------------------------------------------===//
#include "RegionAnalysis.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace hpvm {

namespace {

/// A node being built, with the SSA value each parameter stands for. All
/// regions of a graph live in one function, so a value means the same thing
/// in a node and in its parent: that is what bindings are computed from.
struct NodeState {
  Region *R = nullptr;
  Node *N = nullptr;
  NodeState *Parent = nullptr;
  std::vector<std::unique_ptr<NodeState>> Children;
  SmallVector<Value *, 8> ParamValues;
};

/// How a leaf obtains a value its body uses but does not define.
struct LiveIn {
  enum class Kind { Param, InstanceId, Clone, Keep } K = Kind::Keep;
  unsigned Param = 0;
  unsigned Level = 0, Dim = 0;
};

class Extractor {
public:
  Extractor(Function &F, StringSet<> &GraphNames, std::vector<Graph> &Graphs)
      : F(F), M(*F.getParent()), Ctx(F.getContext()), GraphNames(GraphNames),
        Graphs(Graphs) {}
  unsigned run();

private:
  void error(const std::string &Rule, const std::string &Message,
             const Region &R, const Instruction *At) {
    reportError(Ctx, Rule, Message, &F, R.Name, At);
    ++Errors;
  }
  void extractGraph(Region &Root);
  std::unique_ptr<NodeState> buildNode(Region &R, Node &N, NodeState *Parent);
  struct Section {
    Value *Base;
    SmallVector<std::tuple<Value *, unsigned, unsigned>, 3> Terms;
  };
  std::optional<Section> sectionOf(const Region &R, Value *Ptr,
                                   const NodeState &Parent);
  /// X can be computed before the current graph starts (and is, by
  /// expandBeforeGraph, as an i64 before its launch).
  bool availableBeforeGraph(const SCEV *X) const;
  Value *expandBeforeGraph(const SCEV *X);
  std::optional<DerivedExtent> derivedFrom(const NodeState &S, const SCEV *X);
  void recordRows(NodeState &S);
  void hoistExtents(Region &R, Region &Root);
  Extent extentFor(NodeState &S, Value *V, const std::string &Name);
  unsigned valueParam(NodeState &S, Value *V, std::string Name);
  void outlineLeaves(NodeState &S);
  void outlineLeaf(NodeState &S);
  bool planLiveIn(NodeState &S, Value *V, MapVector<Value *, LiveIn> &Plan);
  void bindChildren(NodeState &S);
  void addEdges(NodeState &S);
  void replaceWithLaunch(NodeState &Root, const std::string &GraphName);
  bool launchAvailable(Value *V) const;

  Function &F;
  Module &M;
  LLVMContext &Ctx;
  StringSet<> &GraphNames;
  std::vector<Graph> &Graphs;
  unsigned Errors = 0;
  Region *CurrentRoot = nullptr;
  /// Induction variable -> (region, dim) for every replicated region.
  DenseMap<const PHINode *, std::pair<const Region *, unsigned>> Inductions;
  DenseMap<const Region *, ParallelNest> Nests;
  /// Per leaf and buffer, what it provably writes (Param::WritesAll,
  /// Param::Written); decided before anything is extracted, while the
  /// analyses are exact.
  DenseMap<const Region *, SmallVector<std::optional<RowsWritten>, 4>> Writes;
  /// The function's analyses while graphs are built (sections need them).
  FunctionAnalyses *Analyses = nullptr;
};

} // namespace

static std::string uniqueName(StringRef Base, const StringSet<> &Taken) {
  if (!Taken.count(Base))
    return Base.str();
  for (unsigned I = 1;; ++I) {
    std::string Candidate = (Base + "." + Twine(I)).str();
    if (!Taken.count(Candidate))
      return Candidate;
  }
}

/// A value can be passed to the launch if it exists before the graph starts.
bool Extractor::launchAvailable(Value *V) const {
  if (isa<Argument>(V) || isa<GlobalValue>(V))
    return true;
  auto *I = dyn_cast<Instruction>(V);
  return I && !CurrentRoot->contains(I) && I != CurrentRoot->Entry;
}

unsigned Extractor::valueParam(NodeState &S, Value *V, std::string Name) {
  for (unsigned I = 0; I < S.ParamValues.size(); ++I)
    if (S.ParamValues[I] == V && !S.N->Params[I].isBuffer())
      return I;
  StringSet<> Taken;
  for (const Param &P : S.N->Params)
    Taken.insert(P.Name);
  if (Name.empty())
    Name = V->hasName() ? V->getName().str() : "v";
  S.ParamValues.push_back(V);
  return S.N->addValue(uniqueName(Name, Taken), *fromLLVMType(V->getType()));
}

Extent Extractor::extentFor(NodeState &S, Value *V, const std::string &Name) {
  // Read as signed at their width, like parameters (the region rules have
  // rejected negative constants).
  if (auto *C = dyn_cast<ConstantInt>(V))
    return Extent::constant(static_cast<uint64_t>(C->getSExtValue()));
  return Extent::param(valueParam(S, V, V->hasName() ? "" : Name));
}

/// Extents of nested nodes are computed where the frontend put them, inside
/// their parent; the verifier has checked they are pure and independent of
/// instance ids, so they can run before the launch instead.
void Extractor::hoistExtents(Region &R, Region &Root) {
  std::function<void(Value *)> Hoist = [&](Value *V) {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !Root.contains(I))
      return;
    for (Value *Op : I->operands())
      Hoist(Op);
    I->moveBefore(Root.Entry);
  };
  if (&R != &Root) {
    for (Value *D : R.Dims)
      Hoist(D);
    for (Value *G : R.Group)
      Hoist(G);
    for (RegionBuffer &B : R.Buffers)
      Hoist(B.Bytes);
  }
  for (auto &C : R.Children)
    hoistExtents(*C, Root);
}

/// A child may name a section of one of its parent's buffers that starts
/// at an offset affine in the instance ids of its ancestors (`x + r*n` in
/// the body of `parallel for r`): the child's parameter is the parent's
/// buffer, and the offset's terms are ids times coefficients computed
/// before the graph (expanded there).
std::optional<Extractor::Section>
Extractor::sectionOf(const Region &R, Value *Ptr, const NodeState &Parent) {
  ScalarEvolution &SE = Analyses->SE;
  const SCEV *S = SE.getSCEV(Ptr);
  auto *Base = dyn_cast<SCEVUnknown>(SE.getPointerBase(S));
  if (!Base)
    return std::nullopt;
  // The parent's buffer may be a name for the base (a global array is
  // named through a zero GEP, which SCEV sees through).
  Value *ParentBuffer = nullptr;
  for (unsigned I = 0; I < Parent.ParamValues.size() && !ParentBuffer; ++I)
    if (Parent.N->Params[I].isBuffer() &&
        (Parent.ParamValues[I] == Base->getValue() ||
         SE.getSCEV(Parent.ParamValues[I]) == Base))
      ParentBuffer = Parent.ParamValues[I];
  const SCEV *Off = SE.getMinusSCEV(S, Base);
  if (!ParentBuffer || isa<SCEVCouldNotCompute>(Off))
    return std::nullopt;

  Section Result{ParentBuffer, {}};
  while (auto *AR = dyn_cast<SCEVAddRecExpr>(Off)) {
    // The loop must be a parallel loop of an ancestor: its ids.
    const Region *Owner = nullptr;
    unsigned Dim = 0;
    for (const Region *A = R.Parent; A && !Owner; A = A->Parent)
      if (auto It = Nests.find(A); It != Nests.end())
        for (unsigned K = 0; K < It->second.Levels.size(); ++K)
          if (It->second.Levels[K].L == AR->getLoop()) {
            Owner = A;
            Dim = It->second.Levels[K].Dim;
          }
    const SCEV *Step = AR->getStepRecurrence(SE);
    if (!Owner || !AR->isAffine() || !availableBeforeGraph(Step))
      return std::nullopt;
    Result.Terms.emplace_back(expandBeforeGraph(Step),
                              R.depth() - Owner->depth(), Dim);
    Off = AR->getStart();
  }
  if (!Off->isZero()) {
    if (!availableBeforeGraph(Off))
      return std::nullopt;
    Result.Terms.emplace_back(expandBeforeGraph(Off), 0, 0);
  }
  return Result;
}

bool Extractor::availableBeforeGraph(const SCEV *X) const {
  return !SCEVExprContains(X, [&](const SCEV *E) {
    if (isa<SCEVAddRecExpr>(E))
      return true;
    auto *U = dyn_cast<SCEVUnknown>(E);
    return U && !isa<Constant>(U->getValue()) &&
           !launchAvailable(U->getValue());
  });
}

Value *Extractor::expandBeforeGraph(const SCEV *X) {
  ScalarEvolution &SE = Analyses->SE;
  Type *I64 = Type::getInt64Ty(Ctx);
  SCEVExpander Expander(SE, M.getDataLayout(), "hpvm.extent");
  return Expander.expandCodeFor(SE.getTruncateOrSignExtend(X, I64), I64,
                                CurrentRoot->Entry);
}

/// X as Scale * (a parameter S already has, or a constant) + Add: rows are
/// described with what the kernel receives anyway, since every parameter
/// of a leaf is a kernel argument (and Vulkan's are few).
std::optional<DerivedExtent> Extractor::derivedFrom(const NodeState &S,
                                                    const SCEV *X) {
  ScalarEvolution &SE = Analyses->SE;
  Type *I64 = Type::getInt64Ty(Ctx);
  X = SE.getTruncateOrSignExtend(X, I64);
  auto ConstantOf = [](const SCEV *E) -> std::optional<int64_t> {
    if (auto *C = dyn_cast<SCEVConstant>(E))
      if (C->getAPInt().getSignificantBits() <= 64)
        return C->getAPInt().getSExtValue();
    return std::nullopt;
  };
  if (std::optional<int64_t> C = ConstantOf(X))
    return DerivedExtent{Extent::constant(0), 1, *C};
  // Scales to try: 1 and the constant factors X is built with.
  SmallVector<int64_t, 4> Scales{1};
  SCEVExprContains(X, [&](const SCEV *E) {
    if (auto *M = dyn_cast<SCEVMulExpr>(E))
      if (std::optional<int64_t> C = ConstantOf(M->getOperand(0)))
        if (!is_contained(Scales, *C))
          Scales.push_back(*C);
    return false;
  });
  for (unsigned I = 0; I < S.ParamValues.size(); ++I) {
    const Param &P = S.N->Params[I];
    Value *V = S.ParamValues[I];
    if (P.isBuffer() || !isInteger(P.Type) || !V->getType()->isIntegerTy())
      continue;
    // The runtime reads the parameter as signed at its width.
    const SCEV *Of = SE.getTruncateOrSignExtend(SE.getSCEV(V), I64);
    for (int64_t Scale : Scales) {
      const SCEV *Rest = SE.getMinusSCEV(
          X, SE.getMulExpr(SE.getConstant(I64, Scale, /*isSigned=*/true), Of));
      if (std::optional<int64_t> Add = ConstantOf(Rest))
        return DerivedExtent{Extent::param(I), Scale, *Add};
    }
  }
  return std::nullopt;
}

/// Records the rows leaf S writes of each out buffer it does not write
/// whole, where they can be said in its own parameters (after outlining,
/// when they are all known).
void Extractor::recordRows(NodeState &S) {
  for (auto &C : S.Children)
    recordRows(*C);
  auto It = Writes.find(S.R);
  if (It == Writes.end())
    return;
  for (unsigned I = 0; I < It->second.size(); ++I) {
    const std::optional<RowsWritten> &W = It->second[I];
    if (!W || W->Whole)
      continue;
    auto Start = derivedFrom(S, W->Start), Bytes = derivedFrom(S, W->RowBytes),
         Stride = derivedFrom(S, W->Stride), Rows = derivedFrom(S, W->Rows);
    if (Start && Bytes && Stride && Rows)
      S.N->Params[I].Written = WrittenRows{*Start, *Bytes, *Stride, *Rows};
  }
}

std::unique_ptr<NodeState> Extractor::buildNode(Region &R, Node &N,
                                                NodeState *Parent) {
  auto S = std::make_unique<NodeState>();
  S->R = &R;
  S->N = &N;
  S->Parent = Parent;
  N.Targets = R.Targets;
  N.Sequential = R.Sequential;
  StringSet<> Taken;
  SmallVector<std::optional<Section>, 4> Sections;
  for (RegionBuffer &B : R.Buffers) {
    std::optional<Section> Sec;
    if (Parent && !is_contained(Parent->ParamValues, B.Ptr))
      Sec = sectionOf(R, B.Ptr, *Parent);
    Value *Base = Sec ? Sec->Base : B.Ptr;
    std::string Name =
        uniqueName(Base->hasName() ? Base->getName().str()
                                   : "buf" + std::to_string(Taken.size()),
                   Taken);
    Taken.insert(Name);
    // The byte size is filled in below, once the buffer exists.
    S->ParamValues.push_back(Base);
    N.addBuffer(Name, B.Mode, Extent::constant(0));
    Sections.push_back(std::move(Sec));
  }
  // extentFor may add parameters: N.Params moves, so index it afresh.
  for (unsigned I = 0; I < R.Buffers.size(); ++I) {
    std::string Name = N.Params[I].Name;
    Extent Bytes = extentFor(*S, R.Buffers[I].Bytes, "bytes." + Name);
    N.Params[I].Bytes = Bytes;
    if (auto It = Writes.find(&R); It != Writes.end() && It->second[I])
      N.Params[I].WritesAll = It->second[I]->Whole;
    if (!Sections[I])
      continue;
    for (auto [Coef, Level, Dim] : Sections[I]->Terms) {
      std::string What = Name + (Level ? ".stride" + std::to_string(Level) +
                                             std::to_string(Dim)
                                       : ".offset");
      // Named so that a round trip through PREPARE names it again.
      if (!isa<Constant>(Coef) && !Coef->hasName())
        Coef->setName(What);
      Extent E = extentFor(*S, Coef, What);
      N.Params[I].Offset.push_back(OffsetTerm{E, Level, Dim});
    }
  }
  // Values computed inside the graph are recomputed by the leaves that use
  // them; only values from outside become parameters.
  for (Value *V : R.Values)
    if (isa<Constant>(V) || launchAvailable(V))
      valueParam(*S, V, "");
  std::vector<Extent> Dims;
  for (unsigned K = 0; K < R.Dims.size(); ++K)
    Dims.push_back(extentFor(*S, R.Dims[K], "dim" + std::to_string(K)));
  N.setDims(std::move(Dims));
  for (unsigned K = 0; K < R.Group.size(); ++K)
    N.Group.push_back(extentFor(*S, R.Group[K], "group" + std::to_string(K)));

  StringSet<> ChildNames;
  for (auto &C : R.Children) {
    std::string Name = uniqueName(C->Name, ChildNames);
    ChildNames.insert(Name);
    Node &Child = C->isLeaf() ? N.addLeaf(Name, "") : N.addInternal(Name);
    S->Children.push_back(buildNode(*C, Child, S.get()));
  }
  return S;
}

/// Decides how the leaf gets V; records parameters it needs. Returns false
/// after reporting when V cannot be made available inside the leaf.
bool Extractor::planLiveIn(NodeState &S, Value *V,
                           MapVector<Value *, LiveIn> &Plan) {
  if (Plan.count(V))
    return true;
  Region &R = *S.R;
  LiveIn L;
  // Named buffers first: a global array can be one.
  for (unsigned I = 0; I < S.ParamValues.size(); ++I)
    if (S.ParamValues[I] == V && S.N->Params[I].isBuffer()) {
      L.K = LiveIn::Kind::Param;
      L.Param = I;
      Plan[V] = L;
      return true;
    }
  if (isa<Constant>(V) || isa<BasicBlock>(V) || isa<MetadataAsValue>(V) ||
      isa<InlineAsm>(V)) {
    Plan[V] = L;
    return true;
  }
  auto *Phi = dyn_cast<PHINode>(V);
  if (auto It = Phi ? Inductions.find(Phi) : Inductions.end();
      Phi && It != Inductions.end()) {
    L.K = LiveIn::Kind::InstanceId;
    L.Level = R.depth() - It->second.first->depth();
    L.Dim = It->second.second;
    Plan[V] = L;
    return true;
  }
  auto *Inst = dyn_cast<Instruction>(V);
  bool Inside = Inst && !launchAvailable(V);
  if (!V->getType()->isPointerTy() && !Inside) {
    if (!fromLLVMType(V->getType())) {
      error("live-in-type",
            "the node uses " + describe(V) +
                " from outside the graph, but a node parameter cannot have "
                "its type; compute it inside the node",
            R, Inst ? Inst : R.Entry);
      return false;
    }
    L.K = LiveIn::Kind::Param;
    L.Param = valueParam(S, V, "");
    Plan[V] = L;
    return true;
  }
  // Pointers derived from named buffers, private allocas and pure values of
  // enclosing internal nodes are recomputed inside the leaf. Pure values
  // include intrinsics without side effects: LICM hoists a leaf's
  // `__builtin_ctz(s)` of a scalar parameter out of a parallel loop of
  // parallel loops, into the internal node.
  bool PureCall = isa_and_nonnull<IntrinsicInst>(Inst) &&
                  !Inst->mayReadOrWriteMemory() && !Inst->mayHaveSideEffects();
  bool Clonable = Inst && !isa<PHINode>(Inst) &&
                  (isa<AllocaInst>(Inst) ||
                   (!Inst->mayReadOrWriteMemory() && !Inst->isTerminator() &&
                    (!isa<CallBase>(Inst) || PureCall)));
  if (!Clonable) {
    error(V->getType()->isPointerTy() ? "unnamed-pointer"
                                      : "internal-side-effect",
          "the node uses " + describe(V) +
              (V->getType()->isPointerTy()
                   ? ", a pointer that is not one of its named buffers"
                   : ", which an enclosing node computes in a way that "
                     "cannot be repeated inside the leaf"),
          R, Inst ? Inst : R.Entry);
    return false;
  }
  if (!isa<AllocaInst>(Inst))
    for (Value *Op : Inst->operands())
      if (!planLiveIn(S, Op, Plan))
        return false;
  L.K = LiveIn::Kind::Clone;
  Plan[V] = L; // after its operands: Plan's order is a valid clone order
  return true;
}

/// Every instance runs the innermost loop's body, so the tests LLVM left on
/// the way there (loop guards, a top-tested header's exit test) always pass.
/// Folding them gives every backend straight-line code to the body.
static void foldInstanceGuards(Function &Leaf, const ParallelNest &Nest,
                               ValueToValueMapTy &VMap) {
  Loop *Inner = Nest.innermost();
  // A branch of the header into a loop nothing leaves is part of the body,
  // not the loop's exit test.
  bool HeaderBranchesToEndlessLoop =
      any_of(successors(Inner->getHeader()),
             [&](const BasicBlock *Succ) { return Nest.Endless.count(Succ); });
  auto *InnerHeader = cast<BasicBlock>(VMap[Inner->getHeader()]);
  SmallPtrSet<BasicBlock *, 16> InInner;
  for (BasicBlock *BB : Inner->blocks())
    InInner.insert(cast<BasicBlock>(VMap[BB]));
  // Outside the innermost loop the leaf's CFG is acyclic now; find what can
  // still lead to the body.
  SmallPtrSet<BasicBlock *, 16> LeadsToBody{InnerHeader};
  SmallVector<BasicBlock *, 16> Work{InnerHeader};
  while (!Work.empty())
    for (BasicBlock *Pred : predecessors(Work.pop_back_val()))
      if (!InInner.count(Pred) && LeadsToBody.insert(Pred).second)
        Work.push_back(Pred);

  auto KeepOnly = [](BranchInst *Br, BasicBlock *Taken) {
    for (BasicBlock *Succ : successors(Br))
      if (Succ != Taken)
        Succ->removePredecessor(Br->getParent());
    BranchInst::Create(Taken, Br);
    Br->eraseFromParent();
  };
  for (BasicBlock &BB : Leaf) {
    auto *Br = dyn_cast<BranchInst>(BB.getTerminator());
    if (!Br || !Br->isConditional() ||
        Br->getSuccessor(0) == Br->getSuccessor(1))
      continue;
    BasicBlock *T = Br->getSuccessor(0), *F = Br->getSuccessor(1);
    if (&BB == InnerHeader && Inner->getHeader() != Inner->getLoopLatch() &&
        !HeaderBranchesToEndlessLoop) {
      // A top-tested innermost loop: its header's way out is the test.
      if (!InInner.count(T) || !InInner.count(F))
        KeepOnly(Br, InInner.count(T) ? T : F);
      continue;
    }
    if (InInner.count(&BB))
      continue;
    bool ToBodyT = LeadsToBody.count(T), ToBodyF = LeadsToBody.count(F);
    if (ToBodyT != ToBodyF)
      KeepOnly(Br, ToBodyT ? T : F);
  }
}

/// The leaf keeps the source lines of its code, for the backends' remarks
/// and for profilers: a subprogram of its own at the region's line, and
/// every location scoped to it (inlined code keeps its callee's scope, its
/// call site moves). Variables would need their scopes moved too: they are
/// dropped. Without a subprogram in Parent there is nothing to keep.
static void giveLineTables(Function &Leaf, const Function &Parent,
                           const DebugLoc &At) {
  DISubprogram *From = Parent.getSubprogram();
  if (!From || !From->getUnit()) {
    stripDebugInfo(Leaf);
    return;
  }
  LLVMContext &Ctx = Leaf.getContext();
  DIBuilder DIB(*Leaf.getParent(), /*AllowUnresolved=*/false, From->getUnit());
  unsigned Line = At ? At.getLine() : From->getLine();
  DISubprogram *SP = DIB.createFunction(
      From->getFile(), Leaf.getName(), Leaf.getName(), From->getFile(), Line,
      DIB.createSubroutineType(DIB.getOrCreateTypeArray(std::nullopt)), Line,
      DINode::FlagArtificial | DINode::FlagPrototyped,
      DISubprogram::SPFlagDefinition |
          (From->isOptimized() ? DISubprogram::SPFlagOptimized
                               : DISubprogram::SPFlagZero));
  Leaf.setSubprogram(SP);
  std::function<DILocation *(DILocation *)> Rescope =
      [&](DILocation *L) -> DILocation * {
    if (DILocation *Call = L->getInlinedAt())
      return DILocation::get(Ctx, L->getLine(), L->getColumn(), L->getScope(),
                             Rescope(Call));
    return DILocation::get(Ctx, L->getLine(), L->getColumn(), SP);
  };
  for (BasicBlock &BB : Leaf)
    for (Instruction &I : BB) {
      I.dropDbgRecords();
      if (DILocation *L = I.getDebugLoc())
        I.setDebugLoc(Rescope(L));
      // A loop's metadata names its source range.
      if (MDNode *LoopID = I.getMetadata(LLVMContext::MD_loop)) {
        SmallVector<Metadata *, 8> Ops{nullptr};
        for (const MDOperand &Op : drop_begin(LoopID->operands()))
          Ops.push_back(isa<DILocation>(Op.get())
                            ? Rescope(cast<DILocation>(Op.get()))
                            : Op.get());
        MDNode *ID = MDNode::getDistinct(Ctx, Ops);
        ID->replaceOperandWith(0, ID);
        I.setMetadata(LLVMContext::MD_loop, ID);
      }
    }
  DIB.finalizeSubprogram(SP);
}

void Extractor::outlineLeaf(NodeState &S) {
  Region &R = *S.R;
  Node &N = *S.N;
  std::vector<Instruction *> Body = R.instructions();

  MapVector<Value *, LiveIn> Plan;
  for (Instruction *I : Body)
    for (Value *Op : I->operands()) {
      auto *OpI = dyn_cast<Instruction>(Op);
      if ((OpI && R.contains(OpI)) || Op == R.Entry)
        continue;
      if (!planLiveIn(S, Op, Plan))
        return;
    }

  // The signature is final now that every parameter is known.
  SmallVector<Type *, 8> ParamTypes;
  for (const Param &P : N.Params)
    ParamTypes.push_back(toLLVMType(P.Type, Ctx));
  std::string Symbol = "hpvm.node." + N.path();
  std::replace(Symbol.begin(), Symbol.end(), '/', '.');
  Function *Leaf = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), ParamTypes, false),
      GlobalValue::InternalLinkage, Symbol, M);
  for (StringRef Attr : {"target-cpu", "target-features", "tune-cpu"})
    if (F.hasFnAttribute(Attr))
      Leaf->addFnAttr(F.getFnAttribute(Attr));
  for (unsigned I = 0; I < N.Params.size(); ++I)
    Leaf->getArg(I)->setName(N.Params[I].Name);
  N.Function = Leaf->getName().str();

  SmallVector<std::pair<GlobalVariable *, Argument *>, 2> GlobalBuffers;
  BasicBlock *EntryBB = BasicBlock::Create(Ctx, "entry", Leaf);
  BasicBlock *DoneBB = BasicBlock::Create(Ctx, "instance.done", Leaf);
  ReturnInst::Create(Ctx, DoneBB);
  IRBuilder<> B(EntryBB);
  ValueToValueMapTy VMap;
  Function *IdFn = getInstanceIdFunction(M);
  for (auto &[V, L] : Plan) {
    switch (L.K) {
    case LiveIn::Kind::Keep:
      break;
    case LiveIn::Kind::Param:
      VMap[V] = Leaf->getArg(L.Param);
      break;
    case LiveIn::Kind::InstanceId: {
      Value *Id = B.CreateCall(IdFn, {B.getInt32(L.Level), B.getInt32(L.Dim)},
                               V->getName() + ".id");
      VMap[V] = B.CreateZExtOrTrunc(Id, V->getType());
      break;
    }
    case LiveIn::Kind::Clone: {
      Instruction *Copy = cast<Instruction>(V)->clone();
      Copy->setName(V->getName());
      B.Insert(Copy);
      RemapInstruction(Copy, VMap,
                       RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
      VMap[V] = Copy;
      break;
    }
    }
  }

  // A global array named as a buffer must be reached through the parameter
  // (on a GPU it lives in device memory), also inside constant expressions.
  for (unsigned I = 0; I < N.Params.size(); ++I)
    if (auto *GV = dyn_cast<GlobalVariable>(S.ParamValues[I]))
      if (N.Params[I].isBuffer())
        GlobalBuffers.push_back({GV, Leaf->getArg(I)});

  // The body: the rest of the entry's block, the region's blocks, and the
  // start of the exit's block, which ends the instance.
  BasicBlock *EB = R.Entry->getParent(), *XB = R.Exit->getParent();
  VMap[EB] = EntryBB;
  SmallVector<BasicBlock *, 16> Clones;
  for (BasicBlock &BB : F)
    if (R.Blocks.count(&BB)) {
      BasicBlock *Copy = CloneBasicBlock(&BB, VMap, "", Leaf);
      VMap[&BB] = Copy;
      Clones.push_back(Copy);
    }
  BasicBlock *ExitCopy = nullptr;
  if (EB != XB) {
    ExitCopy = BasicBlock::Create(Ctx, "region.exit", Leaf, DoneBB);
    VMap[XB] = ExitCopy;
  }
  auto CopyRange = [&](Instruction *From, Instruction *To, BasicBlock *Into) {
    for (Instruction *I = From; I && I != To; I = I->getNextNode()) {
      Instruction *Copy = I->clone();
      Copy->setName(I->getName());
      Copy->insertInto(Into, Into->end());
      VMap[I] = Copy;
    }
  };
  if (EB == XB) {
    CopyRange(R.Entry->getNextNode(), R.Exit, EntryBB);
    BranchInst::Create(DoneBB, EntryBB);
  } else {
    CopyRange(R.Entry->getNextNode(), nullptr, EntryBB);
    CopyRange(&XB->front(), R.Exit, ExitCopy);
    BranchInst::Create(DoneBB, ExitCopy);
  }
  for (BasicBlock &BB : *Leaf)
    for (Instruction &I : BB)
      RemapInstruction(&I, VMap,
                       RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);

  // One instance runs one iteration of the innermost loop.
  if (!R.Dims.empty() && !Nests.find(&R)->second.Levels.empty()) {
    // Ids first: cutting the back edges below folds single-input phis.
    const ParallelNest &Nest = Nests.find(&R)->second;
    Instruction *IdAt = &*EntryBB->getFirstInsertionPt();
    IRBuilder<> IdB(IdAt);
    for (unsigned K = 0; K < Nest.Levels.size(); ++K) {
      auto *Phi = cast<PHINode>(VMap[Nest.Levels[K].IV]);
      unsigned Dim = Nest.Levels[K].Dim;
      Value *Id = IdB.CreateCall(IdFn, {IdB.getInt32(0), IdB.getInt32(Dim)},
                                 "id" + std::to_string(Dim));
      Phi->replaceAllUsesWith(IdB.CreateZExtOrTrunc(Id, Phi->getType()));
      Phi->eraseFromParent();
    }
    // An edge that goes round or leaves any loop of the nest ends the
    // instance; this also cuts the outer loops' latches away.
    for (BasicBlock *BB : Nest.Levels.front().L->blocks()) {
      auto *Copy = cast<BasicBlock>(VMap[BB]);
      Instruction *Term = Copy->getTerminator();
      for (unsigned I = 0; I < Term->getNumSuccessors(); ++I) {
        BasicBlock *Succ = BB->getTerminator()->getSuccessor(I);
        bool EndsInstance = false;
        if (Nest.Endless.count(Succ))
          continue; // the instance never ends there, as in the region
        for (const ParallelLoop &Level : Nest.Levels)
          EndsInstance |=
              Level.L->contains(BB) &&
              (Succ == Level.L->getHeader() || !Level.L->contains(Succ));
        if (!EndsInstance)
          continue;
        Term->getSuccessor(I)->removePredecessor(Copy);
        Term->setSuccessor(I, DoneBB);
      }
    }
    foldInstanceGuards(*Leaf, Nest, VMap);
  }
  for (auto &[GV, Arg] : GlobalBuffers) {
    convertUsersOfConstantsToInstructions({GV}, Leaf);
    GV->replaceUsesWithIf(Arg, [&](Use &U) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      return I && I->getFunction() == Leaf;
    });
  }
  removeUnreachableBlocks(*Leaf);
  DoneBB->moveAfter(&Leaf->back()); // reads top to bottom
  for (BasicBlock &BB : llvm::make_early_inc_range(*Leaf))
    MergeBlockIntoPredecessor(&BB);
  for (BasicBlock &BB : *Leaf)
    SimplifyInstructionsInBlock(&BB);
  giveLineTables(*Leaf, F, R.Entry->getDebugLoc());
  appendToCompilerUsed(M, {Leaf});
}

void Extractor::outlineLeaves(NodeState &S) {
  if (S.R->isLeaf()) {
    outlineLeaf(S);
    return;
  }
  for (auto &C : S.Children)
    outlineLeaves(*C);
}

/// Bottom-up, so that a parameter a child needs becomes a parameter of each
/// ancestor on the way to the launch.
void Extractor::bindChildren(NodeState &S) {
  for (auto &C : S.Children)
    bindChildren(*C);
  for (unsigned CI = 0; CI < S.Children.size(); ++CI) {
    NodeState &C = *S.Children[CI];
    for (unsigned P = 0; P < C.ParamValues.size(); ++P) {
      Value *V = C.ParamValues[P];
      const Param &CP = C.N->Params[P];
      if (auto *CInt = dyn_cast<ConstantInt>(V)) {
        S.N->bindConstant(*C.N, P, CInt->getSExtValue());
        continue;
      }
      if (auto *CFP = dyn_cast<ConstantFP>(V)) {
        S.N->bindConstant(*C.N, P, CFP->getValueAPF().convertToDouble());
        continue;
      }
      int Found = -1;
      for (unsigned I = 0; I < S.ParamValues.size(); ++I)
        if (S.ParamValues[I] == V && S.N->Params[I].isBuffer() == CP.isBuffer())
          Found = I;
      if (Found < 0 && CP.isBuffer()) {
        error("binding",
              "node '" + C.R->Name + "' names buffer " + describe(V) +
                  ", which is not one of the buffers of its parent, nor a "
                  "section of one that starts at an offset affine in the "
                  "instance ids of its ancestors; name the same pointer in "
                  "both",
              *S.R, C.R->Entry);
        continue;
      }
      if (Found < 0)
        Found = valueParam(S, V, CP.Name);
      S.N->bind(*C.N, P, Found);
    }
  }
}

void Extractor::addEdges(NodeState &S) {
  for (auto &C : S.Children)
    addEdges(*C);
  // A child follows the last earlier child that wrote a buffer it uses
  // and, if it writes one, the children that read it since: the order of
  // every pair that shares a buffer one of them writes, by transitivity,
  // with edges linear in the children (every conflicting pair would be
  // quadratic: millions for a function of thousands of tasks).
  struct Users {
    std::optional<unsigned> LastWriter;
    SmallVector<unsigned, 4> ReadersSince;
  };
  DenseMap<Value *, Users> ByBuffer;
  DenseMap<const Region *, unsigned> Index;
  for (unsigned J = 0; J < S.Children.size(); ++J)
    Index[S.Children[J]->R] = J;
  for (unsigned J = 0; J < S.Children.size(); ++J) {
    NodeState &Later = *S.Children[J];
    // Each buffer value once, written if any parameter bound to it is.
    SmallMapVector<Value *, bool, 8> Uses;
    for (unsigned K = 0; K < Later.ParamValues.size(); ++K)
      if (const Param &P = Later.N->Params[K]; P.isBuffer())
        Uses[Later.ParamValues[K]] |= writes(P.Mode);
    SmallVector<unsigned, 8> Preds;
    for (const Region *Earlier : Later.R->After)
      if (auto It = Index.find(Earlier); It != Index.end() && It->second < J)
        Preds.push_back(It->second);
    for (const auto &[V, Writes] : Uses) {
      Users &U = ByBuffer[V];
      if (U.LastWriter)
        Preds.push_back(*U.LastWriter);
      if (Writes)
        append_range(Preds, U.ReadersSince);
    }
    llvm::sort(Preds);
    Preds.erase(std::unique(Preds.begin(), Preds.end()), Preds.end());
    for (unsigned I : Preds)
      S.N->addDependency(*S.Children[I]->N, *Later.N);
    for (const auto &[V, Writes] : Uses) {
      Users &U = ByBuffer[V];
      if (Writes) {
        U.LastWriter = J;
        U.ReadersSince.clear();
      } else {
        U.ReadersSince.push_back(J);
      }
    }
  }
}

void Extractor::replaceWithLaunch(NodeState &Root,
                                  const std::string &GraphName) {
  Region &R = *Root.R;
  IRBuilder<> B(R.Entry);
  SmallVector<Value *, 8> Args{
      B.CreateGlobalString(GraphName, "hpvm.graph." + GraphName, 0, &M)};
  Args.append(Root.ParamValues.begin(), Root.ParamValues.end());
  SmallVector<OperandBundleDef, 1> Bundles;
  if (R.NoWait)
    Bundles.emplace_back(tag::NoWait, std::vector<Value *>{});
  B.CreateCall(getLaunchFunction(M), Args, Bundles);

  BasicBlock *EB = R.Entry->getParent(), *XB = R.Exit->getParent();
  auto EraseRange = [](Instruction *From, Instruction *To) {
    SmallVector<Instruction *, 32> Doomed;
    for (Instruction *I = From; I != To; I = I->getNextNode())
      Doomed.push_back(I);
    for (Instruction *I : llvm::reverse(Doomed)) {
      I->replaceAllUsesWith(PoisonValue::get(I->getType()));
      I->eraseFromParent();
    }
  };
  if (EB == XB) {
    Instruction *Next = R.Exit->getNextNode();
    R.Exit->eraseFromParent();
    EraseRange(R.Entry, Next);
    return;
  }
  BasicBlock *After =
      XB->splitBasicBlock(R.Exit->getNextNode(), "after." + GraphName);
  // The region's blocks become unreachable and are deleted with the exit.
  R.Exit->eraseFromParent();
  EraseRange(R.Entry, nullptr);
  BranchInst::Create(After, EB);
  removeUnreachableBlocks(F);
  MergeBlockIntoPredecessor(After);
}

void Extractor::extractGraph(Region &Root) {
  CurrentRoot = &Root;
  std::string Name = uniqueName(Root.Name, GraphNames);
  GraphNames.insert(Name);
  Graph G(Name, Root.isLeaf() ? Node::Kind::Leaf : Node::Kind::Internal);
  hoistExtents(Root, Root);
  std::unique_ptr<NodeState> S = buildNode(Root, G.root(), nullptr);
  unsigned Before = Errors;
  outlineLeaves(*S);
  recordRows(*S);
  bindChildren(*S);
  addEdges(*S);
  if (Errors != Before)
    return;
  replaceWithLaunch(*S, Name);
  Graphs.push_back(std::move(G));
}

unsigned Extractor::run() {
  // Each launch replaced deletes the blocks it leaves unreachable; blocks
  // that are so already would go with the first, under the regions of the
  // launches after it.
  removeUnreachableBlocks(F);
  unsigned ParseErrors = 0;
  RegionForest Forest = parseRegions(F, ParseErrors);
  if (ParseErrors)
    return ParseErrors;

  // Loop-carried values become functions of the induction variables first,
  // so that any single iteration can run on its own.
  {
    auto FA = std::make_unique<FunctionAnalyses>(F);
    std::function<void(Region &)> Rewrite = [&](Region &R) {
      if (!R.Dims.empty())
        if (auto Nest = findParallelNest(R, *FA, Errors))
          rewriteSecondaryInductions(*Nest, *FA);
      for (auto &C : R.Children)
        Rewrite(*C);
    };
    for (auto &Root : Forest.Roots)
      Rewrite(*Root);
  }
  if (Errors)
    return Errors;
  FunctionAnalyses FA(F);
  Analyses = &FA;
  std::function<void(Region &)> Collect = [&](Region &R) {
    if (!R.Dims.empty())
      if (auto Nest = findParallelNest(R, FA, Errors)) {
        for (unsigned K = 0; K < Nest->Levels.size(); ++K)
          Inductions[Nest->Levels[K].IV] = {&R, Nest->Levels[K].Dim};
        Nests[&R] = *Nest;
      }
    for (auto &C : R.Children)
      Collect(*C);
  };
  for (auto &Root : Forest.Roots)
    Collect(*Root);
  if (Errors)
    return Errors;
  std::function<void(Region &)> Coverage = [&](Region &R) {
    if (R.isLeaf()) {
      auto Nest = Nests.find(&R);
      auto &Found = Writes[&R];
      for (const RegionBuffer &B : R.Buffers)
        Found.push_back(rowsWritten(
            R, Nest == Nests.end() ? nullptr : &Nest->second, B, FA));
    }
    for (auto &C : R.Children)
      Coverage(*C);
  };
  for (auto &Root : Forest.Roots)
    Coverage(*Root);

  for (auto &Root : Forest.Roots)
    extractGraph(*Root);
  return Errors;
}

unsigned extractGraphs(Module &M) {
  if (unsigned Errors = verifyHPVMModule(M))
    return Errors;
  return extractGraphsUnchecked(M);
}

unsigned extractGraphsUnchecked(Module &M) {
  unsigned Errors = 0;
  auto Existing = readGraphs(M);
  if (!Existing) {
    reportError(M.getContext(), "metadata", toString(Existing.takeError()));
    return 1;
  }
  std::vector<Graph> Graphs = std::move(*Existing);
  StringSet<> Names;
  for (const Graph &G : Graphs)
    Names.insert(G.name());
  // Node-name strings die with their markers.
  SmallPtrSet<GlobalVariable *, 8> NameStrings;
  if (Function *EntryDecl = M.getFunction(RegionEntryName))
    for (User *U : EntryDecl->users())
      if (auto *Call = dyn_cast<CallInst>(U))
        if (auto B = Call->getOperandBundle(tag::Node))
          for (Value *V : B->Inputs)
            if (auto *GV = dyn_cast<GlobalVariable>(V->stripPointerCasts()))
              NameStrings.insert(GV);
  for (Function &F : M)
    if (!F.isDeclaration() && hasRegions(F))
      Errors += Extractor(F, Names, Graphs).run();
  std::vector<const Graph *> All;
  for (const Graph &G : Graphs)
    All.push_back(&G);
  writeGraphs(M, All);
  for (const char *Marker : {RegionEntryName, RegionExitName})
    if (Function *Decl = M.getFunction(Marker))
      if (Decl->use_empty())
        Decl->eraseFromParent();
  for (GlobalVariable *GV : NameStrings)
    if (GV->use_empty() && GV->hasLocalLinkage())
      GV->eraseFromParent();
  return Errors;
}

} // namespace hpvm
