//===- FrontendDiagnostics.cpp --------------------------------------------===//
#include "FrontendDiagnostics.h"

using namespace clang;

namespace hpvm::cfe {

Diagnostics::Diagnostics(DiagnosticsEngine &Engine) : Engine(Engine) {
  unsigned I = 0;
#define HPVM_DIAG(Name, Level, Text)                                           \
  IDs[I] = Engine.getCustomDiagID(DiagnosticsEngine::Level, Text);             \
  IsError[I] = DiagnosticsEngine::Level == DiagnosticsEngine::Error;           \
  ++I;
#include "FrontendDiagnostics.def"
}

DiagnosticBuilder Diagnostics::report(SourceLocation Loc, Diag D) {
  unsigned I = static_cast<unsigned>(D);
  if (IsError[I])
    ++Errors;
  return Engine.Report(Loc, IDs[I]);
}

} // namespace hpvm::cfe
