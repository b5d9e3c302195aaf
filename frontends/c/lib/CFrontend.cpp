//===- CFrontend.cpp - C with `#pragma hpvm` to region form ---------------===//
#include "CFrontend.h"

#include "FrontendDiagnostics.h"
#include "Lowering.h"
#include "OpenMPLeftovers.h"
#include "Pragma.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Inlining.h"
#include "hpvm/ir/Passes.h"
#include "hpvm/ir/RegionForm.h"

#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <functional>
#include <map>
#include <set>

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
    CI.getPreprocessor().AddPragmaHandler(new PragmaHandler(CI, Table, *Diags));
    // With -fopenmp, Clang compiles them (for host threads).
    if (!CI.getLangOpts().OpenMP)
      CI.getPreprocessor().addPPCallbacks(
          warnOnOpenMPPragmas(CI.getSourceManager(), *Diags));
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

/// EXTRACT names parameters after their SSA values; the temporaries of the
/// rewritten source come out of SROA as %cond, %mul... Names that say what
/// they are make graph dumps and DOT readable.
void nameExtents(llvm::Module &M) {
  llvm::Function *Entry = M.getFunction(hpvm::RegionEntryName);
  if (!Entry)
    return;
  for (llvm::User *U : Entry->users()) {
    auto *Call = llvm::dyn_cast<llvm::CallInst>(U);
    if (!Call)
      continue;
    llvm::StringRef Node;
    if (auto B = Call->getOperandBundle(hpvm::tag::Node))
      llvm::getConstantStringInfo(B->Inputs[0], Node);
    Call->setName(Node + ".region");
    if (auto B = Call->getOperandBundle(hpvm::tag::Dims))
      for (unsigned K = 0; K < B->Inputs.size(); ++K)
        if (auto *I = llvm::dyn_cast<llvm::Instruction>(B->Inputs[K]))
          if (!I->getName().contains(".dim"))
            I->setName(Node + ".dim" + llvm::Twine(K));
    for (const char *Tag : {hpvm::tag::In, hpvm::tag::Out, hpvm::tag::InOut})
      if (auto B = Call->getOperandBundle(Tag))
        for (unsigned K = 0; K + 1 < B->Inputs.size(); K += 2)
          if (auto *I = llvm::dyn_cast<llvm::Instruction>(B->Inputs[K + 1]))
            if (!I->getName().ends_with(".bytes") && B->Inputs[K]->hasName())
              I->setName(B->Inputs[K]->getName() + ".bytes");
  }
}

/// Sanitizer checks (-fsanitize=undefined and its parts) report through a
/// runtime that devices do not have: inside nodes their reports are
/// dropped, and the checks with them (the failing branch then leads
/// nowhere and folds away); host code keeps them. Returns how many.
unsigned dropSanitizerReportsInNodes(llvm::Module &M) {
  std::set<llvm::Instruction *> Reports;
  for (llvm::Function &F : M) {
    if (F.isDeclaration() || !hpvm::hasRegions(F))
      continue;
    // Malformed regions are the verifier's to report, later.
    std::string Ignored;
    hpvm::CollectDiagnostics Quiet(M.getContext(), Ignored);
    unsigned Errors = 0;
    hpvm::RegionForest Forest = hpvm::parseRegions(F, Errors);
    if (Errors)
      continue;
    for (const auto &Root : Forest.Roots)
      for (llvm::Instruction *I : Root->instructions()) {
        auto *Call = llvm::dyn_cast<llvm::CallBase>(I);
        llvm::Function *Callee = Call ? Call->getCalledFunction() : nullptr;
        if (Callee && (Callee->getName().starts_with("__ubsan_handle_") ||
                       Callee->getIntrinsicID() == llvm::Intrinsic::ubsantrap))
          Reports.insert(I);
      }
  }
  for (llvm::Instruction *I : Reports)
    I->eraseFromParent();
  return Reports.size();
}

