//===- SPIRVEmitter.cpp - A prepared kernel function as SPIR-V ------------===//
//
// One pass over the blocks in dominance order, one LLVM instruction at a
// time. How LLVM's values map:
//
//  * integers of 8-64 bits, half, float, double: the same SPIR-V types
//    (integers without signedness; the operations carry it); i1: OpTypeBool
//    (a byte in memory);
//  * pointers into buffers: 64-bit integers. A getelementptr is integer
//    arithmetic, a load or store converts the address with OpConvertUToPtr
//    to a PhysicalStorageBuffer (Vulkan) or CrossWorkgroup (OpenCL) pointer
//    of the accessed type, with the Aligned memory operand. This keeps
//    LLVM's untyped byte-offset pointers exact without typed access chains;
//  * pointers into private arrays (allocas the optimiser could not turn into
//    values) and constant tables (constant globals): the array (one SPIR-V
//    variable whose element is the one scalar type the code accesses it
//    with) plus a byte offset; a load or store indexes the array with
//    offset / element size. Such pointers may not escape (be stored, passed
//    or converted to integers) nor mix arrays in a phi;
//  * the kernel's parameters: push-constant slots (Vulkan) or kernel
//    arguments (OpenCL), see SPIRVABI.h;
//  * math calls (llvm intrinsics and libm names): GLSL.std.450 or
//    OpenCL.std; what has no exact counterpart (C round, log10, copysign, bit
//    counts on widths Vulkan lacks) is composed from what exists.
//
// Anything else is reported as unsupported, naming the instruction.
//
//===----------------------------------------------------------------------===//
#include "SPIRVInternal.h"
#include "SPIRVModuleBuilder.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphMetadata.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/MathExtras.h"

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/OpenCL.std.h>

#include <memory>

using namespace llvm;

namespace hpvm::spirv {
namespace {

/// Math the emitter knows, from an intrinsic or a libm name.
enum class MathOp {
  None,
  Sqrt,
  FAbs,
  Floor,
  Ceil,
  Trunc,
  Round,
  RoundEven,
  FMin,
  FMax,
  Pow,
  Exp,
  Exp2,
  Exp10,
  Log,
  Log2,
  Log10,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Atan2,
  Sinh,
  Cosh,
  Tanh,
  Asinh,
  Acosh,
  Atanh,
  Fma,
  FMod,
  Copysign,
  Cbrt,
  Hypot,
  Ldexp,
  SMin,
  SMax,
  UMin,
  UMax,
  Abs,
  CtPop,
  Ctlz,
  Cttz,
  BitReverse,
};

MathOp libmOp(StringRef Base) {
  return StringSwitch<MathOp>(Base)
      .Case("sqrt", MathOp::Sqrt)
      .Case("fabs", MathOp::FAbs)
      .Case("floor", MathOp::Floor)
      .Case("ceil", MathOp::Ceil)
      .Case("trunc", MathOp::Trunc)
      .Case("round", MathOp::Round)
      .Case("roundeven", MathOp::RoundEven)
      .Case("rint", MathOp::RoundEven)
      .Case("nearbyint", MathOp::RoundEven)
      .Case("fmin", MathOp::FMin)
      .Case("fmax", MathOp::FMax)
      .Case("pow", MathOp::Pow)
      .Case("exp", MathOp::Exp)
      .Case("exp2", MathOp::Exp2)
      .Case("exp10", MathOp::Exp10)
      .Case("log", MathOp::Log)
      .Case("log2", MathOp::Log2)
      .Case("log10", MathOp::Log10)
      .Case("sin", MathOp::Sin)
      .Case("cos", MathOp::Cos)
      .Case("tan", MathOp::Tan)
      .Case("asin", MathOp::Asin)
      .Case("acos", MathOp::Acos)
      .Case("atan", MathOp::Atan)
      .Case("atan2", MathOp::Atan2)
      .Case("sinh", MathOp::Sinh)
      .Case("cosh", MathOp::Cosh)
      .Case("tanh", MathOp::Tanh)
      .Case("asinh", MathOp::Asinh)
      .Case("acosh", MathOp::Acosh)
      .Case("atanh", MathOp::Atanh)
      .Case("fma", MathOp::Fma)
      .Case("fmod", MathOp::FMod)
      .Case("copysign", MathOp::Copysign)
      .Case("cbrt", MathOp::Cbrt)
      .Case("hypot", MathOp::Hypot)
      .Case("ldexp", MathOp::Ldexp)
      .Default(MathOp::None);
}

MathOp intrinsicOp(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::sqrt:
    return MathOp::Sqrt;
  case Intrinsic::fabs:
    return MathOp::FAbs;
  case Intrinsic::floor:
    return MathOp::Floor;
  case Intrinsic::ceil:
    return MathOp::Ceil;
  case Intrinsic::trunc:
    return MathOp::Trunc;
  case Intrinsic::round:
    return MathOp::Round;
  case Intrinsic::roundeven:
  case Intrinsic::rint:
  case Intrinsic::nearbyint:
    return MathOp::RoundEven;
  case Intrinsic::minnum:
  case Intrinsic::minimum:
    return MathOp::FMin;
  case Intrinsic::maxnum:
  case Intrinsic::maximum:
    return MathOp::FMax;
  case Intrinsic::pow:
    return MathOp::Pow;
  case Intrinsic::exp:
    return MathOp::Exp;
  case Intrinsic::exp2:
    return MathOp::Exp2;
  case Intrinsic::exp10:
    return MathOp::Exp10;
  case Intrinsic::log:
    return MathOp::Log;
  case Intrinsic::log2:
    return MathOp::Log2;
  case Intrinsic::log10:
    return MathOp::Log10;
  case Intrinsic::sin:
    return MathOp::Sin;
  case Intrinsic::cos:
    return MathOp::Cos;
  case Intrinsic::tan:
    return MathOp::Tan;
  case Intrinsic::fma:
  case Intrinsic::fmuladd:
    return MathOp::Fma;
  case Intrinsic::copysign:
    return MathOp::Copysign;
  case Intrinsic::ldexp:
    return MathOp::Ldexp;
  case Intrinsic::smin:
    return MathOp::SMin;
  case Intrinsic::smax:
    return MathOp::SMax;
  case Intrinsic::umin:
    return MathOp::UMin;
  case Intrinsic::umax:
    return MathOp::UMax;
  case Intrinsic::abs:
    return MathOp::Abs;
  case Intrinsic::ctpop:
    return MathOp::CtPop;
  case Intrinsic::ctlz:
    return MathOp::Ctlz;
  case Intrinsic::cttz:
    return MathOp::Cttz;
  case Intrinsic::bitreverse:
    return MathOp::BitReverse;
  default:
    return MathOp::None;
  }
}

/// The math a call computes: an intrinsic, or a libm function (sqrtf for
/// float, sqrt for double) whose arguments and result have that type.
MathOp classifyMath(const CallInst &CI) {
  const Function *Callee = CI.getCalledFunction();
  if (!Callee)
    return MathOp::None;
  if (Callee->isIntrinsic())
    return intrinsicOp(Callee->getIntrinsicID());
  if (!Callee->isDeclaration())
    return MathOp::None;
  StringRef Name = Callee->getName();
  Type *T = CI.getType();
  if (T->isIntegerTy() && (Name == "abs" || Name == "labs" || Name == "llabs"))
    return CI.arg_size() == 1 && CI.getArgOperand(0)->getType() == T
               ? MathOp::Abs
               : MathOp::None;
  if (!T->isFloatTy() && !T->isDoubleTy())
    return MathOp::None;
  StringRef Base = Name;
  if (T->isFloatTy() && !Base.consume_back("f"))
    return MathOp::None;
  MathOp Op = libmOp(Base);
  if (Op == MathOp::None)
    return Op;
  for (auto [K, Arg] : enumerate(CI.args())) {
    bool IntExponent = Op == MathOp::Ldexp && K == 1;
    if (IntExponent ? !Arg->getType()->isIntegerTy(32) : Arg->getType() != T)
      return MathOp::None;
  }
  return Op;
}

const char *mathName(MathOp Op) {
  switch (Op) {
  case MathOp::Pow:
    return "pow";
  case MathOp::Exp:
    return "exp";
  case MathOp::Exp2:
    return "exp2";
  case MathOp::Exp10:
    return "exp10";
  case MathOp::Log:
    return "log";
  case MathOp::Log2:
    return "log2";
  case MathOp::Log10:
    return "log10";
  case MathOp::Sin:
    return "sin";
  case MathOp::Cos:
    return "cos";
  case MathOp::Tan:
    return "tan";
  case MathOp::Asin:
    return "asin";
  case MathOp::Acos:
    return "acos";
  case MathOp::Atan:
    return "atan";
  case MathOp::Atan2:
    return "atan2";
  case MathOp::Sinh:
    return "sinh";
  case MathOp::Cosh:
    return "cosh";
  case MathOp::Tanh:
    return "tanh";
  case MathOp::Asinh:
    return "asinh";
  case MathOp::Acosh:
    return "acosh";
  case MathOp::Atanh:
    return "atanh";
  case MathOp::Cbrt:
    return "cbrt";
  case MathOp::Hypot:
    return "hypot";
  case MathOp::BitReverse:
    return "bitreverse";
  default:
    return "this math function";
  }
}

/// GLSL.std.450 instructions defined for 16- and 32-bit floats only.
unsigned glslFloat32Only(MathOp Op) {
  switch (Op) {
  case MathOp::Pow:
    return GLSLstd450Pow;
  case MathOp::Exp:
    return GLSLstd450Exp;
  case MathOp::Exp2:
    return GLSLstd450Exp2;
  case MathOp::Log:
    return GLSLstd450Log;
  case MathOp::Log2:
    return GLSLstd450Log2;
  case MathOp::Sin:
    return GLSLstd450Sin;
  case MathOp::Cos:
    return GLSLstd450Cos;
  case MathOp::Tan:
    return GLSLstd450Tan;
  case MathOp::Asin:
    return GLSLstd450Asin;
  case MathOp::Acos:
    return GLSLstd450Acos;
  case MathOp::Atan:
    return GLSLstd450Atan;
  case MathOp::Atan2:
    return GLSLstd450Atan2;
  case MathOp::Sinh:
    return GLSLstd450Sinh;
  case MathOp::Cosh:
    return GLSLstd450Cosh;
  case MathOp::Tanh:
    return GLSLstd450Tanh;
  case MathOp::Asinh:
    return GLSLstd450Asinh;
  case MathOp::Acosh:
    return GLSLstd450Acosh;
  case MathOp::Atanh:
    return GLSLstd450Atanh;
  default:
    return 0;
  }
}

/// GLSL.std.450 instructions for every float or integer width.
unsigned glslAnyWidth(MathOp Op) {
  switch (Op) {
  case MathOp::Sqrt:
    return GLSLstd450Sqrt;
  case MathOp::FAbs:
    return GLSLstd450FAbs;
  case MathOp::Floor:
    return GLSLstd450Floor;
  case MathOp::Ceil:
    return GLSLstd450Ceil;
  case MathOp::Trunc:
    return GLSLstd450Trunc;
  case MathOp::RoundEven:
    return GLSLstd450RoundEven;
  // NMin/NMax return the other operand for a NaN, as C's fmin/fmax and
  // llvm.minnum do; FMin/FMax leave that undefined.
  case MathOp::FMin:
    return GLSLstd450NMin;
  case MathOp::FMax:
    return GLSLstd450NMax;
  case MathOp::Fma:
    return GLSLstd450Fma;
  case MathOp::Ldexp:
    return GLSLstd450Ldexp;
  case MathOp::SMin:
    return GLSLstd450SMin;
  case MathOp::SMax:
    return GLSLstd450SMax;
  case MathOp::UMin:
    return GLSLstd450UMin;
  case MathOp::UMax:
    return GLSLstd450UMax;
  case MathOp::Abs:
    return GLSLstd450SAbs;
  default:
    return 0;
  }
}

unsigned openCLOp(MathOp Op) {
  switch (Op) {
  case MathOp::Sqrt:
    return OpenCLLIB::Sqrt;
  case MathOp::FAbs:
    return OpenCLLIB::Fabs;
  case MathOp::Floor:
    return OpenCLLIB::Floor;
  case MathOp::Ceil:
    return OpenCLLIB::Ceil;
  case MathOp::Trunc:
    return OpenCLLIB::Trunc;
  case MathOp::Round:
    return OpenCLLIB::Round;
  case MathOp::RoundEven:
    return OpenCLLIB::Rint;
  case MathOp::FMin:
    return OpenCLLIB::Fmin;
  case MathOp::FMax:
    return OpenCLLIB::Fmax;
  case MathOp::Pow:
    return OpenCLLIB::Pow;
  case MathOp::Exp:
    return OpenCLLIB::Exp;
  case MathOp::Exp2:
    return OpenCLLIB::Exp2;
  case MathOp::Exp10:
    return OpenCLLIB::Exp10;
  case MathOp::Log:
    return OpenCLLIB::Log;
  case MathOp::Log2:
    return OpenCLLIB::Log2;
  case MathOp::Log10:
    return OpenCLLIB::Log10;
  case MathOp::Sin:
    return OpenCLLIB::Sin;
  case MathOp::Cos:
    return OpenCLLIB::Cos;
  case MathOp::Tan:
    return OpenCLLIB::Tan;
  case MathOp::Asin:
    return OpenCLLIB::Asin;
  case MathOp::Acos:
    return OpenCLLIB::Acos;
  case MathOp::Atan:
    return OpenCLLIB::Atan;
  case MathOp::Atan2:
    return OpenCLLIB::Atan2;
  case MathOp::Sinh:
    return OpenCLLIB::Sinh;
  case MathOp::Cosh:
    return OpenCLLIB::Cosh;
  case MathOp::Tanh:
    return OpenCLLIB::Tanh;
  case MathOp::Asinh:
    return OpenCLLIB::Asinh;
  case MathOp::Acosh:
    return OpenCLLIB::Acosh;
  case MathOp::Atanh:
    return OpenCLLIB::Atanh;
  case MathOp::Fma:
    return OpenCLLIB::Fma;
  case MathOp::Copysign:
    return OpenCLLIB::Copysign;
  case MathOp::Cbrt:
    return OpenCLLIB::Cbrt;
  case MathOp::Hypot:
    return OpenCLLIB::Hypot;
  case MathOp::Ldexp:
    return OpenCLLIB::Ldexp;
  case MathOp::SMin:
    return OpenCLLIB::SMin;
  case MathOp::SMax:
    return OpenCLLIB::SMax;
  case MathOp::UMin:
    return OpenCLLIB::UMin;
  case MathOp::UMax:
    return OpenCLLIB::UMax;
  case MathOp::Abs:
    return OpenCLLIB::SAbs;
  case MathOp::CtPop:
    return OpenCLLIB::Popcount;
  case MathOp::Ctlz:
    return OpenCLLIB::Clz;
  case MathOp::Cttz:
    return OpenCLLIB::Ctz;
  default:
    return ~0u;
  }
}

/// Intrinsics that only inform the optimiser.
bool isIgnoredIntrinsic(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
  case Intrinsic::dbg_label:
  case Intrinsic::dbg_assign:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::sideeffect:
  case Intrinsic::donothing:
  case Intrinsic::pseudoprobe:
  case Intrinsic::var_annotation:
  case Intrinsic::codeview_annotation:
    return true;
  default:
    return false;
  }
}

