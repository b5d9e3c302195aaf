//===- CPUBackend.h - Compile HPVM leaves for the host CPU ------*- C++ -*-===//
//
// The CPU backend (docs/backends.md "CPU backend") turns every
// leaf of a graph-form module that may run on the cpu into a kernel with the
// runtime's hpvm_cpu_kernel_fn ABI (abi/include/hpvm/rt/hpvm_rt.h):
//
//   void @hpvm.cpu.<path>(ptr args, ptr outs, ptr dims, ptr outer_ids,
//                         i64 begin, i64 end)
//
// The wrapper loads the parameters from args, loops over the instances whose
// first id lies in [begin, end) and over every value of the other ids, runs
// the inlined leaf body for each, and is optimised at O3 for the host (or a
// named) CPU with the instance loop marked parallel so that it vectorises.
// The runtime cuts a node's first dim into chunks and calls the wrapper on a
// thread pool; the wrapper itself is sequential.
//
// What the wrapper assumes of its caller (beyond the ABI's own text):
//  * every extent is below 2^63 (instance ids are i64 in the IR);
//  * dims[] holds the node's extents, which are constants or parameters of
//    the node; the wrapper reads them from there (args), not from dims[], so
//    that constant extents give constant trip counts and the leaf's own bound
//    checks fold away. [begin, end) is clamped to [0, extent0);
//  * outer_ids is valid whenever the leaf reads an ancestor's id and the
//    range is not empty.
// Buffer pointers get no `noalias`: nothing (the graph or the runtime)
// guarantees that two buffer parameters are distinct allocations, and the
// parallel-loop metadata already spares the vectoriser its run-time alias
// checks.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_CPUBACKEND_H
#define HPVM_BACKENDS_CPUBACKEND_H

#include "hpvm/rt/hpvm_rt.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
class raw_pwrite_stream;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace hpvm {

/// Which machine the kernels are compiled for, and how hard.
struct CPUOptions {
  /// Target triple; empty = the triple of this process.
  std::string Triple;
  /// Processor as for llc's -mcpu ("haswell", "skylake-avx512"); empty or
  /// "native" = the host's processor and its detected features.
  std::string CPU;
  /// Extra features as for llc's -mattr ("+avx2,-avx512f"), applied after
  /// the processor's own (or the host's detected ones).
  std::string Features;
  /// 0-3: the optimisation pipeline (buildPerModuleDefaultPipeline) and the
  /// code generator's level. Vectorisation needs 2 or more.
  unsigned OptLevel = 3;
  /// Widest vector the vectorisers should prefer, in bits; 0 = 512 on
  /// processors that run 512-bit vectors without a frequency penalty worth
  /// avoiding (fullSpeedAVX512), otherwise the processor's tuning (256 for
  /// skylake-avx512, whose 512-bit vectors lower the clock).
  unsigned PreferVectorWidth = 0;
};

/// The wrappers' name prefix: "hpvm.cpu." + the leaf function's name
/// without its "hpvm.node." prefix.
constexpr const char *CPUWrapperPrefix = "hpvm.cpu.";
std::string getCPUWrapperName(llvm::StringRef LeafFunctionName);

/// The name of a wrapper's streaming-store variant: the wrapper's name +
/// ".stream". buildCPUKernels makes one, at O2 and up on x86-64, for a leaf
/// that only stores to some buffer (`out(dst[...])`), when its vector
/// stores to that buffer could be made non-temporal; the same ABI and
/// results as the wrapper, for launches whose data does not fit in the
/// cache (docs/backends.md, "Streaming stores"). The program lists it as a
/// second cpu artifact whose entry is HPVM_CPU_STREAMING_ENTRY.
std::string getCPUStreamingVariantName(llvm::StringRef LeafFunctionName);

/// Compiles every leaf whose targets include cpu, of every graph of
/// GraphForm, into a new module (in GraphForm's context) holding only the
/// wrappers (external) and what they need (internal copies of the helpers
/// and constant globals they use; declarations of external functions and
/// mutable external globals, which link against the host program). The
/// module is optimised and has the target's triple and data layout. Leaves
/// that call external functions are allowed: the call stays and is resolved
/// when the kernel is linked or JIT-ed. Fails, naming the node, on input the
/// backend cannot compile (a replicated leaf with outputs, a leaf function
/// missing or of the wrong type, a bad instance-id call, ...) or on bad
/// options. GraphForm is not changed.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildCPUKernels(const llvm::Module &GraphForm, const CPUOptions &Opts);

/// A TargetMachine for Opts (PIC, so that objects link into executables and
/// shared libraries alike). Fails on an unknown triple, CPU or feature.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createCPUTargetMachine(const CPUOptions &Opts);

/// Writes M (a module from buildCPUKernels, built with the same options) as
/// an object file for ahead-of-time linking. Code generation changes M
/// (CodeGenPrepare rewrites it in place). Fails if M is for another
/// architecture.
llvm::Error emitObjectFile(llvm::Module &M, const CPUOptions &Opts,
                           llvm::raw_pwrite_stream &OS);
/// The same as assembly text, to read what the vectoriser made.
llvm::Error emitAssemblyFile(llvm::Module &M, const CPUOptions &Opts,
                             llvm::raw_pwrite_stream &OS);

/// In-process compilation of kernel modules (ORC LLJIT), for the Python
/// binding. Modules are compiled to object code with the same code generator
/// as emitObjectFile and linked into the process; external functions resolve
/// against the process's symbols. Thread-safe.
class CPUJIT {
public:
  static llvm::Expected<std::unique_ptr<CPUJIT>> create(const CPUOptions &Opts);
  ~CPUJIT();
  CPUJIT(const CPUJIT &) = delete;
  CPUJIT &operator=(const CPUJIT &) = delete;

  /// Adds a module from buildCPUKernels (built with the same options), or,
  /// with Optimise, any other module, which first goes through the
  /// optimisation pipeline at the options' level (host code). The module is
  /// compiled at once and may be destroyed afterwards; symbols already
  /// defined by an earlier module are an error. ObjectOut, if given,
  /// receives a copy of the object code.
  llvm::Error addModule(std::unique_ptr<llvm::Module> M, bool Optimise = false,
                        std::string *ObjectOut = nullptr);
  /// Adds object code that addModule wrote to ObjectOut, in this process or
  /// an earlier one with the same options and host (a cache of compiled
  /// programs); Name is for messages.
  llvm::Error addObject(llvm::StringRef Object, llvm::StringRef Name);

  /// The wrapper called WrapperName (see getCPUWrapperName). Fails if no
  /// module added defines it or if it refers to a symbol that cannot be
  /// resolved.
  llvm::Expected<hpvm_cpu_kernel_fn> lookup(llvm::StringRef WrapperName);
  /// The address of any symbol an added module defines, likewise.
  llvm::Expected<void *> lookupSymbol(llvm::StringRef Name);

  /// Makes Name resolve to Address in modules added later: functions of
  /// the caller that the process's symbol table does not show (a shared
  /// library's hidden ones, such as hpvm-rt's inside the Python module).
  llvm::Error
  defineSymbols(llvm::ArrayRef<std::pair<llvm::StringRef, void *>> Symbols);

private:
  struct Impl;
  explicit CPUJIT(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace hpvm

#endif // HPVM_BACKENDS_CPUBACKEND_H
