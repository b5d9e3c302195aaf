//===- Driver.h - hpvm-clang as a library call ------------------*- C++ -*-===//
//
// The whole of hpvm-clang (compile every input with `#pragma hpvm`, EXTRACT,
// the backends, link with hpvm-rt) behind one call, so that tools, tests
// and other programs run it without a process of their own; the
// hpvm-clang tool is this call and an exit status.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_FRONTENDS_C_DRIVER_H
#define HPVM_FRONTENDS_C_DRIVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace hpvm::cfe {

struct DriverOptions {
  /// The installation whose hpvm.h and hpvm-rt to use: <InstallDir>/lib
  /// and <InstallDir>/lib/hpvm/include (the build tree has the same
  /// layout). Empty: the one this process's executable is in, found from
  /// Argv0 as the hpvm-clang tool does.
  std::string InstallDir;
  std::string Argv0;
  /// Where diagnostics go as they come (Clang's, the HPVM rules', the
  /// driver's); null: llvm::errs().
  llvm::raw_ostream *Diagnostics = nullptr;
  /// Where --help and --version print; null: llvm::outs().
  llvm::raw_ostream *Output = nullptr;
};

/// Runs the command line Args (clang's options and hpvm-clang's, without
/// the program name) as hpvm-clang does. Fails when any diagnostic was an
/// error; the diagnostics have been written to Options.Diagnostics by then.
/// Calls are serialised: LLVM's command-line options (-mllvm) are
/// process-wide.
llvm::Error runDriver(llvm::ArrayRef<const char *> Args,
                      const DriverOptions &Options);

} // namespace hpvm::cfe

#endif // HPVM_FRONTENDS_C_DRIVER_H
