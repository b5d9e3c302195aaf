//===- Prepare.cpp - Graph form -> region form ----------------------------===//
//
// PREPARE rewrites every call to @hpvm.launch into the region form of the
// launched graph (docs/ir.md §2, §4):
//
//   * every node becomes a region whose entry bundles describe its interface;
//   * a replicated node gets a canonical, top-tested loop nest (outermost dim
//     first) inside its region, whose induction variables are its instance
//     ids;
//   * an internal node's children are emitted in its innermost loop body in
//     a topological order of its dependency edges (ties by child index, so
//     program order is kept); an edge the buffer rule of §2.2 would not infer
//     becomes an "hpvm.after" bundle;
//   * a leaf calls its function in its innermost loop body; the call is
//     inlined and the inlined @hpvm.instance.id calls become the induction
//     variables they denote.
//
// Everything is checked before anything is changed: first the rules of the
// graph form (verifyGraphForm), then what only PREPARE cannot express (value
// and streaming edges, node outputs, leaf functions that cannot be inlined),
// so a module with a broken or inexpressible graph is left exactly as it was.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"
#include "hpvm/ir/RegionForm.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <queue>
#include <vector>

using namespace llvm;

namespace hpvm {

namespace {

/// The instance-id induction variables of one node (outermost dim first).
using IVList = SmallVector<Value *, 3>;

/// A call to a leaf function emitted in a leaf's innermost loop body, to be
/// inlined once every launch has been rewritten.
struct PendingLeafCall {
  CallInst *Call;
  /// Levels[k] = the induction variables of the leaf's k-th ancestor (0 = the
  /// leaf itself), i.e. what @hpvm.instance.id(k, d) means at this call.
  SmallVector<IVList, 4> Levels;
};

struct Launch {
  CallInst *Call;
  const Graph *G;
};

/// For each child parameter of an internal node, the parent parameter it is
/// bound to, or -1 when it is bound to a constant (or not bound at all).
using BoundParams = std::vector<std::vector<int>>;

BoundParams boundParentParams(const Node &N) {
  BoundParams Bound(N.Children.size());
  for (unsigned C = 0; C < N.Children.size(); ++C)
    Bound[C].assign(N.Children[C]->Params.size(), -1);
  for (const Binding &B : N.Bindings)
    if (B.From == Binding::Source::ParentParam && B.Child < Bound.size() &&
        B.ChildParam < Bound[B.Child].size())
      Bound[B.Child][B.ChildParam] = static_cast<int>(B.ParentParam);
  return Bound;
}

/// True if the buffer rule of docs/ir.md §2.2 orders children A and B: one
/// writes a buffer the other reads or writes. Buffers are identified by the
/// parent parameter they are bound to, which is exactly the pointer value
/// both regions will name.
bool buffersConflict(const Node &N, const BoundParams &Bound, unsigned A,
                     unsigned B) {
  const Node &CA = *N.Children[A], &CB = *N.Children[B];
  for (unsigned PA = 0; PA < CA.Params.size(); ++PA) {
    if (!CA.Params[PA].isBuffer() || Bound[A][PA] < 0)
      continue;
    for (unsigned PB = 0; PB < CB.Params.size(); ++PB) {
      if (!CB.Params[PB].isBuffer() || Bound[B][PB] != Bound[A][PA])
        continue;
      if (writes(CA.Params[PA].Mode) || writes(CB.Params[PB].Mode))
        return true;
    }
  }
  return false;
}

/// Children of N in a topological order of its dependency edges, the lowest
/// index first among the ready ones. Empty if the edges form a cycle (or name
/// children out of range), which verifyGraphForm has ruled out.
std::vector<unsigned> topologicalOrder(const Node &N) {
  unsigned Count = N.Children.size();
  std::vector<unsigned> InDegree(Count, 0);
  std::vector<std::vector<unsigned>> Succs(Count);
  for (const Edge &E : N.Edges) {
    if (E.Src >= Count || E.Dst >= Count)
      return {};
    Succs[E.Src].push_back(E.Dst);
    ++InDegree[E.Dst];
  }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>>
      Ready;
  for (unsigned C = 0; C < Count; ++C)
    if (InDegree[C] == 0)
      Ready.push(C);
  std::vector<unsigned> Order;
  while (!Ready.empty()) {
    unsigned C = Ready.top();
    Ready.pop();
    Order.push_back(C);
    for (unsigned S : Succs[C])
      if (--InDegree[S] == 0)
        Ready.push(S);
  }
  if (Order.size() != Count)
    return {};
  return Order;
}

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

/// Reports what verifyGraphForm accepts but PREPARE still cannot turn into
/// region form. Nothing here changes the module.
class Checker {
public:
  explicit Checker(Module &M) : M(M), Ctx(M.getContext()) {}

