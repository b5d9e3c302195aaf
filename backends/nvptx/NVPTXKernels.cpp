//===- NVPTXKernels.cpp - Leaves to PTX modules ---------------------------===//
//
// buildNVPTXKernels: every nvptx leaf becomes a kernel function in one copy
// of the module (LeafKernel.h), with the launch interface of NVPTXABI.h:
//
//   void @hpvm_nvptx_<leaf>(<params: buffers as ptr addrspace(1), i1 as
//                           i8>, <3 x i64 per ancestor level>, i32 %form)
//
//  * flat form (every kernel): id = ctaid * ntid + tid per component, the
//    leaf run if every id is below its extent;
//  * grid-mapped form (nvptxHasGridForm; %form = 1): the block is one
//    instance of the parent (its level-1 ids are the block ids) and the
//    block's threads stride over all of the leaf's instances. The two forms
//    share one body: its loop nest starts at the flat id with the grid's
//    stride, or at the thread id with the block's, chosen by %form.
//
// Then what the kernel reaches is checked (external calls, other targets'
// intrinsics, inline assembly, mutable globals, long double) and its math
// calls mapped (NVPTXMath.cpp); libdevice is linked once for all kernels
// that need it; each kernel is copied with what it uses into a module of
// its own, marked as a kernel the way LLVM 19 reads it (ptx_kernel calling
// convention and !nvvm.annotations), the rest internalised, and compiled
// (NVPTXTarget.cpp).
//
//===----------------------------------------------------------------------===//
#include "NVPTXInternal.h"

