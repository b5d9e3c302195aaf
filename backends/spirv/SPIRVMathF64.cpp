//===- SPIRVMathF64.cpp - Double-precision math for Vulkan kernels --------===//
//
// GLSL.std.450, Vulkan's math instruction set, has exp, log, sin, cos, pow
// and their kin for 16- and 32-bit floats only. A Vulkan kernel that calls
// the double-precision ones calls our own implementations instead
// (math/f64.c: freestanding C compiled to LLVM IR when HPVM is built, and
// embedded here as text), which the kernel then inlines like any other
// function of its leaf. The OpenCL flavour keeps OpenCL.std, which has them.
//
//===----------------------------------------------------------------------===//
#include "SPIRVInternal.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace hpvm::spirv {
namespace {

#include "F64MathIR.inc" // const char F64MathIR[]: math/f64.c as LLVM IR

/// The library function a double-precision call becomes, by the libm name
/// or intrinsic it calls; "" for none.
StringRef libraryFunction(const CallInst &CI) {
  const Function *Callee = CI.getCalledFunction();
  if (!Callee || !CI.getType()->isDoubleTy())
    return "";
  for (const Use &Arg : CI.args())
    if (!Arg->getType()->isDoubleTy() &&
        !(Callee->getIntrinsicID() == Intrinsic::powi && Arg.getOperandNo()))
      return "";
  switch (Callee->getIntrinsicID()) {
  case Intrinsic::exp:
    return "__hpvm_f64_exp";
  case Intrinsic::exp2:
    return "__hpvm_f64_exp2";
  case Intrinsic::exp10:
    return "__hpvm_f64_exp10";
  case Intrinsic::log:
    return "__hpvm_f64_log";
  case Intrinsic::log2:
    return "__hpvm_f64_log2";
  case Intrinsic::log10:
    return "__hpvm_f64_log10";
  case Intrinsic::sin:
    return "__hpvm_f64_sin";
  case Intrinsic::cos:
    return "__hpvm_f64_cos";
  case Intrinsic::tan:
    return "__hpvm_f64_tan";
  case Intrinsic::pow:
  case Intrinsic::powi:
    return "__hpvm_f64_pow";
  case Intrinsic::not_intrinsic:
    break;
  default:
    return "";
  }
  if (!Callee->isDeclaration())
    return "";
  static const StringMap<StringRef> ByName = {
      {"exp", "__hpvm_f64_exp"},     {"exp2", "__hpvm_f64_exp2"},
      {"exp10", "__hpvm_f64_exp10"}, {"log", "__hpvm_f64_log"},
      {"log2", "__hpvm_f64_log2"},   {"log10", "__hpvm_f64_log10"},
      {"sin", "__hpvm_f64_sin"},     {"cos", "__hpvm_f64_cos"},
      {"tan", "__hpvm_f64_tan"},     {"pow", "__hpvm_f64_pow"}};
  auto It = ByName.find(Callee->getName());
  return It == ByName.end() ? StringRef() : It->second;
}

} // namespace

Error linkF64Math(Module &M) {
  SmallVector<std::pair<CallInst *, StringRef>, 8> Calls;
  for (Function &F : M)
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CI = dyn_cast<CallInst>(&I))
          if (StringRef Name = libraryFunction(*CI); !Name.empty())
            Calls.push_back({CI, Name});
  if (Calls.empty())
    return Error::success();

  for (auto [CI, Name] : Calls) {
    IRBuilder<> B(CI);
    SmallVector<Value *, 2> Args(CI->args());
    if (Args.size() == 2 && !Args[1]->getType()->isDoubleTy())
      Args[1] = B.CreateSIToFP(Args[1], B.getDoubleTy()); // powi's exponent
    SmallVector<Type *, 2> Params(Args.size(), B.getDoubleTy());
    FunctionCallee Impl = M.getOrInsertFunction(
        Name, FunctionType::get(B.getDoubleTy(), Params, false));
    CallInst *New = B.CreateCall(Impl, Args);
    New->takeName(CI);
    CI->replaceAllUsesWith(New);
    CI->eraseFromParent();
  }

  SMDiagnostic Err;
  std::unique_ptr<Module> Library =
      parseAssemblyString(F64MathIR, Err, M.getContext());
  if (!Library)
    return makeError("internal error: the double-precision math library does "
                     "not parse: " +
                     Err.getMessage());
  Library->setTargetTriple(M.getTargetTriple());
  Library->setDataLayout(M.getDataLayout());
  for (Function &F : *Library) {
    // Compiled for the build machine: its processor's features mean nothing
    // on the device.
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
    F.removeFnAttr("tune-cpu");
  }
  // Only the functions the kernels call come over.
  if (Linker::linkModules(M, std::move(Library), Linker::LinkOnlyNeeded))
    return makeError("internal error: cannot link the double-precision math "
                     "library");
  for (auto [CI, Name] : Calls)
    if (Function *Impl = M.getFunction(Name))
      Impl->setLinkage(GlobalValue::InternalLinkage);
  return Error::success();
}

} // namespace hpvm::spirv
