//===- CompileC.h - C source in, graph form out, in this process -*- C++
//-*-===//
//
// hpvm-clang's steps up to EXTRACT as a library call, for tools that compile
// C with `#pragma hpvm` without a file system or a process of their own (the
// Python binding's kernels from C source): the source is a string, hpvm.h is
// the one compiled into the library, and every diagnostic comes back in the
// error rather than on stderr.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_FRONTENDS_C_COMPILEC_H
#define HPVM_FRONTENDS_C_COMPILEC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace hpvm::cfe {

/// Compiles Source, a C file called Name in diagnostics, with Clang's
/// ClangArgs (-O2, -DN=4, -I...; no inputs or outputs), to a module of Ctx
/// in graph form. Fails with every error Clang, the pragma checks and the
/// HPVM IR rules reported (file:line:col: error: ...), warnings included.
/// Dependencies, if given, receives every file the compile read (headers,
/// system ones too), for a cache to check they have not changed; hpvm.h
/// (compiled in) is not among them.
llvm::Expected<std::unique_ptr<llvm::Module>>
compileCToGraphForm(llvm::StringRef Source, llvm::StringRef Name,
                    llvm::ArrayRef<std::string> ClangArgs,
                    llvm::LLVMContext &Ctx,
                    std::vector<std::string> *Dependencies = nullptr);

} // namespace hpvm::cfe

#endif // HPVM_FRONTENDS_C_COMPILEC_H
