//===- IRTestSupport.h - Helpers for unit tests on LLVM IR ------*- C++ -*-===//
//
// Parsing IR text (failing the current test with the parser's message when it
// is not valid), reading a module's graphs, and printing a module back to
// text, shared by the unit tests that work on LLVM modules.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_UNIT_IRTESTSUPPORT_H
#define HPVM_TEST_UNIT_IRTESTSUPPORT_H

#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace hpvm::test {

/// Parses IR text into a module of Ctx. If it is not valid, fails the current
/// test with the parser's message (ProgName heads that message) and returns
/// null.
inline std::unique_ptr<llvm::Module> parseIR(llvm::LLVMContext &Ctx,
                                             llvm::StringRef Text,
                                             const char *ProgName = "test") {
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(Text, Err, Ctx);
  if (!M) {
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    Err.print(ProgName, OS);
    ADD_FAILURE() << OS.str();
  }
  return M;
}

/// Parses IR into M and reads its graphs into Graphs: IR in region form
/// has them extracted first, as hpvm-opt does; GraphForm IR has them
/// already. Fails the current test and returns false if a step fails
/// (after a failed extraction, with Diags: what the context's diagnostic
/// handler gathered).
inline bool parseGraphModule(llvm::LLVMContext &Ctx, llvm::StringRef IR,
                             const char *ProgName, bool GraphForm,
                             std::unique_ptr<llvm::Module> &M,
                             std::vector<Graph> &Graphs,
                             const std::string *Diags = nullptr) {
  M = parseIR(Ctx, IR, ProgName);
  if (!M)
    return false;
  if (!GraphForm && extractGraphs(*M) != 0) {
    ADD_FAILURE() << "EXTRACT failed" << (Diags ? ":\n" + *Diags : "");
    return false;
  }
  llvm::Expected<std::vector<Graph>> G = readGraphs(*M);
  if (!G) {
    ADD_FAILURE() << llvm::toString(G.takeError());
    return false;
  }
  Graphs = std::move(*G);
  return true;
}

/// The textual IR of M.
inline std::string printModule(const llvm::Module &M) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  M.print(OS, nullptr);
  return OS.str();
}

} // namespace hpvm::test

#endif // HPVM_TEST_UNIT_IRTESTSUPPORT_H
