//===- Program.cpp - From graph form to a runnable program ----------------===//
#include "hpvm/backends/Program.h"

#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/GraphText.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>

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

/// Replaces every @hpvm.launch with a call to hpvm_launch_or_exit, passing
/// the arguments the way hpvm_rt.h says: an array of pointers to each value.
static void lowerLaunches(Module &M, GlobalVariable *Descriptor) {
  Function *Launch = M.getFunction(LaunchFunctionName);
  if (!Launch)
    return;
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::get(Ctx, 0);
  FunctionCallee Runtime = M.getOrInsertFunction(
      "hpvm_launch_or_exit", Type::getVoidTy(Ctx), Ptr, Ptr, Ptr);
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
    for (unsigned I = 0; I < NumArgs; ++I) {
      Value *Arg = Call->getArgOperand(I + 1);
      AllocaInst *Slot =
          Entry.CreateAlloca(Arg->getType(), nullptr, "hpvm.arg" + Twine(I));
      B.CreateStore(Arg, Slot);
      B.CreateStore(Slot, B.CreateConstInBoundsGEP2_32(Argv->getAllocatedType(),
                                                       Argv, 0, I));
    }
    B.CreateCall(Runtime, {Descriptor, Call->getArgOperand(0), Argv});
    Call->eraseFromParent();
  }
  Launch->eraseFromParent();
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
    GV->replaceAllUsesWith(PoisonValue::get(GV->getType()));
    GV->eraseFromParent();
  }
  if (NamedMDNode *MD = M.getNamedMetadata(GraphsMetadataName))
    M.eraseNamedMetadata(MD);
  if (Function *Id = M.getFunction(InstanceIdFunctionName))
    if (Id->use_empty())
      Id->eraseFromParent();
}

Expected<CompiledProgram> compileProgram(std::unique_ptr<Module> GraphForm,
                                         const ProgramOptions &Options) {
  Module &M = *GraphForm;
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
                        " can run on none of the targets being compiled");

  CompiledProgram Result;
  if (Options.Targets & TargetCPU) {
    auto Kernels = buildCPUKernels(M, Options.CPU);
    if (!Kernels)
      return Kernels.takeError();
    Result.CPUKernels = std::move(*Kernels);
  }

  if (Options.Targets & TargetNVPTX) {
    auto Kernels = buildNVPTXKernels(M, Options.NVPTX);
    if (!Kernels)
      return Kernels.takeError();
    Result.NVPTXKernels = std::move(*Kernels);
  }

  if (Options.Targets & TargetSPIRV) {
    auto Kernels = buildSPIRVKernels(M, SPIRVOptions());
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
  for (const Graph &G : Graphs)
    forEachNode(G.root(), [&](const Node &N) {
      if (!N.isLeaf() || !(N.Targets & Options.Targets & TargetCPU))
        return;
      auto AddCPU = [&](const std::string &Wrapper, Constant *Entry) {
        FunctionCallee Kernel = M.getOrInsertFunction(Wrapper, Types.CPUKernel);
        Artifacts.push_back(ConstantStruct::get(
            Types.Artifact,
            {String(N.path(), "hpvm.node.path"),
             ConstantInt::get(Type::getInt32Ty(Ctx), TargetCPU),
             cast<Constant>(Kernel.getCallee()), Null,
             ConstantInt::get(Type::getInt64Ty(Ctx), 0), Entry}));
      };
      AddCPU(getCPUWrapperName(N.Function), Null);
      // The backend made a streaming-store variant only where it pays off.
      std::string Variant = getCPUStreamingVariantName(N.Function);
      Function *V = Result.CPUKernels->getFunction(Variant);
      if (V && !V->isDeclaration())
        AddCPU(Variant,
               String(HPVM_CPU_STREAMING_ENTRY, "hpvm.cpu.streaming.entry"));
    });
  // After the CPU artifacts, PTX before SPIR-V: the runtime's default
  // policy prefers what a program lists first, and a CUDA GPU runs PTX
  // better than the same GPU runs SPIR-V through Vulkan. Vulkan before
  // OpenCL for the same reason.
  for (const NVPTXKernel &K : Result.NVPTXKernels) {
    // The text with its terminating NUL (which code_size does not count),
    // as cuModuleLoadData wants it.
    auto *Text = ConstantDataArray::getString(Ctx, K.PTX);
    auto *Code = new GlobalVariable(M, Text->getType(), true,
                                    GlobalValue::PrivateLinkage, Text,
                                    "hpvm.nvptx.code");
    Artifacts.push_back(ConstantStruct::get(
        Types.Artifact,
        {String(K.NodePath, "hpvm.node.path"),
         ConstantInt::get(Type::getInt32Ty(Ctx), TargetNVPTX), Null, Code,
         ConstantInt::get(Type::getInt64Ty(Ctx), K.PTX.size()),
         String(K.EntryName, "hpvm.nvptx.entry")}));
  }
  auto AddSPIRV = [&](const SPIRVKernel &K, uint32_t Target,
                      const Twine &CodeName) {
    auto *Words = ConstantDataArray::get(Ctx, ArrayRef<uint32_t>(K.Words));
    auto *Code =
        new GlobalVariable(M, Words->getType(), true,
                           GlobalValue::PrivateLinkage, Words, CodeName);
    Code->setAlignment(Align(4));
    Artifacts.push_back(ConstantStruct::get(
        Types.Artifact,
        {String(K.NodePath, "hpvm.node.path"),
         ConstantInt::get(Type::getInt32Ty(Ctx), Target), Null, Code,
         ConstantInt::get(Type::getInt64Ty(Ctx), K.Words.size() * 4),
         String(K.EntryName, "hpvm.spirv.entry")}));
  };
  for (const SPIRVKernel &K : Result.SPIRVKernels)
    AddSPIRV(K, TargetSPIRV, "hpvm.spirv.code");
  for (const SPIRVKernel &K : Result.OpenCLKernels)
    AddSPIRV(K, ArtifactTargetOpenCL, "hpvm.opencl.code");
  auto *ArtifactArrayTy = ArrayType::get(Types.Artifact, Artifacts.size());
  auto *ArtifactArray = new GlobalVariable(
      M, ArtifactArrayTy, true, GlobalValue::PrivateLinkage,
      ConstantArray::get(ArtifactArrayTy, Artifacts), "hpvm.artifacts");

  std::vector<const Graph *> GraphPtrs;
  for (const Graph &G : Graphs)
    GraphPtrs.push_back(&G);
  auto *Descriptor = new GlobalVariable(
      M, Types.Program, true, GlobalValue::PrivateLinkage,
      ConstantStruct::get(
          Types.Program,
          {ConstantInt::get(Type::getInt32Ty(Ctx), ABIVersion),
           String(writeGraphText(GraphPtrs), "hpvm.graphs.text"),
           ConstantInt::get(Type::getInt32Ty(Ctx), Artifacts.size()),
           ConstantExpr::getBitCast(ArtifactArray, Ptr)}),
      "hpvm.program");

  lowerLaunches(M, Descriptor);
  removeGraphForm(M, Graphs);
  Result.Host = std::move(GraphForm);
  return Result;
}

} // namespace hpvm
