//===- Program.cpp - From graph form to a runnable program ----------------===//
#include "hpvm/backends/Program.h"

#include "hpvm/backends/LeafKernel.h"

#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/GraphText.h"
#include "hpvm/ir/RegionForm.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>
#include <optional>

using namespace llvm;

namespace hpvm {

TargetMask availableTargets() { return TargetCPU | TargetNVPTX | TargetSPIRV; }
TargetMask defaultTargets() { return TargetCPU; }

static Error programError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message);
}

namespace {

/// The layouts of hpvm_rt.h's structs, as LLVM types. Unpacked LLVM structs
/// follow the C ABI's alignment rules, so these match the C declarations.
struct DescriptorTypes {
  explicit DescriptorTypes(LLVMContext &Ctx) {
    Type *Ptr = PointerType::get(Ctx, 0);
    Type *I32 = Type::getInt32Ty(Ctx), *I64 = Type::getInt64Ty(Ctx);
    // hpvm_artifact: node, target, cpu_fn, code, code_size, entry
    Artifact = StructType::get(Ctx, {Ptr, I32, Ptr, Ptr, I64, Ptr});
    // hpvm_program_desc: abi_version, graphs, num_artifacts, artifacts
    Program = StructType::get(Ctx, {I32, Ptr, I32, Ptr});
    // hpvm_cpu_kernel_fn
    CPUKernel = FunctionType::get(Type::getVoidTy(Ctx),
                                  {Ptr, Ptr, Ptr, Ptr, I64, I64}, false);
  }
  StructType *Artifact, *Program;
  FunctionType *CPUKernel;
};

/// ABI version of hpvm_rt.h this compiler emits (HPVM_RT_ABI_VERSION).
constexpr unsigned ABIVersion = 1;

} // namespace

/// The extents of Root as i64 values at a launch whose argument values are
/// Args (as the runtime reads them: i1 unsigned, other integers signed),
/// or nothing if one is not an integer argument.
static std::optional<SmallVector<Value *, 3>>
launchExtents(IRBuilder<> &B, const Node &Root, ArrayRef<Value *> Args) {
  SmallVector<Value *, 3> Extents;
  for (const Extent &E : Root.Dims) {
    if (E.isConstant()) {
      Extents.push_back(B.getInt64(E.value()));
      continue;
    }
    unsigned K = E.paramIndex();
    if (K >= Args.size() || !isInteger(Root.Params[K].Type) ||
        !Args[K]->getType()->isIntegerTy())
      return std::nullopt;
    Extents.push_back(B.CreateIntCast(Args[K], B.getInt64Ty(),
                                      Root.Params[K].Type != ScalarType::I1));
  }
  while (Extents.size() < 3)
    Extents.push_back(B.getInt64(1));
  return Extents;
}