  unsigned errors() const { return NumErrors; }

  void checkLaunch(const Launch &L) {
    checkNode(L.G->root(), L.Call->getFunction());
  }

  /// PREPARE calls the markers with their documented types, which an
  /// existing declaration of another type would contradict.
  void checkMarkerDeclarations() {
    std::pair<const char *, FunctionType *> Markers[] = {
        {RegionEntryName, FunctionType::get(Type::getTokenTy(Ctx), false)},
        {RegionExitName, FunctionType::get(Type::getVoidTy(Ctx),
                                           {Type::getTokenTy(Ctx)}, false)}};
    for (auto [Name, Ty] : Markers) {
      GlobalValue *GV = M.getNamedValue(Name);
      auto *F = dyn_cast_or_null<Function>(GV);
      if (GV && (!F || F->getFunctionType() != Ty))
        error("marker", "@" + Twine(Name) + " is declared with the wrong type",
              nullptr, "");
    }
  }

  void error(StringRef Rule, const Twine &Message, const Function *F,
             std::string Node, const Instruction *At = nullptr) {
    reportError(Ctx, Rule.str(), Message.str(), F, std::move(Node), At);
    ++NumErrors;
  }

private:
  /// Rule prepare-unsupported: outputs and value and streaming edges carry
  /// values between nodes, which regions cannot express (docs/ir.md §4).
  void checkNode(const Node &N, Function *Host) {
    if (!N.Outputs.empty() || !N.OutputBindings.empty())
      error("prepare-unsupported", "node outputs have no region form", Host,
            N.path());
    if (N.isLeaf()) {
      checkInlinable(N, Host);
      return;
    }
    for (const Edge &E : N.Edges) {
      if (E.Kind == EdgeKind::Dependency)
        continue;
      std::string Ends = "from '" + N.Children[E.Src]->name() + "' to '" +
                         N.Children[E.Dst]->name() + "'";
      error("prepare-unsupported",
            (E.Kind == EdgeKind::Value ? "value" : "streaming") +
                Twine(" edge ") + Ends + " has no region form",
            Host, N.path());
    }
    for (const auto &Child : N.Children)
      checkNode(*Child, Host);
  }

  /// PREPARE inlines every leaf function into the launching function, so
  /// it must be inlinable there; the verifier has already checked that it
  /// exists with the right signature.
  void checkInlinable(const Node &N, Function *Host) {
    Function *Fn = M.getFunction(N.Function);
    InlineResult Viable = isInlineViable(*Fn);
    if (!Viable.isSuccess())
      error("leaf-function",
            "'" + N.Function +
                "' cannot be inlined: " + Viable.getFailureReason(),
            Host, N.path());
    // InlineFunction refuses to mix two personalities in one function.
    if (Fn->hasPersonalityFn() && Host->hasPersonalityFn() &&
        Fn->getPersonalityFn()->stripPointerCasts() !=
            Host->getPersonalityFn()->stripPointerCasts())
      error("leaf-function",
            "'" + N.Function +
                "' has a different personality than the launching function",
            Host, N.path());
  }

