//===- GraphFormVerifier.cpp - Rules of a module in graph form ------------===//
//
// The model rules come from verifyGraph; this file adds the rules that need
// the module (docs/ir.md §3.3): leaf functions exist with the node's
// signature and never write through an input-only buffer, every @hpvm.launch
// names a graph and passes arguments that match its root's parameters, and
// every @hpvm.instance.id call names an index space that encloses it.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/GraphFormVerifier.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/GraphVerifier.h"
#include "hpvm/ir/RegionForm.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hpvm {

static std::string typeName(const Type *T) {
  std::string S;
  raw_string_ostream OS(S);
  T->print(OS);
  return S;
}

namespace {
class GraphFormChecker {
public:
  explicit GraphFormChecker(Module &M) : M(M), Ctx(M.getContext()) {}

  unsigned run() {
    Expected<std::vector<Graph>> Read = readGraphs(M);
    if (!Read) {
      error("metadata", toString(Read.takeError()));
      return Errors;
    }
    Graphs = std::move(*Read);

    for (const Graph &G : Graphs) {
      if (G.name().empty())
        error("metadata", "a graph has an empty name, which no launch can "
                          "refer to");
      else if (!ByName.try_emplace(G.name(), &G).second)
        error("duplicate-graph", "two graphs are named '" + G.name() + "'",
              nullptr, G.name());
      for (const GraphDiagnostic &D : verifyGraph(G))
        error(D.Rule, D.Message, nullptr, D.Where);
      forEachNode(G.root(), [&](const Node &N) {
        if (N.isLeaf())
          checkLeaf(N);
      });
    }
    checkLaunches();
    checkInstanceIds();
    return Errors;
  }

private:
  Module &M;
  LLVMContext &Ctx;
  std::vector<Graph> Graphs;
  StringMap<const Graph *> ByName;
  /// The leaves each defined leaf function computes; a function may serve
  /// several, and an instance-id call must make sense for all of them.
  DenseMap<const Function *, SmallVector<const Node *, 2>> LeavesOf;
  unsigned Errors = 0;

  void error(std::string Rule, std::string Message, const Function *F = nullptr,
             std::string Node = "", const Instruction *At = nullptr) {
    ++Errors;
    reportError(Ctx, std::move(Rule), std::move(Message), F, std::move(Node),
                At);
  }

  /// Rule leaf-function: the leaf's function is defined here with exactly
  /// the signature its node implies; then rule write-to-input on its body.
  void checkLeaf(const Node &N) {
    // A leaf that names no function is verifyGraph's leaf-function error.
    if (N.Function.empty())
      return;
    const std::string Path = N.path();
    Function *F = M.getFunction(N.Function);
    if (!F) {
      error("leaf-function", "function '" + N.Function + "' does not exist",
            nullptr, Path);
      return;
    }
    if (F->isDeclaration()) {
      error("leaf-function", "the leaf function is only declared", F, Path);
      return;
    }
    LeavesOf[F].push_back(&N);
    FunctionType *Want = getLeafFunctionType(N, Ctx);
    if (F->getReturnType() != Want->getReturnType())
      error("leaf-function",
            "returns " + typeName(F->getReturnType()) + " but the node's " +
                std::to_string(N.Outputs.size()) + " output(s) need " +
                typeName(Want->getReturnType()),
            F, Path);
    if (F->isVarArg())
      error("leaf-function", "a leaf function may not be variadic", F, Path);
    if (F->arg_size() != Want->getNumParams()) {
      error("leaf-function",
            "has " + std::to_string(F->arg_size()) +
                " parameters but the node has " +
                std::to_string(Want->getNumParams()),
            F, Path);
    } else {
      for (unsigned I = 0, E = F->arg_size(); I < E; ++I)
        if (F->getArg(I)->getType() != Want->getParamType(I))
          error("leaf-function",
                "parameter " + std::to_string(I) + " ('" + N.Params[I].Name +
                    "') is " + typeName(F->getArg(I)->getType()) +
                    " but the node needs " + typeName(Want->getParamType(I)),
                F, Path);
    }
    checkWritesToInputs(N, *F, Path);
    checkNotCalled(*F, Path);
  }

  /// Rule leaf-call: only the runtime calls a leaf function, once per
  /// instance with the instance ids set; a direct call (from the host or
  /// from another function) would run it with none, and the backends
  /// rewrite or drop the function.
  void checkNotCalled(const Function &F, const std::string &Path) {
    for (const Use &U : F.uses()) {
      const auto *Call = dyn_cast<CallBase>(U.getUser());
      if (!Call || !Call->isCallee(&U))
        continue;
      error("leaf-call",
            "the leaf function '" + F.getName().str() + "' is called from '" +
                Call->getFunction()->getName().str() +
                "'; a leaf function runs only as its node, launched by "
                "the runtime",
            Call->getFunction(), Path, Call);
      return;
    }
  }