/// Replaces the launch before B's insertion point (its arguments passed in
/// Argv, its extents Extents) by what a launch site does (hpvm_rt.h,
/// hpvm_launch_site): the CPU function of Root called here when the
/// runtime armed the site for this many instances, else SiteRuntime.
static void emitLaunchSite(IRBuilder<> &B, IRBuilder<> &Entry, const Node &Root,
                           Value *Argv, FunctionCallee SiteRuntime,
                           Value *Descriptor, Value *GraphName,
                           FunctionType *CPUKernel, ArrayRef<Value *> Extents) {
  Module &M = *B.GetInsertBlock()->getModule();
  LLVMContext &Ctx = M.getContext();
  Type *I64 = B.getInt64Ty(), *Ptr = B.getPtrTy();
  // hpvm_launch_site: limit, fn, until, launches, instances
  auto *SiteTy = StructType::get(Ctx, {I64, Ptr, I64, I64, I64});
  auto *Site = new GlobalVariable(
      M, SiteTy, false, GlobalValue::InternalLinkage,
      Constant::getNullValue(SiteTy), "hpvm.site." + Root.name());
  auto Field = [&](unsigned I) {
    return B.CreateConstInBoundsGEP2_32(SiteTy, Site, 0, I);
  };
  // (Before the block is split: Entry may be inserting before the launch.)
  AllocaInst *Dims =
      Entry.CreateAlloca(ArrayType::get(I64, 3), nullptr, "hpvm.site.dims");
  // Atomic for the memory model only: each is a plain access on x86.
  auto AtomicLoad = [&](Type *T, Value *P,
                        AtomicOrdering O = AtomicOrdering::Monotonic) {
    LoadInst *L = B.CreateAlignedLoad(T, P, Align(8));
    L->setAtomic(O);
    return L;
  };
  auto AtomicStore = [&](Value *V, Value *P) {
    B.CreateAlignedStore(V, P, Align(8))->setAtomic(AtomicOrdering::Monotonic);
  };

  // Every extent in [1, limit], and so is their product (a limit is at
  // most 2^20: three of them multiply without overflow).
  // Acquiring what the runtime wrote with it (fn, until).
  Value *Limit = AtomicLoad(I64, Field(0), AtomicOrdering::Acquire);
  Value *Fits = B.getTrue();
  Value *Instances = B.getInt64(1);
  for (Value *E : Extents) {
    Fits = B.CreateAnd(Fits, B.CreateICmpSGT(E, B.getInt64(0)));
    Fits = B.CreateAnd(Fits, B.CreateICmpSLE(E, Limit));
    Instances = B.CreateMul(Instances, E);
  }
  Fits = B.CreateAnd(Fits, B.CreateICmpSLE(Instances, Limit));

  Instruction *Here = &*B.GetInsertPoint();
  BasicBlock *Before = Here->getParent();
  BasicBlock *Done = Before->splitBasicBlock(Here, "hpvm.site.done");
  Function *F = Before->getParent();
  auto *Take = BasicBlock::Create(Ctx, "hpvm.site.take", F, Done);
  auto *Direct = BasicBlock::Create(Ctx, "hpvm.site.direct", F, Done);
  auto *Slow = BasicBlock::Create(Ctx, "hpvm.site.runtime", F, Done);
  Before->getTerminator()->eraseFromParent();
  B.SetInsertPoint(Before);
  B.CreateCondBr(Fits, Take, Slow);

  // Within the budget: launches below until.
  B.SetInsertPoint(Take);
  Value *Launches = AtomicLoad(I64, Field(3));
  B.CreateCondBr(B.CreateICmpULT(Launches, AtomicLoad(I64, Field(2))), Direct,
                 Slow);

  B.SetInsertPoint(Direct);
  AtomicStore(B.CreateAdd(Launches, B.getInt64(1)), Field(3));
  Value *Fn = AtomicLoad(Ptr, Field(1));
  for (unsigned I = 0; I < 3; ++I)
    B.CreateStore(Extents[I], B.CreateConstInBoundsGEP2_32(
                                  Dims->getAllocatedType(), Dims, 0, I));
  Value *Null = ConstantPointerNull::get(B.getPtrTy());
  B.CreateCall(CPUKernel, Fn,
               {Argv, Null, Dims, Null, B.getInt64(0), Extents[0]});
  // Counts only: another thread's launch at once may lose a few of them,
  // never a result.
  AtomicStore(B.CreateAdd(AtomicLoad(I64, Field(4)), Instances), Field(4));
  B.CreateBr(Done);

  B.SetInsertPoint(Slow);
  B.CreateCall(SiteRuntime, {Descriptor, GraphName, Argv, Site});
  B.CreateBr(Done);
}