  Module &M;
  LLVMContext &Ctx;
  unsigned NumErrors = 0;
};

//===----------------------------------------------------------------------===//
// Emitting
//===----------------------------------------------------------------------===//

/// Builds the region form of one launch in front of the launch call.
///
/// The builder always inserts before an instruction of the original program
/// (at first the launch call itself); a loop splits the current block there,
/// so whatever follows lands in the loop's exit block and emission simply
/// continues in front of it.
class Emitter {
public:
  Emitter(Module &M, std::vector<PendingLeafCall> &LeafCalls)
      : M(M), Ctx(M.getContext()), B(Ctx), I64(Type::getInt64Ty(Ctx)),
        LeafCalls(LeafCalls) {
    FunctionType *EntryTy = FunctionType::get(Type::getTokenTy(Ctx), false);
    FunctionType *ExitTy =
        FunctionType::get(Type::getVoidTy(Ctx), {Type::getTokenTy(Ctx)}, false);
    EntryFn = M.getOrInsertFunction(RegionEntryName, EntryTy);
    ExitFn = M.getOrInsertFunction(RegionExitName, ExitTy);
  }

  void emitLaunch(const Launch &L) {
    B.SetInsertPoint(L.Call);
    // Calls to inlinable functions in a function with debug info need a
    // location; the launch's is the natural one for its whole expansion.
    B.SetCurrentDebugLocation(L.Call->getDebugLoc());
    SmallVector<Value *, 8> Args(drop_begin(L.Call->args()));
    emitNode(L.G->root(), Args, {},
             L.Call->getOperandBundle(tag::NoWait).has_value());
  }

private:
  /// The i64 value of a count of N, given N's parameter values.
  /// The i64 value of a byte size of N, given N's parameter values.
  Value *bytesValue(const Extent &E, ArrayRef<Value *> Args) {
    if (E.isConstant())
      return ConstantInt::get(I64, E.value());
    Value *V = Args[E.paramIndex()];
    return B.CreateZExtOrTrunc(V, I64, V->getName() + ".i64");
  }

  /// Where buffer P's section starts: its pointer Base plus the offset's
  /// terms, the ids being the enclosing loops' induction variables.
  Value *sectionStart(const Param &P, Value *Base, ArrayRef<Value *> Args) {
    if (P.Offset.empty())
      return Base;
    Value *Offset = ConstantInt::get(I64, 0);
    for (const OffsetTerm &T : P.Offset) {
      Value *Term = T.Coef.isConstant()
                        ? ConstantInt::get(I64, T.Coef.value())
                        : B.CreateSExtOrTrunc(Args[T.Coef.paramIndex()], I64);
      if (T.Level) {
        Value *Id = IVStack[IVStack.size() - T.Level][T.Dim];
        Term = B.CreateMul(Term, B.CreateZExtOrTrunc(Id, I64));
      }
      Offset = B.CreateAdd(Offset, Term);
    }
    return B.CreateGEP(B.getInt8Ty(), Base, Offset,
                       Base->getName() + ".section");
  }

  GlobalVariable *nameString(StringRef Name) {
    GlobalVariable *&GV = NameStrings[Name];
    if (!GV)
      GV = B.CreateGlobalString(Name, ".name." + Name, 0, &M);
    return GV;
  }

