//===- OpenMPLeftovers.h - `#pragma omp` in a program for hpvm-clang -*- C++
//-*-===//
//
// Code ported from OpenMP keeps a `#pragma omp` here and there. Without
// -fopenmp Clang ignores them without a word, and the loop runs
// sequentially; hpvm-clang warns instead, naming the directive and the
// `#pragma hpvm` to write (or saying that there is none).
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_FRONTENDS_C_OPENMPLEFTOVERS_H
#define HPVM_FRONTENDS_C_OPENMPLEFTOVERS_H

#include <memory>

namespace clang {
class PPCallbacks;
class SourceManager;
} // namespace clang

namespace hpvm::cfe {

class Diagnostics;

/// Preprocessor callbacks that report every `#pragma omp` line.
std::unique_ptr<clang::PPCallbacks>
warnOnOpenMPPragmas(clang::SourceManager &SM, Diagnostics &Diags);

} // namespace hpvm::cfe

#endif // HPVM_FRONTENDS_C_OPENMPLEFTOVERS_H