/// Replaces every @hpvm.launch with a call to LaunchFunction, or to
/// NoWaitLaunchFunction for those with an "hpvm.nowait" bundle, passing the
/// arguments the way hpvm_rt.h says: an array of pointers to each value.
/// A launch of a graph that is one leaf compiled for the CPU gets a launch
/// site instead, if Options name the site functions.
static void lowerLaunches(Module &M, GlobalVariable *Descriptor,
                          const std::vector<Graph> &Graphs,
                          const ProgramOptions &Options) {
  Function *Launch = M.getFunction(LaunchFunctionName);
  if (!Launch)
    return;
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::get(Ctx, 0);
  FunctionCallee Runtime = M.getOrInsertFunction(
      Options.LaunchFunction, Type::getVoidTy(Ctx), Ptr, Ptr, Ptr);
  FunctionCallee NoWaitRuntime = M.getOrInsertFunction(
      Options.NoWaitLaunchFunction, Type::getVoidTy(Ctx), Ptr, Ptr, Ptr);
  // The runtime's functions for launches with a site, synchronous and not.
  std::optional<FunctionCallee> SiteRuntime[2];
  for (bool NoWait : {false, true}) {
    const std::string &Name =
        NoWait ? Options.NoWaitSiteLaunchFunction : Options.SiteLaunchFunction;
    if (!Name.empty() && (Options.Targets & TargetCPU))
      SiteRuntime[NoWait] =
          M.getOrInsertFunction(Name, Type::getVoidTy(Ctx), Ptr, Ptr, Ptr, Ptr);
  }
  DescriptorTypes Types(Ctx);
  SmallVector<CallInst *, 4> Calls;
  for (User *U : Launch->users())
    if (auto *Call = dyn_cast<CallInst>(U))
      Calls.push_back(Call);
  for (CallInst *Call : Calls) {
    Function &F = *Call->getFunction();
    // Slots live in the entry block so that a launch inside a loop does not
    // grow the stack.
    IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
    unsigned NumArgs = Call->arg_size() - 1;
    AllocaInst *Argv =
        Entry.CreateAlloca(ArrayType::get(Ptr, NumArgs), nullptr, "hpvm.argv");
    IRBuilder<> B(Call);
    SmallVector<Value *, 8> Args;
    for (unsigned I = 0; I < NumArgs; ++I) {
      Value *Arg = Call->getArgOperand(I + 1);
      Args.push_back(Arg);
      AllocaInst *Slot =
          Entry.CreateAlloca(Arg->getType(), nullptr, "hpvm.arg" + Twine(I));
      B.CreateStore(Arg, Slot);
      // Where each value is never changes (nobody writes argv): set once.
      Entry.CreateStore(Slot, Entry.CreateConstInBoundsGEP2_32(
                                  Argv->getAllocatedType(), Argv, 0, I));
    }
    Value *GraphName = Call->getArgOperand(0);
    bool NoWait = Call->getOperandBundle(tag::NoWait).has_value();
    const Graph *G = nullptr;
    StringRef Name;
    if (SiteRuntime[NoWait] && getConstantStringInfo(GraphName, Name))
      for (const Graph &Candidate : Graphs)
        if (Candidate.name() == Name)
          G = &Candidate;
    std::optional<SmallVector<Value *, 3>> Extents;
    if (G && G->root().isLeaf() && (G->root().Targets & TargetCPU) &&
        G->root().Outputs.empty() && G->root().Dims.size() <= 3)
      Extents = launchExtents(B, G->root(), Args);
    if (Extents)
      emitLaunchSite(B, Entry, G->root(), Argv, *SiteRuntime[NoWait],
                     Descriptor, GraphName, Types.CPUKernel, *Extents);
    else
      B.CreateCall(NoWait ? NoWaitRuntime : Runtime,
                   {Descriptor, GraphName, Argv});
    Call->eraseFromParent();
  }
  Launch->eraseFromParent();
  for (StringRef Name : {StringRef(Options.LaunchFunction),
                         StringRef(Options.NoWaitLaunchFunction),
                         StringRef(Options.SiteLaunchFunction),
                         StringRef(Options.NoWaitSiteLaunchFunction)})
    if (Function *F = M.getFunction(Name))
      if (F->use_empty() && F->isDeclaration())
        F->eraseFromParent();
}

/// Removes the leaf functions (they now live in the kernel modules) and the
/// graph metadata from the host module.
static void removeGraphForm(Module &M, const std::vector<Graph> &Graphs) {
  SmallPtrSet<GlobalValue *, 16> Leaves;
  for (const Graph &G : Graphs)
    forEachNode(G.root(), [&](const Node &N) {
      if (N.isLeaf())
        if (Function *F = M.getFunction(N.Function))
          Leaves.insert(F);
    });
  removeFromUsedLists(M, [&](Constant *C) {
    return Leaves.count(dyn_cast<GlobalValue>(C->stripPointerCasts()));
  });
  for (GlobalValue *GV : Leaves) {
    // The used lists' old arrays live on as dead constants naming every
    // leaf: replacing each leaf in them would cost the whole array per
    // leaf (seconds for thousands of tasks).
    GV->removeDeadConstantUsers();
    GV->replaceAllUsesWith(PoisonValue::get(GV->getType()));
    GV->eraseFromParent();
  }
  if (NamedMDNode *MD = M.getNamedMetadata(GraphsMetadataName))
    M.eraseNamedMetadata(MD);
  if (Function *Id = M.getFunction(InstanceIdFunctionName))
    if (Id->use_empty())
      Id->eraseFromParent();
}