/// Intrinsics that return their first argument.
bool isIdentityIntrinsic(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::expect:
  case Intrinsic::expect_with_probability:
  case Intrinsic::annotation:
  case Intrinsic::ptr_annotation:
  case Intrinsic::launder_invariant_group:
  case Intrinsic::strip_invariant_group:
  case Intrinsic::ssa_copy:
  case Intrinsic::arithmetic_fence:
    return true;
  default:
    return false;
  }
}

/// Why a call the emitter translates neither as math, a placeholder nor an
/// ignorable intrinsic cannot be compiled; "" for those it translates.
std::string unsupportedCall(const CallInst &I) {
  const Function *Callee = I.getCalledFunction();
  if (!Callee)
    return I.isInlineAsm() ? "inline assembly" : "an indirect call";
  StringRef Name = Callee->getName();
  Intrinsic::ID ID = Callee->getIntrinsicID();
  if (Name == GlobalIdFunctionName || Name == OuterIdFunctionName ||
      Name == GroupIdFunctionName || Name == LocalIdFunctionName ||
      Name == BarrierFunctionName || Name == LoopStatusFunctionName ||
      Name == LoopReportFunctionName || isIgnoredIntrinsic(ID) ||
      isIdentityIntrinsic(ID) || classifyMath(I) != MathOp::None)
    return "";
  if (ID == Intrinsic::trap || ID == Intrinsic::debugtrap ||
      ID == Intrinsic::ubsantrap)
    return "a trap (kernels cannot abort)";
  if (Callee->isIntrinsic())
    return ("the intrinsic '@" + Name + "'").str();
  if (!Callee->isDeclaration() && Callee->isVarArg())
    return ("a call to the variadic function '@" + Name +
            "' (SPIR-V kernels have no variable argument lists)")
        .str();
  if (!Callee->isDeclaration())
    return ("a recursive call to '@" + Name +
            "' (SPIR-V kernels cannot recurse, so every call is inlined)")
        .str();
  // A C math function the device's math library does not have is not
  // "only math functions": say which one it is.
  static const StringSet<> OtherMath = {
      "log1p",     "expm1",     "erf",    "erfc", "lgamma", "tgamma", "cbrt",
      "hypot",     "remainder", "fdim",   "logb", "ilogb",  "scalbn", "scalbln",
      "nextafter", "fmod",      "remquo", "modf", "frexp"};
  StringRef Base = Name;
  if (!OtherMath.count(Base))
    Base.consume_back("f");
  if (OtherMath.count(Base))
    return ("the math function '" + Name +
            "', which this device's math library does not have (compute it "
            "from the functions it has, or run the node on another device)")
        .str();
  return ("a call to the external function '@" + Name +
          "' (only math functions are known on the device)")
      .str();
}

std::string typeString(const Type *T) {
  std::string S;
  raw_string_ostream OS(S);
  T->print(OS);
  return S;
}

/// The SPIR-V width an LLVM integer width is computed in. Odd widths come
/// from LLVM's own transforms (ScalarEvolution expands closed forms of sums
/// in i33); they live in the next wider type with their upper bits
/// unspecified, and are normalised (zero- or sign-extended in place) before
/// the operations that read those bits.
unsigned legalWidth(unsigned Bits) {
  if (Bits == 1)
    return 1;
  for (unsigned W : {8u, 16u, 32u, 64u})
    if (Bits <= W)
      return W;
  return 0;
}

bool isOddInteger(const Type *T) {
  return T->isIntegerTy() &&
         legalWidth(T->getIntegerBitWidth()) != T->getIntegerBitWidth();
}

/// A private array: an alloca or a constant global.
struct Object {
  const Value *Root = nullptr;
  /// The scalar type every access uses (an integer of that size when they
  /// disagree on the type but not the size).
  Type *Elem = nullptr;
  unsigned ElemBytes = 0;
  uint64_t Length = 0;
  uint32_t Var = 0, ElemType = 0;
  spv::StorageClass SC = spv::StorageClass::Function;
  /// The first access whose size differs from Elem's.
  const Instruction *Conflict = nullptr;
};

class Emitter {
public:
  Emitter(const PreparedKernel &PK, const KernelJob &Job)
      : PK(PK), Job(Job), N(*Job.N), F(*PK.F),
        DL(F.getParent()->getDataLayout()), B(Job.Flavour) {}

  Expected<SPIRVKernel> run();

private:
  bool vulkan() const { return B.isVulkan(); }
  Words &body() { return B.functions(); }

  // --- Failure ----------------------------------------------------------
  uint32_t fail(const Instruction *I, const Twine &What) {
    if (FailWhat.empty()) {
      FailWhat = What.str();
      FailAt = I;
    }
    return 0;
  }
  bool failed() const { return !FailWhat.empty(); }

  // --- Writing instructions ---------------------------------------------
  uint32_t op(spv::Op Op, uint32_t Type, ArrayRef<uint32_t> Args) {
    uint32_t Id = B.newId();
    Words W{Type, Id};
    W.insert(W.end(), Args.begin(), Args.end());
    emitInst(body(), Op, W);
    if (!MayContract && vulkan() && roundsOnItsOwn(Op))
      B.decorate(Id, spv::Decoration::NoContraction);
    return Id;
  }
  /// Float operations whose rounding a Vulkan driver may merge with the next
  /// one's unless told otherwise: SPIR-V lets it fuse a*b+c, and Mesa's
  /// compiler even folds (int)(float)i back to i. LLVM IR rounds every
  /// operation unless it carries `contract`, so the emitter says
  /// NoContraction for the rest.
  static bool roundsOnItsOwn(spv::Op Op) {
    switch (Op) {
    case spv::Op::OpFNegate:
    case spv::Op::OpFAdd:
    case spv::Op::OpFSub:
    case spv::Op::OpFMul:
    case spv::Op::OpFDiv:
    case spv::Op::OpFRem:
    case spv::Op::OpFMod:
    case spv::Op::OpConvertFToU:
    case spv::Op::OpConvertFToS:
    case spv::Op::OpConvertSToF:
    case spv::Op::OpConvertUToF:
    case spv::Op::OpFConvert:
      return true;
    default:
      return false;
    }
  }
  void inst(spv::Op Op, ArrayRef<uint32_t> Args) { emitInst(body(), Op, Args); }
  uint32_t extInst(unsigned Number, uint32_t Type, ArrayRef<uint32_t> Args) {
    Words W{B.extInstSet(), Number};
    W.insert(W.end(), Args.begin(), Args.end());
    return op(spv::Op::OpExtInst, Type, W);
  }
  uint32_t u32Type() { return B.intType(32); }
  uint32_t u64Type() { return B.intType(64); }
  uint32_t u32(uint32_t V) { return B.constInt(32, V); }
  uint32_t u64(uint64_t V) {
    uint32_t Id = B.constInt(64, V);
    KnownU64[Id] = V;
    return Id;
  }
  std::optional<uint64_t> known(uint32_t Id) const {
    auto It = KnownU64.find(Id);
    if (It == KnownU64.end())
      return std::nullopt;
    return It->second;
  }
  uint32_t add64(uint32_t A, uint32_t Bv) {
    auto KA = known(A), KB = known(Bv);
    if (KA && KB)
      return u64(*KA + *KB);
    if (KA && *KA == 0)
      return Bv;
    if (KB && *KB == 0)
      return A;
    uint32_t Sum = op(spv::Op::OpIAdd, u64Type(), {A, Bv});
    Sums[Sum] = {A, Bv};
    return Sum;
  }
  uint32_t mul64(uint32_t A, uint64_t Scale) {
    if (auto KA = known(A))
      return u64(*KA * Scale);
    if (Scale == 1)
      return A;
    uint32_t Product = op(spv::Op::OpIMul, u64Type(), {A, u64(Scale)});
    Products[Product] = {A, Scale};
    return Product;
  }
  /// Offset / Bytes without a division where Offset is a sum of products by
  /// multiples of Bytes (what getelementptr on an array of that element
  /// makes); 0 where it is not. (Dividing the product back would not fold:
  /// (i * 4) >> 2 is not i once the product may wrap.)
  uint32_t exactQuotient(uint32_t Offset, uint64_t Bytes) {
    if (auto K = known(Offset))
      return *K % Bytes ? 0 : u64(*K / Bytes);
    if (Bytes == 1)
      return Offset;
    if (auto It = Products.find(Offset);
        It != Products.end() && It->second.second % Bytes == 0)
      return mul64(It->second.first, It->second.second / Bytes);
    if (auto It = Sums.find(Offset); It != Sums.end()) {
      auto [A, Bv] = It->second;
      uint32_t QA = exactQuotient(A, Bytes);
      uint32_t QB = QA ? exactQuotient(Bv, Bytes) : 0;
      return QA && QB ? add64(QA, QB) : 0;
    }
    return 0;
  }

  // --- Types and values -------------------------------------------------
  uint32_t typeOf(Type *T, const Instruction *I);
  /// How T is stored in memory: a bool as a byte, a pointer as an i64.
  Type *memoryType(Type *T);
  uint32_t valueOf(const Value *V, const Instruction *User);
  uint32_t offsetOf(const Value *V, const Instruction *User);
  /// V (of LLVM type T) with the bits above T's width cleared or copies of
  /// its sign bit; V itself for types of a SPIR-V width.
  uint32_t zeroExtended(uint32_t V, Type *T);
  uint32_t signExtended(uint32_t V, Type *T);
  uint32_t normalised(uint32_t V, Type *T, bool Signed) {
    return Signed ? signExtended(V, T) : zeroExtended(V, T);
  }
  void define(const Instruction *I, uint32_t Id) { Ids[I] = Id; }
  bool isPrivate(const Value *V) const { return PrivateObject.count(V); }

  // --- Set-up -------------------------------------------------------------
  void findPrivateObjects();
  void declareObjects();
  bool initializerBytes(const Constant *C, uint64_t At,
                        std::vector<uint8_t> &Bytes);
  uint32_t slotType(unsigned Slot);
  uint32_t pushConstantSlot(unsigned Slot);
  void loadIdBuiltins(const Function &F);
  uint32_t idComponent(spv::BuiltIn Id, unsigned Component);
  void emitBarrier();
  uint32_t slotValue(unsigned Slot);
  uint32_t fromSlot(uint32_t Raw, Type *T);
  void emitParameters();

  // --- Instructions ---------------------------------------------------------
  void emitBlock(const BasicBlock &BB, bool Entry);
  void emitInstruction(const Instruction &I);
  void emitBinary(const BinaryOperator &I);
  void emitICmp(const ICmpInst &I);
  void emitFCmp(const FCmpInst &I);
  void emitCast(const CastInst &I);
  void emitGEP(const GetElementPtrInst &I);
  void emitLoad(const LoadInst &I);
  void emitStore(const StoreInst &I);
  void emitAtomicRMW(const AtomicRMWInst &I);
  void emitCmpXchg(const AtomicCmpXchgInst &I);
  void emitCall(const CallInst &I);
  void emitMath(const CallInst &I, MathOp Op);
  void emitTerminator(const Instruction &I);
  uint32_t bitCount(const CallInst &I, MathOp Op, uint32_t X, unsigned Bits);
  uint32_t withConstantZero(unsigned Opcode, const Instruction &I,
                            const Value *L, const Value *R, uint32_t A,
                            uint32_t Bv);
  uint32_t floatRemainder(uint32_t X, uint32_t Y, Type *T);
  uint32_t plusPositiveZero(uint32_t X, Type *T);
  uint32_t copySign(uint32_t Magnitude, uint32_t SignOf, Type *T,
                    bool Flip = false);
  uint32_t globalPointer(uint32_t Address, uint32_t Pointee);
  uint32_t privateElement(const Object &O, uint32_t Offset,
                          const Instruction &I);
  uint32_t toMemory(uint32_t V, Type *From, Type *To);
  uint32_t fromMemory(uint32_t V, Type *From, Type *To);
  uint32_t scope(SyncScope::ID S);
  uint32_t semantics(AtomicOrdering O);
  uint32_t accessSemantics(AtomicOrdering O);
  uint32_t atomicPointer(const Instruction &I, const Value *Ptr, Type *T);
  void noteStorage(Type *T);
  void patchPhis();
  uint32_t label(const BasicBlock *BB) { return Labels.lookup(BB); }

