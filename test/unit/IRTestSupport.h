//===- IRTestSupport.h - Helpers for unit tests on LLVM IR ------*- C++ -*-===//
//
// Parsing IR text (failing the current test with the parser's message when it
// is not valid) and printing a module back to text, shared by the unit tests
// that work on LLVM modules.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_UNIT_IRTESTSUPPORT_H
#define HPVM_TEST_UNIT_IRTESTSUPPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

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

/// The textual IR of M.
inline std::string printModule(const llvm::Module &M) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  M.print(OS, nullptr);
  return OS.str();
}

} // namespace hpvm::test

#endif // HPVM_TEST_UNIT_IRTESTSUPPORT_H
