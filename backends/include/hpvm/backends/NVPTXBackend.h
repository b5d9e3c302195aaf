//===- NVPTXBackend.h - Compile HPVM leaves to PTX --------------*- C++ -*-===//
//
// The NVPTX backend (docs/backends.md "NVPTX backend") turns
// every leaf of a graph-form module that may run on nvptx into one PTX
// module with one `.entry`, through LLVM's own NVPTX target (triple
// nvptx64-nvidia-cuda). The launch interface (entry name, kernel
// parameters, id mapping, the flat and grid-mapped launch forms) is in
// NVPTXABI.h, which the runtime includes without LLVM.
//
// Math: what PTX has instructions for (sqrt, fabs, fmin/fmax, floor, ceil,
// trunc, rint, round, fma, copysign, ldexp, ...) is lowered natively, the C
// library's names for these included, so such kernels need nothing else.
// Every other math function (exp, log, pow, sin, tanh, ...) comes from
// NVIDIA's libdevice (libdevice.10.bc of the CUDA toolkit), linked into the
// kernels that call one, inlined and internalised, with __CUDA_FTZ = 0
// (denormals kept, as on the CPU). A kernel that needs libdevice where none
// is found is an error naming the function, the node and where the backend
// looked; nothing is left as an unresolved call for the driver to reject.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_NVPTXBACKEND_H
#define HPVM_BACKENDS_NVPTXBACKEND_H

#include "hpvm/abi/NVPTXABI.h"
#include "hpvm/backends/SkippedLeaf.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace hpvm {

struct NVPTXOptions {
  /// The GPU architecture: 80 = sm_80. Any SM LLVM's NVPTX target knows.
  unsigned SM = NVPTXDefaultSM;
  /// The PTX ISA version written in `.version`: 78 = 7.8. At least what the
  /// SM needs (e.g. 7.8 for sm_90), at most what LLVM 19 can write.
  unsigned PTXVersion = NVPTXDefaultPTXVersion;
  /// libdevice.10.bc; empty = search (libdeviceSearchPaths). Only read when
  /// a kernel calls a function that needs it.
  std::string LibdevicePath;
  /// When set, a leaf whose code PTX cannot express (a call of a function
  /// only the host has, ...) is left out and the reason appended here,
  /// instead of failing the whole build (ProgramOptions::SkipUnsupported).
  std::vector<SkippedLeaf> *Skipped = nullptr;
};

/// One leaf compiled to PTX.
struct NVPTXKernel {
  /// The node's path, "graph/child/leaf".
  std::string NodePath;
  /// The `.entry` (getNVPTXEntryName of the leaf function).
  std::string EntryName;
  /// The whole PTX module, text.
  std::string PTX;
  /// The block size the runtime launches with (nvptxBlockSize).
  std::array<uint32_t, 3> BlockSize = {1, 1, 1};
  /// Whether the kernel also has the grid-mapped launch form
  /// (nvptxHasGridForm).
  bool HasGridForm = false;
  /// Whether libdevice was linked in.
  bool UsesLibdevice = false;
  /// The node's work-group kernel (NVPTXABI.h, nvptxWorkGroups), beside
  /// the one every leaf has.
  bool WorkGroups = false;
};

/// Checks that LLVM's NVPTX target knows the SM and can write the PTX
/// version for it; the error says what is allowed.
llvm::Error checkNVPTXOptions(const NVPTXOptions &Opts);

/// "sm_90" or "90" -> 90.
llvm::Expected<unsigned> parseNVPTXSM(llvm::StringRef Text);
/// "80" or "8.0" -> 80.
llvm::Expected<unsigned> parsePTXVersion(llvm::StringRef Text);

/// Where libdevice.10.bc is looked for, in order: nvvm/libdevice/ under
/// $CUDA_PATH, $CUDA_HOME (when set), /usr/local/cuda, /usr/lib/cuda;
/// then /usr/lib/nvidia-cuda-toolkit/libdevice (Debian's package).
std::vector<std::string> libdeviceSearchPaths();

/// Opts.LibdevicePath if set (it must exist), else the first of Candidates
/// that exists. The error lists where it looked.
llvm::Expected<std::string> findLibdevice(
    const NVPTXOptions &Opts,
    const std::vector<std::string> &Candidates = libdeviceSearchPaths());

/// Compiles every leaf whose targets include nvptx, of every graph of
/// GraphForm, into one PTX module each (in graph order, parents before
/// children). A leaf function shared by several nodes is compiled once per
/// node. Fails on bad options or on the first leaf the backend cannot
/// compile, naming the node, the leaf function and the instruction (a call
/// to an external function, the intrinsic of another target, inline
/// assembly, a mutable global, a leaf with outputs, a math function that
/// needs a libdevice that is missing, ...). GraphForm is not changed.
llvm::Expected<std::vector<NVPTXKernel>>
buildNVPTXKernels(const llvm::Module &GraphForm, const NVPTXOptions &Opts);

} // namespace hpvm

#endif // HPVM_BACKENDS_NVPTXBACKEND_H