/// The CPU kernels are compiled in a module of their own, linked with the
/// host code: a mutable static (internal) global that a leaf's code, or a
/// function it calls, uses directly (a helper's table) would be another
/// variable there. Such globals become hidden external ones, under a name
/// unique to the module (its source file and identifier), which the
/// kernels' copy of the module refers to.
static void shareGlobalsWithKernels(Module &M,
                                    const std::vector<Graph> &Graphs) {
  SmallPtrSet<const Function *, 16> Reached;
  SmallVector<const Function *, 16> Work;
  for (const Graph &G : Graphs)
    forEachNode(G.root(), [&](const Node &N) {
      if (N.isLeaf())
        if (const Function *F = M.getFunction(N.Function))
          if (Reached.insert(F).second)
            Work.push_back(F);
    });
  SmallPtrSet<GlobalVariable *, 8> Shared;
  while (!Work.empty()) {
    const Function *F = Work.pop_back_val();
    for (const BasicBlock &BB : *F)
      for (const Instruction &I : BB)
        for (const Value *Op : I.operands()) {
          const Value *V = Op->stripPointerCasts();
          if (auto *CE = dyn_cast<ConstantExpr>(V))
            V = CE->getOperand(0)->stripPointerCasts();
          if (auto *G = dyn_cast<GlobalVariable>(V)) {
            if (G->hasLocalLinkage() && !G->isConstant())
              Shared.insert(const_cast<GlobalVariable *>(G));
          } else if (auto *Callee = dyn_cast<Function>(V)) {
            if (!Callee->isDeclaration() && Reached.insert(Callee).second)
              Work.push_back(Callee);
          }
        }
  }
  std::string Suffix =
      ".hpvm." + utohexstr(xxh3_64bits(M.getSourceFileName() + '\0' +
                                       M.getModuleIdentifier()),
                           /*LowerCase=*/true);
  for (GlobalVariable *G : Shared) {
    G->setName(G->getName() + Suffix);
    G->setLinkage(GlobalValue::ExternalLinkage);
    G->setVisibility(GlobalValue::HiddenVisibility);
  }
}

/// A leaf every target left out can run nowhere: the error gives each
/// target's reason, where the code it could not compile is.
static Error checkEveryLeafHasAnArtifact(const std::vector<Graph> &Graphs,
                                         const ProgramOptions &Options,
                                         const CompiledProgram &Result) {
  Error Problem = Error::success();
  for (const Graph &G : Graphs)
    forEachNode(G.root(), [&](const Node &N) {
      if (!N.isLeaf() || Problem || (N.Targets & Options.Targets & TargetCPU))
        return;
      std::string Path = N.path(), Why, Where;
      auto Has = [&](const auto &Kernels) {
        return llvm::any_of(Kernels,
                            [&](const auto &K) { return K.NodePath == Path; });
      };
      if (Has(Result.NVPTXKernels) || Has(Result.SPIRVKernels) ||
          Has(Result.OpenCLKernels))
        return;
      for (const auto *Skipped :
           {&Result.NVPTXSkipped, &Result.VulkanSkipped, &Result.OpenCLSkipped})
        for (const SkippedLeaf &S : *Skipped)
          if (S.NodePath == Path) {
            Why += "; " + S.Why;
            if (Where.empty())
              Where = S.Location;
          }
      if (Why.empty())
        return;
      Why = "node '" + Path + "' can run on none of the targets being " +
            "compiled (" + targetsToString(N.Targets & Options.Targets) +
            "): " + Why.substr(2);
      Problem = make_error<gpu::UnsupportedLeaf>(
          Why + (Where.empty() ? "" : "\n  at: " + Where), Why, Where);
    });
  return Problem;
}

