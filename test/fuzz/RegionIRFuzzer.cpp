//===- RegionIRFuzzer.cpp - libFuzzer target: region-form IR --------------===//
//
// Any bytes as LLVM IR text: what LLVM's parser and verifier accept goes
// through the HPVM verifier, then (if it verifies) EXTRACT, PREPARE and
// strip, each on its own copy, as hpvm-opt runs them. None may crash, and
// whatever a transform returns success for must be valid LLVM IR (the
// graph metadata reader runs inside the verifier and PREPARE).
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Passes.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

void mustBeValid(const Module &M, const char *After) {
  std::string Broken;
  raw_string_ostream OS(Broken);
  if (verifyModule(M, &OS)) {
    errs() << "invalid IR after " << After << ":\n" << OS.str();
    std::abort();
  }
}

using Transform = unsigned (*)(Module &);

void tryOn(const Module &M, Transform T, const char *Name) {
  std::unique_ptr<Module> Copy = CloneModule(M);
  std::string Diagnostics;
  hpvm::CollectDiagnostics Quiet(Copy->getContext(), Diagnostics);
  if (T(*Copy) == 0)
    mustBeValid(*Copy, Name);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // LLVM's lexer reads up to a terminating NUL, which fuzz data lacks.
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  LLVMContext Ctx;
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(Text, Err, Ctx);
  if (!M || verifyModule(*M))
    return 0; // hpvm-opt refuses such input before any pass (invalid-ir.test)
  {
    std::string Diagnostics;
    hpvm::CollectDiagnostics Quiet(Ctx, Diagnostics);
    std::unique_ptr<Module> Copy = CloneModule(*M);
    if (hpvm::verifyHPVMModule(*Copy) != 0)
      return 0;
  }
  tryOn(*M, hpvm::extractGraphs, "EXTRACT");
  tryOn(*M, hpvm::prepareRegions, "PREPARE");
  tryOn(*M, hpvm::stripRegions, "strip");
  return 0;
}
