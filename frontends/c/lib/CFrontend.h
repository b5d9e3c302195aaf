//===- CFrontend.h - C with `#pragma hpvm` to region form -------*- C++ -*-===//
//
// What hpvm-clang does with one C file before EXTRACT:
//  1. parse it with the `#pragma hpvm` handler, check the pragmas and the
//     code they apply to, and rewrite them into marker calls (Lowering.h);
//  2. compile the rewritten source with Clang's CodeGen to an LLVM module,
//     without running LLVM's pipeline (and without optnone at -O0);
//  3. run the function simplification passes EXTRACT is tested after (sroa,
//     early-cse, instcombine, simplifycfg, loop-rotate, licm, indvars) on
//     the functions that contain nodes, and lower the markers into region
//     form (hpvm::lowerMarkers).
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_FRONTENDS_C_CFRONTEND_H
#define HPVM_FRONTENDS_C_CFRONTEND_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace clang {
class CompilerInvocation;
class DiagnosticConsumer;
} // namespace clang

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace hpvm::cfe {

struct FrontendOptions {
  /// Where the rewritten source is kept (-save-temps); empty: not kept.
  std::string SaveRewrittenAs;
  /// Stop after checking (-fsyntax-only).
  bool SyntaxOnly = false;
  /// Where Clang's and the pragmas' diagnostics go (and then nothing is
  /// printed, not even the error count); null: printed to stderr as the
  /// invocation's options say.
  clang::DiagnosticConsumer *Diagnostics = nullptr;
};

struct FrontendResult {
  /// No errors (with SyntaxOnly, M stays null even then).
  bool OK = false;
  std::unique_ptr<llvm::Module> M;
  /// Line-table debug information was added only so that diagnostics of
  /// the HPVM passes can name source lines; strip it before output.
  bool AddedDebugInfo = false;
};

/// Compiles the one input of Invocation (a cc1 invocation, e.g. from
/// clang::createInvocation) to region form in Ctx. Diagnostics go to the
/// invocation's diagnostic options through a text printer on stderr; LLVM
/// diagnostics (rule "marker") go through Ctx's handler. Returns a null
/// module after errors (and with SyntaxOnly).
FrontendResult compileToRegionForm(const clang::CompilerInvocation &Invocation,
                                   llvm::LLVMContext &Ctx,
                                   const FrontendOptions &Opts);

/// File as one absolute path without `.` or `..`: relative to Dir when it
/// is relative and Dir is given (debug info spells files relative to the
/// compilation directory), else to the current directory.
std::string absolutePath(llvm::StringRef Dir, llvm::StringRef File);

} // namespace hpvm::cfe

#endif // HPVM_FRONTENDS_C_CFRONTEND_H