  /// Opens a top-tested loop `for (iN i = 0; i < Count; ++i)` at the insert
  /// point, leaves the builder in its body and returns its induction variable
  /// and exit block. The induction variable has Count's type, so the loop
  /// bound is the extent itself: EXTRACT then finds nothing new in it.
  std::pair<PHINode *, BasicBlock *> openLoop(Value *Count,
                                              const Twine &Prefix) {
    BasicBlock *Preheader = B.GetInsertBlock();
    Function *F = Preheader->getParent();
    BasicBlock *Exit =
        Preheader->splitBasicBlock(B.GetInsertPoint(), Prefix + ".exit");
    BasicBlock *Header = BasicBlock::Create(Ctx, Prefix + ".header", F, Exit);
    BasicBlock *Body = BasicBlock::Create(Ctx, Prefix + ".body", F, Exit);
    BasicBlock *Latch = BasicBlock::Create(Ctx, Prefix + ".latch", F, Exit);
    cast<BranchInst>(Preheader->getTerminator())->setSuccessor(0, Header);

    IRBuilder<> HB(Header);
    HB.SetCurrentDebugLocation(B.getCurrentDebugLocation());
    Type *Ty = Count->getType();
    PHINode *IV = HB.CreatePHI(Ty, 2, Prefix + ".id");
    Value *Cond = HB.CreateICmpULT(IV, Count, Prefix + ".cond");
    HB.CreateCondBr(Cond, Body, Exit);

    IRBuilder<> LB(Latch);
    LB.SetCurrentDebugLocation(B.getCurrentDebugLocation());
    Value *Next = LB.CreateAdd(IV, ConstantInt::get(Ty, 1), Prefix + ".next",
                               /*HasNUW=*/true, /*HasNSW=*/true);
    LB.CreateBr(Header);

    IV->addIncoming(ConstantInt::get(Ty, 0), Preheader);
    IV->addIncoming(Next, Latch);

    BranchInst::Create(Latch, Body)->setDebugLoc(B.getCurrentDebugLocation());
    B.SetInsertPoint(Body->getTerminator());
    return {IV, Exit};
  }

  /// Emits the region of N, whose parameters have the values Args, ordered
  /// explicitly after the sibling regions After, and marked hpvm.nowait if
  /// NoWait (a launch's root). Returns its entry token.
  CallInst *emitNode(const Node &N, ArrayRef<Value *> Args,
                     ArrayRef<Value *> After, bool NoWait = false) {
    // Extents are computed before the entry: the bundles name them and the
    // loops test them, so they must dominate both. "hpvm.dims" takes any
    // integer, so a dim is the parameter itself, as EXTRACT expects.
    auto ExtentValue = [&](const Extent &E) {
      return E.isConstant() ? ConstantInt::get(I64, E.value())
                            : Args[E.paramIndex()];
    };
    SmallVector<Value *, 3> Dims, Group;
    for (const Extent &E : N.Dims)
      Dims.push_back(ExtentValue(E));
    for (const Extent &E : N.Group)
      Group.push_back(ExtentValue(E));
    // Buffer bundles come in the order in which their access modes first
    // occur among the parameters: EXTRACT numbers buffers in bundle order,
    // so a graph it produced (buffers grouped by mode) comes back unchanged.
    SmallVector<Access, 3> ModeOrder;
    SmallVector<Value *, 4> Buffers[3]; // by Access: ptr, bytes, ...
    SmallVector<Value *, 4> Values;
    for (unsigned I = 0; I < N.Params.size(); ++I) {
      const Param &P = N.Params[I];
      if (!P.isBuffer()) {
        Values.push_back(Args[I]);
        continue;
      }
      if (!is_contained(ModeOrder, P.Mode))
        ModeOrder.push_back(P.Mode);
      auto &Group = Buffers[static_cast<unsigned>(P.Mode)];
      Group.push_back(sectionStart(P, Args[I], Args));
      Group.push_back(bytesValue(P.Bytes, Args));
    }

    SmallVector<OperandBundleDef, 8> Bundles;
    Bundles.emplace_back(tag::Node, std::vector<Value *>{nameString(N.name())});
    if (!Dims.empty())
      Bundles.emplace_back(tag::Dims,
                           std::vector<Value *>(Dims.begin(), Dims.end()));
    if (N.Sequential)
      Bundles.emplace_back(tag::Sequential, std::vector<Value *>{});
    if (!Group.empty())
      Bundles.emplace_back(tag::Group,
                           std::vector<Value *>(Group.begin(), Group.end()));
    const char *BufferTags[] = {tag::In, tag::Out, tag::InOut};
    static_assert(static_cast<unsigned>(Access::In) == 0 &&
                      static_cast<unsigned>(Access::Out) == 1 &&
                      static_cast<unsigned>(Access::InOut) == 2,
                  "BufferTags follows the order of Access");
    for (Access Mode : ModeOrder) {
      unsigned A = static_cast<unsigned>(Mode);
      Bundles.emplace_back(
          BufferTags[A],
          std::vector<Value *>(Buffers[A].begin(), Buffers[A].end()));
    }
    if (!Values.empty())
      Bundles.emplace_back(tag::Value,
                           std::vector<Value *>(Values.begin(), Values.end()));
    if (N.Targets != AllTargets)
      Bundles.emplace_back(tag::Target, std::vector<Value *>{B.getInt32(
                                            static_cast<uint32_t>(N.Targets))});
    if (!After.empty())
      Bundles.emplace_back(tag::After,
                           std::vector<Value *>(After.begin(), After.end()));
    if (NoWait)
      Bundles.emplace_back(tag::NoWait, std::vector<Value *>{});
    CallInst *Entry = B.CreateCall(EntryFn, {}, Bundles, N.name() + ".region");

    // The loop nest, outermost dim first; its induction variables are the
    // node's instance ids.
    IVList IVs;
    BasicBlock *OuterExit = nullptr;
    for (unsigned K = 0; K < Dims.size(); ++K) {
      std::string Prefix = N.name();
      if (Dims.size() > 1)
        Prefix += "." + std::to_string(K);
      auto [IV, Exit] = openLoop(Dims[K], Prefix);
      IVs.push_back(IV);
      if (!OuterExit)
        OuterExit = Exit;
    }

    IVStack.push_back(IVs);
    if (N.isLeaf())
      emitLeafCall(N, Args);
    else
      emitChildren(N, Args);
    IVStack.pop_back();

    if (OuterExit)
      B.SetInsertPoint(OuterExit, OuterExit->begin());
    B.CreateCall(ExitFn, {Entry});
    return Entry;
  }