  const PreparedKernel &PK;
  const KernelJob &Job;
  const Node &N;
  Function &F;
  const DataLayout &DL;
  ModuleBuilder B;

  std::string FailWhat;
  const Instruction *FailAt = nullptr;
  /// The instruction being translated may be contracted with others (its
  /// `contract` flag): its float operations are not NoContraction.
  bool MayContract = false;

  DenseMap<const Value *, uint32_t> Ids;
  DenseMap<const BasicBlock *, uint32_t> Labels;
  DenseMap<uint32_t, uint64_t> KnownU64;
  /// How u64 offsets were computed: sums and products by constants.
  DenseMap<uint32_t, std::pair<uint32_t, uint32_t>> Sums;
  DenseMap<uint32_t, std::pair<uint32_t, uint64_t>> Products;
  struct CmpXchgResult {
    uint32_t Old = 0, Success = 0;
  };
  DenseMap<const Value *, CmpXchgResult> CmpXchgs;

  std::vector<std::unique_ptr<Object>> Objects;
  DenseMap<const Value *, Object *> PrivateObject;
  DenseMap<const Value *, uint32_t> PrivateOffset;
  /// Pointers that may point into two different arrays.
  SmallPtrSet<const Value *, 4> Ambiguous;

  uint32_t PushConstants = 0;
  /// The parameter block's type, where it is in device memory.
  uint32_t ParamBlock = 0;
  std::vector<uint32_t> SlotTypes;
  std::vector<uint32_t> KernelArgs;
  /// The id builtins the kernel reads (global invocation id; work-group and
  /// local invocation ids in a work-group kernel), loaded in the entry.
  DenseMap<unsigned, uint32_t> IdsLoaded;
  std::vector<uint32_t> Interface;

  struct PendingPhi {
    size_t At;
    const PHINode *Phi;
  };
  std::vector<PendingPhi> Phis;
  DenseSet<uint32_t> Named;
};

//===--------------------------------------------------------------------===//
// Types and values
//===--------------------------------------------------------------------===//

uint32_t Emitter::typeOf(Type *T, const Instruction *I) {
  if (T->isVoidTy())
    return B.voidType();
  if (T->isIntegerTy(1))
    return B.boolType();
  if (auto *IT = dyn_cast<IntegerType>(T)) {
    if (unsigned W = legalWidth(IT->getBitWidth()))
      return B.intType(W);
    return fail(I, "the type " + typeString(T) +
                       " (integers may have at most 64 bits)");
  }
  if (T->isHalfTy()) {
    // Float16 needs cl_khr_fp16, which a SPIR-V module cannot ask for.
    if (!vulkan())
      return fail(I, "the type half in the OpenCL environment");
    return B.floatType(16);
  }
  if (T->isFloatTy())
    return B.floatType(32);
  if (T->isDoubleTy())
    return B.floatType(64);
  if (T->isPointerTy())
    return u64Type();
  if (T->isVectorTy())
    return fail(I, "the vector type " + typeString(T));
  return fail(I, "a value of type " + typeString(T));
}

Type *Emitter::memoryType(Type *T) {
  // (Odd integer widths never reach memory: the loads and stores reject
  // them.)
  if (T->isIntegerTy(1))
    return Type::getInt8Ty(T->getContext());
  if (T->isPointerTy())
    return Type::getInt64Ty(T->getContext());
  return T;
}

uint32_t Emitter::valueOf(const Value *V, const Instruction *User) {
  if (auto It = Ids.find(V); It != Ids.end())
    return It->second;
  if (auto *C = dyn_cast<ConstantInt>(V)) {
    unsigned W = C->getBitWidth();
    if (W == 1)
      return B.constBool(C->isOne());
    if (!typeOf(C->getType(), User))
      return 0;
    unsigned LW = legalWidth(W);
    return LW == 64 ? u64(C->getZExtValue())
                    : B.constInt(LW, C->getZExtValue());
  }
  if (auto *C = dyn_cast<ConstantFP>(V)) {
    if (!typeOf(C->getType(), User))
      return 0;
    return B.constFloatBits(C->getType()->getPrimitiveSizeInBits(),
                            C->getValueAPF().bitcastToAPInt().getZExtValue());
  }
  if (isa<ConstantPointerNull>(V))
    return u64(0);
  if (isa<UndefValue>(V)) {
    uint32_t T = typeOf(V->getType(), User);
    return T ? B.undef(T) : 0;
  }
  if (isa<GlobalVariable>(V))
    return fail(User, "the address of the global '" + describe(V) +
                          "' as a value (constant tables may only be "
                          "indexed and read)");
  if (isa<Function>(V))
    return fail(User, "a function pointer");
  if (isa<Constant>(V))
    return fail(User, "the constant " + describe(V));
  return fail(User, "internal error: " + describe(V) +
                        " is used before its definition");
}

uint32_t Emitter::zeroExtended(uint32_t V, Type *T) {
  if (!isOddInteger(T))
    return V;
  unsigned Bits = T->getIntegerBitWidth(), W = legalWidth(Bits);
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  if (auto K = known(V))
    return u64(*K & Mask);
  return op(spv::Op::OpBitwiseAnd, B.intType(W), {V, B.constInt(W, Mask)});
}

uint32_t Emitter::signExtended(uint32_t V, Type *T) {
  if (!isOddInteger(T))
    return V;
  unsigned Bits = T->getIntegerBitWidth(), W = legalWidth(Bits);
  uint32_t Ty = B.intType(W), Shift = B.constInt(W, W - Bits);
  return op(spv::Op::OpShiftRightArithmetic, Ty,
            {op(spv::Op::OpShiftLeftLogical, Ty, {V, Shift}), Shift});
}

uint32_t Emitter::offsetOf(const Value *V, const Instruction *User) {
  if (isa<AllocaInst>(V) || isa<GlobalVariable>(V))
    return u64(0);
  if (auto It = PrivateOffset.find(V); It != PrivateOffset.end())
    return It->second;
  if (isa<UndefValue>(V))
    return B.undef(u64Type());
  return fail(User, "internal error: the private pointer " + describe(V) +
                        " is used before its definition");
}

//===--------------------------------------------------------------------===//
// Private arrays
//===--------------------------------------------------------------------===//

void Emitter::findPrivateObjects() {
  SmallVector<const Value *, 16> Work;
  auto AddRoot = [&](const Value *Root) {
    if (PrivateObject.count(Root))
      return;
    auto O = std::make_unique<Object>();
    O->Root = Root;
    PrivateObject[Root] = O.get();
    Objects.push_back(std::move(O));
    Work.push_back(Root);
  };
  for (const Instruction &I : instructions(F)) {
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      AddRoot(AI);
    for (const Use &U : I.operands())
      if (auto *GV = dyn_cast<GlobalVariable>(U.get()))
        AddRoot(GV);
  }
  // Everything derived from a root points into the same array.
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    Object *O = PrivateObject.lookup(V);
    for (const User *U : V->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I || I->getFunction() != &F)
        continue;
      bool Derived = false;
      if (auto *GEP = dyn_cast<GetElementPtrInst>(I))
        Derived = GEP->getPointerOperand() == V;
      else if (isa<PHINode>(I) || isa<FreezeInst>(I) ||
               isa<AddrSpaceCastInst>(I))
        Derived = true;
      else if (auto *BC = dyn_cast<BitCastInst>(I))
        Derived = BC->getType()->isPointerTy();
      else if (auto *Sel = dyn_cast<SelectInst>(I))
        Derived = Sel->getCondition() != V;
      if (!Derived)
        continue;
      auto [It, New] = PrivateObject.try_emplace(I, O);
      if (New)
        Work.push_back(I);
      else if (It->second != O)
        Ambiguous.insert(I);
    }
  }
  // The element type: what the loads and stores through the array's
  // pointers access.
  for (auto &[V, O] : PrivateObject) {
    for (const User *U : V->users()) {
      Type *T = nullptr;
      const Instruction *I = dyn_cast<Instruction>(U);
      if (auto *L = dyn_cast<LoadInst>(U))
        T = L->getType();
      else if (auto *S = dyn_cast<StoreInst>(U);
               S && S->getPointerOperand() == V)
        T = S->getValueOperand()->getType();
      if (!T || isOddInteger(T) ||
          !(T->isIntegerTy() || T->isFloatingPointTy() || T->isPointerTy()) ||
          T->isX86_FP80Ty() || T->isFP128Ty() || T->isPPC_FP128Ty() ||
          T->isBFloatTy())
        continue;
      T = memoryType(T);
      unsigned Bytes = DL.getTypeStoreSize(T);
      if (!O->Elem) {
        O->Elem = T;
        O->ElemBytes = Bytes;
      } else if (Bytes != O->ElemBytes) {
        if (!O->Conflict)
          O->Conflict = I;
      } else if (T != O->Elem) {
        O->Elem = Type::getIntNTy(T->getContext(), 8 * Bytes);
      }
    }
  }
}

bool Emitter::initializerBytes(const Constant *C, uint64_t At,
                               std::vector<uint8_t> &Bytes) {
  Type *T = C->getType();
  if (isa<ConstantAggregateZero>(C) || isa<UndefValue>(C))
    return true; // zeros already
  if (auto *CI = dyn_cast<ConstantInt>(C)) {
    APInt V = CI->getValue();
    for (unsigned K = 0; K < DL.getTypeStoreSize(T); ++K)
      Bytes[At + K] = V.extractBitsAsZExtValue(
          std::min(8u, V.getBitWidth() - 8 * K), 8 * K);
    return true;
  }
  if (auto *CF = dyn_cast<ConstantFP>(C)) {
    APInt V = CF->getValueAPF().bitcastToAPInt();
    for (unsigned K = 0; K < DL.getTypeStoreSize(T); ++K)
      Bytes[At + K] = V.extractBitsAsZExtValue(8, 8 * K);
    return true;
  }
  if (auto *CDS = dyn_cast<ConstantDataSequential>(C)) {
    uint64_t Size = DL.getTypeAllocSize(CDS->getElementType());
    for (unsigned K = 0; K < CDS->getNumElements(); ++K)
      if (!initializerBytes(CDS->getElementAsConstant(K), At + K * Size, Bytes))
        return false;
    return true;
  }
  if (auto *CA = dyn_cast<ConstantArray>(C)) {
    uint64_t Size = DL.getTypeAllocSize(CA->getType()->getElementType());
    for (unsigned K = 0; K < CA->getNumOperands(); ++K)
      if (!initializerBytes(CA->getOperand(K), At + K * Size, Bytes))
        return false;
    return true;
  }
  if (auto *CS = dyn_cast<ConstantStruct>(C)) {
    const StructLayout *SL = DL.getStructLayout(CS->getType());
    for (unsigned K = 0; K < CS->getNumOperands(); ++K)
      if (!initializerBytes(CS->getOperand(K), At + SL->getElementOffset(K),
                            Bytes))
        return false;
    return true;
  }
  return false;
}

