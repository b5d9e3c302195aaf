//===- LeafKernel.cpp - One leaf as one GPU kernel function ---------------===//
#include "hpvm/backends/LeafKernel.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Inlining.h"
#include "hpvm/ir/WorkGroups.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace hpvm::gpu {

Error makeError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message);
}

Error nodeError(const Node &N, const Twine &Message) {
  return makeError("node '" + N.path() + "': " + Message);
}

char UnsupportedLeaf::ID = 0;

void UnsupportedLeaf::log(raw_ostream &OS) const { OS << Message; }

std::error_code UnsupportedLeaf::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

Error unsupportedIn(const Node &N, const Twine &Backend, const Instruction *At,
                    const Twine &What) {
  std::string Why = ("the " + Backend + " cannot compile " + What).str();
  return make_error<UnsupportedLeaf>("node '" + N.path() +
                                         "' (leaf function '@" + N.Function +
                                         "'): " + Why + atInstruction(At),
                                     Why, sourceLocationOf(At));
}

SkippedLeaf skippedLeaf(const Node &N, Error E) {
  SkippedLeaf S{N.path(), "", ""};
  handleAllErrors(
      std::move(E),
      [&](const UnsupportedLeaf &U) {
        S.Why = U.Why;
        S.Location = U.Location;
      },
      [&](const ErrorInfoBase &Other) {
        std::string Why = Other.message();
        Why = Why.substr(0, Why.find('\n'));
        std::string Prefix = "node '" + N.path() + "': ";
        if (StringRef(Why).starts_with(Prefix))
          Why = Why.substr(Prefix.size());
        S.Why = Why;
      });
  return S;
}

Error checkLeaf(const Module &M, const Node &N, StringRef Target) {
  std::string Problem = leafInterfaceProblem(M, N);
  if (!Problem.empty())
    return nodeError(N, Problem);
  if (!N.Outputs.empty())
    return nodeError(N, "a leaf with outputs is not supported by the " +
                            Target +
                            " backend: a GPU kernel has nowhere to return "
                            "them; write the results to a buffer instead");
  return Error::success();
}

Expected<LeafKernelJobs>
collectLeafKernelJobs(const Module &M, TargetMask Target, StringRef TargetName,
                      function_ref<std::string(const Node &)> EntryName) {
  auto Graphs = readGraphs(M);
  if (!Graphs)
    return Graphs.takeError();
  LeafKernelJobs Result;
  Result.Graphs = std::move(*Graphs);
  Error Err = Error::success();
  for (const Graph &G : Result.Graphs)
    forEachNode(G.root(), [&](const Node &N) {
      if (Err || !N.isLeaf() || !(N.Targets & Target))
        return;
      if (Error E = checkLeaf(M, N, TargetName)) {
        Err = std::move(E);
        return;
      }
      LeafKernelJob Job;
      Job.N = &N;
      Job.EntryName = EntryName(N);
      for (const Node *P = N.parent(); P; P = P->parent())
        Job.AncestorDims.push_back(P->Dims.size());
      Result.Jobs.push_back(std::move(Job));
    });
  if (Err)
    return Err;
  return Result;
}

std::unique_ptr<Module> cloneForKernels(const Module &M, StringRef Suffix) {
  std::unique_ptr<Module> Copy = CloneModule(M);
  Copy->setModuleIdentifier((M.getModuleIdentifier() + Suffix).str());
  for (Function &F : *Copy) {
    F.removeFnAttr(Attribute::OptimizeNone);
    F.removeFnAttr(Attribute::NoInline);
  }
  return Copy;
}

Value *extentAsI64(IRBuilder<> &B, const Extent &E, ArrayRef<Value *> Params) {
  if (E.isConstant())
    return B.getInt64(E.value());
  Value *P = Params[E.paramIndex()];
  return P->getType()->isIntegerTy(1) ? B.CreateZExt(P, B.getInt64Ty())
                                      : B.CreateSExtOrTrunc(P, B.getInt64Ty());
}

