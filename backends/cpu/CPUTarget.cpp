//===- CPUTarget.cpp - Target machine, pipeline and code emission ---------===//
//
// Everything that depends on which processor the kernels are for. The
// options are checked here, so that an unknown CPU or feature is an error
// instead of the target's "ignoring processor" message on stderr and code
// for a generic machine.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace llvm;

namespace hpvm {
namespace cpu {

Error makeError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message);
}

// All targets, not only the native one: tests pin an x86-64 triple and CPU
// so that their output does not depend on the machine running them.
static void initialiseTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    InitializeAllAsmParsers(); // inline assembly in leaves
  });
}

static CodeGenOptLevel codeGenLevel(unsigned OptLevel) {
  switch (OptLevel) {
  case 0:
    return CodeGenOptLevel::None;
  case 1:
    return CodeGenOptLevel::Less;
  case 2:
    return CodeGenOptLevel::Default;
  default:
    return CodeGenOptLevel::Aggressive;
  }
}

Error adoptTarget(Module &M, const TargetMachine &TM) {
  const Triple &TT = TM.getTargetTriple();
  if (!M.getTargetTriple().empty()) {
    Triple MT(M.getTargetTriple());
    if (MT.getArch() != TT.getArch())
      return makeError("module '" + M.getModuleIdentifier() + "' is for " +
                       MT.getArchName() + ", the CPU backend compiles for " +
                       TT.getArchName());
  }
  M.setTargetTriple(TT.str());
  M.setDataLayout(TM.createDataLayout());
  return Error::success();
}

namespace {

/// Whether TM's processor runs 512-bit vectors at full speed. LLVM's tuning
/// prefers 256-bit vectors on every Intel processor with AVX-512, for the
/// sake of Skylake-SP and its successors up to Cooper Lake, which lower their
/// clock for 512-bit work; from Ice Lake on the drop is small, and on this
/// project's machines (Sapphire Rapids) 512-bit vectors run saxpy 5% and the
/// jammed i-j-k sgemm 1.9 times as fast as 256-bit ones (docs/backends.md).
bool fullSpeedAVX512(const TargetMachine &TM) {
  if (!TM.getMCSubtargetInfo()->checkFeatures("+avx512f"))
    return false;
  StringRef CPU = TM.getTargetCPU();
  return CPU.starts_with("icelake") || CPU == "tigerlake" ||
         CPU == "rocketlake" || CPU == "sapphirerapids" ||
         CPU == "emeraldrapids" || CPU.starts_with("graniterapids") ||
         CPU.starts_with("diamondrapids") || CPU.starts_with("znver");
}

/// Whether CPU is an Intel processor whose vector gathers the microcode
/// fix for Gather Data Sampling (2023) made several times slower, while
/// LLVM's tuning still counts them fast: Skylake to Tiger and Rocket Lake.
/// A leaf whose jammed instances load one element each of a row apart
/// (syrk's A[j][k] for four j) ran 3.5 times as fast on a Cascade Lake
/// with scalar loads as with vgatherqps (docs/backends.md).
bool slowGathers(StringRef CPU) {
  return CPU == "skylake" || CPU == "skylake-avx512" || CPU == "cascadelake" ||
         CPU == "cooperlake" || CPU == "cannonlake" ||
         CPU.starts_with("icelake") || CPU == "tigerlake" ||
         CPU == "rocketlake";
}

} // namespace

void setTargetAttributes(Module &M, const TargetMachine &TM,
                         const CPUOptions &Opts) {
  unsigned Width = Opts.PreferVectorWidth;
  if (!Width && fullSpeedAVX512(TM))
    Width = 512;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr("target-cpu", TM.getTargetCPU());
    if (TM.getTargetFeatureString().empty())
      F.removeFnAttr("target-features");
    else
      F.addFnAttr("target-features", TM.getTargetFeatureString());
    F.removeFnAttr("tune-cpu");
    if (Width)
      F.addFnAttr("prefer-vector-width", utostr(Width));
  }
}

} // namespace cpu

