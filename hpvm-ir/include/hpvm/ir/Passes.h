//===- Passes.h - The HPVM passes for the new pass manager ------*- C++ -*-===//
//
//   hpvm-verify   check the region form and/or the graph form
//   hpvm-extract  region form -> graph form
//   hpvm-prepare  graph form -> region form
//   hpvm-strip    remove region markers: the plain sequential program
//   hpvm-print    text dump of every graph (to stdout)
//   hpvm-dot      Graphviz DOT of every graph (to stdout)
//   hpvm-lower-markers  __hpvm_region_begin/end calls -> region form
//
// Passes that find broken rules report them through the LLVMContext and
// leave the module unchanged; drivers check hpvm::hadErrors(Ctx)
// (Diagnostics.h) afterwards.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_PASSES_H
#define HPVM_IR_PASSES_H

#include "llvm/IR/PassManager.h"

namespace llvm {
class PassBuilder;
}

namespace hpvm {

struct VerifyPass : llvm::PassInfoMixin<VerifyPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct ExtractPass : llvm::PassInfoMixin<ExtractPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct PreparePass : llvm::PassInfoMixin<PreparePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct StripPass : llvm::PassInfoMixin<StripPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct PrintPass : llvm::PassInfoMixin<PrintPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct DotPass : llvm::PassInfoMixin<DotPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct LowerHPVMCPass : llvm::PassInfoMixin<LowerHPVMCPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct LowerMarkersPass : llvm::PassInfoMixin<LowerMarkersPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// The transforms themselves, for drivers that do not use a pass manager.
/// Each returns the number of errors reported (0 = success, module changed
/// as described; >0 = module left as it was).
unsigned verifyHPVMModule(llvm::Module &M);
unsigned extractGraphs(llvm::Module &M);
unsigned prepareRegions(llvm::Module &M);
unsigned stripRegions(llvm::Module &M);
/// Rewrites the marker calls of the C frontend (__hpvm_region_begin/end,
/// frontends/c/include/hpvm.h) into region markers; needs SSA form.
unsigned lowerMarkers(llvm::Module &M);
/// HPVM-C's graph calls (__hpvm__launch of node functions that
/// __hpvm__createNodeND and __hpvm__bindIn) to the marker form, which
/// lowerMarkers then takes (LowerHPVMC.cpp, docs/hpvm-c.md). Returns the
/// number of errors reported; 0 also when M uses no HPVM-C.
unsigned lowerHPVMC(llvm::Module &M);

/// Recomputes, at each use outside the region that defines it, a pure value
/// (no memory, no side effects) that simplification passes shared between
/// regions (EarlyCSE merging `&s[1]` of two sibling tasks), so that no
/// region has a value escaping it; returns how many uses it gave their own
/// copy. Regions it cannot parse are left to the verifier.
unsigned localizeRegionValues(llvm::Module &M);

/// What a frontend that emits the marker form (hpvm.h) runs to reach region
/// form: the simplification EXTRACT is tested after (SROA for SSA form,
/// rotated loops with canonical induction variables; docs/ir.md §4) on the
/// functions that hold markers, then lowerMarkers and localizeRegionValues.
/// Returns the number of errors reported.
unsigned regionFormFromMarkers(llvm::Module &M);

/// Registers the passes above by name with PB (for -passes=...).
void registerPasses(llvm::PassBuilder &PB);

} // namespace hpvm

#endif // HPVM_IR_PASSES_H
