//===- hpvm-opt.cpp - Run HPVM and LLVM passes over a module --------------===//
//
//   hpvm-opt in.ll -passes='function(sroa),hpvm-extract' -S -o out.ll
//   hpvm-opt in.ll --extract --verify --print -disable-output
//
// Reads textual or bitcode IR in region or graph form, runs the pipeline and
// writes the result. Broken HPVM rules are printed as diagnostics and make
// the exit status 1; the module is then not written.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Passes.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

static cl::opt<std::string>
    InputFilename(cl::Positional, cl::desc("<input .ll/.bc>"), cl::init("-"));
static cl::opt<std::string> OutputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("filename"),
                                           cl::init("-"));
static cl::opt<bool> OutputAssembly("S", cl::desc("Write textual IR"));
static cl::opt<bool> DisableOutput("disable-output",
                                   cl::desc("Do not write the module"));
static cl::opt<std::string>
    PassPipeline("passes",
                 cl::desc("Pass pipeline, HPVM passes (hpvm-extract, "
                          "hpvm-prepare, hpvm-verify, hpvm-strip, hpvm-print, "
                          "hpvm-dot) and LLVM passes alike"));

enum class HPVMPass {
  LowerHPVMC,
  LowerMarkers,
  Extract,
  Prepare,
  Verify,
  Strip,
  Print,
  Dot
};
static cl::list<HPVMPass> PassFlags(
    cl::desc("HPVM passes, run in order after -passes:"),
    cl::values(clEnumValN(HPVMPass::LowerHPVMC, "lower-hpvm-c",
                          "HPVM-C graph calls -> marker form"),
               clEnumValN(HPVMPass::LowerMarkers, "lower-markers",
                          "__hpvm_region_begin/end calls -> region form"),
               clEnumValN(HPVMPass::Extract, "extract", "region -> graph form"),
               clEnumValN(HPVMPass::Prepare, "prepare", "graph -> region form"),
               clEnumValN(HPVMPass::Verify, "verify", "check HPVM IR rules"),
               clEnumValN(HPVMPass::Strip, "strip",
                          "remove markers: the sequential program"),
               clEnumValN(HPVMPass::Print, "print", "text dump of the graphs"),
               clEnumValN(HPVMPass::Dot, "dot", "Graphviz DOT of the graphs")));

static const char *pipelineName(HPVMPass P) {
  switch (P) {
  case HPVMPass::LowerHPVMC:
    return "hpvm-lower-hpvm-c";
  case HPVMPass::LowerMarkers:
    return "hpvm-lower-markers";
  case HPVMPass::Extract:
    return "hpvm-extract";
  case HPVMPass::Prepare:
    return "hpvm-prepare";
  case HPVMPass::Verify:
    return "hpvm-verify";
  case HPVMPass::Strip:
    return "hpvm-strip";
  case HPVMPass::Print:
    return "hpvm-print";
  case HPVMPass::Dot:
    return "hpvm-dot";
  }
  return "";
}

static void handleDiagnostic(const DiagnosticInfo *Info, void *) {
  const DiagnosticInfo &DI = *Info;
  std::string Text;
  raw_string_ostream OS(Text);
  DiagnosticPrinterRawOStream DP(OS);
  DI.print(DP);
  switch (DI.getSeverity()) {
  case DS_Error:
    WithColor::error(errs(), "hpvm-opt") << OS.str() << "\n";
    break;
  case DS_Warning:
    WithColor::warning(errs(), "hpvm-opt") << OS.str() << "\n";
    break;
  default:
    WithColor::note(errs(), "hpvm-opt") << OS.str() << "\n";
  }
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "HPVM IR optimizer\n");

  LLVMContext Ctx;
  Ctx.setDiagnosticHandlerCallBack(handleDiagnostic);
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseIRFile(InputFilename, Err, Ctx);
  if (!M) {
    Err.print("hpvm-opt", errs());
    return 1;
  }
  // Invalid input is the input's fault, and no pass may see it: LLVM's
  // analyses assume valid IR and crash or hang on what is not.
  std::string Broken;
  raw_string_ostream BrokenOS(Broken);
  if (verifyModule(*M, &BrokenOS)) {
    WithColor::error(errs(), "hpvm-opt")
        << InputFilename << ": not valid LLVM IR:\n"
        << BrokenOS.str();
    return 1;
  }

  std::string Pipeline = PassPipeline;
  for (HPVMPass P : PassFlags)
    Pipeline += (Pipeline.empty() ? "" : ",") + std::string(pipelineName(P));

  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  hpvm::registerPasses(PB);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

  ModulePassManager MPM;
  if (!Pipeline.empty())
    if (Error E = PB.parsePassPipeline(MPM, Pipeline)) {
      WithColor::error(errs(), "hpvm-opt") << toString(std::move(E)) << "\n";
      return 1;
    }
  MPM.run(*M, MAM);

  if (hpvm::hadErrors(M->getContext()))
    return 1;
  Broken.clear();
  if (verifyModule(*M, &BrokenOS)) {
    WithColor::error(errs(), "hpvm-opt")
        << "internal error: the result is not valid LLVM IR:\n"
        << BrokenOS.str();
    return 1;
  }
  if (DisableOutput)
    return 0;

  std::error_code EC;
  ToolOutputFile Out(OutputFilename, EC, sys::fs::OF_None);
  if (EC) {
    WithColor::error(errs(), "hpvm-opt") << EC.message() << "\n";
    return 1;
  }
  if (OutputAssembly)
    M->print(Out.os(), nullptr);
  else
    WriteBitcodeToFile(*M, Out.os());
  Out.keep();
  return 0;
}