void Emitter::declareObjects() {
  for (auto &O : Objects) {
    if (!O->Elem)
      continue; // never read or written
    const Value *Root = O->Root;
    const Instruction *User = dyn_cast<Instruction>(Root);
    if (!User)
      for (const class User *U : Root->users())
        if (auto *I = dyn_cast<Instruction>(U); I && I->getFunction() == &F) {
          User = I;
          break;
        }
    if (O->Conflict) {
      fail(O->Conflict,
           "an access of " +
               Twine(DL.getTypeStoreSize(O->Conflict->getType()->isVoidTy()
                                             ? cast<StoreInst>(O->Conflict)
                                                   ->getValueOperand()
                                                   ->getType()
                                             : O->Conflict->getType())) +
               " bytes to the private array " + describe(Root) +
               ", which is also accessed in elements of " +
               Twine(O->ElemBytes) +
               " bytes (each private array must be accessed "
               "with one element size)");
      return;
    }
    O->ElemType = typeOf(O->Elem, User);
    if (!O->ElemType)
      return;
    uint64_t Bytes;
    if (auto *AI = dyn_cast<AllocaInst>(Root)) {
      auto *Count = dyn_cast<ConstantInt>(AI->getArraySize());
      if (!Count) {
        fail(AI, "an alloca of a run-time size");
        return;
      }
      Bytes =
          DL.getTypeAllocSize(AI->getAllocatedType()) * Count->getZExtValue();
    } else {
      Bytes = DL.getTypeAllocSize(cast<GlobalVariable>(Root)->getValueType());
    }
    O->Length = std::max<uint64_t>(1, divideCeil(Bytes, O->ElemBytes));
    if (O->Length > UINT32_MAX) {
      fail(User, "the private array " + describe(Root) + " of " + Twine(Bytes) +
                     " bytes");
      return;
    }
    uint32_t ArrayT = B.arrayType(O->ElemType, O->Length);
    if (isa<AllocaInst>(Root)) {
      O->SC = spv::StorageClass::Function;
      continue; // declared at the top of the entry block
    }
    auto *GV = cast<GlobalVariable>(Root);
    if (!GV->isConstant() || !GV->hasDefinitiveInitializer()) {
      fail(User, "the mutable global " + describe(GV) +
                     " (kernels cannot share variables with the host; pass "
                     "a buffer instead)");
      return;
    }
    std::vector<uint8_t> Init(O->Length * O->ElemBytes, 0);
    if (!initializerBytes(GV->getInitializer(), 0, Init)) {
      fail(User, "the constant " + describe(GV) +
                     ", whose initializer holds addresses");
      return;
    }
    Words Elements;
    bool AllZero = true;
    for (uint64_t K = 0; K < O->Length; ++K) {
      uint64_t V = 0;
      for (unsigned Byte = 0; Byte < O->ElemBytes; ++Byte)
        V |= uint64_t(Init[K * O->ElemBytes + Byte]) << (8 * Byte);
      AllZero &= V == 0;
      unsigned Bits = 8 * O->ElemBytes;
      Elements.push_back(O->Elem->isFloatingPointTy()
                             ? B.constFloatBits(Bits, V)
                             : B.constInt(Bits, V));
    }
    uint32_t InitId =
        AllZero ? B.constNull(ArrayT) : B.constComposite(ArrayT, Elements);
    // Vulkan: per-invocation copies of the table (Private); OpenCL: the
    // constant address space.
    O->SC = vulkan() ? spv::StorageClass::Private
                     : spv::StorageClass::UniformConstant;
    O->Var = B.globalVariable(B.pointerType(O->SC, ArrayT), O->SC, InitId);
    B.name(O->Var, GV->getName());
    if (vulkan())
      Interface.push_back(O->Var);
  }
}

uint32_t Emitter::privateElement(const Object &O, uint32_t Offset,
                                 const Instruction &I) {
  unsigned Shift = Log2_32(O.ElemBytes);
  uint32_t Index;
  if (auto K = known(Offset)) {
    if (*K % O.ElemBytes)
      return fail(&I, "an access at byte " + Twine(*K) +
                          " of the private array " + describe(O.Root) +
                          ", whose elements have " + Twine(O.ElemBytes) +
                          " bytes");
    Index = u32(static_cast<uint32_t>(*K >> Shift));
  } else {
    uint32_t Elem = exactQuotient(Offset, O.ElemBytes);
    if (!Elem)
      Elem = op(spv::Op::OpShiftRightLogical, u64Type(), {Offset, u64(Shift)});
    Index = op(spv::Op::OpUConvert, u32Type(), {Elem});
  }
  return op(spv::Op::OpAccessChain, B.pointerType(O.SC, O.ElemType),
            {O.Var, Index});
}

//===--------------------------------------------------------------------===//
// Parameters and ids
//===--------------------------------------------------------------------===//

/// The type of a slot: see SPIRVABI.h. Values narrower than 32 bits travel
/// in a 32-bit word, so that the push-constant block needs no 8- or 16-bit
/// storage capability.
/// What the disassembly calls a slot: the parameter's name or
/// "outer.<level>.<d>".
std::string slotName(const Node &N, unsigned Slot) {
  if (Slot < N.Params.size())
    return N.Params[Slot].Name;
  Slot -= N.Params.size();
  return "outer." + std::to_string(Slot / 3 + 1) + "." +
         std::to_string(Slot % 3);
}

uint32_t Emitter::slotType(unsigned Slot) {
  if (Slot >= N.Params.size())
    return u64Type();
  const Param &P = N.Params[Slot];
  if (P.isBuffer())
    return vulkan()
               ? u64Type()
               : B.pointerType(spv::StorageClass::CrossWorkgroup, B.intType(8));
  switch (P.Type) {
  case ScalarType::I1:
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::I32:
  case ScalarType::F16:
    return u32Type();
  case ScalarType::I64:
  case ScalarType::Ptr:
    return u64Type();
  case ScalarType::F32:
    return B.floatType(32);
  case ScalarType::F64:
    return B.floatType(64);
  }
  return u64Type();
}

uint32_t Emitter::pushConstantSlot(unsigned Slot) {
  if (!PushConstants) {
    SPIRVPushConstantLayout Layout = spirvPushConstantLayout(N);
    for (unsigned S = 0; S < Layout.numSlots(); ++S)
      SlotTypes.push_back(slotType(S));
    uint32_t Struct = B.structType(SlotTypes);
    B.decorate(Struct, spv::Decoration::Block);
    for (unsigned S = 0; S < SlotTypes.size(); ++S) {
      B.memberName(Struct, S, slotName(N, S));
      B.memberDecorate(Struct, S, spv::Decoration::Offset,
                       {S * SPIRVPushConstantLayout::SlotBytes});
    }
    uint32_t Pushed = Struct;
    if (Layout.inMemory()) {
      // Pushed: the address of the block.
      ParamBlock = Struct;
      B.name(ParamBlock, "hpvm.param.block");
      Pushed = B.structType({u64Type()});
      B.decorate(Pushed, spv::Decoration::Block);
      B.memberName(Pushed, 0, "hpvm.param.block.address");
      B.memberDecorate(Pushed, 0, spv::Decoration::Offset, {0});
    }
    B.name(Pushed, "hpvm.push.constants");
    PushConstants =
        B.globalVariable(B.pointerType(spv::StorageClass::PushConstant, Pushed),
                         spv::StorageClass::PushConstant);
    B.name(PushConstants, "hpvm.params");
    Interface.push_back(PushConstants);
  }
  uint32_t T = SlotTypes[Slot];
  if (!ParamBlock) {
    uint32_t Ptr = op(spv::Op::OpAccessChain,
                      B.pointerType(spv::StorageClass::PushConstant, T),
                      {PushConstants, u32(Slot)});
    return op(spv::Op::OpLoad, T, {Ptr});
  }
  uint32_t Address =
      op(spv::Op::OpLoad, u64Type(),
         {op(spv::Op::OpAccessChain,
             B.pointerType(spv::StorageClass::PushConstant, u64Type()),
             {PushConstants, u32(0)})});
  uint32_t Block =
      op(spv::Op::OpConvertUToPtr,
         B.pointerType(spv::StorageClass::PhysicalStorageBuffer, ParamBlock),
         {Address});
  uint32_t Ptr = op(spv::Op::OpAccessChain,
                    B.pointerType(spv::StorageClass::PhysicalStorageBuffer, T),
                    {Block, u32(Slot)});
  return op(spv::Op::OpLoad, T,
            {Ptr, static_cast<uint32_t>(spv::MemoryAccessMask::Aligned),
             SPIRVPushConstantLayout::SlotBytes});
}

uint32_t Emitter::slotValue(unsigned Slot) {
  return vulkan() ? pushConstantSlot(Slot) : KernelArgs[Slot];
}

/// A parameter of type T from its slot's raw value.
uint32_t Emitter::fromSlot(uint32_t Raw, Type *T) {
  if (T->isIntegerTy(1))
    return op(spv::Op::OpINotEqual, B.boolType(), {Raw, u32(0)});
  if (T->isIntegerTy(8) || T->isIntegerTy(16))
    return op(spv::Op::OpUConvert, typeOf(T, nullptr), {Raw});
  if (T->isHalfTy())
    return op(spv::Op::OpBitcast, B.floatType(16),
              {op(spv::Op::OpUConvert, B.intType(16), {Raw})});
  return Raw;
}

void Emitter::emitParameters() {
  for (auto [I, P] : enumerate(N.Params)) {
    Argument *A = F.getArg(I);
    if (A->use_empty())
      continue;
    uint32_t Raw = slotValue(I);
    if (P.isBuffer() && !vulkan())
      Raw = op(spv::Op::OpConvertPtrToU, u64Type(), {Raw});
    Ids[A] = P.isBuffer() ? Raw : fromSlot(Raw, A->getType());
    B.name(Ids[A], P.Name);
    Named.insert(Ids[A]);
  }
}

/// The id builtin behind each placeholder.
struct IdBuiltin {
  const char *Placeholder;
  spv::BuiltIn Id;
  const char *Name;
};
constexpr IdBuiltin IdBuiltins[] = {
    {GlobalIdFunctionName, spv::BuiltIn::GlobalInvocationId, "hpvm.global.id"},
    {GroupIdFunctionName, spv::BuiltIn::WorkgroupId, "hpvm.group.id"},
    {LocalIdFunctionName, spv::BuiltIn::LocalInvocationId, "hpvm.local.id"}};

void Emitter::loadIdBuiltins(const Function &F) {
  // Vulkan defines the builtins as 32-bit; OpenCL as size_t (64-bit with
  // Physical64).
  unsigned Bits = vulkan() ? 32 : 64;
  uint32_t Vec = B.vectorType(B.intType(Bits), 3);
  for (const IdBuiltin &Id : IdBuiltins) {
    Function *Placeholder = F.getParent()->getFunction(Id.Placeholder);
    if (!Placeholder || none_of(Placeholder->users(), [&](const User *U) {
          auto *I = dyn_cast<Instruction>(U);
          return I && I->getFunction() == &F;
        }))
      continue;
    uint32_t Var = B.globalVariable(
        B.pointerType(spv::StorageClass::Input, Vec), spv::StorageClass::Input);
    B.decorate(Var, spv::Decoration::BuiltIn, {static_cast<uint32_t>(Id.Id)});
    if (!vulkan())
      B.decorate(Var, spv::Decoration::Constant);
    B.name(Var, Id.Name);
    Interface.push_back(Var);
    IdsLoaded[static_cast<unsigned>(Id.Id)] = op(spv::Op::OpLoad, Vec, {Var});
  }
}

uint32_t Emitter::idComponent(spv::BuiltIn Id, unsigned Component) {
  unsigned Bits = vulkan() ? 32 : 64;
  auto It = IdsLoaded.find(static_cast<unsigned>(Id));
  if (It == IdsLoaded.end())
    return fail(nullptr, "internal error: an id is read before the entry "
                         "block loaded it");
  uint32_t C =
      op(spv::Op::OpCompositeExtract, B.intType(Bits), {It->second, Component});
  return Bits == 64 ? C : op(spv::Op::OpUConvert, u64Type(), {C});
}

/// A work-group kernel's barrier: every work-item of the group waits, and
/// then sees what the others wrote before it, in buffers as in work-group
/// memory (Vulkan's groupMemoryBarrier plus barrier; OpenCL's
/// barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)).
void Emitter::emitBarrier() {
  using Sem = spv::MemorySemanticsMask;
  uint32_t Order = static_cast<uint32_t>(
      vulkan() ? Sem::AcquireRelease : Sem::SequentiallyConsistent);
  uint32_t Memory = static_cast<uint32_t>(
      Sem::WorkgroupMemory |
      (vulkan() ? Sem::UniformMemory : Sem::CrossWorkgroupMemory));
  uint32_t Workgroup = u32(static_cast<uint32_t>(spv::Scope::Workgroup));
  inst(spv::Op::OpControlBarrier, {Workgroup, Workgroup, u32(Order | Memory)});
}

//===--------------------------------------------------------------------===//
// Memory
//===--------------------------------------------------------------------===//

void Emitter::noteStorage(Type *T) {
  unsigned Bits = DL.getTypeSizeInBits(T);
  // OpenCL has no storage capabilities (and no halves, see typeOf).
  if (vulkan()) {
    if (Bits == 8)
      B.addCapability(spv::Capability::StorageBuffer8BitAccess);
    else if (Bits == 16)
      B.addCapability(spv::Capability::StorageBuffer16BitAccess);
  }
}

uint32_t Emitter::globalPointer(uint32_t Address, uint32_t Pointee) {
  spv::StorageClass SC = vulkan() ? spv::StorageClass::PhysicalStorageBuffer
                                  : spv::StorageClass::CrossWorkgroup;
  return op(spv::Op::OpConvertUToPtr, B.pointerType(SC, Pointee), {Address});
}

uint32_t Emitter::toMemory(uint32_t V, Type *From, Type *To) {
  if (From->isIntegerTy(1))
    return op(spv::Op::OpSelect, B.intType(8),
              {V, B.constInt(8, 1), B.constInt(8, 0)});
  if (memoryType(From) == To)
    return V;
  return op(spv::Op::OpBitcast, typeOf(To, nullptr), {V});
}

uint32_t Emitter::fromMemory(uint32_t V, Type *From, Type *To) {
  if (To->isIntegerTy(1))
    return op(spv::Op::OpINotEqual, B.boolType(), {V, B.constInt(8, 0)});
  if (memoryType(To) == From)
    return V;
  return op(spv::Op::OpBitcast, typeOf(To, nullptr), {V});
}

