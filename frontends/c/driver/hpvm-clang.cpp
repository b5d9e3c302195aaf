//===- hpvm-clang.cpp - The HPVM C compiler -------------------------------===//
//
//   hpvm-clang [clang options] [--hpvm-target=cpu,nvptx,spirv]
//              [--hpvm-nvptx-sm=sm_NN] [--hpvm-nvptx-ptx-version=V]
//              [--hpvm-nvptx-libdevice=FILE]
//              [-emit-hpvm-ir] [--dfg-dot=FILE] inputs...
//
// The tool is the library's runDriver (frontends/c/lib/Driver.h) and an
// exit status; docs/c-frontend.md describes what it does.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, const char **argv) {
  llvm::InitLLVM X(argc, argv);
  hpvm::cfe::DriverOptions Options;
  Options.Argv0 = argv[0];
  if (llvm::Error E = hpvm::cfe::runDriver(
          llvm::ArrayRef<const char *>(argv + 1, argv + argc), Options)) {
    llvm::consumeError(std::move(E)); // its diagnostics are printed
    return 1;
  }
  return 0;
}
