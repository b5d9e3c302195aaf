//===- Passes.cpp - HPVM passes for the new pass manager ------------------===//
#include "hpvm/ir/Passes.h"

#include "PipelineRunner.h"
#include "RegionAnalysis.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/GraphPrinter.h"
#include "hpvm/ir/RegionForm.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <sstream>

using namespace llvm;

namespace hpvm {

/// What the region parser takes on trust: the markers' declarations, and
/// HPVM operand bundles only on region entries (and launches, which the
/// graph-form verifier checks).
static std::string typeString(const Type *T) {
  std::string S;
  raw_string_ostream OS(S);
  T->print(OS);
  return S;
}

static unsigned checkMarkerUses(Module &M) {
  unsigned Errors = 0;
  LLVMContext &Ctx = M.getContext();
  Type *Token = Type::getTokenTy(Ctx), *Void = Type::getVoidTy(Ctx);
  if (Function *Entry = M.getFunction(RegionEntryName))
    if (Entry->getFunctionType() != FunctionType::get(Token, false)) {
      reportError(Ctx, "marker",
                  std::string("'") + RegionEntryName +
                      "' must be declared 'token ()', not '" +
                      typeString(Entry->getFunctionType()) + "'");
      ++Errors;
    }
  if (Function *Exit = M.getFunction(RegionExitName))
    if (Exit->getFunctionType() != FunctionType::get(Void, {Token}, false)) {
      reportError(Ctx, "marker",
                  std::string("'") + RegionExitName +
                      "' must be declared 'void (token)', not '" +
                      typeString(Exit->getFunctionType()) + "'");
      ++Errors;
    }
  // The functions EXTRACT and the lowering of HPVM-C call: declared by the
  // program with another type, their calls would not be valid IR.
  for (const char *Name :
       {LaunchFunctionName, InstanceIdFunctionName, WorkGroupNativeFunctionName,
        WorkItemIdFunctionName, BarrierFunctionName})
    if (GlobalValue *G = M.getNamedValue(Name)) {
      FunctionType *Type = hpvmFunctionType(Name, Ctx);
      auto *F = dyn_cast<Function>(G);
      if (F && F->getFunctionType() == Type)
        continue;
      reportError(Ctx, "marker",
                  std::string("'") + Name + "' is HPVM's; it must be " +
                      (F ? "declared '" + typeString(Type) + "', not '" +
                               typeString(F->getFunctionType()) + "'"
                         : std::string("a function")));
      ++Errors;
    }
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
      if (!CB || (Callee && (Callee->getName() == RegionEntryName ||
                             Callee->getName() == LaunchFunctionName)))
        continue;
      for (unsigned K = 0, E = CB->getNumOperandBundles(); K != E; ++K) {
        StringRef Tag = CB->getOperandBundleAt(K).getTagName();
        if (!Tag.starts_with("hpvm."))
          continue;
        reportError(Ctx, "marker",
                    "operand bundle '" + Tag.str() +
                        "' on a call that is not a region entry",
                    &F, "", &I);
        ++Errors;
        break;
      }
    }
  return Errors;
}

unsigned verifyHPVMModule(Module &M) {
  unsigned Errors = checkMarkerUses(M);
  if (Errors)
    return Errors;
  bool Regions = false;
  for (Function &F : M) {
    if (F.isDeclaration() || !hasRegions(F))
      continue;
    unsigned ParseErrors = 0;
    RegionForest Forest = parseRegions(F, ParseErrors);
    Errors += ParseErrors;
    if (ParseErrors)
      continue;
    FunctionAnalyses FA(F);
    Errors += verifyRegionForest(Forest, FA);
    Regions = true;
  }
  // Some rules (how a leaf gets each value it uses, how buffers bind to the
  // parent's) are decided while extracting: a trial run on a copy finds
  // them, so that a module that verifies also extracts.
  if (!Errors && Regions) {
    std::unique_ptr<Module> Trial = CloneModule(M);
    Errors += extractGraphsUnchecked(*Trial);
  }
  if (hasGraphs(M) || M.getFunction(LaunchFunctionName))
    Errors += verifyGraphForm(M);
  return Errors;
}

unsigned regionFormFromMarkers(Module &M) {
  PipelineRunner Run;
  // A path that ends in `unreachable` after calls is no exit of a parallel
  // loop only where the callees are known to return (ParallelLoops.cpp):
  // the program's own helpers are known to once their attributes are
  // inferred.
  // The C library's functions get what is known of them (which pointer
  // arguments they only read), so that the region verifier does not take
  // `snprintf(buf, n, "%d", i)` for a write to the format string.
  Run.runOnModule(M, "inferattrs,cgscc(function-attrs)");
  // The last SimplifyCFG can leave phis with one value on every edge, which
  // hide an induction variable's increment from ScalarEvolution:
  // InstSimplify folds them.
  FunctionPassManager FPM = Run.functionPipeline(
      "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
      "loop-mssa(loop-rotate,licm),loop(indvars),simplifycfg,instsimplify");
  for (Function &F : M)
    if (!F.isDeclaration() && hasMarkers(F))
      FPM.run(F, Run.functionAnalyses());
  if (unsigned Errors = lowerMarkers(M))
    return Errors;
  localizeRegionValues(M);
  return 0;
}

// Once a pass has found the module broken, the HPVM passes after it in the
// pipeline leave it alone: their own reports would only repeat the first.

static PreservedAnalyses changed(unsigned Errors) {
  return Errors ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

PreservedAnalyses VerifyPass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  verifyHPVMModule(M);
  return PreservedAnalyses::all();
}

PreservedAnalyses ExtractPass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  return changed(extractGraphs(M));
}

PreservedAnalyses PreparePass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  return changed(prepareRegions(M));
}

PreservedAnalyses StripPass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  return changed(stripRegions(M));
}

/// Prints every graph of M with Print, or reports why it cannot.
template <typename PrintFn> static void printGraphs(Module &M, PrintFn Print) {
  auto Graphs = readGraphs(M);
  if (!Graphs) {
    reportError(M.getContext(), "metadata", toString(Graphs.takeError()));
    return;
  }
  for (const Graph &G : *Graphs) {
    std::ostringstream OS;
    Print(G, OS);
    outs() << OS.str();
  }
  outs().flush();
}

PreservedAnalyses PrintPass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  printGraphs(M, [](const Graph &G, std::ostream &OS) { printGraph(G, OS); });
  return PreservedAnalyses::all();
}

PreservedAnalyses DotPass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  printGraphs(M, [](const Graph &G, std::ostream &OS) { printDot(G, OS); });
  return PreservedAnalyses::all();
}

void registerPasses(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "hpvm-verify")
          MPM.addPass(VerifyPass());
        else if (Name == "hpvm-extract")
          MPM.addPass(ExtractPass());
        else if (Name == "hpvm-prepare")
          MPM.addPass(PreparePass());
        else if (Name == "hpvm-strip")
          MPM.addPass(StripPass());
        else if (Name == "hpvm-print")
          MPM.addPass(PrintPass());
        else if (Name == "hpvm-dot")
          MPM.addPass(DotPass());
        else if (Name == "hpvm-lower-markers")
          MPM.addPass(LowerMarkersPass());
        else if (Name == "hpvm-lower-hpvm-c")
          MPM.addPass(LowerHPVMCPass());
        else
          return false;
        return true;
      });
}

} // namespace hpvm