  void emitLeafCall(const Node &N, ArrayRef<Value *> Args) {
    Function *Fn = M.getFunction(N.Function);
    PendingLeafCall Pending;
    Pending.Call = B.CreateCall(Fn, Args);
    for (auto It = IVStack.rbegin(); It != IVStack.rend(); ++It)
      Pending.Levels.push_back(*It);
    LeafCalls.push_back(std::move(Pending));
  }

  void emitChildren(const Node &N, ArrayRef<Value *> Args) {
    BoundParams Bound = boundParentParams(N);
    // verifyGraphForm has seen every parameter bound exactly once and well
    // typed, and the checker has seen no value edge binding one.
    std::vector<std::vector<Value *>> ChildArgs(N.Children.size());
    for (unsigned C = 0; C < N.Children.size(); ++C)
      ChildArgs[C].assign(N.Children[C]->Params.size(), nullptr);
    for (const Binding &Bn : N.Bindings) {
      const Param &CP = N.Children[Bn.Child]->Params[Bn.ChildParam];
      ChildArgs[Bn.Child][Bn.ChildParam] =
          Bn.From == Binding::Source::ParentParam ? Args[Bn.ParentParam]
                                                  : constantFor(CP, Bn);
    }

    std::vector<CallInst *> Tokens(N.Children.size(), nullptr);
    for (unsigned C : topologicalOrder(N)) {
      // Keep exactly the explicit edges that the buffer rule would not
      // re-infer from the regions, so EXTRACT finds the same edges again.
      SmallVector<Value *, 2> After;
      for (const Edge &E : N.Edges) {
        if (E.Dst != C || buffersConflict(N, Bound, E.Src, E.Dst))
          continue;
        if (!is_contained(After, Tokens[E.Src]))
          After.push_back(Tokens[E.Src]);
      }
      Tokens[C] = emitNode(*N.Children[C], ChildArgs[C], After);
    }
  }

