//===- NVPTXMath.cpp - Math calls in their device form, and libdevice -----===//
//
// LLVM 19's NVPTX target lowers a math intrinsic only where PTX has an
// instruction for it (sqrt.rn, abs, min/max, cvt.rmi/rpi/rzi/rni, fma,
// copysign by bit operations, ldexp by scaling); for llvm.exp, llvm.sin
// and the like it either fails to select (an abort) or emits a call to a
// function no PTX module defines. C library calls stay calls to functions
// nothing defines on the device. So before code generation every math
// call gets a form the target can compile:
//
//  * C functions PTX has an instruction for become the LLVM intrinsic
//    (sqrtf -> llvm.sqrt.f32, fminf -> llvm.minnum.f32, ...): native, no
//    libdevice needed. Errno does not exist on the device.
//  * Every other C math function (expf, pow, tanh, ...) and every math
//    intrinsic the target cannot lower (llvm.exp, llvm.sin, llvm.powi, ...)
//    becomes a call to NVIDIA's libdevice (__nv_expf, __nv_pow, ...): its
//    functions are what CUDA's own math library is made of, with documented
//    error bounds, and are linked from the toolkit's libdevice.10.bc.
//    Half-precision calls are computed in float (libdevice has no half
//    functions), vector calls lane by lane.
//
//===----------------------------------------------------------------------===//
#include "NVPTXInternal.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace hpvm {

std::vector<std::string> libdeviceSearchPaths() {
  std::vector<std::string> Paths;
  auto Under = [&](StringRef Root) {
    SmallString<256> P(Root);
    sys::path::append(P, "nvvm", "libdevice", "libdevice.10.bc");
    Paths.push_back(P.str().str());
  };
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME"})
    if (std::optional<std::string> Root = sys::Process::GetEnv(Var))
      if (!Root->empty())
        Under(*Root);
  Under("/usr/local/cuda");
  Under("/usr/lib/cuda");
  // Debian's nvidia-cuda-toolkit keeps it outside any CUDA root.
  Paths.push_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  return Paths;
}

Expected<std::string>
findLibdevice(const NVPTXOptions &Opts,
              const std::vector<std::string> &Candidates) {
  if (!Opts.LibdevicePath.empty()) {
    if (sys::fs::is_regular_file(Opts.LibdevicePath))
      return Opts.LibdevicePath;
    return gpu::makeError("the libdevice named in the options, '" +
                          Opts.LibdevicePath + "', is not a file");
  }
  for (const std::string &P : Candidates)
    if (sys::fs::is_regular_file(P))
      return P;
  std::string Where;
  for (const std::string &P : Candidates)
    Where += (Where.empty() ? "" : ", ") + P;
  return gpu::makeError(
      "no libdevice was found (looked for " + Where +
      "; $CUDA_PATH and $CUDA_HOME name more places); install the CUDA "
      "toolkit or name the file (hpvm-clang --hpvm-nvptx-libdevice=<file>)");
}