/// A buffer that is a global array (`static float v[N]`) is a constant in
/// the IR, and EXTRACT keeps constants as they are, so the kernel would keep
/// using the host's global instead of its buffer parameter. Naming the
/// global through an instruction (a zero GEP at the function's entry) used
/// everywhere in the function makes it an ordinary SSA buffer pointer.
// TODO: drop once EXTRACT maps global buffers to their parameters itself.
void localizeGlobalBuffers(llvm::Module &M) {
  llvm::Function *Entry = M.getFunction(hpvm::RegionEntryName);
  if (!Entry)
    return;
  std::map<llvm::Function *, std::map<llvm::GlobalVariable *, llvm::Value *>>
      Local;
  std::vector<llvm::CallInst *> Calls;
  for (llvm::User *U : Entry->users())
    if (auto *Call = llvm::dyn_cast<llvm::CallInst>(U))
      Calls.push_back(Call);
  for (llvm::CallInst *Call : Calls)
    for (const char *Tag : {hpvm::tag::In, hpvm::tag::Out, hpvm::tag::InOut})
      if (auto B = Call->getOperandBundle(Tag))
        for (unsigned K = 0; K < B->Inputs.size(); K += 2)
          if (auto *G = llvm::dyn_cast<llvm::GlobalVariable>(
                  B->Inputs[K].get()->stripPointerCasts()))
            Local[Call->getFunction()][const_cast<llvm::GlobalVariable *>(G)] =
                nullptr;
  for (auto &[F, Globals] : Local) {
    llvm::BasicBlock &EntryBB = F->getEntryBlock();
    llvm::Instruction *At = &*EntryBB.getFirstNonPHIOrDbgOrAlloca();
    for (auto &[G, Addr] : Globals) {
      llvm::convertUsersOfConstantsToInstructions({G}, F);
      Addr = llvm::GetElementPtrInst::Create(
          llvm::Type::getInt8Ty(M.getContext()), G,
          {llvm::ConstantInt::get(llvm::Type::getInt64Ty(M.getContext()), 0)},
          G->getName().ltrim('.'), At->getIterator());
      G->replaceUsesWithIf(Addr, [&](llvm::Use &U) {
        auto *I = llvm::dyn_cast<llvm::Instruction>(U.getUser());
        return I && I != Addr && I->getFunction() == F;
      });
    }
  }
}

/// Whether F, or a function it calls, uses a global variable that is not
/// constant, and every path through them returns (an inlined `abort()`
/// would be a second exit of a parallel loop: such a helper stays a call,
/// which the CPU runs).
bool usesMutableGlobal(const llvm::Function &F,
                       llvm::SmallPtrSetImpl<const llvm::Function *> &Seen) {
  if (F.isDeclaration() || !Seen.insert(&F).second)
    return false;
  for (const llvm::BasicBlock &BB : F)
    if (llvm::isa<llvm::UnreachableInst>(BB.getTerminator()))
      return false;
  for (const llvm::BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB)
      for (const llvm::Value *Op : I.operands()) {
        const llvm::Value *V = Op->stripPointerCasts();
        if (auto *CE = llvm::dyn_cast<llvm::ConstantExpr>(V))
          V = CE->getOperand(0)->stripPointerCasts(); // a GEP into it
        if (auto *G = llvm::dyn_cast<llvm::GlobalVariable>(V))
          if (!G->isConstant())
            return true;
        if (auto *Callee = llvm::dyn_cast<llvm::Function>(V))
          if (usesMutableGlobal(*Callee, Seen))
            return true;
      }
  return false;
}

/// A helper that a leaf calls and that uses a global array or struct: the
/// frontend made the global a buffer of the leaf (docs/c-frontend.md,
/// implicit buffers), which the kernel must reach through its parameter,
/// not through the global itself (a CPU kernel is compiled in a module of
/// its own, which cannot reach a static; a GPU reaches no host global).
/// Inlined into the leaf's region, the helper's uses of the global become
/// uses in the function with the graph, which localizeGlobalBuffers turns
/// into uses of the buffer. Only calls inside leaves are inlined: host code
/// keeps its calls.
void inlineHelpersThatUseGlobals(llvm::Module &M) {
  for (llvm::Function &F : M) {
    if (F.isDeclaration() || !hpvm::hasRegions(F))
      continue;
    unsigned Errors = 0;
    hpvm::RegionForest Forest = hpvm::parseRegions(F, Errors);
    if (Errors)
      continue; // the verifier reports them
    std::vector<llvm::CallBase *> Calls;
    std::function<void(const hpvm::Region &)> Collect =
        [&](const hpvm::Region &R) {
          for (const auto &C : R.Children)
            Collect(*C);
          if (!R.isLeaf())
            return;
          for (llvm::Instruction *I : R.instructions())
            if (auto *Call = llvm::dyn_cast<llvm::CallBase>(I))
              if (llvm::Function *Callee = Call->getCalledFunction()) {
                llvm::SmallPtrSet<const llvm::Function *, 8> Seen;
                if (usesMutableGlobal(*Callee, Seen))
                  Calls.push_back(Call);
              }
        };
    for (const auto &Root : Forest.Roots)
      Collect(*Root);
    for (llvm::CallBase *Call : Calls) {
      llvm::InlineFunctionInfo IFI;
      if (llvm::InlineFunction(*Call, IFI).isSuccess())
        hpvm::inlineTransitively(&F, IFI.InlinedCallSites);
    }
  }
}