/// The checks every program passes and the kernels of every target, for
/// both forms of program (embedded and in memory).
static Expected<std::vector<Graph>> buildKernels(Module &M,
                                                 const ProgramOptions &Options,
                                                 CompiledProgram &Result) {
  if (TargetMask Missing = Options.Targets & ~availableTargets())
    return programError("target '" + targetsToString(Missing) +
                        "' is not available in this build");
  if (unsigned Errors = verifyGraphForm(M))
    return programError("the module is not valid graph form (" + Twine(Errors) +
                        " error(s) reported)");
  auto GraphsOr = readGraphs(M);
  if (!GraphsOr)
    return GraphsOr.takeError();
  std::vector<Graph> Graphs = std::move(*GraphsOr);

  // Every leaf must be able to run somewhere this program is compiled for.
  std::string Unplaceable;
  for (const Graph &G : Graphs)
    forEachNode(G.root(), [&](const Node &N) {
      if (N.isLeaf() && !(N.Targets & Options.Targets) && Unplaceable.empty())
        Unplaceable = N.path() + " (allows " + targetsToString(N.Targets) +
                      ", compiling for " + targetsToString(Options.Targets) +
                      ")";
    });
  if (!Unplaceable.empty())
    return programError("node " + Unplaceable +
                        " can run on none of the targets being compiled; "
                        "compile for one it allows as well");

  if (Options.Targets & TargetCPU) {
    shareGlobalsWithKernels(M, Graphs);
    auto Kernels = buildCPUKernels(M, Options.CPU);
    if (!Kernels)
      return Kernels.takeError();
    Result.CPUKernels = std::move(*Kernels);
  }

  if (Options.Targets & TargetNVPTX) {
    NVPTXOptions NVPTX = Options.NVPTX;
    if (Options.SkipUnsupported)
      NVPTX.Skipped = &Result.NVPTXSkipped;
    auto Kernels = buildNVPTXKernels(M, NVPTX);
    if (!Kernels)
      return Kernels.takeError();
    Result.NVPTXKernels = std::move(*Kernels);
  }

  if (Options.Targets & TargetSPIRV) {
    SPIRVOptions Vulkan;
    if (Options.SkipUnsupported)
      Vulkan.Skipped = &Result.VulkanSkipped;
    auto Kernels = buildSPIRVKernels(M, Vulkan);
    if (!Kernels)
      return Kernels.takeError();
    Result.SPIRVKernels = std::move(*Kernels);
    SPIRVOptions CL;
    CL.Flavour = SPIRVFlavour::OpenCL;
    CL.Skipped = &Result.OpenCLSkipped;
    auto CLKernels = buildSPIRVKernels(M, CL);
    if (!CLKernels)
      return CLKernels.takeError();
    Result.OpenCLKernels = std::move(*CLKernels);
  }
  if (Error E = checkEveryLeafHasAnArtifact(Graphs, Options, Result))
    return std::move(E);
  return Graphs;
}

namespace {

/// One artifact of a program, before it becomes a constant or a struct.
struct PlannedArtifact {
  std::string Node;
  uint32_t Target;
  /// CPU artifacts: the wrapper to call.
  std::string CPUWrapper;
  /// PTX text or SPIR-V words; for PTX the text without its NUL.
  StringRef Code;
  std::string Entry; // "" for none (CPU artifacts but streaming variants)
};

/// Every artifact of the program, in the order the runtime's default policy
/// prefers them: the CPU's first, PTX before SPIR-V (a CUDA GPU runs PTX
/// better than the same GPU runs SPIR-V through Vulkan), Vulkan before
/// OpenCL for the same reason.
std::vector<PlannedArtifact> planArtifacts(const std::vector<Graph> &Graphs,
                                           const CompiledProgram &Result,
                                           const ProgramOptions &Options) {
  std::vector<PlannedArtifact> Plan;
  for (const Graph &G : Graphs)
    forEachNode(G.root(), [&](const Node &N) {
      if (!N.isLeaf() || !(N.Targets & Options.Targets & TargetCPU))
        return;
      Plan.push_back(
          {N.path(), TargetCPU, getCPUWrapperName(N.Function), "", ""});
      // The backend made a streaming-store variant only where it pays off.
      std::string Variant = getCPUStreamingVariantName(N.Function);
      Function *V = Result.CPUKernels->getFunction(Variant);
      if (V && !V->isDeclaration())
        Plan.push_back(
            {N.path(), TargetCPU, Variant, "", HPVM_CPU_STREAMING_ENTRY});
    });
  for (const NVPTXKernel &K : Result.NVPTXKernels)
    Plan.push_back({K.NodePath, TargetNVPTX, "", K.PTX, K.EntryName});
  auto SPIRV = [&](const std::vector<SPIRVKernel> &Kernels, uint32_t Target) {
    for (const SPIRVKernel &K : Kernels)
      Plan.push_back({K.NodePath, Target, "",
                      StringRef(reinterpret_cast<const char *>(K.Words.data()),
                                K.Words.size() * 4),
                      K.EntryName});
  };
  SPIRV(Result.SPIRVKernels, TargetSPIRV);
  SPIRV(Result.OpenCLKernels, ArtifactTargetOpenCL);
  // Leaves a flavour cannot express: an artifact without code that says
  // why (hpvm_rt.h), which hpvm-rt names when no device can run the leaf.
  for (auto [Skipped, Target] :
       {std::pair(&Result.NVPTXSkipped, uint32_t(TargetNVPTX)),
        std::pair(&Result.VulkanSkipped, uint32_t(TargetSPIRV)),
        std::pair(&Result.OpenCLSkipped, ArtifactTargetOpenCL)})
    for (const SkippedLeaf &S : *Skipped)
      Plan.push_back({S.NodePath, Target, "", "", S.Why});
  return Plan;
}

std::string graphText(const std::vector<Graph> &Graphs) {
  std::vector<const Graph *> GraphPtrs;
  for (const Graph &G : Graphs)
    GraphPtrs.push_back(&G);
  return writeGraphText(GraphPtrs);
}

} // namespace