void Emitter::emitLoad(const LoadInst &I) {
  Type *T = I.getType();
  const Value *Ptr = I.getPointerOperand();
  if (!typeOf(T, &I))
    return;
  if (isOddInteger(T)) {
    fail(&I, "a load of type " + typeString(T));
    return;
  }
  if (isPrivate(Ptr)) {
    if (I.isAtomic()) {
      fail(&I, "an atomic access to a private variable");
      return;
    }
    const Object &O = *PrivateObject.lookup(Ptr);
    uint32_t P = privateElement(O, offsetOf(Ptr, &I), I);
    if (!P)
      return;
    define(&I, fromMemory(op(spv::Op::OpLoad, O.ElemType, {P}), O.Elem, T));
    return;
  }
  Type *MT = memoryType(T);
  uint32_t MTy = typeOf(MT, &I);
  if (I.isAtomic()) {
    uint32_t P = atomicPointer(I, Ptr, MT);
    if (!P)
      return;
    uint32_t V =
        op(spv::Op::OpAtomicLoad, MTy,
           {P, scope(I.getSyncScopeID()),
            accessSemantics(I.getOrdering() == AtomicOrdering::Monotonic ||
                                    I.getOrdering() == AtomicOrdering::Unordered
                                ? AtomicOrdering::Monotonic
                                : AtomicOrdering::Acquire)});
    define(&I, fromMemory(V, MT, T));
    return;
  }
  noteStorage(MT);
  uint32_t P = globalPointer(valueOf(Ptr, &I), MTy);
  uint32_t Access = static_cast<uint32_t>(spv::MemoryAccessMask::Aligned);
  if (I.isVolatile())
    Access |= static_cast<uint32_t>(spv::MemoryAccessMask::Volatile);
  uint32_t V = op(spv::Op::OpLoad, MTy,
                  {P, Access, static_cast<uint32_t>(I.getAlign().value())});
  define(&I, fromMemory(V, MT, T));
}

void Emitter::emitStore(const StoreInst &I) {
  const Value *Val = I.getValueOperand();
  const Value *Ptr = I.getPointerOperand();
  Type *T = Val->getType();
  if (isPrivate(Val)) {
    fail(&I, "storing the address of a private variable (private pointers "
             "cannot escape)");
    return;
  }
  if (!typeOf(T, &I))
    return;
  if (isOddInteger(T)) {
    fail(&I, "a store of type " + typeString(T));
    return;
  }
  uint32_t V = valueOf(Val, &I);
  if (isPrivate(Ptr)) {
    if (I.isAtomic()) {
      fail(&I, "an atomic access to a private variable");
      return;
    }
    const Object &O = *PrivateObject.lookup(Ptr);
    uint32_t P = privateElement(O, offsetOf(Ptr, &I), I);
    if (!P)
      return;
    inst(spv::Op::OpStore, {P, toMemory(V, T, O.Elem)});
    return;
  }
  Type *MT = memoryType(T);
  uint32_t MTy = typeOf(MT, &I);
  if (I.isAtomic()) {
    uint32_t P = atomicPointer(I, Ptr, MT);
    if (!P)
      return;
    inst(spv::Op::OpAtomicStore,
         {P, scope(I.getSyncScopeID()),
          accessSemantics(I.getOrdering() == AtomicOrdering::Monotonic ||
                                  I.getOrdering() == AtomicOrdering::Unordered
                              ? AtomicOrdering::Monotonic
                              : AtomicOrdering::Release),
          toMemory(V, T, MT)});
    return;
  }
  noteStorage(MT);
  uint32_t P = globalPointer(valueOf(Ptr, &I), MTy);
  uint32_t Access = static_cast<uint32_t>(spv::MemoryAccessMask::Aligned);
  if (I.isVolatile())
    Access |= static_cast<uint32_t>(spv::MemoryAccessMask::Volatile);
  inst(spv::Op::OpStore, {P, toMemory(V, T, MT), Access,
                          static_cast<uint32_t>(I.getAlign().value())});
}

uint32_t Emitter::scope(SyncScope::ID S) {
  return u32(static_cast<uint32_t>(S == SyncScope::SingleThread
                                       ? spv::Scope::Invocation
                                       : spv::Scope::Device));
}

/// The memory semantics of an atomic access of ordering O. In Vulkan none,
/// as GLSL's atomic functions have: the instances of a leaf communicate only
/// through atomics, whose operations commute (docs/backends.md), so ordering
/// the other accesses around one adds nothing; and lavapipe (Mesa 22.3) loses
/// loads and stores next to an acquire-release atomic in a loop.
uint32_t Emitter::accessSemantics(AtomicOrdering O) {
  return vulkan() ? u32(0) : semantics(O);
}

/// The memory semantics of an LLVM ordering, on the memory buffers live in.
/// Vulkan's environment forbids SequentiallyConsistent; AcquireRelease is
/// the strongest it has (and what glslang emits for seq_cst).
uint32_t Emitter::semantics(AtomicOrdering O) {
  uint32_t Storage = static_cast<uint32_t>(
      vulkan() ? spv::MemorySemanticsMask::UniformMemory
               : spv::MemorySemanticsMask::CrossWorkgroupMemory);
  uint32_t Order = 0;
  switch (O) {
  case AtomicOrdering::NotAtomic:
  case AtomicOrdering::Unordered:
  case AtomicOrdering::Monotonic:
    return u32(0);
  case AtomicOrdering::Acquire:
    Order = static_cast<uint32_t>(spv::MemorySemanticsMask::Acquire);
    break;
  case AtomicOrdering::Release:
    Order = static_cast<uint32_t>(spv::MemorySemanticsMask::Release);
    break;
  case AtomicOrdering::AcquireRelease:
    Order = static_cast<uint32_t>(spv::MemorySemanticsMask::AcquireRelease);
    break;
  case AtomicOrdering::SequentiallyConsistent:
    Order = static_cast<uint32_t>(
        vulkan() ? spv::MemorySemanticsMask::AcquireRelease
                 : spv::MemorySemanticsMask::SequentiallyConsistent);
    break;
  }
  return u32(Order | Storage);
}

uint32_t Emitter::atomicPointer(const Instruction &I, const Value *Ptr,
                                Type *T) {
  if (isPrivate(Ptr))
    return fail(&I, "an atomic access to a private variable");
  if (!T->isIntegerTy(32) && !T->isIntegerTy(64))
    return fail(&I, "an atomic access of type " + typeString(T) +
                        " (atomics must be 32- or 64-bit)");
  if (T->isIntegerTy(64)) {
    // SPIRV-Tools allows Int64Atomics in no OpenCL environment (it needs
    // cl_khr_int64_base_atomics, which SPIR-V cannot declare).
    if (!vulkan())
      return fail(&I, "a 64-bit atomic access in the OpenCL environment");
    B.addCapability(spv::Capability::Int64Atomics);
  }
  return globalPointer(valueOf(Ptr, &I), typeOf(T, &I));
}

void Emitter::emitAtomicRMW(const AtomicRMWInst &I) {
  spv::Op Op;
  switch (I.getOperation()) {
  case AtomicRMWInst::Xchg:
    Op = spv::Op::OpAtomicExchange;
    break;
  case AtomicRMWInst::Add:
    Op = spv::Op::OpAtomicIAdd;
    break;
  case AtomicRMWInst::Sub:
    Op = spv::Op::OpAtomicISub;
    break;
  case AtomicRMWInst::And:
    Op = spv::Op::OpAtomicAnd;
    break;
  case AtomicRMWInst::Or:
    Op = spv::Op::OpAtomicOr;
    break;
  case AtomicRMWInst::Xor:
    Op = spv::Op::OpAtomicXor;
    break;
  case AtomicRMWInst::Max:
    Op = spv::Op::OpAtomicSMax;
    break;
  case AtomicRMWInst::Min:
    Op = spv::Op::OpAtomicSMin;
    break;
  case AtomicRMWInst::UMax:
    Op = spv::Op::OpAtomicUMax;
    break;
  case AtomicRMWInst::UMin:
    Op = spv::Op::OpAtomicUMin;
    break;
  default:
    fail(&I, "the atomicrmw operation '" +
                 AtomicRMWInst::getOperationName(I.getOperation()) + "'");
    return;
  }
  Type *T = memoryType(I.getType());
  uint32_t P = atomicPointer(I, I.getPointerOperand(), T);
  if (!P)
    return;
  define(&I, op(Op, typeOf(T, &I),
                {P, scope(I.getSyncScopeID()), accessSemantics(I.getOrdering()),
                 valueOf(I.getValOperand(), &I)}));
}

void Emitter::emitCmpXchg(const AtomicCmpXchgInst &I) {
  Type *T = memoryType(I.getCompareOperand()->getType());
  uint32_t P = atomicPointer(I, I.getPointerOperand(), T);
  if (!P)
    return;
  uint32_t Expected = valueOf(I.getCompareOperand(), &I);
  // The failure ordering cannot release; an acquiring one keeps acquire.
  AtomicOrdering Failure = I.getFailureOrdering();
  uint32_t Old =
      op(spv::Op::OpAtomicCompareExchange, typeOf(T, &I),
         {P, scope(I.getSyncScopeID()), accessSemantics(I.getSuccessOrdering()),
          accessSemantics(isAcquireOrStronger(Failure)
                              ? AtomicOrdering::Acquire
                              : AtomicOrdering::Monotonic),
          valueOf(I.getNewValOperand(), &I), Expected});
  uint32_t Success = op(spv::Op::OpIEqual, B.boolType(), {Old, Expected});
  CmpXchgs[&I] = {Old, Success};
}

//===--------------------------------------------------------------------===//
// Arithmetic
//===--------------------------------------------------------------------===//

void Emitter::emitBinary(const BinaryOperator &I) {
  Type *T = I.getType();
  uint32_t Ty = typeOf(T, &I);
  if (!Ty)
    return;
  uint32_t A = valueOf(I.getOperand(0), &I), Bv = valueOf(I.getOperand(1), &I);
  if (T->isIntegerTy(1)) {
    switch (I.getOpcode()) {
    case Instruction::And:
    case Instruction::Mul:
      define(&I, op(spv::Op::OpLogicalAnd, Ty, {A, Bv}));
      return;
    case Instruction::Or:
      define(&I, op(spv::Op::OpLogicalOr, Ty, {A, Bv}));
      return;
    case Instruction::Xor:
    case Instruction::Add:
    case Instruction::Sub:
      define(&I, op(spv::Op::OpLogicalNotEqual, Ty, {A, Bv}));
      return;
    case Instruction::UDiv:
    case Instruction::SDiv:
    case Instruction::Shl:
    case Instruction::LShr:
    case Instruction::AShr:
      // x / 1 and x shifted by 0 (anything else is undefined).
      define(&I, A);
      return;
    case Instruction::URem:
    case Instruction::SRem:
      define(&I, B.constBool(false));
      return;
    default:
      break;
    }
  }
  if (isOddInteger(T)) {
    switch (I.getOpcode()) {
    case Instruction::UDiv:
    case Instruction::URem:
    case Instruction::LShr:
      A = zeroExtended(A, T);
      Bv = zeroExtended(Bv, T);
      break;
    case Instruction::SDiv:
    case Instruction::SRem:
      A = signExtended(A, T);
      Bv = signExtended(Bv, T);
      break;
    case Instruction::AShr:
      A = signExtended(A, T);
      Bv = zeroExtended(Bv, T);
      break;
    case Instruction::Shl:
      Bv = zeroExtended(Bv, T);
      break;
    default:
      break; // the low bits of the result depend on the low bits only
    }
  }
  if (uint32_t R = withConstantZero(I.getOpcode(), I, I.getOperand(0),
                                    I.getOperand(1), A, Bv)) {
    define(&I, R);
    return;
  }
  if (I.getOpcode() == Instruction::FRem && vulkan()) {
    define(&I, floatRemainder(A, Bv, T));
    return;
  }
  spv::Op Op;
  switch (I.getOpcode()) {
  case Instruction::Add:
    Op = spv::Op::OpIAdd;
    break;
  case Instruction::Sub:
    Op = spv::Op::OpISub;
    break;
  case Instruction::Mul:
    Op = spv::Op::OpIMul;
    break;
  case Instruction::UDiv:
    Op = spv::Op::OpUDiv;
    break;
  case Instruction::SDiv:
    Op = spv::Op::OpSDiv;
    break;
  case Instruction::URem:
    Op = spv::Op::OpUMod;
    break;
  case Instruction::SRem:
    // The result takes the dividend's sign, as LLVM's srem.
    Op = spv::Op::OpSRem;
    break;
  case Instruction::Shl:
    Op = spv::Op::OpShiftLeftLogical;
    break;
  case Instruction::LShr:
    Op = spv::Op::OpShiftRightLogical;
    break;
  case Instruction::AShr:
    Op = spv::Op::OpShiftRightArithmetic;
    break;
  case Instruction::And:
    Op = spv::Op::OpBitwiseAnd;
    break;
  case Instruction::Or:
    Op = spv::Op::OpBitwiseOr;
    break;
  case Instruction::Xor:
    Op = spv::Op::OpBitwiseXor;
    break;
  case Instruction::FAdd:
    Op = spv::Op::OpFAdd;
    break;
  case Instruction::FSub:
    Op = spv::Op::OpFSub;
    break;
  case Instruction::FMul:
    Op = spv::Op::OpFMul;
    break;
  case Instruction::FDiv:
    Op = spv::Op::OpFDiv;
    break;
  case Instruction::FRem:
    // C's fmod: the result takes the dividend's sign.
    Op = spv::Op::OpFRem;
    break;
  default:
    fail(&I, "the instruction '" + Twine(I.getOpcodeName()) + "'");
    return;
  }
  define(&I, op(Op, Ty, {A, Bv}));
}

/// The value of a constant +0.0 or -0.0 (scalar), else null.
static const APFloat *constantZero(const Value *V) {
  auto *C = dyn_cast<ConstantFP>(V);
  return C && C->isZero() ? &C->getValueAPF() : nullptr;
}