  Constant *constantFor(const Param &P, const Binding &Bn) {
    Type *Ty = toLLVMType(P.Type, Ctx);
    if (Ty->isIntegerTy())
      return ConstantInt::get(Ty, Bn.IntValue, /*IsSigned=*/true);
    if (Ty->isFloatingPointTy())
      return ConstantFP::get(Ty, Bn.IsFloat ? Bn.FloatValue
                                            : static_cast<double>(Bn.IntValue));
    // A pointer value parameter bound to an address known at build time.
    if (Bn.IntValue == 0)
      return ConstantPointerNull::get(cast<PointerType>(Ty));
    return ConstantExpr::getIntToPtr(ConstantInt::get(I64, Bn.IntValue), Ty);
  }

  Module &M;
  LLVMContext &Ctx;
  IRBuilder<> B;
  IntegerType *I64;
  FunctionCallee EntryFn, ExitFn;
  StringMap<GlobalVariable *> NameStrings;
  /// Instance ids of the nodes enclosing the insert point, root first.
  SmallVector<IVList, 4> IVStack;
  std::vector<PendingLeafCall> &LeafCalls;
};

/// Inlines one leaf call and turns the @hpvm.instance.id calls it brought
/// along into the induction variables they stand for.
bool inlineLeafCall(PendingLeafCall &Pending, Function *IdFn) {
  Function *Host = Pending.Call->getFunction();
  // Instance-id calls already in the host (only if the host is itself a leaf
  // function) are not this leaf's.
  SmallPtrSet<CallInst *, 8> Before;
  if (IdFn)
    for (User *U : IdFn->users())
      if (auto *Call = dyn_cast<CallInst>(U))
        if (Call->getFunction() == Host)
          Before.insert(Call);

  InlineFunctionInfo IFI;
  if (!InlineFunction(*Pending.Call, IFI).isSuccess())
    return false;
  if (!IdFn)
    return true;

  SmallVector<CallInst *, 8> Inlined;
  for (User *U : IdFn->users())
    if (auto *Call = dyn_cast<CallInst>(U))
      if (Call->getFunction() == Host && !Before.count(Call))
        Inlined.push_back(Call);
  for (CallInst *Call : Inlined) {
    // verifyGraphForm's instance-id rule: constant and in range.
    uint64_t Level = cast<ConstantInt>(Call->getArgOperand(0))->getZExtValue();
    uint64_t Dim = cast<ConstantInt>(Call->getArgOperand(1))->getZExtValue();
    Value *IV = Pending.Levels[Level][Dim];
    // Loops over a narrower extent count in its type; ids are i64.
    if (IV->getType() != Call->getType())
      IV = new ZExtInst(IV, Call->getType(), IV->getName() + ".i64",
                        Call->getIterator());
    Call->replaceAllUsesWith(IV);
    Call->eraseFromParent();
  }
  return true;
}

/// Drops the leaf functions from @llvm.compiler.used, which only kept them
/// alive for the graph; the global goes when nothing is left in it.
void removeFromCompilerUsed(Module &M, const StringSet<> &LeafFunctions) {
  GlobalVariable *Used = M.getGlobalVariable("llvm.compiler.used");
  if (!Used || !Used->hasInitializer())
    return;
  auto *Init = dyn_cast<ConstantArray>(Used->getInitializer());
  if (!Init)
    return; // zeroinitializer or similar: nothing listed
  SmallVector<Constant *, 8> Kept;
  for (Use &Op : Init->operands()) {
    auto *C = cast<Constant>(Op.get());
    auto *F = dyn_cast<Function>(C->stripPointerCasts());
    if (!F || !LeafFunctions.count(F->getName()))
      Kept.push_back(C);
  }
  if (Kept.size() == Init->getNumOperands())
    return;
  std::string Name = Used->getName().str();
  StringRef Section = Used->getSection();
  std::string SectionName = Section.str();
  Used->eraseFromParent();
  if (Kept.empty())
    return;
  ArrayType *Ty =
      ArrayType::get(PointerType::get(M.getContext(), 0), Kept.size());
  auto *NewUsed = new GlobalVariable(M, Ty, /*isConstant=*/false,
                                     GlobalValue::AppendingLinkage,
                                     ConstantArray::get(Ty, Kept), Name);
  NewUsed->setSection(SectionName);
}

bool eraseIfUnused(GlobalValue *GV) {
  if (!GV)
    return false;
  GV->removeDeadConstantUsers();
  if (!GV->use_empty())
    return false;
  GV->eraseFromParent();
  return true;
}

} // namespace

unsigned prepareRegions(Module &M) {
  if (!hasGraphs(M))
    return 0;
  // Everything the graph form promises (bindings, edges, extents, leaf
  // signatures, launches, instance ids) is the verifier's to check; what
  // follows only checks what PREPARE cannot express.
  if (unsigned Errors = verifyGraphForm(M))
    return Errors;
  Checker Check(M);

  // The verifier has read the metadata successfully.
  std::vector<Graph> Graphs = cantFail(readGraphs(M));
  StringMap<const Graph *> ByName;
  StringSet<> LeafFunctions;
  for (const Graph &G : Graphs) {
    ByName[G.name()] = &G;
    forEachNode(G.root(), [&](const Node &N) {
      if (N.isLeaf())
        LeafFunctions.insert(N.Function);
    });
  }

  // The launches, in program order so that names come out deterministic.
  // The verifier has checked that each is a direct call naming a graph.
  std::vector<Launch> Launches;
  SmallPtrSet<GlobalVariable *, 4> GraphNameStrings;
  if (Function *LaunchFn = M.getFunction(LaunchFunctionName)) {
    for (Function &F : M)
      for (Instruction &I : instructions(F)) {
        auto *Call = dyn_cast<CallInst>(&I);
        if (!Call || Call->getCalledOperand() != LaunchFn)
          continue;
        Launches.push_back({Call, ByName.lookup(launchedGraphName(*Call))});
        if (auto *GV = dyn_cast<GlobalVariable>(
                Call->getArgOperand(0)->stripPointerCasts()))
          GraphNameStrings.insert(GV);
      }
  }
  Check.checkMarkerDeclarations();
  for (const Launch &L : Launches)
    Check.checkLaunch(L);
  if (Check.errors())
    return Check.errors();

  // From here on nothing can fail short of InlineFunction itself, whose
  // preconditions were checked above.
  std::vector<PendingLeafCall> LeafCalls;
  {
    Emitter Emit(M, LeafCalls);
    for (const Launch &L : Launches) {
      Emit.emitLaunch(L);
      L.Call->eraseFromParent();
    }
  }
  Function *IdFn = M.getFunction(InstanceIdFunctionName);
  for (PendingLeafCall &Pending : LeafCalls)
    if (!inlineLeafCall(Pending, IdFn))
      Check.error("leaf-function",
                  "'" + Pending.Call->getCalledFunction()->getName() +
                      "' could not be inlined",
                  Pending.Call->getFunction(), "", Pending.Call);

  if (NamedMDNode *NMD = M.getNamedMetadata(GraphsMetadataName))
    M.eraseNamedMetadata(NMD);
  removeFromCompilerUsed(M, LeafFunctions);
  // A leaf function may call another one (a leaf of some other node);
  // erasing the caller can free the callee, so repeat until nothing goes.
  for (bool Erased = true; Erased;) {
    Erased = false;
    for (const auto &Entry : LeafFunctions)
      if (Function *F = M.getFunction(Entry.getKey()))
        Erased |= eraseIfUnused(F);
  }
  eraseIfUnused(M.getFunction(LaunchFunctionName));
  eraseIfUnused(M.getFunction(InstanceIdFunctionName));
  for (GlobalVariable *GV : GraphNameStrings)
    if (GV->isDiscardableIfUnused())
      eraseIfUnused(GV);
  return Check.errors();
}

} // namespace hpvm
