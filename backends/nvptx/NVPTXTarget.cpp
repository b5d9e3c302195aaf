//===- NVPTXTarget.cpp - LLVM's NVPTX target: options, O3, PTX ------------===//
//
// Only the NVPTX target is initialised (target info, target, MC, assembly
// printer): the backend needs nothing else and libLLVM-19.so has it. What
// SMs and PTX versions exist is asked of the target itself, so that the
// options accept exactly what this LLVM can write.
//
//===----------------------------------------------------------------------===//
#include "NVPTXInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Scalar/InferAddressSpaces.h"

#include <mutex>

using namespace llvm;

namespace hpvm {
namespace {

const llvm::Target *nvptxTarget(std::string &Error) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  return TargetRegistry::lookupTarget(nvptx::TargetTriple, Error);
}

/// What the target knows: SMs (sm_90a and the like, which a number cannot
/// name, left out) and PTX versions, ascending.
struct Known {
  std::vector<unsigned> SMs, PTXVersions;
};

Expected<Known> knownVersions() {
  std::string Err;
  const llvm::Target *T = nvptxTarget(Err);
  if (!T)
    return gpu::makeError("LLVM's NVPTX target is not available: " + Err);
  std::unique_ptr<MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(nvptx::TargetTriple, "", ""));
  Known K;
  for (const SubtargetSubTypeKV &CPU : STI->getAllProcessorDescriptions()) {
    StringRef Name(CPU.Key);
    unsigned SM;
    if (Name.consume_front("sm_") && !Name.getAsInteger(10, SM))
      K.SMs.push_back(SM);
  }
  for (const SubtargetFeatureKV &F : STI->getAllProcessorFeatures()) {
    StringRef Name(F.Key);
    unsigned V;
    if (Name.consume_front("ptx") && !Name.getAsInteger(10, V))
      K.PTXVersions.push_back(V);
  }
  llvm::sort(K.SMs);
  llvm::sort(K.PTXVersions);
  return K;
}

std::string versionText(unsigned V) {
  return std::to_string(V / 10) + "." + std::to_string(V % 10);
}

/// The PTX version an SM needs: the one its processor definition in LLVM
/// implies.
unsigned minimumPTX(const Known &K, unsigned SM) {
  std::string Err;
  const llvm::Target *T = nvptxTarget(Err);
  std::unique_ptr<MCSubtargetInfo> STI(T->createMCSubtargetInfo(
      nvptx::TargetTriple, "sm_" + std::to_string(SM), ""));
  for (unsigned V : K.PTXVersions)
    if (STI->checkFeatures("+ptx" + std::to_string(V)))
      return V;
  return K.PTXVersions.empty() ? 0 : K.PTXVersions.front();
}

} // namespace

Expected<unsigned> parseNVPTXSM(StringRef Text) {
  StringRef Digits = Text;
  Digits.consume_front("sm_");
  unsigned SM;
  if (Digits.empty() || Digits.getAsInteger(10, SM))
    return gpu::makeError("'" + Text +
                          "' is not an SM; write it as sm_80 or 80");
  return SM;
}

Expected<unsigned> parsePTXVersion(StringRef Text) {
  auto [Major, Minor] = Text.split('.');
  unsigned Ma, Mi = 0;
  bool Bad = Major.empty() || Major.getAsInteger(10, Ma);
  if (!Bad && Text.contains('.'))
    Bad = Minor.size() != 1 || Minor.getAsInteger(10, Mi);
  else if (!Bad)
    // "80" is 8.0, as in LLVM's ptx80 feature and CUDA's tables.
    Bad = Ma < 10;
  if (Bad)
    return gpu::makeError("'" + Text +
                          "' is not a PTX ISA version; write it as 7.8 or "
                          "78");
  return Text.contains('.') ? Ma * 10 + Mi : Ma;
}

