//===- FrontendDiagnostics.h - hpvm-clang's own diagnostics -----*- C++ -*-===//
//
// The errors the C frontend reports about `#pragma hpvm` and the code it
// applies to, as custom Clang diagnostics: they print like Clang's own
// (file:line:col: error: ...), with the source line and a caret.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_FRONTENDS_C_FRONTENDDIAGNOSTICS_H
#define HPVM_FRONTENDS_C_FRONTENDDIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"

namespace hpvm::cfe {

enum class Diag : unsigned {
#define HPVM_DIAG(Name, Level, Text) Name,
#include "FrontendDiagnostics.def"
  NumDiags
};

/// The custom IDs of one DiagnosticsEngine.
class Diagnostics {
public:
  explicit Diagnostics(clang::DiagnosticsEngine &Engine);
  clang::DiagnosticBuilder report(clang::SourceLocation Loc, Diag D);
  clang::DiagnosticsEngine &engine() { return Engine; }
  /// Errors reported through this object.
  unsigned numErrors() const { return Errors; }

private:
  clang::DiagnosticsEngine &Engine;
  unsigned IDs[static_cast<unsigned>(Diag::NumDiags)];
  bool IsError[static_cast<unsigned>(Diag::NumDiags)];
  unsigned Errors = 0;
};

} // namespace hpvm::cfe

#endif // HPVM_FRONTENDS_C_FRONTENDDIAGNOSTICS_H