Expected<CompiledProgram> compileProgram(std::unique_ptr<Module> GraphForm,
                                         const ProgramOptions &Options) {
  Module &M = *GraphForm;
  CompiledProgram Result;
  auto GraphsOr = buildKernels(M, Options, Result);
  if (!GraphsOr)
    return GraphsOr.takeError();
  std::vector<Graph> Graphs = std::move(*GraphsOr);

  LLVMContext &Ctx = M.getContext();
  DescriptorTypes Types(Ctx);
  Type *Ptr = PointerType::get(Ctx, 0);
  Constant *Null = ConstantPointerNull::get(PointerType::get(Ctx, 0));
  auto String = [&](StringRef S, const Twine &Name) -> Constant * {
    auto *Init = ConstantDataArray::getString(Ctx, S);
    return new GlobalVariable(M, Init->getType(), true,
                              GlobalValue::PrivateLinkage, Init, Name);
  };

  std::vector<Constant *> Artifacts;
  for (const PlannedArtifact &A : planArtifacts(Graphs, Result, Options)) {
    Constant *Fn = Null, *Code = Null, *Entry = Null;
    if (!A.CPUWrapper.empty())
      Fn = cast<Constant>(
          M.getOrInsertFunction(A.CPUWrapper, Types.CPUKernel).getCallee());
    if (A.Target == TargetNVPTX) {
      // The text with its terminating NUL (which code_size does not
      // count), as cuModuleLoadData wants it.
      Code = String(A.Code, "hpvm.nvptx.code");
    } else if (!A.Code.empty()) {
      ArrayRef<uint32_t> Words(
          reinterpret_cast<const uint32_t *>(A.Code.data()), A.Code.size() / 4);
      auto *Init = ConstantDataArray::get(Ctx, Words);
      auto *GV = new GlobalVariable(
          M, Init->getType(), true, GlobalValue::PrivateLinkage, Init,
          A.Target == TargetSPIRV ? "hpvm.spirv.code" : "hpvm.opencl.code");
      GV->setAlignment(Align(4));
      Code = GV;
    }
    if (!A.Entry.empty())
      Entry = String(A.Entry, A.Target == TargetCPU ? "hpvm.cpu.streaming.entry"
                              : A.Target == TargetNVPTX ? "hpvm.nvptx.entry"
                                                        : "hpvm.spirv.entry");
    Artifacts.push_back(ConstantStruct::get(
        Types.Artifact,
        {String(A.Node, "hpvm.node.path"),
         ConstantInt::get(Type::getInt32Ty(Ctx), A.Target), Fn, Code,
         ConstantInt::get(Type::getInt64Ty(Ctx), A.Code.size()), Entry}));
  }
  auto *ArtifactArrayTy = ArrayType::get(Types.Artifact, Artifacts.size());
  auto *ArtifactArray = new GlobalVariable(
      M, ArtifactArrayTy, true, GlobalValue::PrivateLinkage,
      ConstantArray::get(ArtifactArrayTy, Artifacts), "hpvm.artifacts");

  auto *Descriptor = new GlobalVariable(
      M, Types.Program, true, GlobalValue::PrivateLinkage,
      ConstantStruct::get(
          Types.Program,
          {ConstantInt::get(Type::getInt32Ty(Ctx), ABIVersion),
           String(graphText(Graphs), "hpvm.graphs.text"),
           ConstantInt::get(Type::getInt32Ty(Ctx), Artifacts.size()),
           ConstantExpr::getBitCast(ArtifactArray, Ptr)}),
      ProgramDescriptorName);

  lowerLaunches(M, Descriptor, Graphs, Options);
  removeGraphForm(M, Graphs);
  Result.Host = std::move(GraphForm);
  return Result;
}