  /// The pointer an instruction writes through, if it writes memory in a way
  /// this rule looks at.
  static const Value *writtenPointer(const Instruction &I) {
    if (const auto *SI = dyn_cast<StoreInst>(&I))
      return SI->getPointerOperand();
    if (const auto *RMW = dyn_cast<AtomicRMWInst>(&I))
      return RMW->getPointerOperand();
    if (const auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
      return CX->getPointerOperand();
    // memset, memcpy and memmove, their .inline and element-wise atomic
    // forms alike.
    if (const auto *MI = dyn_cast<AnyMemIntrinsic>(&I))
      return MI->getRawDest();
    return nullptr;
  }

  /// Rule write-to-input: no write in the leaf's body may reach memory that
  /// came in through an `in` buffer.
  void checkWritesToInputs(const Node &N, const Function &F,
                           const std::string &Path) {
    SmallVector<const Argument *, 4> Inputs;
    for (unsigned I = 0, E = N.Params.size(); I < E && I < F.arg_size(); ++I)
      if (N.Params[I].isBuffer() && N.Params[I].Mode == Access::In &&
          F.getArg(I)->getType()->isPointerTy())
        Inputs.push_back(F.getArg(I));
    if (Inputs.empty())
      return;
    for (const Instruction &I : instructions(F)) {
      const Value *Ptr = writtenPointer(I);
      if (!Ptr)
        continue;
      // The plural form looks through phis and selects, which is where
      // pointer induction variables of optimised loops hide; no lookup limit,
      // since a missed write is a wrong program.
      SmallVector<const Value *, 4> Objects;
      getUnderlyingObjects(Ptr, Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
      for (const Argument *A : Inputs)
        if (is_contained(Objects, A))
          error("write-to-input",
                "writes to buffer '" + N.Params[A->getArgNo()].Name +
                    "', which the node declares 'in'",
                &F, Path, &I);
    }
  }

  /// Rule launch: each call to @hpvm.launch names a known graph and passes
  /// one argument of the right type per root parameter.
  void checkLaunches() {
    Function *Launch = M.getFunction(LaunchFunctionName);
    if (!Launch)
      return;
    for (User *U : Launch->users()) {
      auto *Call = dyn_cast<CallBase>(U);
      if (!Call || Call->getCalledOperand() != Launch) {
        // A launch that is not a direct call could start any graph at any
        // time, so PREPARE and the runtime could not tell which.
        const auto *At = dyn_cast<Instruction>(U);
        error("launch", "@hpvm.launch is used other than called",
              At ? At->getFunction() : nullptr, "", At);
        continue;
      }
      const Function *Caller = Call->getFunction();
      // A node runs as many instances, on devices: it cannot start graphs.
      if (auto It = LeavesOf.find(Caller); It != LeavesOf.end()) {
        error("launch",
              "a leaf function launches a graph; launches belong to host "
              "code, not to nodes",
              Caller, It->second.front()->path(), Call);
        continue;
      }
      auto *CI = dyn_cast<CallInst>(Call);
      if (!CI) {
        error("launch", "@hpvm.launch must be called, not invoked", Caller, "",
              Call);
        continue;
      }
      for (unsigned I = 0, E = CI->getNumOperandBundles(); I != E; ++I) {
        OperandBundleUse B = CI->getOperandBundleAt(I);
        if (B.getTagName() != tag::NoWait || !B.Inputs.empty())
          error("launch",
                "the only operand bundle a launch may carry is '" +
                    std::string(tag::NoWait) + "'(), not '" +
                    B.getTagName().str() + "'" +
                    (B.Inputs.empty() ? "" : " with operands"),
                Caller, "", Call);
      }
      std::string Name = launchedGraphName(*CI);
      if (Name.empty()) {
        error("launch",
              "the first argument is not a constant C string naming a graph",
              Caller, "", Call);
        continue;
      }
      auto It = ByName.find(Name);
      if (It == ByName.end()) {
        error("launch", "launches unknown graph '" + Name + "'", Caller, "",
              Call);
        continue;
      }
      const Node &Root = It->second->root();
      unsigned Given = CI->arg_size() - 1;
      if (Given != Root.Params.size()) {
        error("launch",
              "passes " + std::to_string(Given) + " arguments but graph '" +
                  Name + "' has " + std::to_string(Root.Params.size()) +
                  " parameters",
              Caller, Name, Call);
        continue;
      }
      for (unsigned I = 0; I < Given; ++I) {
        const Param &P = Root.Params[I];
        Type *Want =
            P.isBuffer() ? PointerType::get(Ctx, 0) : toLLVMType(P.Type, Ctx);
        Type *Have = CI->getArgOperand(I + 1)->getType();
        if (Have != Want)
          error("launch",
                "argument " + std::to_string(I) + " ('" + P.Name + "') is " +
                    typeName(Have) + " but the parameter is " + typeName(Want),
                Caller, Name, Call);
      }
    }
  }

  /// Rule instance-id: @hpvm.instance.id(level, dim) stands for the index of
  /// the current instance of the leaf (level 0) or of its level-th ancestor,
  /// which PREPARE and the backends substitute per leaf. That is only
  /// possible for a direct call, made in the leaf function itself, whose
  /// constant operands name an existing dim of an existing ancestor.
  void checkInstanceIds() {
    Function *IdFn = M.getFunction(InstanceIdFunctionName);
    if (!IdFn)
      return;
    Type *I32 = Type::getInt32Ty(Ctx);
    FunctionType *Want =
        FunctionType::get(Type::getInt64Ty(Ctx), {I32, I32}, false);
    if (IdFn->getFunctionType() != Want) {
      // The calls' operands cannot be read as (level, dim) then.
      error("instance-id",
            "@hpvm.instance.id is declared as " +
                typeName(IdFn->getFunctionType()) + " instead of " +
                typeName(Want),
            IdFn);
      return;
    }
    for (const User *U : IdFn->users())
      if (!isa<Instruction>(U))
        error("instance-id", "@hpvm.instance.id is used other than called");
    // In program order rather than use-list order, so that diagnostics come
    // out in the order of the source.
    for (const Function &F : M)
      for (const Instruction &I : instructions(F)) {
        if (!is_contained(I.operand_values(), IdFn))
          continue;
        // The declared type leaves no argument that could be IdFn itself.
        const auto *Call = dyn_cast<CallInst>(&I);
        if (!Call || Call->getCalledOperand() != IdFn)
          error("instance-id", "@hpvm.instance.id is used other than called",
                &F, "", &I);
        else
          checkInstanceIdCall(*Call);
      }
  }

  static unsigned depthOf(const Node &N) {
    unsigned Depth = 0;
    for (const Node *P = N.parent(); P; P = P->parent())
      ++Depth;
    return Depth;
  }

  void checkInstanceIdCall(const CallInst &Call) {
    const Function *F = Call.getFunction();
    auto It = LeavesOf.find(F);
    if (It == LeavesOf.end()) {
      error("instance-id",
            "@hpvm.instance.id is called outside a leaf function", F, "",
            &Call);
      return;
    }
    const auto *Level = dyn_cast<ConstantInt>(Call.getArgOperand(0));
    const auto *Dim = dyn_cast<ConstantInt>(Call.getArgOperand(1));
    if (!Level || !Dim) {
      error("instance-id", "the level and dim must be constants", F,
            It->second.front()->path(), &Call);
      return;
    }
    uint64_t L = Level->getZExtValue(), D = Dim->getZExtValue();
    for (const Node *Leaf : It->second) {
      unsigned Depth = depthOf(*Leaf);
      if (L > Depth) {
        error("instance-id",
              "level " + std::to_string(L) +
                  " is above the root (the leaf is at depth " +
                  std::to_string(Depth) + ")",
              F, Leaf->path(), &Call);
        continue;
      }
      const Node *Ancestor = Leaf;
      for (uint64_t K = L; K > 0; --K)
        Ancestor = Ancestor->parent();
      if (D >= Ancestor->Dims.size())
        error("instance-id",
              "node '" + Ancestor->path() + "' has " +
                  std::to_string(Ancestor->Dims.size()) +
                  " dims, there is no dim " + std::to_string(D),
              F, Leaf->path(), &Call);
    }
  }
};
} // namespace

unsigned verifyGraphForm(Module &M) { return GraphFormChecker(M).run(); }

} // namespace hpvm

std::string hpvm::leafInterfaceProblem(const Module &M, const Node &N) {
  if (N.Function.empty())
    return "the leaf names no function";
  const Function *F = M.getFunction(N.Function);
  if (!F || F->isDeclaration())
    return "leaf function '@" + N.Function + "' is not defined in the module";
  if (N.Dims.size() > 3)
    return "has " + std::to_string(N.Dims.size()) +
           " dims; at most 3 are supported";
  for (unsigned D = 0; D < N.Dims.size(); ++D) {
    if (!N.Dims[D].isParam())
      continue;
    unsigned P = N.Dims[D].paramIndex();
    if (P >= N.Params.size() || N.Params[P].isBuffer() ||
        !isInteger(N.Params[P].Type))
      return "the extent of dim " + std::to_string(D) + " names parameter " +
             std::to_string(P) + ", which is not an integer value parameter";
  }
  FunctionType *Want = getLeafFunctionType(N, M.getContext());
  if (F->getFunctionType() != Want) {
    std::string Have, Need;
    raw_string_ostream HaveOS(Have), NeedOS(Need);
    F->getFunctionType()->print(HaveOS);
    Want->print(NeedOS);
    return "leaf function '@" + N.Function + "' has type " + HaveOS.str() +
           ", but the node's parameters and outputs need " + NeedOS.str();
  }
  return "";
}
