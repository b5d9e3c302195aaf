//===- NVPTXInternal.h - Shared pieces of the NVPTX backend -----*- C++ -*-===//
//
// The backend works in four steps:
//  1. NVPTXKernels.cpp builds every kernel function in one copy of the
//     module (LeafKernel.h: the leaf inlined, ids from the thread and block
//     ids), checks what each kernel reaches and maps its math calls
//     (NVPTXMath.cpp);
//  2. NVPTXMath.cpp links libdevice into that copy when some kernel needs
//     it;
//  3. NVPTXKernels.cpp copies each kernel with what it uses into a module
//     of its own, marks it as a kernel and internalises the rest;
//  4. NVPTXTarget.cpp optimises that module for the SM and writes its PTX.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_NVPTX_NVPTXINTERNAL_H
#define HPVM_BACKENDS_NVPTX_NVPTXINTERNAL_H

#include "hpvm/backends/LeafKernel.h"
#include "hpvm/backends/NVPTXBackend.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class CallInst;
class Function;
class Instruction;
class Module;
class TargetMachine;
} // namespace llvm

namespace hpvm::nvptx {

/// The target triple of every kernel module.
constexpr const char *TargetTriple = "nvptx64-nvidia-cuda";

/// "node 'p' (leaf function '@f'): the nvptx backend cannot compile ..."
llvm::Error unsupported(const Node &N, const llvm::Instruction *At,
                        const llvm::Twine &What);

/// A TargetMachine for sm_<SM> writing PTX <PTXVersion> (options checked).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const NVPTXOptions &Opts);

/// Optimises a kernel module (InferAddressSpaces, then LLVM's O3 pipeline
/// for TM, which includes NVVMReflect) and writes its PTX. Errors the code
/// generator reports through the context come back as an Error.
llvm::Expected<std::string> optimiseAndEmitPTX(llvm::Module &M,
                                               llvm::TargetMachine &TM);

/// A call mapped to libdevice, and what it called before (e.g. "expf",
/// "llvm.exp.f32"), for diagnostics.
struct LibdeviceCall {
  llvm::CallInst *Call = nullptr;
  std::string Was;
};

/// How the math calls of one function were mapped.
struct MathUse {
  /// The calls now to a libdevice function (a declaration in the module).
  llvm::SmallVector<LibdeviceCall, 4> Calls;
};

/// Gives every math call in F its device form: a C library function PTX
/// has an instruction for becomes the LLVM intrinsic (sqrtf ->
/// llvm.sqrt.f32), which the NVPTX target lowers natively; every other C
/// math function, and every math intrinsic the target cannot lower
/// (llvm.exp, llvm.sin, ...), becomes a call to libdevice's __nv_<name>
/// (half in float, vectors lane by lane), declared in F's module. N names
/// the node in errors: an intrinsic that has no lowering at all.
llvm::Expected<MathUse> mapMathCalls(llvm::Function &F, const Node &N);

/// Reads libdevice.10.bc into Into's context, with Into's triple and data
/// layout (its own are an older spelling of the same target's).
llvm::Expected<std::unique_ptr<llvm::Module>>
loadLibdevice(llvm::StringRef Path, const llvm::Module &Into);

/// Why Lib cannot define Decl (a __nv_ declaration mapMathCalls made): ""
/// if it can.
std::string libdeviceProblem(const llvm::Module &Lib,
                             const llvm::Function &Decl);

/// Links the functions of Lib that M declares into M.
llvm::Error linkLibdevice(llvm::Module &M, std::unique_ptr<llvm::Module> Lib);

} // namespace hpvm::nvptx

#endif // HPVM_BACKENDS_NVPTX_NVPTXINTERNAL_H