namespace {

/// The kernel gets an artificial subprogram when the leaf has one, so that
/// the inlined body keeps its source lines for diagnostics.
void addDebugInfo(Function &K, const Function &Leaf) {
  DISubprogram *LeafSP = Leaf.getSubprogram();
  if (!LeafSP || !LeafSP->getUnit())
    return;
  Module &M = *K.getParent();
  DIBuilder DIB(M, /*AllowUnresolved=*/false, LeafSP->getUnit());
  DISubroutineType *Ty =
      DIB.createSubroutineType(DIB.getOrCreateTypeArray(std::nullopt));
  DISubprogram *SP = DIB.createFunction(
      LeafSP->getFile(), K.getName(), K.getName(), LeafSP->getFile(),
      LeafSP->getLine(), Ty, LeafSP->getScopeLine(),
      DINode::FlagArtificial | DINode::FlagPrototyped,
      DISubprogram::SPFlagDefinition);
  K.setSubprogram(SP);
  DIB.finalizeSubprogram(SP);
  DebugLoc Loc = DILocation::get(M.getContext(), LeafSP->getLine(), 0, SP);
  for (Instruction &I : instructions(K))
    if (!I.getDebugLoc())
      I.setDebugLoc(Loc);
}

} // namespace

Expected<Function *> buildLeafKernel(Module &M, const LeafKernelJob &Job,
                                     FunctionType *Ty,
                                     const KernelHooks &Hooks) {
  const Node &N = *Job.N;
  Function *Leaf = M.getFunction(N.Function);
  if (M.getNamedValue(Job.EntryName))
    return nodeError(N, "the name of its kernel, '" + Job.EntryName +
                            "', is already taken in the module");
  Function *K =
      Function::Create(Ty, GlobalValue::ExternalLinkage, Job.EntryName, M);
  for (auto [I, P] : enumerate(N.Params))
    K->getArg(I)->setName(P.Name);

  BasicBlock *Entry = BasicBlock::Create(M.getContext(), "entry", K);
  IRBuilder<> B(Entry);
  InstanceCode IC = Hooks.BuildInstances(*K, B);
  B.SetInsertPoint(IC.Body->getTerminator());
  CallInst *Call = B.CreateCall(Leaf, IC.LeafArgs);
  Call->setCallingConv(Leaf->getCallingConv());

  addDebugInfo(*K, *Leaf);
  InlineFunctionInfo IFI;
  InlineResult Inlined = InlineFunction(*Call, IFI);
  if (!Inlined.isSuccess())
    return nodeError(N, "cannot inline leaf function '@" + N.Function +
                            "' into its kernel: " + Inlined.getFailureReason());
  inlineTransitively(Leaf, IFI.InlinedCallSites);
  if (!K->getSubprogram())
    stripDebugInfo(*K);
  resolveWorkGroupForm(*K, Hooks.WorkGroups);

  if (Error E = replaceInstanceIds(*K, N, Job.AncestorDims, IC.Ids,
                                   Hooks.OuterId, Hooks.Unsupported))
    return E;
  return K;
}

} // namespace hpvm::gpu

namespace hpvm {

Error replaceInstanceIds(
    Function &F, const Node &N, ArrayRef<unsigned> AncestorDims,
    ArrayRef<Value *> Ids,
    function_ref<Value *(IRBuilder<> &, unsigned, unsigned)> OuterId,
    function_ref<Error(const Instruction *, const Twine &)> Malformed) {
  Function *IdFn = F.getParent()->getFunction(InstanceIdFunctionName);
  if (!IdFn)
    return Error::success();
  SmallVector<CallInst *, 8> Calls;
  for (User *U : IdFn->users())
    if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getFunction() == &F)
      Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    auto *LevelC = CI->arg_size() == 2
                       ? dyn_cast<ConstantInt>(CI->getArgOperand(0))
                       : nullptr;
    auto *DimC = CI->arg_size() == 2
                     ? dyn_cast<ConstantInt>(CI->getArgOperand(1))
                     : nullptr;
    if (CI->getCalledFunction() != IdFn || !CI->getType()->isIntegerTy(64) ||
        !LevelC || !DimC)
      return Malformed(CI, "a malformed instance-id call (level and dim must "
                           "be constants, the result an i64)");
    uint64_t Level = LevelC->getZExtValue(), Dim = DimC->getZExtValue();
    Value *Id;
    if (Level == 0) {
      if (Dim >= Ids.size())
        return gpu::nodeError(N, "reads instance id (0, " + Twine(Dim) +
                                     ") but the node has " + Twine(Ids.size()) +
                                     " dims");
      Id = Ids[Dim];
    } else {
      if (Level > AncestorDims.size() || Dim >= AncestorDims[Level - 1])
        return gpu::nodeError(N, "reads instance id (" + Twine(Level) + ", " +
                                     Twine(Dim) +
                                     "), but no ancestor at that level has "
                                     "that dim");
      IRBuilder<> B(CI);
      Id = OuterId(B, Level, Dim);
    }
    CI->replaceAllUsesWith(Id);
    CI->eraseFromParent();
  }
  return Error::success();
}

} // namespace hpvm