#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/rt/hpvm_rt.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace hpvm {
namespace nvptx {

Error unsupported(const Node &N, const Instruction *At, const Twine &What) {
  return gpu::unsupportedIn(N, "nvptx backend", At, What);
}

namespace {

struct KernelJob : gpu::LeafKernelJob {
  /// The kernel also has the grid-mapped launch form.
  bool GridForm = false;
  /// The node's work-group kernel (nvptxWorkGroups): a block per instance
  /// of a work-group leaf, a thread per work-item, bar.sync as barriers.
  bool WorkGroups = false;
  /// The kernel function in the shared copy (its name there may differ
  /// from EntryName when nodes share a leaf function).
  Function *K = nullptr;
  MathUse Math;
};

/// The special registers a kernel reads, each as its x, y and z intrinsics.
using SpecialRegister = std::array<Intrinsic::ID, 3>;
constexpr SpecialRegister Tid = {Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                 Intrinsic::nvvm_read_ptx_sreg_tid_y,
                                 Intrinsic::nvvm_read_ptx_sreg_tid_z};
constexpr SpecialRegister NTid = {Intrinsic::nvvm_read_ptx_sreg_ntid_x,
                                  Intrinsic::nvvm_read_ptx_sreg_ntid_y,
                                  Intrinsic::nvvm_read_ptx_sreg_ntid_z};
constexpr SpecialRegister CTAid = {Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                   Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                   Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
constexpr SpecialRegister NCTAid = {Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                                    Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
                                    Intrinsic::nvvm_read_ptx_sreg_nctaid_z};

/// Component C (0 = x) of register R, as an i64.
Value *read(IRBuilder<> &B, const SpecialRegister &R, unsigned C,
            const Twine &Name) {
  return B.CreateZExt(B.CreateIntrinsic(R[C], {}, {}), B.getInt64Ty(), Name);
}

FunctionType *kernelType(const KernelJob &Job, const Function &Leaf) {
  const Node &N = *Job.N;
  LLVMContext &Ctx = Leaf.getContext();
  SmallVector<Type *, 16> Params;
  for (auto [I, P] : enumerate(N.Params)) {
    Type *T = Leaf.getFunctionType()->getParamType(I);
    if (P.isBuffer())
      T = PointerType::get(Ctx, 1);
    else if (T->isIntegerTy(1))
      T = Type::getInt8Ty(Ctx);
    Params.push_back(T);
  }
  Params.append(3 * Job.AncestorDims.size(), Type::getInt64Ty(Ctx));
  Params.push_back(Type::getInt32Ty(Ctx));
  return FunctionType::get(Type::getVoidTy(Ctx), Params, false);
}

/// The kernel function of Job in M, the copy all kernels are built in.
Expected<Function *> buildKernelFunction(Module &M, const KernelJob &Job) {
  const Node &N = *Job.N;
  LLVMContext &Ctx = M.getContext();
  Function *Leaf = M.getFunction(N.Function);
  unsigned NumParams = N.Params.size(), NumDims = N.Dims.size();
  // OuterIds[l - 1][d]: the id of the ancestor at level l, dim d.
  SmallVector<SmallVector<Value *, 3>, 4> OuterIds;

  // The leaf's arguments: buffers in the generic address space, bools i1.
  auto addLeafArgs = [&](Function &K, IRBuilder<> &B, gpu::InstanceCode &IC) {
    for (auto [I, P] : enumerate(N.Params)) {
      Argument *A = K.getArg(I);
      Value *V = A;
      if (P.isBuffer())
        V = B.CreateAddrSpaceCast(A, PointerType::get(Ctx, 0), P.Name);
      else if (Leaf->getFunctionType()->getParamType(I)->isIntegerTy(1))
        V = B.CreateICmpNE(A, B.getInt8(0), P.Name);
      IC.LeafArgs.push_back(V);
    }
  };
  // A work-group kernel: the instance is the block, every one in bounds;
  // the ancestors' ids are parameters.
  auto BuildWorkGroups = [&](Function &K, IRBuilder<> &B) {
    gpu::InstanceCode IC;
    addLeafArgs(K, B, IC);
    for (auto [L, Dims] : enumerate(Job.AncestorDims)) {
      OuterIds.emplace_back();
      for (unsigned D = 0; D < Dims; ++D)
        OuterIds.back().push_back(K.getArg(NumParams + 3 * L + D));
    }
    for (unsigned D = 0; D < NumDims; ++D)
      IC.Ids.push_back(
          read(B, CTAid, nvptxIdComponent(NumDims, D), "block" + Twine(D)));
    IC.Body = B.GetInsertBlock();
    BasicBlock *Exit = BasicBlock::Create(Ctx, "exit", &K);
    B.CreateBr(Exit);
    B.SetInsertPoint(Exit);
    B.CreateRetVoid();
    return IC;
  };
  auto BuildInstances = [&](Function &K, IRBuilder<> &B) {
    gpu::InstanceCode IC;
    addLeafArgs(K, B, IC);
    Argument *Form = K.getArg(K.arg_size() - 1);
    Form->setName("form");
    Value *Grid =
        Job.GridForm ? B.CreateICmpNE(Form, B.getInt32(0), "grid") : nullptr;

    // Ancestors' ids from the parameters; in the grid-mapped form the
    // parent's are the block's ids.
    for (auto [L, Dims] : enumerate(Job.AncestorDims)) {
      OuterIds.emplace_back();
      for (unsigned D = 0; D < Dims; ++D) {
        Argument *A = K.getArg(NumParams + 3 * L + D);
        A->setName("outer." + Twine(L + 1) + "." + Twine(D));
        Value *Id = A;
        if (L == 0 && Grid)
          Id = B.CreateSelect(
              Grid, read(B, CTAid, nvptxIdComponent(Dims, D), "block.id"), A,
              "parent.id" + Twine(D));
        OuterIds.back().push_back(Id);
      }
    }

    BasicBlock *Exit = BasicBlock::Create(Ctx, "exit", &K);
    SmallVector<Value *, 3> Starts, Steps, Extents;
    Value *InBounds = nullptr;
    for (auto [D, E] : enumerate(N.Dims)) {
      unsigned C = nvptxIdComponent(NumDims, D);
      Value *ThreadId = read(B, Tid, C, "tid" + Twine(D));
      Value *BlockSize = read(B, NTid, C, "ntid" + Twine(D));
      Value *BlockId = read(B, CTAid, C, "ctaid" + Twine(D));
      // Block ids below 2^31 times blocks of at most 1024 threads.
      Value *Flat =
          B.CreateAdd(B.CreateMul(BlockId, BlockSize, "", /*HasNUW=*/true,
                                  /*HasNSW=*/true),
                      ThreadId, Grid ? "flat" + Twine(D) : "id" + Twine(D),
                      /*HasNUW=*/true, /*HasNSW=*/true);
      Value *Start = Flat, *Step = nullptr;
      if (Grid) {
        Value *Blocks = read(B, NCTAid, C, "nctaid" + Twine(D));
        Start = B.CreateSelect(Grid, ThreadId, Flat, "start" + Twine(D));
        Step = B.CreateSelect(Grid, BlockSize,
                              B.CreateMul(Blocks, BlockSize, "", true, true),
                              "step" + Twine(D));
      }
      Value *Extent = gpu::extentAsI64(B, E, IC.LeafArgs);
      Value *In = B.CreateICmpSLT(Start, Extent, "in" + Twine(D));
      InBounds = InBounds ? B.CreateAnd(InBounds, In) : In;
      Starts.push_back(Start);
      Steps.push_back(Step);
      Extents.push_back(Extent);
    }

    if (!InBounds) {
      // No dims: one instance, whoever runs it.
      IC.Body = B.GetInsertBlock();
      B.CreateBr(Exit);
    } else if (!Grid) {
      IC.Ids = Starts;
      IC.Body = BasicBlock::Create(Ctx, "instance", &K, Exit);
      B.CreateCondBr(InBounds, IC.Body, Exit);
      B.SetInsertPoint(IC.Body);
      B.CreateBr(Exit);
    } else {
      // A rotated loop per dim, outermost first (the last dim, x, is the
      // innermost: neighbouring threads take neighbouring instances).
      SmallVector<BasicBlock *, 3> Headers, Latches;
      SmallVector<PHINode *, 3> Phis;
      BasicBlock *Pred = B.GetInsertBlock();
      for (unsigned D = 0; D < NumDims; ++D) {
        Headers.push_back(
            BasicBlock::Create(Ctx, "instance" + Twine(D), &K, Exit));
        Latches.push_back(
            BasicBlock::Create(Ctx, "instance" + Twine(D) + ".next", &K, Exit));
      }
      B.CreateCondBr(InBounds, Headers[0], Exit);
      for (unsigned D = 0; D < NumDims; ++D) {
        B.SetInsertPoint(Headers[D]);
        PHINode *Phi = B.CreatePHI(B.getInt64Ty(), 2, "id" + Twine(D));
        Phi->addIncoming(Starts[D], Pred);
        Phis.push_back(Phi);
        IC.Ids.push_back(Phi);
        Pred = Headers[D];
        if (D + 1 < NumDims)
          B.CreateBr(Headers[D + 1]);
      }
      IC.Body = Headers.back();
      B.CreateBr(Latches.back());
      for (unsigned D = NumDims; D-- > 0;) {
        B.SetInsertPoint(Latches[D]);
        Value *Next = B.CreateAdd(Phis[D], Steps[D], "id" + Twine(D) + ".next");
        Phis[D]->addIncoming(Next, Latches[D]);
        B.CreateCondBr(B.CreateICmpSLT(Next, Extents[D]), Headers[D],
                       D ? Latches[D - 1] : Exit);
      }
    }
    B.SetInsertPoint(Exit);
    B.CreateRetVoid();
    return IC;
  };
  auto OuterId = [&](IRBuilder<> &, unsigned Level, unsigned Dim) {
    return OuterIds[Level - 1][Dim];
  };
  auto Unsupported = [&](const Instruction *At, const Twine &What) {
    return unsupported(N, At, What);
  };
  if (!Job.WorkGroups)
    return gpu::buildLeafKernel(M, Job, kernelType(Job, *Leaf),
                                {BuildInstances, OuterId, Unsupported});
  auto K = gpu::buildLeafKernel(M, Job, kernelType(Job, *Leaf),
                                {BuildWorkGroups, OuterId, Unsupported, true});
  if (!K)
    return K;
  // The work-item's ids are the thread's; a barrier is bar.sync 0.
  if (Function *ItemId = M.getFunction(WorkItemIdFunctionName))
    for (User *U : make_early_inc_range(ItemId->users())) {
      auto *C = dyn_cast<CallInst>(U);
      if (!C || C->getFunction() != *K)
        continue;
      auto *Dim = dyn_cast<ConstantInt>(C->getArgOperand(0));
      if (!Dim || Dim->getZExtValue() >= N.Group.size())
        return unsupported(N, C, "a malformed work-item id");
      IRBuilder<> B(C);
      C->replaceAllUsesWith(
          read(B, Tid, nvptxIdComponent(N.Group.size(), Dim->getZExtValue()),
               "work.item"));
      C->eraseFromParent();
    }
  if (Function *Barrier = M.getFunction(BarrierFunctionName))
    for (User *U : make_early_inc_range(Barrier->users()))
      if (auto *C = dyn_cast<CallInst>(U); C && C->getFunction() == *K) {
        IRBuilder<> B(C);
        B.CreateIntrinsic(Intrinsic::nvvm_barrier0, {}, {});
        C->eraseFromParent();
      }
  return K;
}

//===--------------------------------------------------------------------===//
// What a kernel reaches
//===--------------------------------------------------------------------===//

/// Adds the globals that C refers to (through constant expressions and
/// aggregates) to Out.
void globalsIn(Constant *C, SmallVectorImpl<GlobalValue *> &Out,
               SmallPtrSetImpl<Constant *> &Seen) {
  if (!Seen.insert(C).second)
    return;
  if (auto *GV = dyn_cast<GlobalValue>(C)) {
    Out.push_back(GV);
    return;
  }
  for (Use &Op : C->operands())
    if (auto *OpC = dyn_cast<Constant>(Op))
      globalsIn(OpC, Out, Seen);
}

/// Every global value K uses, transitively (functions it calls, globals and
/// their initialisers), K included.
SetVector<GlobalValue *> reachedFrom(Function &K) {
  SetVector<GlobalValue *> Reached;
  SmallVector<GlobalValue *, 16> Work{&K};
  SmallPtrSet<Constant *, 32> Seen;
  while (!Work.empty()) {
    GlobalValue *GV = Work.pop_back_val();
    if (!Reached.insert(GV))
      continue;
    SmallVector<GlobalValue *, 8> Found;
    if (auto *F = dyn_cast<Function>(GV)) {
      for (Instruction &I : instructions(*F))
        for (Use &Op : I.operands())
          if (auto *C = dyn_cast<Constant>(Op))
            globalsIn(C, Found, Seen);
    } else if (auto *Var = dyn_cast<GlobalVariable>(GV)) {
      if (Var->hasInitializer())
        globalsIn(Var->getInitializer(), Found, Seen);
    } else if (auto *A = dyn_cast<GlobalAlias>(GV)) {
      globalsIn(A->getAliasee(), Found, Seen);
    }
    append_range(Work, Found);
  }
  return Reached;
}

/// The first type among I's and its operands' that PTX has no registers
/// for, or null.
Type *unsupportedType(const Instruction &I) {
  auto Bad = [](Type *T) {
    T = T->getScalarType();
    return T->isX86_FP80Ty() || T->isFP128Ty() || T->isPPC_FP128Ty() ||
           T->isX86_AMXTy() || T->isTargetExtTy();
  };
  if (Bad(I.getType()))
    return I.getType();
  for (const Use &Op : I.operands())
    if (Bad(Op->getType()))
      return Op->getType();
  if (auto *AI = dyn_cast<AllocaInst>(&I); AI && Bad(AI->getAllocatedType()))
    return AI->getAllocatedType();
  return nullptr;
}

std::string typeName(Type *T) {
  std::string S;
  raw_string_ostream OS(S);
  T->print(OS);
  if (T->getScalarType()->isX86_FP80Ty())
    OS << " (long double)";
  return OS.str();
}

/// Checks one function the kernel reaches, after its math calls were
/// mapped.
Error checkFunction(Function &F, const Node &N) {
  for (Instruction &I : instructions(F)) {
    if (Type *T = unsupportedType(I))
      return unsupported(N, &I, "the type " + typeName(T));
    auto *Call = dyn_cast<CallBase>(&I);
    if (!Call)
      continue;
    if (!isa<CallInst>(Call))
      return unsupported(N, Call,
                         "an invoke or callbr (there are no exceptions on "
                         "the device)");
    if (Call->isInlineAsm())
      return unsupported(N, Call, "inline assembly (written for the host)");
    Function *Callee = Call->getCalledFunction();
    if (!Callee)
      return unsupported(N, Call, "an indirect call");
    if (!Callee->isDeclaration())
      continue;
    StringRef Name = Callee->getName();
    if (Callee->isIntrinsic()) {
      if (Callee->isTargetIntrinsic() && !Name.starts_with("llvm.nvvm."))
        return unsupported(N, Call,
                           "the intrinsic '@" + Name + "' of another target");
      continue;
    }
    if (Name.starts_with("__nv_"))
      continue;
    if (Name == InstanceIdFunctionName)
      return unsupported(N, Call,
                         "an instance id read outside the leaf function "
                         "(e.g. in a recursive helper, which cannot be "
                         "inlined); pass the id as an argument instead");
    if (Name == LaunchFunctionName)
      return unsupported(N, Call, "a graph launch inside a leaf");
    return unsupported(N, Call,
                       "a call to the external function '@" + Name +
                           "' (only math functions are known on the "
                           "device)");
  }
  return Error::success();
}

/// The first instruction of a function in Reached that uses GV (directly
/// or in a constant expression), for diagnostics.
Instruction *firstUse(GlobalValue *GV,
                      const SetVector<GlobalValue *> &Reached) {
  for (GlobalValue *R : Reached)
    if (auto *F = dyn_cast<Function>(R))
      for (Instruction &I : instructions(*F))
        for (Use &Op : I.operands())
          if (auto *C = dyn_cast<Constant>(Op)) {
            SmallVector<GlobalValue *, 2> In;
            SmallPtrSet<Constant *, 8> Seen;
            globalsIn(C, In, Seen);
            if (is_contained(In, GV))
              return &I;
          }
  return nullptr;
}

/// Maps the math calls of every function Job's kernel reaches (once per
/// function: Mapped) and checks them, and the globals they use.
Error prepareReached(KernelJob &Job, SmallPtrSetImpl<Function *> &Mapped) {
  const Node &N = *Job.N;
  // Math first: mapping adds declarations the walk must then see.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (GlobalValue *GV : reachedFrom(*Job.K))
      if (auto *F = dyn_cast<Function>(GV);
          F && !F->isDeclaration() && Mapped.insert(F).second) {
        auto Use = mapMathCalls(*F, N);
        if (!Use)
          return Use.takeError();
        append_range(Job.Math.Calls, Use->Calls);
        Changed = true;
      }
  }
  SetVector<GlobalValue *> Reached = reachedFrom(*Job.K);
  for (GlobalValue *GV : Reached) {
    if (auto *F = dyn_cast<Function>(GV)) {
      if (!F->isDeclaration())
        if (Error E = checkFunction(*F, N))
          return E;
      continue;
    }
    auto *Var = dyn_cast<GlobalVariable>(GV);
    if (!Var)
      continue;
    // The device gets its own copy of what the kernel reads: right for
    // constants, wrong for anything the host program may write.
    if (Var->isThreadLocal() || !Var->isConstant())
      return unsupported(N, firstUse(Var, Reached),
                         "the mutable global @" + Var->getName() +
                             " (kernels cannot share variables with the "
                             "host; pass a buffer instead)");
    if (!Var->hasInitializer() || Var->isInterposable())
      return unsupported(N, firstUse(Var, Reached),
                         "the global @" + Var->getName() +
                             ", whose value is not known when the kernel "
                             "is compiled");
  }
  return Error::success();
}

//===--------------------------------------------------------------------===//
// One module per kernel
//===--------------------------------------------------------------------===//

/// Attributes of the host's code generation that mean nothing (or
/// something wrong: "+sse2" is not an NVPTX feature) on the device.
void dropHostAttributes(Function &F) {
  for (StringRef A :
       {"target-cpu", "target-features", "tune-cpu", "frame-pointer",
        "stack-protector-buffer-size", "probe-stack", "stack-probe-size"})
    F.removeFnAttr(A);
  for (Attribute::AttrKind A :
       {Attribute::UWTable, Attribute::StackProtect,
        Attribute::StackProtectStrong, Attribute::StackProtectReq})
    F.removeFnAttr(A);
}

void addAnnotation(Module &M, Function &K, StringRef Key, unsigned Value) {
  LLVMContext &Ctx = M.getContext();
  M.getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(
          MDNode::get(Ctx, {ValueAsMetadata::get(&K), MDString::get(Ctx, Key),
                            ConstantAsMetadata::get(ConstantInt::get(
                                Type::getInt32Ty(Ctx), Value))}));
}

/// Kernel Job.K and what it uses, copied from Shared into a module of its
/// own, ready for the code generator.
Expected<std::unique_ptr<Module>> kernelModule(const Module &Shared,
                                               const KernelJob &Job) {
  SetVector<GlobalValue *> Reached = reachedFrom(*Job.K);
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> M =
      CloneModule(Shared, VMap, [&](const GlobalValue *GV) {
        return Reached.count(const_cast<GlobalValue *>(GV));
      });
  M->setModuleIdentifier(Job.EntryName);
  Function *K = cast<Function>(VMap[Job.K]);

  if (NamedMDNode *Graphs = M->getNamedMetadata(GraphsMetadataName))
    M->eraseNamedMetadata(Graphs);
  for (GlobalVariable &GV : make_early_inc_range(M->globals()))
    if (GV.getName().starts_with("llvm."))
      GV.eraseFromParent();
  for (GlobalAlias &GA : make_early_inc_range(M->aliases()))
    if (GA.use_empty())
      GA.eraseFromParent();
  for (Function &F : make_early_inc_range(*M))
    if (F.isDeclaration() && F.use_empty())
      F.eraseFromParent();
  for (GlobalVariable &GV : make_early_inc_range(M->globals()))
    if (GV.isDeclaration() && GV.use_empty())
      GV.eraseFromParent();

  // Only the kernel is visible; whatever else it reached becomes internal,
  // so that O3 inlines it and drops what is left unused.
  for (GlobalObject &GO : M->global_objects()) {
    if (GO.isDeclaration() || &GO == K)
      continue;
    GO.setLinkage(GlobalValue::InternalLinkage);
    GO.setVisibility(GlobalValue::DefaultVisibility);
    GO.setComdat(nullptr);
  }
  for (Function &F : *M)
    dropHostAttributes(F);

  // The entry's own name: a helper that had it (unlikely) moves aside.
  if (GlobalValue *Other = M->getNamedValue(Job.EntryName); Other && Other != K)
    Other->setName(Job.EntryName + ".helper");
  K->setName(Job.EntryName);
  K->setCallingConv(CallingConv::PTX_Kernel);
  K->setDoesNotThrow();
  // LLVM 19 takes a kernel from either its calling convention or this
  // annotation; the annotation is what it has always read.
  addAnnotation(*M, *K, "kernel", 1);
  std::array<uint32_t, 3> Block = nvptxBlockSize(Job.N->Dims.size());
  addAnnotation(*M, *K, "maxntidx", Block[0]);
  addAnnotation(*M, *K, "maxntidy", Block[1]);
  addAnnotation(*M, *K, "maxntidz", Block[2]);
  // libdevice asks __nvvm_reflect("__CUDA_FTZ"): denormals are kept, as
  // the host computes them (and as the code generator does without
  // denormal-fp-math attributes).
  M->addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  // Line information is not written to PTX (yet); diagnostics have used it
  // already.
  StripDebugInfo(*M);

  std::string Broken;
  raw_string_ostream OS(Broken);
  if (verifyModule(*M, &OS))
    return gpu::nodeError(*Job.N, "internal error: the kernel module is not "
                                  "valid LLVM IR:\n" +
                                      OS.str());
  return M;
}

} // namespace
} // namespace nvptx