namespace nvptx {
namespace {

/// The C math functions that PTX has an instruction for, and the intrinsic
/// each becomes. Names are the double versions; the float ones end in 'f'.
std::optional<Intrinsic::ID> nativeMathIntrinsic(StringRef Base) {
  return StringSwitch<std::optional<Intrinsic::ID>>(Base)
      .Case("sqrt", Intrinsic::sqrt)
      .Case("fabs", Intrinsic::fabs)
      .Case("fmin", Intrinsic::minnum)
      .Case("fmax", Intrinsic::maxnum)
      .Case("floor", Intrinsic::floor)
      .Case("ceil", Intrinsic::ceil)
      .Case("trunc", Intrinsic::trunc)
      .Case("rint", Intrinsic::rint)
      .Case("nearbyint", Intrinsic::nearbyint)
      .Case("round", Intrinsic::round)
      .Case("roundeven", Intrinsic::roundeven)
      .Case("fma", Intrinsic::fma)
      .Case("copysign", Intrinsic::copysign)
      .Case("ldexp", Intrinsic::ldexp)
      .Case("scalbn", Intrinsic::ldexp)
      .Default(std::nullopt);
}

/// The C (and GNU) math functions that come from libdevice, under the name
/// libdevice has them (without "__nv_"): C's long is 64 bits here, so
/// lround is libdevice's llround.
std::optional<StringRef> libdeviceMathName(StringRef Base) {
  return StringSwitch<std::optional<StringRef>>(Base)
      .Cases("acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", Base)
      .Cases("cbrt", "cos", "cosh", "erf", "erfc", "exp", "exp2", Base)
      .Cases("exp10", "expm1", "fdim", "fmod", "frexp", "hypot", Base)
      .Cases("ilogb", "j0", "j1", "jn", "lgamma", "llrint", "llround", Base)
      .Cases("log", "log10", "log1p", "log2", "logb", "modf", Base)
      .Cases("nextafter", "pow", "remainder", "remquo", "sin", "sincos", Base)
      .Cases("sinh", "tan", "tanh", "tgamma", "y0", "y1", "yn", Base)
      .Case("lrint", StringRef("llrint"))
      .Case("lround", StringRef("llround"))
      .Default(std::nullopt);
}

/// The libdevice name (without "__nv_" or the float suffix) of a math
/// intrinsic the NVPTX target cannot lower.
std::optional<StringRef> libdeviceIntrinsicName(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::exp:
    return "exp";
  case Intrinsic::exp2:
    return "exp2";
  case Intrinsic::exp10:
    return "exp10";
  case Intrinsic::log:
    return "log";
  case Intrinsic::log2:
    return "log2";
  case Intrinsic::log10:
    return "log10";
  case Intrinsic::pow:
    return "pow";
  case Intrinsic::powi:
    return "powi";
  case Intrinsic::sin:
    return "sin";
  case Intrinsic::cos:
    return "cos";
  case Intrinsic::tan:
    return "tan";
  case Intrinsic::asin:
    return "asin";
  case Intrinsic::acos:
    return "acos";
  case Intrinsic::atan:
    return "atan";
  case Intrinsic::sinh:
    return "sinh";
  case Intrinsic::cosh:
    return "cosh";
  case Intrinsic::tanh:
    return "tanh";
  case Intrinsic::lround:
  case Intrinsic::llround:
    return "llround";
  case Intrinsic::lrint:
  case Intrinsic::llrint:
    return "llrint";
  default:
    return std::nullopt;
  }
}

/// "expf" -> ("exp", float), "exp" -> ("exp", double), if the function's
/// type is the C one: float or double arguments and result of one type,
/// except an int exponent (ldexp, scalbn) or an int result (ilogb, l*round,
/// l*rint).
struct CMathName {
  StringRef Base;
  Type *FloatTy = nullptr;
};
std::optional<CMathName> splitCMathName(const Function &F) {
  StringRef Name = F.getName();
  FunctionType *Ty = F.getFunctionType();
  Type *FloatTy = nullptr;
  for (Type *T : Ty->params())
    if (T->isFloatTy() || T->isDoubleTy()) {
      FloatTy = T;
      break;
    }
  if (!FloatTy &&
      (Ty->getReturnType()->isFloatTy() || Ty->getReturnType()->isDoubleTy()))
    FloatTy = Ty->getReturnType();
  if (!FloatTy || Ty->isVarArg())
    return std::nullopt;
  if (FloatTy->isFloatTy()) {
    if (!Name.consume_back("f"))
      return std::nullopt;
  }
  return CMathName{Name, FloatTy};
}

Type *scalarFloatTy(Type *T) { return T->getScalarType(); }

/// Replaces Call (to an intrinsic or a C function, arguments Args) by a
/// call to __nv_<Name><f> computed in float or double; halves are
/// extended to float and back, vectors are done lane by lane. Returns the
/// new call of the first lane.
CallInst *callLibdevice(CallInst *Call, StringRef Name) {
  Module &M = *Call->getModule();
  IRBuilder<> B(Call);
  Type *RetTy = Call->getType();
  auto *VecTy = dyn_cast<FixedVectorType>(RetTy);
  if (!VecTy)
    for (Value *A : Call->args())
      if ((VecTy = dyn_cast<FixedVectorType>(A->getType())))
        break;
  unsigned Lanes = VecTy ? VecTy->getNumElements() : 1;

  // The precision: float unless some operand or the result is a double.
  bool Double = false;
  for (Value *A : Call->args())
    Double |= scalarFloatTy(A->getType())->isDoubleTy();
  Double |= scalarFloatTy(RetTy)->isDoubleTy();
  Type *FT = Double ? B.getDoubleTy() : B.getFloatTy();

  auto Widen = [&](Value *V) -> Value * {
    Type *T = V->getType();
    if (T->isFloatingPointTy() && T != FT)
      return B.CreateFPExt(V, FT);
    return V;
  };
  auto Narrow = [&](Value *V, Type *To) -> Value * {
    if (V->getType() == To)
      return V;
    if (To->isFloatingPointTy())
      return B.CreateFPTrunc(V, To);
    return B.CreateSExtOrTrunc(V, To);
  };

  std::string Callee = ("__nv_" + Name + (Double ? "" : "f")).str();
  CallInst *First = nullptr;
  Value *Result = VecTy ? PoisonValue::get(RetTy) : nullptr;
  for (unsigned L = 0; L < Lanes; ++L) {
    SmallVector<Value *, 3> Args;
    SmallVector<Type *, 3> ArgTys;
    for (Value *A : Call->args()) {
      Value *V = A->getType()->isVectorTy() ? B.CreateExtractElement(A, L) : A;
      V = Widen(V);
      Args.push_back(V);
      ArgTys.push_back(V->getType());
    }
    Type *LaneRet = VecTy ? cast<VectorType>(RetTy)->getElementType() : RetTy;
    Type *CallRet = LaneRet->isFloatingPointTy() ? FT : LaneRet;
    if (LaneRet->isIntegerTy())
      CallRet = B.getInt64Ty(); // llround, llrint
    FunctionCallee F = M.getOrInsertFunction(
        Callee, FunctionType::get(CallRet, ArgTys, false));
    CallInst *C = B.CreateCall(F, Args);
    if (!First)
      First = C;
    Value *V = Narrow(C, LaneRet);
    Result = VecTy ? B.CreateInsertElement(Result, V, L) : V;
  }
  if (!RetTy->isVoidTy()) {
    Result->takeName(Call);
    Call->replaceAllUsesWith(Result);
  }
  Call->eraseFromParent();
  return First;
}

} // namespace

