//===- CFrontend.cpp - C with `#pragma hpvm` to region form ---------------===//
#include "CFrontend.h"

#include "FrontendDiagnostics.h"
#include "Lowering.h"
#include "Pragma.h"

#include "hpvm/ir/Passes.h"

#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"

#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace hpvm::cfe {

namespace {

/// The first parse: the pragma handler, the checks and the rewrite.
class CheckAction : public ASTFrontendAction {
public:
  explicit CheckAction(std::vector<RewrittenFile> &Out) : Out(Out) {}

protected:
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    Diags = std::make_unique<Diagnostics>(CI.getDiagnostics());
    // The preprocessor owns the handler.
    CI.getPreprocessor().AddPragmaHandler(
        new PragmaHandler(CI, Table, *Diags));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<LoweringConsumer>(CI, Table, *Diags, Out);
  }

private:
  std::vector<RewrittenFile> &Out;
  PragmaTable Table;
  std::unique_ptr<Diagnostics> Diags;
};

bool hasMarkers(const llvm::Function &F) {
  for (const llvm::BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB)
      if (const auto *CI = llvm::dyn_cast<llvm::CallInst>(&I))
        if (const llvm::Function *Callee = CI->getCalledFunction())
          if (Callee->getName() == "__hpvm_region_begin")
            return true;
  return false;
}

/// The passes EXTRACT is tested after (docs/ir.md §4), on the functions
/// that hold nodes: SSA form for the markers, canonical loops for the nests.
void simplify(llvm::Module &M) {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::FunctionPassManager FPM;
  if (llvm::Error E = PB.parsePassPipeline(
          FPM, "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
               "loop-mssa(loop-rotate,licm),loop(indvars),simplifycfg")) {
    llvm::consumeError(std::move(E)); // a fixed pipeline: cannot happen
    return;
  }
  for (llvm::Function &F : M)
    if (!F.isDeclaration() && hasMarkers(F))
      FPM.run(F, FAM);
}

} // namespace

FrontendResult compileToRegionForm(const CompilerInvocation &Invocation,
                                   llvm::LLVMContext &Ctx,
                                   const FrontendOptions &Opts) {
  FrontendResult Result;
  std::vector<RewrittenFile> Rewritten;
  {
    CompilerInstance CI;
    CI.setInvocation(std::make_shared<CompilerInvocation>(Invocation));
    CI.createDiagnostics();
    CheckAction Check(Rewritten);
    if (!CI.ExecuteAction(Check) ||
        CI.getDiagnostics().hasErrorOccurred())
      return Result;
  }
  if (!Opts.SaveRewrittenAs.empty() && !Rewritten.empty()) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Opts.SaveRewrittenAs, EC, llvm::sys::fs::OF_Text);
    if (!EC)
      OS << Rewritten.front().Text;
  }
  if (Opts.SyntaxOnly) {
    Result.OK = true;
    return Result;
  }

  // The second parse compiles the rewritten text under the original file
  // names, so that its diagnostics and debug lines point at the user's
  // lines. Its warnings were already given by the first parse.
  auto Inv = std::make_shared<CompilerInvocation>(Invocation);
  for (const RewrittenFile &F : Rewritten)
    Inv->getPreprocessorOpts().addRemappedFile(
        F.Path, llvm::MemoryBuffer::getMemBufferCopy(F.Text, F.Path).release());
  Inv->getDiagnosticOpts().IgnoreWarnings = true;
  // CodeGen at the user's -O level (TBAA, inlining attributes, lifetime
  // markers as clang would emit them) but without LLVM's pipeline, which
  // would run before the markers become regions and move code across them;
  // and without optnone at -O0, which would stop the simplification below.
  CodeGenOptions &CG = Inv->getCodeGenOpts();
  CG.DisableLLVMPasses = true;
  CG.DisableO0ImplyOptNone = true;
  CG.DiscardValueNames = false;
  if (CG.getDebugInfo() == llvm::codegenoptions::NoDebugInfo) {
    CG.setDebugInfo(llvm::codegenoptions::DebugLineTablesOnly);
    Result.AddedDebugInfo = true;
  }
  CG.DebugColumnInfo = true;
  Inv->getFrontendOpts().ProgramAction = frontend::EmitLLVMOnly;

  CompilerInstance CI;
  CI.setInvocation(Inv);
  CI.createDiagnostics();
  EmitLLVMOnlyAction Emit(&Ctx);
  if (!CI.ExecuteAction(Emit) || CI.getDiagnostics().hasErrorOccurred())
    return Result;
  std::unique_ptr<llvm::Module> M = Emit.takeModule();
  if (!M)
    return Result;

  simplify(*M);
  if (hpvm::lowerMarkers(*M))
    return Result;
  Result.M = std::move(M);
  Result.OK = true;
  return Result;
}

} // namespace hpvm::cfe