Expected<std::vector<NVPTXKernel>> buildNVPTXKernels(const Module &GraphForm,
                                                     const NVPTXOptions &Opts) {
  using namespace nvptx;
  auto TM = createTargetMachine(Opts);
  if (!TM)
    return TM.takeError();
  auto Leaves = gpu::collectLeafKernelJobs(
      GraphForm, TargetNVPTX, "nvptx",
      [](const Node &N) { return getNVPTXEntryName(N.Function); });
  if (!Leaves)
    return Leaves.takeError();

  std::vector<NVPTXKernel> Kernels;
  if (Leaves->Jobs.empty())
    return Kernels;
  // One copy for all kernel functions (each is new; leaf functions are
  // only inlined), in the device's data layout so that the optimisations
  // on the way see the device's types.
  std::unique_ptr<Module> M = gpu::cloneForKernels(GraphForm, ".nvptx");
  M->setTargetTriple(TargetTriple);
  M->setDataLayout((*TM)->createDataLayout());

  std::vector<KernelJob> Jobs;
  SmallPtrSet<Function *, 16> Mapped;
  // What PTX cannot express: fatal, or the leaf left out (both of its
  // kernels).
  auto LeaveOut = [&](const Node &N, Error E) -> Error {
    if (!Opts.Skipped)
      return E;
    Opts.Skipped->push_back(gpu::skippedLeaf(N, std::move(E)));
    return Error::success();
  };
  for (const gpu::LeafKernelJob &Leaf : Leaves->Jobs) {
    size_t FirstJob = Jobs.size();
    // A work-group leaf also gets its work-group kernel (the block size is
    // the group's, given at launch).
    for (bool Native : {false, true}) {
      if (Native && !nvptxWorkGroups(*Leaf.N))
        break;
      KernelJob Job;
      static_cast<gpu::LeafKernelJob &>(Job) = Leaf;
      Job.GridForm = !Native && nvptxHasGridForm(*Job.N);
      Job.WorkGroups = Native;
      // Nodes sharing a leaf function get one kernel each, under a name
      // unique in the copy (each module gets the entry name).
      std::string Entry =
          Job.EntryName + (Native ? HPVM_WORK_GROUP_ENTRY_SUFFIX : "");
      Job.EntryName = Entry;
      if (M->getNamedValue(Entry))
        Job.EntryName += ".for." + std::to_string(Jobs.size());
      auto K = buildKernelFunction(*M, Job);
      Error E = K ? Error::success() : K.takeError();
      if (K) {
        Job.K = *K;
        Job.EntryName = Entry;
        E = prepareReached(Job, Mapped);
      }
      if (E) {
        if (Error Fatal = LeaveOut(*Leaf.N, std::move(E)))
          return Fatal;
        if (K)
          (*K)->eraseFromParent();
        for (size_t J = FirstJob; J != Jobs.size(); ++J)
          Jobs[J].K->eraseFromParent();
        Jobs.resize(FirstJob);
        break;
      }
      Jobs.push_back(std::move(Job));
    }
  }

  // libdevice, once, if any kernel calls into it; errors name the first
  // call that needs what is missing.
  std::unique_ptr<Module> Lib;
  std::vector<KernelJob> Usable;
  for (KernelJob &Job : Jobs) {
    Error Problem = Error::success();
    for (const LibdeviceCall &Use : Job.Math.Calls) {
      if (!Lib) {
        auto Path = findLibdevice(Opts);
        if (!Path) {
          Problem = unsupported(*Job.N, Use.Call,
                                "a call to '" + Use.Was +
                                    "', which needs NVIDIA's libdevice: " +
                                    toString(Path.takeError()));
          break;
        }
        auto Loaded = loadLibdevice(*Path, *M);
        if (!Loaded)
          return gpu::nodeError(*Job.N, toString(Loaded.takeError()));
        Lib = std::move(*Loaded);
      }
      std::string Missing =
          libdeviceProblem(*Lib, *Use.Call->getCalledFunction());
      if (!Missing.empty()) {
        Problem = unsupported(*Job.N, Use.Call,
                              "a call to '" + Use.Was + "': " + Missing);
        break;
      }
    }
    if (!Problem) {
      Usable.push_back(std::move(Job));
      continue;
    }
    if (Error Fatal = LeaveOut(*Job.N, std::move(Problem)))
      return Fatal;
  }
  // A leaf left out goes with both of its kernels.
  llvm::erase_if(Usable, [&](const KernelJob &Job) {
    return Opts.Skipped &&
           llvm::any_of(*Opts.Skipped, [&](const SkippedLeaf &S) {
             return S.NodePath == Job.N->path();
           });
  });
  Jobs = std::move(Usable);
  bool UsedLibdevice = Lib != nullptr;
  if (Lib)
    if (Error E = linkLibdevice(*M, std::move(Lib)))
      return E;

  for (const KernelJob &Job : Jobs) {
    auto KM = kernelModule(*M, Job);
    if (!KM)
      return KM.takeError();
    bool UsesLibdevice = false;
    for (const Function &F : **KM)
      UsesLibdevice |= F.getName().starts_with("__nv_");
    auto PTX = optimiseAndEmitPTX(**KM, **TM);
    if (!PTX)
      return gpu::nodeError(*Job.N, "internal error: LLVM's NVPTX target "
                                    "failed on the kernel of leaf function "
                                    "'@" +
                                        Job.N->Function +
                                        "': " + toString(PTX.takeError()));
    NVPTXKernel Out;
    Out.NodePath = Job.N->path();
    Out.EntryName = Job.EntryName;
    Out.PTX = std::move(*PTX);
    Out.BlockSize = nvptxBlockSize(Job.N->Dims.size());
    Out.HasGridForm = Job.GridForm;
    Out.WorkGroups = Job.WorkGroups;
    Out.UsesLibdevice = UsedLibdevice && UsesLibdevice;
    Kernels.push_back(std::move(Out));
  }
  return Kernels;
}

} // namespace hpvm