Expected<MathUse> mapMathCalls(Function &F, const Node &N) {
  MathUse Use;
  SmallVector<CallInst *, 16> Calls;
  for (Instruction &I : instructions(F))
    if (auto *C = dyn_cast<CallInst>(&I))
      if (Function *Callee = C->getCalledFunction();
          Callee && Callee->isDeclaration())
        Calls.push_back(C);
  auto Record = [&](CallInst *Mapped, StringRef Was) {
    Use.Calls.push_back({Mapped, Was.str()});
  };
  for (CallInst *Call : Calls) {
    Function *Callee = Call->getCalledFunction();
    if (Callee->isIntrinsic()) {
      Intrinsic::ID ID = Callee->getIntrinsicID();
      if (ID == Intrinsic::canonicalize || ID == Intrinsic::frexp)
        return unsupported(N, Call,
                           "the intrinsic '@" + Callee->getName() +
                               "' (LLVM's NVPTX target has no lowering for "
                               "it)");
      std::optional<StringRef> Name = libdeviceIntrinsicName(ID);
      if (!Name)
        continue;
      Type *FT = scalarFloatTy(Call->getArgOperand(0)->getType());
      if (!FT->isHalfTy() && !FT->isFloatTy() && !FT->isDoubleTy())
        return unsupported(N, Call,
                           "the intrinsic '@" + Callee->getName() +
                               "' on a type libdevice has no function for");
      std::string Was = Callee->getName().str();
      Record(callLibdevice(Call, *Name), Was);
      continue;
    }
    std::optional<CMathName> C = splitCMathName(*Callee);
    if (!C)
      continue;
    if (std::optional<Intrinsic::ID> ID = nativeMathIntrinsic(C->Base)) {
      // Only with the C signature: the intrinsic's is the same.
      FunctionType *Ty = Callee->getFunctionType();
      bool IntExponent = *ID == Intrinsic::ldexp;
      unsigned Arity =
          StringSwitch<unsigned>(C->Base)
              .Cases("fmin", "fmax", "copysign", "ldexp", "scalbn", 2)
              .Case("fma", 3)
              .Default(1);
      bool Matches =
          Ty->getReturnType() == C->FloatTy && Ty->getNumParams() == Arity;
      for (unsigned I = 0; Matches && I < Arity; ++I)
        Matches = IntExponent && I == 1 ? Ty->getParamType(I)->isIntegerTy(32)
                                        : Ty->getParamType(I) == C->FloatTy;
      if (!Matches)
        continue;
      IRBuilder<> B(Call);
      SmallVector<Value *, 3> Args(Call->args());
      SmallVector<Type *, 2> Overloads{C->FloatTy};
      if (IntExponent)
        Overloads.push_back(B.getInt32Ty());
      Function *Intr =
          Intrinsic::getDeclaration(Call->getModule(), *ID, Overloads);
      CallInst *New = B.CreateCall(Intr, Args);
      New->takeName(Call);
      New->setDebugLoc(Call->getDebugLoc());
      Call->replaceAllUsesWith(New);
      Call->eraseFromParent();
      continue;
    }
    if (std::optional<StringRef> Name = libdeviceMathName(C->Base)) {
      // The C signature is libdevice's (checked against the definition
      // when it is linked), so the call keeps its arguments.
      std::string Was = Callee->getName().str();
      IRBuilder<> B(Call);
      std::string Target =
          ("__nv_" + *Name + (C->FloatTy->isFloatTy() ? "f" : "")).str();
      FunctionCallee NV = Call->getModule()->getOrInsertFunction(
          Target, Callee->getFunctionType());
      SmallVector<Value *, 3> Args(Call->args());
      CallInst *New = B.CreateCall(NV, Args);
      New->takeName(Call);
      New->setDebugLoc(Call->getDebugLoc());
      Call->replaceAllUsesWith(New);
      Call->eraseFromParent();
      Record(New, Was);
    }
  }
  return Use;
}