Expected<std::unique_ptr<TargetMachine>>
createCPUTargetMachine(const CPUOptions &Opts) {
  using cpu::makeError;
  cpu::initialiseTargets();
  if (Opts.OptLevel > 3)
    return makeError("optimisation level " + Twine(Opts.OptLevel) +
                     " is not one of 0-3");

  Triple HostTT(sys::getProcessTriple());
  Triple TT =
      Opts.Triple.empty() ? HostTT : Triple(Triple::normalize(Opts.Triple));
  std::string Err;
  const Target *TheTarget = TargetRegistry::lookupTarget(TT.str(), Err);
  if (!TheTarget)
    return makeError("unknown target triple '" + TT.str() + "': " + Err);

  // The host's processor and detected features only make sense for the
  // host's architecture; for another one, "native" means its generic CPU.
  bool Native = Opts.CPU.empty() || Opts.CPU == "native";
  bool HostArch = TT.getArch() == HostTT.getArch();
  std::string CPU =
      Native ? (HostArch ? sys::getHostCPUName().str() : "generic") : Opts.CPU;
  SubtargetFeatures Features;
  if (Native && HostArch)
    for (const auto &F : sys::getHostCPUFeatures())
      Features.AddFeature(F.getKey(), F.getValue());

  std::unique_ptr<MCSubtargetInfo> STI(
      TheTarget->createMCSubtargetInfo(TT.str(), "", ""));
  if (!STI)
    return makeError("target '" + TT.str() + "' has no subtarget information");
  if (!Native && !STI->isCPUStringValid(CPU))
    return makeError("unknown CPU '" + CPU + "' for target '" + TT.str() + "'");
  // Before the user's features, which may take these back.
  if (TT.isX86() && cpu::slowGathers(CPU)) {
    Features.AddFeature("prefer-no-gather");
    Features.AddFeature("prefer-no-scatter");
  }
  SmallVector<StringRef, 8> UserFeatures;
  StringRef(Opts.Features).split(UserFeatures, ',', -1, false);
  for (StringRef F : UserFeatures) {
    F = F.trim();
    if (F.empty())
      continue;
    if (F[0] != '+' && F[0] != '-')
      return makeError("CPU feature '" + F +
                       "' must start with '+' (enable) or '-' (disable)");
    StringRef Name = F.drop_front();
    bool Known =
        any_of(STI->getAllProcessorFeatures(),
               [&](const SubtargetFeatureKV &KV) { return Name == KV.Key; });
    if (!Known)
      return makeError("unknown CPU feature '" + Name + "' for target '" +
                       TT.str() + "'");
    Features.AddFeature(F);
  }

  TargetOptions TO;
  std::unique_ptr<TargetMachine> TM(TheTarget->createTargetMachine(
      TT.str(), CPU, Features.getString(), TO, Reloc::PIC_, std::nullopt,
      cpu::codeGenLevel(Opts.OptLevel)));
  if (!TM)
    return makeError("cannot create a target machine for '" + TT.str() + "'");
  return TM;
}

namespace cpu {

void optimiseModule(Module &M, TargetMachine &TM, const CPUOptions &Opts) {
  PipelineTuningOptions PTO;
  // opt and clang switch these on from O2; PassBuilder's defaults do not.
  PTO.LoopVectorization = Opts.OptLevel >= 2;
  PTO.SLPVectorization = Opts.OptLevel >= 2;
  PTO.LoopInterleaving = Opts.OptLevel >= 2;
  PTO.LoopUnrolling = Opts.OptLevel >= 2;

  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  // Standard instrumentation makes LLVM's debugging options
  // (-print-before=..., -print-after-all, -debug-pass-manager) work on this
  // pipeline too.
  PassInstrumentationCallbacks PIC;
  StandardInstrumentations SI(M.getContext(), /*DebugLogging=*/false);
  SI.registerCallbacks(PIC, &MAM);
  PIC.addClassToPassName(InstanceIncrementPass::name(),
                         "hpvm-instance-increment");
  PIC.addClassToPassName(InstanceJamPass::name(), "hpvm-instance-jam");
  PIC.addClassToPassName(InstanceSplitPass::name(), "hpvm-instance-split");
  PIC.addClassToPassName(AlignStoresPass::name(), "hpvm-align-stores");
  PIC.addClassToPassName(StreamingStoresPass::name(), "hpvm-streaming-stores");
  PassBuilder PB(&TM, PTO, std::nullopt, &PIC);
  if (PTO.SLPVectorization) {
    // The two act on different instance loops (with and without loops
    // inside), so their order does not matter.
    // Before the last SimplifyCFG and InstCombine of the simplification
    // pipeline, which fold the border tests the split made constant. GVN
    // has run: the loop's increment may need restoring first.
    PB.registerScalarOptimizerLateEPCallback(
        [](FunctionPassManager &FPM, OptimizationLevel) {
          FPM.addPass(InstanceIncrementPass());
          FPM.addPass(InstanceSplitPass());
        });
    PB.registerVectorizerStartEPCallback(
        [](FunctionPassManager &FPM, OptimizationLevel) {
          FPM.addPass(InstanceIncrementPass());
          FPM.addPass(InstanceJamPass());
          FPM.addPass(AlignStoresPass());
        });
    PB.registerOptimizerLastEPCallback(
        [](ModulePassManager &MPM, OptimizationLevel) {
          MPM.addPass(StreamingStoresPass());
        });
  }
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

  OptimizationLevel Level = OptimizationLevel::O3;
  switch (Opts.OptLevel) {
  case 0:
    Level = OptimizationLevel::O0;
    break;
  case 1:
    Level = OptimizationLevel::O1;
    break;
  case 2:
    Level = OptimizationLevel::O2;
    break;
  default:
    break;
  }
  ModulePassManager MPM = Level == OptimizationLevel::O0
                              ? PB.buildO0DefaultPipeline(Level)
                              : PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(M, MAM);
}

Error emitCode(Module &M, TargetMachine &TM, raw_pwrite_stream &OS,
               CodeGenFileType Kind) {
  if (Error E = adoptTarget(M, TM))
    return E;
  legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, OS, nullptr, Kind))
    return makeError("target '" + TM.getTargetTriple().str() +
                     "' cannot emit this kind of file");
  PM.run(M);
  return Error::success();
}

} // namespace cpu

Error emitObjectFile(Module &M, const CPUOptions &Opts, raw_pwrite_stream &OS) {
  auto TM = createCPUTargetMachine(Opts);
  if (!TM)
    return TM.takeError();
  return cpu::emitCode(M, **TM, OS, CodeGenFileType::ObjectFile);
}

Error emitAssemblyFile(Module &M, const CPUOptions &Opts,
                       raw_pwrite_stream &OS) {
  auto TM = createCPUTargetMachine(Opts);
  if (!TM)
    return TM.takeError();
  return cpu::emitCode(M, **TM, OS, CodeGenFileType::AssemblyFile);
}

} // namespace hpvm
