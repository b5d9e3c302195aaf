//===- CProgram.h - C source compiled into this process ---------*- C++ -*-===//
//
// The Python binding's core, kept free of LLVM and Clang types so that the
// pybind11 module (built with RTTI, which LLVM is not) only sees this:
// C source with `#pragma hpvm` goes through hpvm-clang's frontend, EXTRACT
// and every backend, and comes back as a program loaded in this process
// whose C functions can be called with arguments in memory, their launches
// going through hpvm-rt.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BINDINGS_PYTHON_CPROGRAM_H
#define HPVM_BINDINGS_PYTHON_CPROGRAM_H

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/hpvm_rt.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
template <typename T> class ArrayRef;
} // namespace llvm

namespace hpvm::python {

/// The C scalar types a callable function's parameters and result, and the
/// pointees of its pointer parameters, may have.
enum class CScalar {
  Void, // results and pointees only
  Bool,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float16,
  Float32,
  Float64
};

/// Bytes of a C scalar (0 for Void).
unsigned sizeOf(CScalar S);
bool isFloat(CScalar S);
bool isSigned(CScalar S);

/// IEEE half bits of V rounded to nearest even, and back (for _Float16
/// arguments and results).
uint16_t toHalf(double V);
double fromHalf(uint16_t Bits);

/// A scalar, or a pointer to one (Const: a pointer to const, which the
/// function only reads through).
struct CType {
  CScalar Scalar = CScalar::Void;
  bool Pointer = false;
  bool Const = false;
  /// As C spells it: "float", "const double *".
  std::string spelling() const;
};

struct CParam {
  std::string Name; // "arg<i>" where the source has none
  CType Type;
};

/// A function of the source that can be called with arguments in memory.
struct CFunction {
  std::string Name;
  /// The LLVM function, where it is not Name (a Python kernel's host
  /// function); empty: Name.
  std::string Symbol;
  const std::string &symbol() const { return Symbol.empty() ? Name : Symbol; }
  CType Result;
  std::vector<CParam> Params;
  /// "void saxpy(long n, float a, const float *x, float *y)"
  std::string signature() const;
  /// Calls the function. Args[i] points to parameter i's value as C stores
  /// it (a pointer parameter: to the pointer; Bool: one byte); the result,
  /// if any, is written to Result (8 bytes suffice).
  void (*Call)(void *const *Args, void *Result) = nullptr;
};

struct CompileOptions {
  /// The file name diagnostics give the source.
  std::string Name = "<string>";
  /// Clang's options: -O2, -DN=4, -I..., -std=...
  std::vector<std::string> ClangArgs;
  /// hpvm::Target bits to compile leaves for.
  uint32_t Targets = TargetCPU;
  /// With the CPU among the targets, a leaf another target cannot express
  /// is left to the others instead of failing the compile.
  bool SkipUnsupported = true;
  /// Where compiled programs are kept between processes, keyed by a hash
  /// of everything that decides the code (for C: the source, the name, the
  /// Clang options, and the contents of every file the compile read);
  /// empty: no cache.
  std::string CacheDir;
};

class CProgram {
public:
  /// Compiles Source; on failure returns null with every diagnostic in
  /// Error (file:line:col: error: ...).
  static std::unique_ptr<CProgram> compile(const std::string &Source,
                                           const CompileOptions &Options,
                                           std::string &Error);
  /// Compiles a module in the marker form (LLVM IR text whose nodes are
  /// delimited by __hpvm_region_begin/end, as frontends/c/include/hpvm.h
  /// describes), the form the Python kernel frontend emits. Functions names
  /// its functions that can be called and their C signatures, which must
  /// match their LLVM types; Options.ClangArgs is unused. On failure returns
  /// null with the diagnostics in Error.
  static std::unique_ptr<CProgram>
  compileMarkerIR(const std::string &IR, const CompileOptions &Options,
                  std::vector<CFunction> Functions, std::string &Error);
  /// Compiles a module in graph form: IR holds the leaf functions (and
  /// possibly graphs already, as EXTRACT writes them); GraphText, if not
  /// empty, adds graphs in the text form of docs/runtime.md §2. Launch its
  /// graphs with hpvm_launch on descriptor().
  static std::unique_ptr<CProgram>
  compileGraphForm(const std::string &IR, const std::string &GraphText,
                   const CompileOptions &Options, std::string &Error);
  /// Releases the program from hpvm-rt; no call of it may be running.
  ~CProgram();
  CProgram(const CProgram &) = delete;
  CProgram &operator=(const CProgram &) = delete;

  /// The source's external functions that can be called, in source order.
  const std::vector<CFunction> &functions() const;
  /// The other external functions, each with why it cannot be called:
  /// "main: parameter 2 is char **, a pointer to a pointer".
  const std::vector<std::string> &uncallable() const;
  /// The dataflow graphs of the source's regions.
  const std::vector<Graph> &graphs() const;
  const hpvm_program_desc &descriptor() const;
  /// Whether the program came from CompileOptions::CacheDir.
  bool fromCache() const;

private:
  struct Parts;
  explicit CProgram(std::unique_ptr<Parts> P);
  /// IR in marker form (GraphText null) or graph form.
  static std::unique_ptr<CProgram> compileIR(const std::string &IR,
                                             const std::string *GraphText,
                                             const CompileOptions &Options,
                                             std::vector<CFunction> Functions,
                                             std::string &Error);
  /// Wraps the functions P names, builds M and finds the wrappers.
  static std::unique_ptr<CProgram>
  load(std::unique_ptr<llvm::Module> M, std::unique_ptr<Parts> P,
       const CompileOptions &Options, std::string &Error,
       const std::string &CachePath = "", const std::string &Meta = "");
  /// The program of a cache entry's objects, P giving its functions; null
  /// if they do not load (the caller compiles again).
  static std::unique_ptr<CProgram>
  loadCached(llvm::ArrayRef<std::string> Objects, std::unique_ptr<Parts> P,
             const CompileOptions &Options);
  /// P's wrappers looked up in its loaded program.
  static std::unique_ptr<CProgram> finish(std::unique_ptr<Parts> P,
                                          std::string &Error);
  std::unique_ptr<Parts> P;
};

/// The broken rules of graphs in text form: (rule, node path, message);
/// empty if they are well formed. Text that does not parse is one entry
/// with rule "syntax".
struct GraphProblem {
  std::string Rule, Where, Message;
};
std::vector<GraphProblem> verifyGraphText(const std::string &Text);

/// A launch of a CProgram that failed: generated code cannot handle a
/// failure, so the launch records it (the first since the last take, per
/// thread), returns, and the caller raises it once the function returns.
struct LaunchFailure {
  int Code = HPVM_OK;
  std::string Message;
};
/// The failure recorded on this thread since the last call, cleared.
LaunchFailure takeLaunchFailure();

} // namespace hpvm::python

#endif // HPVM_BINDINGS_PYTHON_CPROGRAM_H