/// The second parse compiles the rewritten text, whose columns on the
/// lines the rewrite changed are not the user's: every debug location on
/// such a line gets the user's column back (RewrittenFile::userColumn;
/// code the rewrite inserted stands for the user's code where it went, a
/// pragma line's for its '#').
void fixColumns(llvm::Module &M, const std::vector<RewrittenFile> &Rewritten) {
  std::map<std::string, const RewrittenFile *> Files;
  for (const RewrittenFile &F : Rewritten)
    if (!F.ChangedLines.empty())
      Files[absolutePath("", F.Path)] = &F;
  if (Files.empty())
    return;
  std::map<const llvm::DIFile *, const RewrittenFile *> ByFile;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        const llvm::DebugLoc &DL = I.getDebugLoc();
        if (!DL || DL.getInlinedAt())
          continue;
        auto [P, New] = ByFile.try_emplace(DL->getFile());
        if (New) {
          auto It =
              Files.find(absolutePath(DL->getDirectory(), DL->getFilename()));
          P->second = It == Files.end() ? nullptr : It->second;
        }
        if (!P->second)
          continue;
        unsigned Col = P->second->userColumn(DL.getLine(), DL.getCol());
        if (Col != DL.getCol())
          I.setDebugLoc(llvm::DILocation::get(F.getContext(), DL.getLine(), Col,
                                              DL.getScope()));
      }
}

} // namespace

std::string absolutePath(llvm::StringRef Dir, llvm::StringRef File) {
  llvm::SmallString<256> P(File);
  if (!llvm::sys::path::is_absolute(P) && !Dir.empty()) {
    P = Dir;
    llvm::sys::path::append(P, File);
  }
  llvm::sys::fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

FrontendResult compileToRegionForm(const CompilerInvocation &Invocation,
                                   llvm::LLVMContext &Ctx,
                                   const FrontendOptions &Opts) {
  FrontendResult Result;
  std::vector<RewrittenFile> Rewritten;
  {
    CompilerInstance CI;
    auto CheckInv = std::make_shared<CompilerInvocation>(Invocation);
    // The driver asks cc1 not to free the AST, as a process about to exit
    // need not; this is a library that may compile many files in one
    // process (the Python binding, the fuzzer), so it frees what it made.
    CheckInv->getFrontendOpts().DisableFree = false;
    CI.setInvocation(CheckInv);
    CI.createDiagnostics(Opts.Diagnostics, /*ShouldOwnClient=*/false);
    if (Opts.Diagnostics)
      CI.setVerboseOutputStream(llvm::nulls());
    CheckAction Check(Rewritten);
    if (!CI.ExecuteAction(Check) || CI.getDiagnostics().hasErrorOccurred())
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
  // Whoever made the invocation decides who frees remapped buffers; these
  // are ours to free when it retains them.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> RewrittenBuffers;
  for (const RewrittenFile &F : Rewritten) {
    auto Buffer = llvm::MemoryBuffer::getMemBufferCopy(F.Text, F.Path);
    Inv->getPreprocessorOpts().addRemappedFile(F.Path, Buffer.get());
    if (Inv->getPreprocessorOpts().RetainRemappedFileBuffers)
      RewrittenBuffers.push_back(std::move(Buffer));
    else
      Buffer.release();
  }
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
  Inv->getFrontendOpts().DisableFree = false; // as above

  CompilerInstance CI;
  CI.setInvocation(Inv);
  CI.createDiagnostics(Opts.Diagnostics, /*ShouldOwnClient=*/false);
  if (Opts.Diagnostics)
    CI.setVerboseOutputStream(llvm::nulls());
  EmitLLVMOnlyAction Emit(&Ctx);
  if (!CI.ExecuteAction(Emit) || CI.getDiagnostics().hasErrorOccurred()) {
    // The first parse accepted the source, so this is the rewrite's fault.
    if (!Rewritten.empty())
      llvm::errs() << "hpvm-clang: note: the source rewritten for "
                      "'#pragma hpvm' does not compile; this is a bug in "
                      "hpvm-clang (-save-temps keeps the rewritten source)\n";
    return Result;
  }
  std::unique_ptr<llvm::Module> M = Emit.takeModule();
  if (!M)
    return Result;

  fixColumns(*M, Rewritten);
  if (hpvm::lowerHPVMC(*M) || hpvm::regionFormFromMarkers(*M))
    return Result;
  inlineHelpersThatUseGlobals(*M);
  if (dropSanitizerReportsInNodes(*M))
    llvm::errs() << "hpvm-clang: note: sanitizer checks are not made inside "
                    "nodes (devices have no sanitizer runtime); host code is "
                    "checked\n";
  localizeGlobalBuffers(*M);
  nameExtents(*M);
  Result.M = std::move(M);
  Result.OK = true;
  return Result;
}

} // namespace hpvm::cfe