struct LoadedProgram::Parts {
  std::unique_ptr<CPUJIT> JIT;
  std::vector<Graph> Graphs;
  const hpvm_program_desc *Desc = nullptr;
};

Expected<std::unique_ptr<LoadedProgram>>
LoadedProgram::build(std::unique_ptr<Module> GraphForm,
                     const ProgramOptions &Options,
                     ArrayRef<std::pair<StringRef, void *>> HostSymbols,
                     std::vector<std::string> *Objects) {
  auto Compiled = compileProgram(std::move(GraphForm), Options);
  if (!Compiled)
    return Compiled.takeError();
  // The descriptor is private in an executable; here the JIT must find it.
  GlobalVariable *Descriptor =
      Compiled->Host->getNamedGlobal(ProgramDescriptorName);
  Descriptor->setLinkage(GlobalValue::ExternalLinkage);
  Descriptor->setVisibility(GlobalValue::DefaultVisibility);

  auto JIT = CPUJIT::create(Options.CPU);
  if (!JIT)
    return JIT.takeError();
  if (Error E = (*JIT)->defineSymbols(HostSymbols))
    return std::move(E);
  std::string KernelObject, HostObject;
  if (Compiled->CPUKernels)
    if (Error E = (*JIT)->addModule(std::move(Compiled->CPUKernels),
                                    /*Optimise=*/false, &KernelObject))
      return std::move(E);
  if (Error E = (*JIT)->addModule(std::move(Compiled->Host), /*Optimise=*/true,
                                  &HostObject))
    return std::move(E);
  if (Objects) {
    Objects->clear();
    if (!KernelObject.empty())
      Objects->push_back(std::move(KernelObject));
    Objects->push_back(std::move(HostObject));
  }
  return finish(std::move(*JIT));
}

Expected<std::unique_ptr<LoadedProgram>>
LoadedProgram::load(ArrayRef<std::string> Objects,
                    const ProgramOptions &Options,
                    ArrayRef<std::pair<StringRef, void *>> HostSymbols) {
  auto JIT = CPUJIT::create(Options.CPU);
  if (!JIT)
    return JIT.takeError();
  if (Error E = (*JIT)->defineSymbols(HostSymbols))
    return std::move(E);
  for (size_t I = 0; I < Objects.size(); ++I)
    if (Error E =
            (*JIT)->addObject(Objects[I], "cached object " + std::to_string(I)))
      return std::move(E);
  return finish(std::move(*JIT));
}

Expected<std::unique_ptr<LoadedProgram>>
LoadedProgram::finish(std::unique_ptr<CPUJIT> JIT) {
  auto P = std::make_unique<Parts>();
  P->JIT = std::move(JIT);
  auto Desc = P->JIT->lookupSymbol(ProgramDescriptorName);
  if (!Desc)
    return Desc.takeError();
  P->Desc = static_cast<const hpvm_program_desc *>(*Desc);
  try {
    P->Graphs = readGraphText(P->Desc->graphs);
  } catch (const GraphError &E) {
    return createStringError(inconvertibleErrorCode(),
                             "the program's graphs do not read back: %s",
                             E.what());
  }
  return std::unique_ptr<LoadedProgram>(new LoadedProgram(std::move(P)));
}

LoadedProgram::LoadedProgram(std::unique_ptr<Parts> P) : P(std::move(P)) {}
LoadedProgram::~LoadedProgram() = default;

const hpvm_program_desc &LoadedProgram::descriptor() const { return *P->Desc; }
const std::vector<Graph> &LoadedProgram::graphs() const { return P->Graphs; }

Expected<void *> LoadedProgram::lookup(StringRef Name) const {
  return P->JIT->lookupSymbol(Name);
}

} // namespace hpvm