/// Float arithmetic with a constant zero operand, written so that a Vulkan
/// driver cannot fold it. Mesa's lavapipe turns x * 0.0 into 0.0, x + 0.0
/// into x, 0.0 - x into -x, x / 0.0 and 0.0 / x into 0.0, and x rem 0.0 into
/// x, although the module asks for IEEE semantics
/// (SignedZeroInfNanPreserve): infinities, NaNs and the sign of zero would
/// differ from C on the CPU. The forms below compute the same IEEE results
/// from operations it keeps. Returns 0 where no operand is a constant zero,
/// for vectors, and where the instruction's flags allow the folding anyway.
uint32_t Emitter::withConstantZero(unsigned Opcode, const Instruction &I,
                                   const Value *L, const Value *R, uint32_t A,
                                   uint32_t Bv) {
  Type *T = I.getType();
  const APFloat *ZL = constantZero(L), *ZR = constantZero(R);
  if (!vulkan() || !T->isFloatingPointTy() || (!ZL && !ZR))
    return 0;
  FastMathFlags FMF = I.getFastMathFlags();
  if (FMF.noNaNs() && FMF.noInfs() && FMF.noSignedZeros())
    return 0;
  unsigned Bits = T->getPrimitiveSizeInBits();
  uint32_t Ty = typeOf(T, &I), Bool = B.boolType();
  auto constant = [&](const APFloat &F) {
    return B.constFloatBits(Bits, F.bitcastToAPInt().getZExtValue());
  };
  const fltSemantics &Sem = T->getFltSemantics();
  uint32_t NaN = constant(APFloat::getQNaN(Sem));
  auto plusZero = [&](uint32_t X) { return plusPositiveZero(X, T); };
  // 0.0 / y and 0.0 rem y are NaN where y is NaN or zero.
  auto nanOrZeroDivisor = [&](uint32_t Y) {
    return op(spv::Op::OpFUnordEqual, Bool,
              {Y, constant(APFloat::getZero(Sem))});
  };
  switch (Opcode) {
  case Instruction::FMul: {
    // x * ±0.0: x - x is +0.0 for finite x and NaN otherwise; the sign is
    // x's, flipped by a -0.0.
    uint32_t X = ZR ? A : Bv;
    return copySign(op(spv::Op::OpFSub, Ty, {X, X}), X, T,
                    (ZR ? ZR : ZL)->isNegative());
  }
  case Instruction::FAdd: {
    uint32_t X = ZR ? A : Bv;
    return (ZR ? ZR : ZL)->isNegative() ? X : plusZero(X);
  }
  case Instruction::FSub:
    if (ZR) // x - 0.0 is x; x - -0.0 is x + 0.0.
      return ZR->isNegative() ? plusZero(A) : A;
    {
      uint32_t Neg = op(spv::Op::OpFNegate, Ty, {Bv});
      return ZL->isNegative() ? Neg : plusZero(Neg);
    }
  case Instruction::FDiv:
    if (ZR) // x / ±0.0 is x * ±inf: NaN for a zero or NaN x.
      return op(spv::Op::OpFMul, Ty,
                {A, constant(APFloat::getInf(Sem, ZR->isNegative()))});
    {
      uint32_t Zero =
          copySign(constant(APFloat::getZero(Sem)), Bv, T, ZL->isNegative());
      return op(spv::Op::OpSelect, Ty, {nanOrZeroDivisor(Bv), NaN, Zero});
    }
  case Instruction::FRem:
    if (ZR)
      return NaN;
    return op(spv::Op::OpSelect, Ty, {nanOrZeroDivisor(Bv), NaN, A});
  default:
    return 0;
  }
}

/// x + 0.0 for a float scalar x: x, except that -0.0 + 0.0 is +0.0.
uint32_t Emitter::plusPositiveZero(uint32_t X, Type *T) {
  unsigned Bits = T->getPrimitiveSizeInBits();
  uint32_t IntTy = B.intType(Bits);
  uint32_t NegZero = op(spv::Op::OpIEqual, B.boolType(),
                        {op(spv::Op::OpBitcast, IntTy, {X}),
                         B.constInt(Bits, uint64_t(1) << (Bits - 1))});
  return op(spv::Op::OpSelect, typeOf(T, nullptr),
            {NegZero, B.constFloatBits(Bits, 0), X});
}

/// C's fmod on Vulkan. lavapipe's OpFRem gives NaN for a finite x and an
/// infinite y, where C gives x, and +0.0 for a zero remainder of a negative
/// x, where C keeps x's sign.
uint32_t Emitter::floatRemainder(uint32_t X, uint32_t Y, Type *T) {
  uint32_t Ty = typeOf(T, nullptr), Bool = B.boolType();
  uint32_t Signed = copySign(op(spv::Op::OpFRem, Ty, {X, Y}), X, T);
  uint32_t XNotFinite =
      op(spv::Op::OpLogicalOr, Bool,
         {op(spv::Op::OpIsInf, Bool, {X}), op(spv::Op::OpIsNan, Bool, {X})});
  uint32_t KeepX = op(spv::Op::OpLogicalAnd, Bool,
                      {op(spv::Op::OpIsInf, Bool, {Y}),
                       op(spv::Op::OpLogicalNot, Bool, {XNotFinite})});
  return op(spv::Op::OpSelect, Ty, {KeepX, X, Signed});
}

/// C's copysign on float scalars, in integer operations (GLSL.std.450 has
/// none): Magnitude's bits but the sign bit, SignOf's sign bit, negated when
/// Flip.
uint32_t Emitter::copySign(uint32_t Magnitude, uint32_t SignOf, Type *T,
                           bool Flip) {
  unsigned Bits = T->getScalarSizeInBits();
  uint32_t IntTy = B.intType(Bits);
  uint64_t Sign = uint64_t(1) << (Bits - 1);
  auto Masked = [&](uint32_t V, uint64_t Mask) {
    return op(spv::Op::OpBitwiseAnd, IntTy,
              {op(spv::Op::OpBitcast, IntTy, {V}), B.constInt(Bits, Mask)});
  };
  uint32_t M = Masked(Magnitude, ~Sign), S = Masked(SignOf, Sign);
  if (Flip)
    S = op(spv::Op::OpBitwiseXor, IntTy, {S, B.constInt(Bits, Sign)});
  return op(spv::Op::OpBitcast, typeOf(T, nullptr),
            {op(spv::Op::OpBitwiseOr, IntTy, {M, S})});
}

void Emitter::emitICmp(const ICmpInst &I) {
  const Value *L = I.getOperand(0), *R = I.getOperand(1);
  uint32_t A, Bv;
  Type *T = L->getType();
  if (isPrivate(L) || isPrivate(R)) {
    if (PrivateObject.lookup(L) != PrivateObject.lookup(R) ||
        Ambiguous.count(L) || Ambiguous.count(R)) {
      fail(&I, "a comparison of pointers into different private arrays");
      return;
    }
    A = offsetOf(L, &I);
    Bv = offsetOf(R, &I);
    T = Type::getInt64Ty(I.getContext());
  } else {
    if (!typeOf(T, &I))
      return;
    A = normalised(valueOf(L, &I), T, I.isSigned());
    Bv = normalised(valueOf(R, &I), T, I.isSigned());
  }
  CmpInst::Predicate P = I.getPredicate();
  if (T->isIntegerTy(1)) {
    if (P == CmpInst::ICMP_EQ) {
      define(&I, op(spv::Op::OpLogicalEqual, B.boolType(), {A, Bv}));
      return;
    }
    if (P == CmpInst::ICMP_NE) {
      define(&I, op(spv::Op::OpLogicalNotEqual, B.boolType(), {A, Bv}));
      return;
    }
    // Order on bools: true is 1 unsigned and -1 signed.
    uint32_t One = u32(I.isSigned() ? ~0u : 1u);
    A = op(spv::Op::OpSelect, u32Type(), {A, One, u32(0)});
    Bv = op(spv::Op::OpSelect, u32Type(), {Bv, One, u32(0)});
  }
  spv::Op Op;
  switch (P) {
  case CmpInst::ICMP_EQ:
    Op = spv::Op::OpIEqual;
    break;
  case CmpInst::ICMP_NE:
    Op = spv::Op::OpINotEqual;
    break;
  case CmpInst::ICMP_UGT:
    Op = spv::Op::OpUGreaterThan;
    break;
  case CmpInst::ICMP_UGE:
    Op = spv::Op::OpUGreaterThanEqual;
    break;
  case CmpInst::ICMP_ULT:
    Op = spv::Op::OpULessThan;
    break;
  case CmpInst::ICMP_ULE:
    Op = spv::Op::OpULessThanEqual;
    break;
  case CmpInst::ICMP_SGT:
    Op = spv::Op::OpSGreaterThan;
    break;
  case CmpInst::ICMP_SGE:
    Op = spv::Op::OpSGreaterThanEqual;
    break;
  case CmpInst::ICMP_SLT:
    Op = spv::Op::OpSLessThan;
    break;
  default:
    Op = spv::Op::OpSLessThanEqual;
    break;
  }
  define(&I, op(Op, B.boolType(), {A, Bv}));
}

void Emitter::emitFCmp(const FCmpInst &I) {
  if (!typeOf(I.getOperand(0)->getType(), &I))
    return;
  uint32_t A = valueOf(I.getOperand(0), &I), Bv = valueOf(I.getOperand(1), &I);
  uint32_t Bool = B.boolType();
  spv::Op Op;
  switch (I.getPredicate()) {
  case CmpInst::FCMP_FALSE:
    define(&I, B.constBool(false));
    return;
  case CmpInst::FCMP_TRUE:
    define(&I, B.constBool(true));
    return;
  case CmpInst::FCMP_ORD:
  case CmpInst::FCMP_UNO: {
    // OpOrdered/OpUnordered need the Kernel capability; IsNan works in both.
    uint32_t Either =
        op(spv::Op::OpLogicalOr, Bool,
           {op(spv::Op::OpIsNan, Bool, {A}), op(spv::Op::OpIsNan, Bool, {Bv})});
    define(&I, I.getPredicate() == CmpInst::FCMP_UNO
                   ? Either
                   : op(spv::Op::OpLogicalNot, Bool, {Either}));
    return;
  }
  case CmpInst::FCMP_OEQ:
    Op = spv::Op::OpFOrdEqual;
    break;
  case CmpInst::FCMP_OGT:
    Op = spv::Op::OpFOrdGreaterThan;
    break;
  case CmpInst::FCMP_OGE:
    Op = spv::Op::OpFOrdGreaterThanEqual;
    break;
  case CmpInst::FCMP_OLT:
    Op = spv::Op::OpFOrdLessThan;
    break;
  case CmpInst::FCMP_OLE:
    Op = spv::Op::OpFOrdLessThanEqual;
    break;
  case CmpInst::FCMP_ONE:
    Op = spv::Op::OpFOrdNotEqual;
    break;
  case CmpInst::FCMP_UEQ:
    Op = spv::Op::OpFUnordEqual;
    break;
  case CmpInst::FCMP_UGT:
    Op = spv::Op::OpFUnordGreaterThan;
    break;
  case CmpInst::FCMP_UGE:
    Op = spv::Op::OpFUnordGreaterThanEqual;
    break;
  case CmpInst::FCMP_ULT:
    Op = spv::Op::OpFUnordLessThan;
    break;
  case CmpInst::FCMP_ULE:
    Op = spv::Op::OpFUnordLessThanEqual;
    break;
  default:
    Op = spv::Op::OpFUnordNotEqual;
    break;
  }
  define(&I, op(Op, Bool, {A, Bv}));
}

