//===- PipelineRunner.h - LLVM pipelines run on part of a module -*- C++
//-*-===//
//
// The HPVM passes prepare the functions they work on with LLVM's own passes
// (SROA, unrolling, the -O1 simplification EXTRACT is tested after) but
// leave the rest of the module as the frontend made it. This holds the new
// pass manager's analysis managers, registered and cross-wired once, and
// parses textual pipelines against them.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_LIB_PIPELINERUNNER_H
#define HPVM_IR_LIB_PIPELINERUNNER_H

#include "llvm/Passes/PassBuilder.h"

namespace hpvm {

class PipelineRunner {
public:
  PipelineRunner() {
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
  PipelineRunner(const PipelineRunner &) = delete;
  PipelineRunner &operator=(const PipelineRunner &) = delete;

  /// A pipeline of ours, so a text that does not parse is a bug here.
  llvm::FunctionPassManager functionPipeline(llvm::StringRef Text) {
    llvm::FunctionPassManager FPM;
    llvm::cantFail(PB.parsePassPipeline(FPM, Text));
    return FPM;
  }
  void runOnModule(llvm::Module &M, llvm::StringRef Text) {
    llvm::ModulePassManager MPM;
    llvm::cantFail(PB.parsePassPipeline(MPM, Text));
    MPM.run(M, MAM);
  }
  llvm::FunctionAnalysisManager &functionAnalyses() { return FAM; }

private:
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
};

} // namespace hpvm

#endif // HPVM_IR_LIB_PIPELINERUNNER_H