Expected<std::unique_ptr<Module>> loadLibdevice(StringRef Path,
                                                const Module &Into) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return gpu::makeError("cannot read libdevice '" + Path +
                          "': " + Buffer.getError().message());
  auto Lib = parseBitcodeFile((*Buffer)->getMemBufferRef(), Into.getContext());
  if (!Lib)
    return gpu::makeError("cannot read libdevice '" + Path +
                          "': " + toString(Lib.takeError()));
  // Its triple (nvptx64-nvidia-gpulibs) and older data layout are the same
  // target's; the linker would only warn about the difference.
  (*Lib)->setTargetTriple(Into.getTargetTriple());
  (*Lib)->setDataLayout(Into.getDataLayout());
  return std::move(*Lib);
}

std::string libdeviceProblem(const Module &Lib, const Function &Decl) {
  const Function *Def = Lib.getFunction(Decl.getName());
  if (!Def || Def->isDeclaration())
    return "libdevice has no '" + Decl.getName().str() + "'";
  if (Def->getFunctionType() == Decl.getFunctionType())
    return "";
  std::string Want, Has;
  raw_string_ostream WOS(Want), HOS(Has);
  Decl.getFunctionType()->print(WOS);
  Def->getFunctionType()->print(HOS);
  return "libdevice's '" + Decl.getName().str() + "' has type " + HOS.str() +
         ", but the call needs " + WOS.str();
}

Error linkLibdevice(Module &M, std::unique_ptr<Module> Lib) {
  std::string Name = Lib->getModuleIdentifier();
  if (Linker::linkModules(M, std::move(Lib), Linker::LinkOnlyNeeded))
    return gpu::makeError("cannot link libdevice '" + Name + "'");
  return Error::success();
}

} // namespace nvptx
} // namespace hpvm