void Emitter::emitCast(const CastInst &I) {
  const Value *Src = I.getOperand(0);
  Type *From = Src->getType(), *To = I.getType();
  if (isPrivate(&I) || isPrivate(Src)) {
    if (isPrivate(&I) && isPrivate(Src)) {
      PrivateOffset[&I] = offsetOf(Src, &I);
      return;
    }
    fail(&I, "converting the address of a private variable to an integer "
             "(private pointers cannot escape)");
    return;
  }
  uint32_t ToTy = typeOf(To, &I);
  if (!ToTy || !typeOf(From, &I))
    return;
  uint32_t V = valueOf(Src, &I);
  unsigned FromBits = From->getScalarSizeInBits(),
           ToBits = To->getScalarSizeInBits();
  switch (I.getOpcode()) {
  case Instruction::Trunc:
    if (ToBits != 1 && ToTy == typeOf(From, &I)) {
      define(&I, V); // between widths that share a SPIR-V type
      return;
    }
    if (ToBits == 1) {
      uint32_t FromTy = typeOf(From, &I);
      uint32_t Low = op(spv::Op::OpBitwiseAnd, FromTy,
                        {V, valueOf(ConstantInt::get(From, 1), &I)});
      define(&I, op(spv::Op::OpINotEqual, ToTy,
                    {Low, valueOf(ConstantInt::get(From, 0), &I)}));
    } else {
      define(&I, op(spv::Op::OpUConvert, ToTy, {V}));
    }
    return;
  case Instruction::ZExt:
  case Instruction::SExt:
    if (FromBits == 1) {
      bool Signed = I.getOpcode() == Instruction::SExt;
      define(&I, op(spv::Op::OpSelect, ToTy,
                    {V,
                     valueOf(Signed ? Constant::getAllOnesValue(To)
                                    : ConstantInt::get(To, 1),
                             &I),
                     valueOf(ConstantInt::get(To, 0), &I)}));
    } else {
      bool Signed = I.getOpcode() == Instruction::SExt;
      V = normalised(V, From, Signed);
      if (ToTy == typeOf(From, &I))
        define(&I, V);
      else
        define(&I, op(Signed ? spv::Op::OpSConvert : spv::Op::OpUConvert, ToTy,
                      {V}));
    }
    return;
  case Instruction::FPTrunc:
  case Instruction::FPExt:
    define(&I, op(spv::Op::OpFConvert, ToTy, {V}));
    return;
  case Instruction::FPToUI:
  case Instruction::FPToSI: {
    bool Signed = I.getOpcode() == Instruction::FPToSI;
    spv::Op Op = Signed ? spv::Op::OpConvertFToS : spv::Op::OpConvertFToU;
    if (ToBits == 1) {
      uint32_t W = op(Op, u32Type(), {V});
      define(&I, op(spv::Op::OpINotEqual, ToTy, {W, u32(0)}));
    } else {
      define(&I, op(Op, ToTy, {V}));
    }
    return;
  }
  case Instruction::UIToFP:
  case Instruction::SIToFP: {
    bool Signed = I.getOpcode() == Instruction::SIToFP;
    if (FromBits == 1) {
      define(&I, op(spv::Op::OpSelect, ToTy,
                    {V, valueOf(ConstantFP::get(To, Signed ? -1.0 : 1.0), &I),
                     valueOf(ConstantFP::get(To, 0.0), &I)}));
    } else {
      define(&I, op(Signed ? spv::Op::OpConvertSToF : spv::Op::OpConvertUToF,
                    ToTy, {normalised(V, From, Signed)}));
    }
    return;
  }
  case Instruction::PtrToInt:
  case Instruction::IntToPtr: {
    // Addresses are u64 already; only the width changes (inttoptr
    // zero-extends).
    unsigned FromW = From->isPointerTy() ? 64 : legalWidth(FromBits);
    unsigned ToW = To->isPointerTy() ? 64 : legalWidth(ToBits);
    if (FromW == 1 || ToW == 1) {
      fail(&I, "a conversion between a pointer and an i1");
      return;
    }
    V = zeroExtended(V, From);
    define(&I, FromW == ToW ? V : op(spv::Op::OpUConvert, ToTy, {V}));
    return;
  }
  case Instruction::BitCast:
  case Instruction::AddrSpaceCast:
    if (ToTy == typeOf(From, &I))
      define(&I, V);
    else
      define(&I, op(spv::Op::OpBitcast, ToTy, {V}));
    return;
  default:
    fail(&I, "the instruction '" + Twine(I.getOpcodeName()) + "'");
  }
}

void Emitter::emitGEP(const GetElementPtrInst &I) {
  const Value *Base = I.getPointerOperand();
  bool Private = isPrivate(&I);
  if (Private && Ambiguous.count(&I)) {
    fail(&I, "a pointer that may point into two different private arrays");
    return;
  }
  uint32_t Acc = Private ? offsetOf(Base, &I) : valueOf(Base, &I);
  if (!Acc)
    return;
  MapVector<Value *, APInt> Vars;
  APInt Const(64, 0);
  if (!cast<GEPOperator>(I).collectOffset(DL, 64, Vars, Const)) {
    fail(&I, "a getelementptr on a type of unknown size");
    return;
  }
  for (auto &[V, Scale] : Vars) {
    if (!typeOf(V->getType(), &I))
      return;
    uint32_t Idx = signExtended(valueOf(V, &I), V->getType());
    unsigned W = legalWidth(V->getType()->getScalarSizeInBits());
    if (W == 1)
      Idx = op(spv::Op::OpSelect, u64Type(), {Idx, u64(~0ull), u64(0)});
    else if (W < 64)
      // Indices are signed.
      Idx = op(spv::Op::OpSConvert, u64Type(), {Idx});
    Acc = add64(Acc, mul64(Idx, Scale.getZExtValue()));
  }
  if (!Const.isZero())
    Acc = add64(Acc, u64(Const.getZExtValue()));
  if (Private)
    PrivateOffset[&I] = Acc;
  else
    define(&I, Acc);
}

//===--------------------------------------------------------------------===//
// Calls
//===--------------------------------------------------------------------===//

void Emitter::emitCall(const CallInst &I) {
  const Function *Callee = I.getCalledFunction();
  if (!Callee) {
    fail(&I, "an indirect call");
    return;
  }
  StringRef Name = Callee->getName();
  if (Name == BarrierFunctionName) {
    emitBarrier();
    return;
  }
  if (Name == GlobalIdFunctionName || Name == OuterIdFunctionName ||
      Name == GroupIdFunctionName || Name == LocalIdFunctionName) {
    SmallVector<uint64_t, 2> Args;
    for (const Use &A : I.args()) {
      auto *C = dyn_cast<ConstantInt>(A.get());
      if (!C) {
        fail(&I, "internal error: a placeholder with a variable argument");
        return;
      }
      Args.push_back(C->getZExtValue());
    }
    if (Name == GlobalIdFunctionName || Name == GroupIdFunctionName) {
      define(&I, idComponent(Name == GlobalIdFunctionName
                                 ? spv::BuiltIn::GlobalInvocationId
                                 : spv::BuiltIn::WorkgroupId,
                             spirvIdComponent(N.Dims.size(), Args[0])));
    } else if (Name == LocalIdFunctionName) {
      define(&I, idComponent(spv::BuiltIn::LocalInvocationId,
                             spirvIdComponent(N.Group.size(), Args[0])));
    } else {
      unsigned Slot = N.Params.size() + 3 * (Args[0] - 1) + Args[1];
      define(&I, slotValue(Slot));
    }
    return;
  }
  if (Name == LoopStatusFunctionName) {
    define(&I, B.specConstantU64(SPIRVLoopStatusSpecId));
    return;
  }
  if (Name == LoopReportFunctionName) {
    uint32_t P = globalPointer(valueOf(I.getArgOperand(0), &I), u32Type());
    inst(spv::Op::OpStore,
         {P, u32(1), static_cast<uint32_t>(spv::MemoryAccessMask::Aligned), 4});
    return;
  }
  Intrinsic::ID ID = Callee->getIntrinsicID();
  if (isIgnoredIntrinsic(ID))
    return;
  if (isIdentityIntrinsic(ID)) {
    if (isPrivate(&I))
      PrivateOffset[&I] = offsetOf(I.getArgOperand(0), &I);
    else
      define(&I, valueOf(I.getArgOperand(0), &I));
    return;
  }
  if (MathOp Op = classifyMath(I); Op != MathOp::None) {
    emitMath(I, Op);
    return;
  }
  fail(&I, unsupportedCall(I));
}

uint32_t Emitter::bitCount(const CallInst &I, MathOp Op, uint32_t X,
                           unsigned Bits) {
  // Vulkan restricts OpBitCount and FindUMsb/FindILsb to 32 bits: narrower
  // values are widened, 64-bit ones counted in halves.
  uint32_t U32 = u32Type();
  auto Count32 = [&](uint32_t V) -> uint32_t {
    switch (Op) {
    case MathOp::CtPop:
      return op(spv::Op::OpBitCount, U32, {V});
    case MathOp::Ctlz: {
      // FindUMsb(0) is -1, so 31 - it is 32 for 0.
      uint32_t Msb = extInst(GLSLstd450FindUMsb, U32, {V});
      return op(spv::Op::OpISub, U32, {u32(31), Msb});
    }
    default: {
      uint32_t Lsb = extInst(GLSLstd450FindILsb, U32, {V});
      uint32_t Zero = op(spv::Op::OpIEqual, B.boolType(), {V, u32(0)});
      return op(spv::Op::OpSelect, U32, {Zero, u32(32), Lsb});
    }
    }
  };
  uint32_t Ty = typeOf(I.getType(), &I);
  if (Bits == 32)
    return Count32(X);
  if (Bits < 32) {
    uint32_t Wide = op(spv::Op::OpUConvert, U32, {X});
    uint32_t C = Count32(Wide);
    if (Op == MathOp::Ctlz)
      C = op(spv::Op::OpISub, U32, {C, u32(32 - Bits)});
    else if (Op == MathOp::Cttz)
      C = extInst(GLSLstd450UMin, U32, {C, u32(Bits)});
    return op(spv::Op::OpUConvert, Ty, {C});
  }
  uint32_t Lo = op(spv::Op::OpUConvert, U32, {X});
  uint32_t Hi = op(spv::Op::OpUConvert, U32,
                   {op(spv::Op::OpShiftRightLogical, Ty, {X, u64(32)})});
  uint32_t CLo = Count32(Lo), CHi = Count32(Hi);
  uint32_t C;
  if (Op == MathOp::CtPop) {
    C = op(spv::Op::OpIAdd, U32, {CLo, CHi});
  } else if (Op == MathOp::Ctlz) {
    uint32_t HiZero = op(spv::Op::OpIEqual, B.boolType(), {Hi, u32(0)});
    C = op(spv::Op::OpSelect, U32,
           {HiZero, op(spv::Op::OpIAdd, U32, {u32(32), CLo}), CHi});
  } else {
    uint32_t LoZero = op(spv::Op::OpIEqual, B.boolType(), {Lo, u32(0)});
    C = op(spv::Op::OpSelect, U32,
           {LoZero, op(spv::Op::OpIAdd, U32, {u32(32), CHi}), CLo});
  }
  return op(spv::Op::OpUConvert, Ty, {C});
}

void Emitter::emitMath(const CallInst &I, MathOp Op) {
  Type *T = I.getType();
  uint32_t Ty = typeOf(T, &I);
  if (!Ty)
    return;
  SmallVector<uint32_t, 3> Args;
  for (const Use &A : I.args()) {
    // The flag operands of abs/ctlz/cttz (poison on INT_MIN or zero) are
    // only hints.
    if (A->getType()->isIntegerTy(1))
      continue;
    if (!typeOf(A->getType(), &I))
      return;
    uint32_t V = valueOf(A.get(), &I);
    if (isOddInteger(A->getType())) {
      if (Op == MathOp::SMin || Op == MathOp::SMax || Op == MathOp::Abs)
        V = signExtended(V, A->getType());
      else if (Op == MathOp::UMin || Op == MathOp::UMax)
        V = zeroExtended(V, A->getType());
      else {
        fail(&I, Twine(mathName(Op)) + " on " + typeString(T));
        return;
      }
    }
    Args.push_back(V);
  }
  unsigned Bits = T->getScalarSizeInBits();

  if (Op == MathOp::FMod) {
    const Value *X = I.getArgOperand(0), *Y = I.getArgOperand(1);
    if (uint32_t R =
            withConstantZero(Instruction::FRem, I, X, Y, Args[0], Args[1]))
      define(&I, R);
    else if (vulkan())
      define(&I, floatRemainder(Args[0], Args[1], T));
    else
      define(&I, op(spv::Op::OpFRem, Ty, Args));
    return;
  }
  if (Op == MathOp::Fma && vulkan() &&
      (constantZero(I.getArgOperand(0)) || constantZero(I.getArgOperand(1)))) {
    // x * 0.0 is exact, so fma(x, 0.0, c) is the product's rounding-free
    // sum with c; both steps keep IEEE specials as withConstantZero says.
    uint32_t Product =
        withConstantZero(Instruction::FMul, I, I.getArgOperand(0),
                         I.getArgOperand(1), Args[0], Args[1]);
    if (Product) {
      // The product is not a constant, so only a zero addend needs care.
      const Value *C = I.getArgOperand(2);
      if (const APFloat *Z = constantZero(C))
        define(&I, Z->isNegative() ? Product : plusPositiveZero(Product, T));
      else
        define(&I, op(spv::Op::OpFAdd, Ty, {Product, Args[2]}));
      return;
    }
  }
  if (!vulkan()) {
    unsigned Number = openCLOp(Op);
    if (Number == ~0u) {
      fail(&I, Twine(mathName(Op)) + " in the OpenCL environment");
      return;
    }
    define(&I, extInst(Number, Ty, Args));
    return;
  }

  if (unsigned Number = glslAnyWidth(Op)) {
    define(&I, extInst(Number, Ty, Args));
    return;
  }
  if (unsigned Number = glslFloat32Only(Op)) {
    if (Bits > 32) {
      fail(&I, Twine(mathName(Op)) + " on " + typeString(T) +
                   ": GLSL.std.450 has it for 16- and 32-bit floats only "
                   "(use the float version, e.g. " +
                   mathName(Op) + "f)");
      return;
    }
    define(&I, extInst(Number, Ty, Args));
    return;
  }
  switch (Op) {
  case MathOp::Round: {
    // C rounds halves away from zero; GLSL's Round leaves them to the
    // implementation. trunc(x) + sign(x) where |x - trunc(x)| >= 0.5.
    uint32_t X = Args[0];
    uint32_t Tr = extInst(GLSLstd450Trunc, Ty, {X});
    uint32_t Frac =
        extInst(GLSLstd450FAbs, Ty, {op(spv::Op::OpFSub, Ty, {X, Tr})});
    uint32_t Half = valueOf(ConstantFP::get(T, 0.5), &I);
    uint32_t Up =
        op(spv::Op::OpFOrdGreaterThanEqual, B.boolType(), {Frac, Half});
    uint32_t Away =
        op(spv::Op::OpFAdd, Ty, {Tr, extInst(GLSLstd450FSign, Ty, {X})});
    define(&I, op(spv::Op::OpSelect, Ty, {Up, Away, Tr}));
    return;
  }
  case MathOp::Log10: {
    if (Bits > 32)
      break;
    uint32_t L2 = extInst(GLSLstd450Log2, Ty, {Args[0]});
    uint32_t Scale =
        valueOf(ConstantFP::get(T, 0.301029995663981195213738894724493), &I);
    define(&I, op(spv::Op::OpFMul, Ty, {L2, Scale}));
    return;
  }
  case MathOp::Copysign:
    define(&I, copySign(Args[0], Args[1], T));
    return;
  case MathOp::CtPop:
  case MathOp::Ctlz:
  case MathOp::Cttz:
    define(&I, bitCount(I, Op, Args[0], Bits));
    return;
  case MathOp::BitReverse:
    // Vulkan restricts OpBitReverse to 32 bits: narrower values are
    // reversed in the top of a 32-bit word, 64-bit ones in halves that
    // swap places.
    if (T->isIntegerTy(1)) { // (i1 operands are not in Args: flags)
      define(&I, valueOf(I.getArgOperand(0), &I));
      return;
    }
    if (Bits == 32) {
      define(&I, op(spv::Op::OpBitReverse, Ty, {Args[0]}));
      return;
    }
    if (Bits < 32) {
      uint32_t Wide = op(spv::Op::OpUConvert, u32Type(), {Args[0]});
      uint32_t R =
          op(spv::Op::OpShiftRightLogical, u32Type(),
             {op(spv::Op::OpBitReverse, u32Type(), {Wide}), u32(32 - Bits)});
      define(&I, op(spv::Op::OpUConvert, Ty, {R}));
      return;
    }
    if (Bits == 64) {
      auto Reversed = [&](uint32_t Half) {
        return op(spv::Op::OpUConvert, Ty,
                  {op(spv::Op::OpBitReverse, u32Type(),
                      {op(spv::Op::OpUConvert, u32Type(), {Half})})});
      };
      uint32_t Lo = Reversed(Args[0]);
      uint32_t Hi =
          Reversed(op(spv::Op::OpShiftRightLogical, Ty, {Args[0], u64(32)}));
      define(&I, op(spv::Op::OpBitwiseOr, Ty,
                    {op(spv::Op::OpShiftLeftLogical, Ty, {Lo, u64(32)}), Hi}));
      return;
    }
    break;
  default:
    break;
  }
  fail(&I, Twine(mathName(Op)) + " on " + typeString(T) +
               " (GLSL.std.450 has no such instruction)");
}

