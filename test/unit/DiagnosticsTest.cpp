//===- DiagnosticsTest.cpp - HPVM errors are counted per LLVMContext ------===//
//
// One process may compile many modules (the Python binding does): an error
// reported in one context must not make the HPVM passes skip the modules of
// another context, and must not be forgotten in its own.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Passes.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace {

/// Swallows diagnostics: the default handler exits on an error.
struct Quiet : DiagnosticHandler {
  unsigned Errors = 0;
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    Errors += DI.getSeverity() == DS_Error;
    return true;
  }
};

Quiet &quiet(LLVMContext &Ctx) {
  auto Q = std::make_unique<Quiet>();
  Quiet &Ref = *Q;
  Ctx.setDiagnosticHandler(std::move(Q));
  return Ref;
}

TEST(DiagnosticsTest, ErrorsBelongToTheirContext) {
  LLVMContext Broken, Clean;
  quiet(Broken);
  EXPECT_FALSE(hpvm::hadErrors(Broken));
  hpvm::reportError(Broken, "test", "a broken rule");
  EXPECT_TRUE(hpvm::hadErrors(Broken));
  EXPECT_FALSE(hpvm::hadErrors(Clean));
  // Reading the mark registers nothing.
  EXPECT_FALSE(hpvm::hadErrors(Clean));
}

TEST(DiagnosticsTest, PassesStillRunInAnotherContext) {
  LLVMContext Broken, Clean;
  quiet(Broken);
  hpvm::reportError(Broken, "test", "a broken rule");

  // Printing graphs of a module without graph metadata is fine; the dot pass
  // still runs in the clean context, and finds nothing wrong.
  Quiet &Q = quiet(Clean);
  Module M("clean", Clean);
  ModuleAnalysisManager MAM;
  hpvm::VerifyPass().run(M, MAM);
  EXPECT_EQ(Q.Errors, 0u);
  EXPECT_FALSE(hpvm::hadErrors(Clean));

  // A graph-form module with malformed graph metadata is reported in the
  // clean context even though the other context had an error.
  M.getOrInsertNamedMetadata("hpvm.graphs")
      ->addOperand(MDNode::get(Clean, {MDString::get(Clean, "not a graph")}));
  hpvm::PrintPass().run(M, MAM);
  EXPECT_EQ(Q.Errors, 1u);
  EXPECT_TRUE(hpvm::hadErrors(Clean));
}

} // namespace