Error checkNVPTXOptions(const NVPTXOptions &Opts) {
  auto K = knownVersions();
  if (!K)
    return K.takeError();
  if (!is_contained(K->SMs, Opts.SM)) {
    std::string List;
    for (unsigned SM : K->SMs)
      List += (List.empty() ? "sm_" : ", sm_") + std::to_string(SM);
    return gpu::makeError("sm_" + Twine(Opts.SM) +
                          " is not an architecture LLVM's NVPTX target "
                          "knows (it knows " +
                          List + ")");
  }
  if (!is_contained(K->PTXVersions, Opts.PTXVersion))
    return gpu::makeError(
        "PTX ISA " + versionText(Opts.PTXVersion) +
        " is not a version LLVM's NVPTX target can write (it writes " +
        versionText(K->PTXVersions.front()) + " to " +
        versionText(K->PTXVersions.back()) + ")");
  unsigned Min = minimumPTX(*K, Opts.SM);
  if (Opts.PTXVersion < Min)
    return gpu::makeError("sm_" + Twine(Opts.SM) + " needs PTX ISA " +
                          versionText(Min) + " or later, not " +
                          versionText(Opts.PTXVersion));
  return Error::success();
}

namespace nvptx {

Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(const NVPTXOptions &Opts) {
  if (Error E = checkNVPTXOptions(Opts))
    return E;
  std::string Err;
  const llvm::Target *T = nvptxTarget(Err);
  TargetOptions Options;
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(
      TargetTriple, "sm_" + std::to_string(Opts.SM),
      "+ptx" + std::to_string(Opts.PTXVersion), Options, std::nullopt,
      std::nullopt, CodeGenOptLevel::Aggressive));
  if (!TM)
    return gpu::makeError("cannot create a target machine for sm_" +
                          Twine(Opts.SM));
  return TM;
}

namespace {

/// Collects the errors the code generator reports through the context
/// (e.g. "no libcall available"), which would otherwise go to whatever
/// handler the caller installed, or to stderr.
class CollectErrors : public DiagnosticHandler {
public:
  explicit CollectErrors(std::string &Out) : Out(Out) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() != DS_Error)
      return true;
    raw_string_ostream OS(Out);
    DiagnosticPrinterRawOStream DP(OS);
    OS << (Out.empty() ? "" : "\n  ");
    DI.print(DP);
    return true;
  }

private:
  std::string &Out;
};

} // namespace

Expected<std::string> optimiseAndEmitPTX(Module &M, TargetMachine &TM) {
  {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    // With TM: its TargetTransformInfo, its alias analysis (address spaces
    // do not alias), and its pipeline-start passes, NVVMReflect among them
    // (which folds libdevice's __nvvm_reflect("__CUDA_FTZ") and
    // ("__CUDA_ARCH") calls).
    PassBuilder PB(&TM);
    FAM.registerPass([&] { return PB.buildDefaultAAPipeline(); });
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM;
    // Buffers arrive as global pointers cast to generic ones for the leaf;
    // inferring the address space first gives O3 the facts (and code
    // generation ld.global/st.global/atom.global).
    MPM.addPass(createModuleToFunctionPassAdaptor(InferAddressSpacesPass()));
    MPM.addPass(PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3));
    MPM.run(M, MAM);
  }

  LLVMContext &Ctx = M.getContext();
  std::string Errors;
  std::unique_ptr<DiagnosticHandler> Saved = Ctx.getDiagnosticHandler();
  Ctx.setDiagnosticHandler(std::make_unique<CollectErrors>(Errors));
  SmallString<0> PTX;
  raw_svector_ostream OS(PTX);
  legacy::PassManager PM;
  bool CannotEmit =
      TM.addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::AssemblyFile);
  if (!CannotEmit)
    PM.run(M);
  Ctx.setDiagnosticHandler(std::move(Saved));
  if (CannotEmit)
    return gpu::makeError("LLVM's NVPTX target cannot write PTX");
  if (!Errors.empty())
    return gpu::makeError(Errors);
  return std::string(PTX.str());
}

} // namespace nvptx
} // namespace hpvm