//===--------------------------------------------------------------------===//
// Blocks
//===--------------------------------------------------------------------===//

void Emitter::emitTerminator(const Instruction &I) {
  const BasicBlock *BB = I.getParent();
  if (auto It = PK.Headers.find(BB); It != PK.Headers.end()) {
    const BlockStructure &S = It->second;
    if (S.Continue)
      inst(spv::Op::OpLoopMerge,
           {label(S.Merge), label(S.Continue),
            static_cast<uint32_t>(spv::LoopControlMask::MaskNone)});
    else
      inst(spv::Op::OpSelectionMerge,
           {label(S.Merge),
            static_cast<uint32_t>(spv::SelectionControlMask::MaskNone)});
  }
  if (auto *Br = dyn_cast<BranchInst>(&I)) {
    if (Br->isUnconditional() || Br->getSuccessor(0) == Br->getSuccessor(1)) {
      inst(spv::Op::OpBranch, {label(Br->getSuccessor(0))});
      return;
    }
    inst(spv::Op::OpBranchConditional,
         {valueOf(Br->getCondition(), &I), label(Br->getSuccessor(0)),
          label(Br->getSuccessor(1))});
    return;
  }
  if (auto *Ret = dyn_cast<ReturnInst>(&I)) {
    if (Ret->getReturnValue()) {
      fail(&I, "internal error: a kernel that returns a value");
      return;
    }
    inst(spv::Op::OpReturn, {});
    return;
  }
  if (isa<UnreachableInst>(I)) {
    inst(spv::Op::OpUnreachable, {});
    return;
  }
  fail(&I, "the terminator '" + Twine(I.getOpcodeName()) + "'");
}

void Emitter::emitInstruction(const Instruction &I) {
  auto *FPOp = dyn_cast<FPMathOperator>(&I);
  MayContract = FPOp && FPOp->hasAllowContract();
  if (I.isTerminator()) {
    emitTerminator(I);
    return;
  }
  if (auto *Bin = dyn_cast<BinaryOperator>(&I))
    return emitBinary(*Bin);
  if (auto *Cmp = dyn_cast<ICmpInst>(&I))
    return emitICmp(*Cmp);
  if (auto *Cmp = dyn_cast<FCmpInst>(&I))
    return emitFCmp(*Cmp);
  if (auto *Cast = dyn_cast<CastInst>(&I))
    return emitCast(*Cast);
  if (auto *GEP = dyn_cast<GetElementPtrInst>(&I))
    return emitGEP(*GEP);
  if (auto *L = dyn_cast<LoadInst>(&I))
    return emitLoad(*L);
  if (auto *S = dyn_cast<StoreInst>(&I))
    return emitStore(*S);
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return emitAtomicRMW(*RMW);
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    return emitCmpXchg(*CX);
  if (auto *Call = dyn_cast<CallInst>(&I))
    return emitCall(*Call);
  if (isa<AllocaInst>(I))
    return; // declared with the entry block
  switch (I.getOpcode()) {
  case Instruction::FNeg: {
    uint32_t Ty = typeOf(I.getType(), &I);
    if (Ty)
      define(&I, op(spv::Op::OpFNegate, Ty, {valueOf(I.getOperand(0), &I)}));
    return;
  }
  case Instruction::Select: {
    auto &Sel = cast<SelectInst>(I);
    uint32_t C = valueOf(Sel.getCondition(), &I);
    if (isPrivate(&I)) {
      if (Ambiguous.count(&I) || !isPrivate(Sel.getTrueValue()) ||
          !isPrivate(Sel.getFalseValue())) {
        fail(&I, "a pointer that may point into a private array or "
                 "elsewhere");
        return;
      }
      PrivateOffset[&I] = op(spv::Op::OpSelect, u64Type(),
                             {C, offsetOf(Sel.getTrueValue(), &I),
                              offsetOf(Sel.getFalseValue(), &I)});
      return;
    }
    uint32_t Ty = typeOf(I.getType(), &I);
    if (Ty)
      define(&I, op(spv::Op::OpSelect, Ty,
                    {C, valueOf(Sel.getTrueValue(), &I),
                     valueOf(Sel.getFalseValue(), &I)}));
    return;
  }
  case Instruction::Freeze:
    if (isPrivate(&I))
      PrivateOffset[&I] = offsetOf(I.getOperand(0), &I);
    else
      define(&I, valueOf(I.getOperand(0), &I));
    return;
  case Instruction::ExtractValue: {
    auto &EV = cast<ExtractValueInst>(I);
    auto It = CmpXchgs.find(EV.getAggregateOperand());
    if (It == CmpXchgs.end() || EV.getNumIndices() != 1) {
      fail(&I, "an aggregate value (only the results of cmpxchg may be "
               "extracted)");
      return;
    }
    define(&I, EV.getIndices()[0] == 0 ? It->second.Old : It->second.Success);
    return;
  }
  case Instruction::Fence: {
    auto &Fence = cast<FenceInst>(I);
    if (Fence.getSyncScopeID() == SyncScope::SingleThread)
      return;
    inst(spv::Op::OpMemoryBarrier,
         {scope(Fence.getSyncScopeID()), semantics(Fence.getOrdering())});
    return;
  }
  default:
    break;
  }
  if (I.getType()->isVectorTy())
    fail(&I, "the vector instruction '" + Twine(I.getOpcodeName()) + "'");
  else
    fail(&I, "the instruction '" + Twine(I.getOpcodeName()) + "'");
}

void Emitter::emitBlock(const BasicBlock &BB, bool Entry) {
  inst(spv::Op::OpLabel, {label(&BB)});
  if (Entry) {
    // Function-scope variables must open the first block.
    for (auto &O : Objects)
      if (O->ElemType && O->SC == spv::StorageClass::Function) {
        uint32_t ArrayT = B.arrayType(O->ElemType, O->Length);
        O->Var = op(spv::Op::OpVariable,
                    B.pointerType(spv::StorageClass::Function, ArrayT),
                    {static_cast<uint32_t>(spv::StorageClass::Function)});
        if (O->Root->hasName())
          B.name(O->Var, O->Root->getName());
      }
    emitParameters();
    loadIdBuiltins(F);
  }
  for (const Instruction &I : BB) {
    if (failed())
      return;
    if (auto *Phi = dyn_cast<PHINode>(&I)) {
      uint32_t Ty;
      if (isPrivate(Phi)) {
        if (Ambiguous.count(Phi)) {
          fail(Phi, "a pointer that may point into two different private "
                    "arrays");
          return;
        }
        Ty = u64Type();
      } else {
        Ty = typeOf(Phi->getType(), Phi);
        if (!Ty)
          return;
      }
      uint32_t Id = B.newId();
      Words W{Ty, Id};
      size_t At = body().size() + 1 + W.size();
      for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
        W.push_back(0); // patched once every value is known
        W.push_back(label(Phi->getIncomingBlock(K)));
      }
      emitInst(body(), spv::Op::OpPhi, W);
      Phis.push_back({At, Phi});
      if (isPrivate(Phi))
        PrivateOffset[Phi] = Id;
      else
        define(Phi, Id);
      continue;
    }
    emitInstruction(I);
    if (!failed() && I.hasName())
      if (auto It = Ids.find(&I);
          It != Ids.end() && Named.insert(It->second).second)
        B.name(It->second, I.getName());
  }
}

void Emitter::patchPhis() {
  for (const PendingPhi &P : Phis) {
    const PHINode *Phi = P.Phi;
    bool Private = isPrivate(Phi);
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      const Value *V = Phi->getIncomingValue(K);
      uint32_t Id;
      if (Private) {
        if (!isPrivate(V) && !isa<UndefValue>(V)) {
          fail(Phi, "a pointer that may point into a private array or "
                    "elsewhere");
          return;
        }
        Id = offsetOf(V, Phi);
      } else {
        Id = valueOf(V, Phi);
      }
      if (!Id)
        return;
      body()[P.At + 2 * K] = Id;
    }
  }
}

Expected<SPIRVKernel> Emitter::run() {
  findPrivateObjects();
  declareObjects();

  for (const BasicBlock *BB : PK.Order)
    Labels[BB] = B.newId();

  uint32_t Void = B.voidType();
  SmallVector<uint32_t, 16> ParamTypes;
  if (!vulkan()) {
    SPIRVPushConstantLayout Layout = spirvPushConstantLayout(N);
    for (unsigned S = 0; S < Layout.numSlots(); ++S)
      ParamTypes.push_back(slotType(S));
  }
  uint32_t FnType = B.functionType(Void, ParamTypes);
  uint32_t Fn = B.newId();
  B.name(Fn, Job.EntryName);
  inst(spv::Op::OpFunction,
       {Void, Fn, static_cast<uint32_t>(spv::FunctionControlMask::MaskNone),
        FnType});
  for (auto [S, T] : enumerate(ParamTypes)) {
    uint32_t Id = B.newId();
    inst(spv::Op::OpFunctionParameter, {T, Id});
    KernelArgs.push_back(Id);
    B.name(Id, slotName(N, S));
    Named.insert(Id);
  }
  for (auto [K, BB] : enumerate(PK.Order)) {
    if (failed())
      break;
    if (BB->hasName())
      B.name(label(BB), BB->getName());
    emitBlock(*BB, K == 0);
  }
  if (!failed())
    patchPhis();
  if (failed())
    return unsupported(Job, FailAt, FailWhat);
  inst(spv::Op::OpFunctionEnd, {});

  SPIRVKernel K;
  K.NodePath = N.path();
  K.EntryName = Job.EntryName;
  K.Flavour = Job.Flavour;
  K.WorkGroups = Job.WorkGroups;
  K.LocalSize = spirvLocalSize(N.Dims.size());
  if (Job.WorkGroups) {
    // The group's size, or one the runtime gives: specialisation constants
    // in Vulkan, the enqueue's local size in OpenCL (no LocalSize).
    K.LocalSize = spirvWorkGroupSize(N).value_or(std::array<uint32_t, 3>{});
    if (!K.LocalSize[0] && vulkan())
      B.specializableWorkgroupSize(SPIRVWorkGroupSizeSpecId);
  }
  K.Words = B.finish(Fn, Job.EntryName, Interface, K.LocalSize);
  K.Capabilities = B.capabilities();
  return K;
}

} // namespace

Error checkCalls(const Function &F, const KernelJob &Job) {
  for (const Instruction &I : instructions(F))
    if (auto *Call = dyn_cast<CallBase>(&I)) {
      if (!isa<CallInst>(Call))
        return unsupported(Job, Call, "an invoke or callbr");
      std::string Why = unsupportedCall(*cast<CallInst>(Call));
      if (!Why.empty())
        return unsupported(Job, Call, Why);
    }
  return Error::success();
}

Expected<SPIRVKernel> emitKernel(const PreparedKernel &PK,
                                 const KernelJob &Job) {
  return Emitter(PK, Job).run();
}

} // namespace hpvm::spirv
