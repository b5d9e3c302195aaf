//===- CProgram.cpp - C source compiled into this process -----------------===//
//
// Signatures come from the debug information Clang writes with -g (the C
// types, with their signedness, constness and parameter names, which the
// LLVM types alone no longer have); the debug information is stripped
// before code generation. Each callable function gets a wrapper of one
// signature, void(void *const *args, void *result), generated in IR, so
// that calling it needs neither libffi nor a C compiler at run time.
//
//===----------------------------------------------------------------------===//
#include "CProgram.h"

#include "CompileC.h"

#include "hpvm/backends/CPUBackend.h"
#include "hpvm/backends/Program.h"
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/GraphText.h"
#include "hpvm/ir/GraphVerifier.h"
#include "hpvm/ir/Passes.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstring>
#include <dlfcn.h>
#include <map>
#include <optional>

using namespace llvm;

namespace hpvm::python {

unsigned sizeOf(CScalar S) {
  switch (S) {
  case CScalar::Void:
    return 0;
  case CScalar::Bool:
  case CScalar::Int8:
  case CScalar::UInt8:
    return 1;
  case CScalar::Int16:
  case CScalar::UInt16:
  case CScalar::Float16:
    return 2;
  case CScalar::Int32:
  case CScalar::UInt32:
  case CScalar::Float32:
    return 4;
  case CScalar::Int64:
  case CScalar::UInt64:
  case CScalar::Float64:
    return 8;
  }
  return 0;
}

bool isFloat(CScalar S) {
  return S == CScalar::Float16 || S == CScalar::Float32 ||
         S == CScalar::Float64;
}

bool isSigned(CScalar S) {
  return S == CScalar::Int8 || S == CScalar::Int16 || S == CScalar::Int32 ||
         S == CScalar::Int64;
}

uint16_t toHalf(double V) {
  APFloat F(V);
  bool LosesInfo = false;
  F.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &LosesInfo);
  return static_cast<uint16_t>(F.bitcastToAPInt().getZExtValue());
}

double fromHalf(uint16_t Bits) {
  APFloat F(APFloat::IEEEhalf(), APInt(16, Bits));
  bool LosesInfo = false;
  F.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &LosesInfo);
  return F.convertToDouble();
}

static const char *spell(CScalar S) {
  switch (S) {
  case CScalar::Void:
    return "void";
  case CScalar::Bool:
    return "_Bool";
  case CScalar::Int8:
    return "int8_t";
  case CScalar::UInt8:
    return "uint8_t";
  case CScalar::Int16:
    return "int16_t";
  case CScalar::UInt16:
    return "uint16_t";
  case CScalar::Int32:
    return "int32_t";
  case CScalar::UInt32:
    return "uint32_t";
  case CScalar::Int64:
    return "int64_t";
  case CScalar::UInt64:
    return "uint64_t";
  case CScalar::Float16:
    return "_Float16";
  case CScalar::Float32:
    return "float";
  case CScalar::Float64:
    return "double";
  }
  return "?";
}

std::string CType::spelling() const {
  std::string S = Const ? "const " : "";
  S += spell(Scalar);
  return Pointer ? S + " *" : S;
}

std::string CFunction::signature() const {
  std::string S = Result.spelling() + " " + Name + "(";
  for (size_t I = 0; I < Params.size(); ++I) {
    std::string T = Params[I].Type.spelling();
    S += (I ? ", " : "") + T + (T.back() == '*' ? "" : " ") + Params[I].Name;
  }
  return S + ")";
}

namespace {

/// The scalar a DWARF base type is, or nullopt.
std::optional<CScalar> scalarOf(const DIBasicType &B) {
  uint64_t Bits = B.getSizeInBits();
  switch (B.getEncoding()) {
  case dwarf::DW_ATE_boolean:
    return Bits == 8 ? std::optional(CScalar::Bool) : std::nullopt;
  case dwarf::DW_ATE_float:
    if (Bits == 16)
      return CScalar::Float16;
    if (Bits == 32)
      return CScalar::Float32;
    if (Bits == 64)
      return CScalar::Float64;
    return std::nullopt; // long double, __float128
  case dwarf::DW_ATE_signed:
  case dwarf::DW_ATE_signed_char:
    switch (Bits) {
    case 8:
      return CScalar::Int8;
    case 16:
      return CScalar::Int16;
    case 32:
      return CScalar::Int32;
    case 64:
      return CScalar::Int64;
    }
    return std::nullopt;
  case dwarf::DW_ATE_unsigned:
  case dwarf::DW_ATE_unsigned_char:
    switch (Bits) {
    case 8:
      return CScalar::UInt8;
    case 16:
      return CScalar::UInt16;
    case 32:
      return CScalar::UInt32;
    case 64:
      return CScalar::UInt64;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

/// T without typedefs and qualifiers; Const says whether one was const.
const DIType *unqualified(const DIType *T, bool &Const) {
  while (auto *D = dyn_cast_or_null<DIDerivedType>(T)) {
    unsigned Tag = D->getTag();
    if (Tag == dwarf::DW_TAG_const_type)
      Const = true;
    else if (Tag != dwarf::DW_TAG_typedef &&
             Tag != dwarf::DW_TAG_volatile_type &&
             Tag != dwarf::DW_TAG_restrict_type &&
             Tag != dwarf::DW_TAG_atomic_type)
      break;
    T = D->getBaseType();
  }
  return T;
}

/// The scalar T is (an enum: its underlying integer), or why not.
std::optional<CScalar> scalarOf(const DIType *T, std::string &Why) {
  if (!T)
    return CScalar::Void;
  if (auto *C = dyn_cast<DICompositeType>(T)) {
    if (C->getTag() == dwarf::DW_TAG_enumeration_type) {
      bool Ignored = false;
      if (auto *B = dyn_cast_or_null<DIBasicType>(
              unqualified(C->getBaseType(), Ignored)))
        if (auto S = scalarOf(*B))
          return S;
    }
    Why = "a " +
          std::string(C->getTag() == dwarf::DW_TAG_array_type
                          ? "array"
                          : "struct, union or enum") +
          " type";
    return std::nullopt;
  }
  if (auto *B = dyn_cast<DIBasicType>(T)) {
    if (auto S = scalarOf(*B))
      return S;
    Why = "'" + B->getName().str() + "', which has no numpy counterpart";
    return std::nullopt;
  }
  Why = "a type the binding does not pass";
  return std::nullopt;
}

/// The C type of a parameter or result, or why the binding cannot pass it.
std::optional<CType> cTypeOf(const DIType *T, std::string &Why) {
  CType Result;
  bool Const = false;
  T = unqualified(T, Const);
  if (auto *P = dyn_cast_or_null<DIDerivedType>(T);
      P && P->getTag() == dwarf::DW_TAG_pointer_type) {
    Result.Pointer = true;
    const DIType *Pointee = unqualified(P->getBaseType(), Result.Const);
    if (auto *PP = dyn_cast_or_null<DIDerivedType>(Pointee);
        PP && PP->getTag() == dwarf::DW_TAG_pointer_type) {
      Why = "a pointer to a pointer";
      return std::nullopt;
    }
    if (isa_and_nonnull<DISubroutineType>(Pointee)) {
      Why = "a function pointer";
      return std::nullopt;
    }
    auto S = scalarOf(Pointee, Why);
    if (!S) {
      Why = "a pointer to " + Why;
      return std::nullopt;
    }
    Result.Scalar = *S;
    return Result;
  }
  auto S = scalarOf(T, Why);
  if (!S)
    return std::nullopt;
  Result.Scalar = *S;
  return Result;
}

/// The LLVM type the x86-64 C calling convention passes T as, when it is
/// passed as one value of that type (every type cTypeOf accepts is).
Type *llvmTypeOf(const CType &T, LLVMContext &Ctx) {
  if (T.Pointer)
    return PointerType::get(Ctx, 0);
  switch (T.Scalar) {
  case CScalar::Void:
    return Type::getVoidTy(Ctx);
  case CScalar::Bool:
    return Type::getInt1Ty(Ctx);
  case CScalar::Float16:
    return Type::getHalfTy(Ctx);
  case CScalar::Float32:
    return Type::getFloatTy(Ctx);
  case CScalar::Float64:
    return Type::getDoubleTy(Ctx);
  default:
    return Type::getIntNTy(Ctx, sizeOf(T.Scalar) * 8);
  }
}

/// The names of F's parameters, from its debug information ("" where it
/// has none): the subprogram keeps them when optimising, the variable
/// records otherwise.
std::vector<std::string>
parameterNames(const Function &F, const DISubprogram &SP, unsigned Count) {
  std::vector<std::string> Names(Count);
  auto Note = [&](const DILocalVariable *V) {
    if (V && V->getScope() == &SP)
      if (unsigned Arg = V->getArg(); Arg >= 1 && Arg <= Count)
        Names[Arg - 1] = V->getName().str();
  };
  for (const DINode *N : SP.getRetainedNodes())
    Note(dyn_cast<DILocalVariable>(N));
  for (const Instruction &I : instructions(F)) {
    for (const DbgVariableRecord &R : filterDbgVars(I.getDbgRecordRange()))
      Note(R.getVariable());
    if (auto *D = dyn_cast<DbgVariableIntrinsic>(&I))
      Note(D->getVariable());
  }
  return Names;
}

/// The C signature of F, or why it cannot be called from the binding.
std::optional<CFunction> signatureOf(const Function &F, std::string &Why) {
  const DISubprogram *SP = F.getSubprogram();
  const DISubroutineType *Ty = SP ? SP->getType() : nullptr;
  if (!Ty) {
    Why = "no signature in its debug information";
    return std::nullopt;
  }
  DITypeRefArray Types = Ty->getTypeArray();
  if (Types.size() == 0) {
    Why = "no signature in its debug information";
    return std::nullopt;
  }
  CFunction Fn;
  Fn.Name = F.getName().str();
  unsigned NumParams = Types.size() - 1;
  // A trailing null type stands for `...`.
  if (NumParams > 0 && !Types[NumParams]) {
    Why = "it is variadic";
    return std::nullopt;
  }
  auto Result = cTypeOf(Types[0], Why);
  if (!Result) {
    Why = "its result is " + Why;
    return std::nullopt;
  }
  Fn.Result = *Result;
  std::vector<std::string> Names = parameterNames(F, *SP, NumParams);
  for (unsigned I = 0; I < NumParams; ++I) {
    auto T = cTypeOf(Types[I + 1], Why);
    if (T && !T->Pointer && T->Scalar == CScalar::Void)
      Why = "void", T.reset();
    if (!T) {
      Why = "parameter " + std::to_string(I + 1) + " is " + Why;
      return std::nullopt;
    }
    std::string Name =
        Names[I].empty() ? "arg" + std::to_string(I + 1) : Names[I];
    Fn.Params.push_back({Name, *T});
  }
  // What Clang lowered the signature to must be what the C types say;
  // otherwise (an ABI this code does not know) the call would be wrong.
  LLVMContext &Ctx = F.getContext();
  bool Matches = !F.isVarArg() && F.arg_size() == NumParams &&
                 F.getReturnType() == llvmTypeOf(Fn.Result, Ctx);
  for (unsigned I = 0; Matches && I < NumParams; ++I)
    Matches = F.getArg(I)->getType() == llvmTypeOf(Fn.Params[I].Type, Ctx);
  if (!Matches) {
    Why = "its parameters are not passed one value each";
    return std::nullopt;
  }
  return Fn;
}

/// The wrapper's name for F.
std::string wrapperName(StringRef F) { return ("hpvm.python.call." + F).str(); }

/// Adds void wrapper(void *const *args, void *result), which loads each
/// argument through args[i] and calls F.
void addWrapper(Function &F, const CFunction &Sig) {
  LLVMContext &Ctx = F.getContext();
  Type *Ptr = PointerType::get(Ctx, 0), *I8 = Type::getInt8Ty(Ctx);
  auto *W = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr}, false),
      GlobalValue::ExternalLinkage, wrapperName(F.getName()), F.getParent());
  IRBuilder<> B(BasicBlock::Create(Ctx, "", W));
  std::vector<Value *> Args;
  for (unsigned I = 0; I < Sig.Params.size(); ++I) {
    Value *Slot =
        B.CreateLoad(Ptr, B.CreateConstInBoundsGEP1_64(Ptr, W->getArg(0), I));
    Type *T = F.getArg(I)->getType();
    // C stores a bool in a byte; the call passes it as i1.
    Args.push_back(
        T->isIntegerTy(1)
            ? B.CreateICmpNE(B.CreateLoad(I8, Slot), ConstantInt::get(I8, 0))
            : static_cast<Value *>(B.CreateLoad(T, Slot)));
  }
  CallInst *Call = B.CreateCall(&F, Args);
  Call->setAttributes(F.getAttributes());
  Call->setCallingConv(F.getCallingConv());
  if (!F.getReturnType()->isVoidTy()) {
    Value *R = Call;
    if (R->getType()->isIntegerTy(1))
      R = B.CreateZExt(R, I8);
    B.CreateStore(R, W->getArg(1));
  }
  B.CreateRetVoid();
}

thread_local LaunchFailure PendingFailure;

/// What launches in a CProgram's host code call instead of
/// hpvm_launch_or_exit.
void launchOrRecord(const hpvm_program_desc *Program, const char *Graph,
                    void *const *Args) {
  int Status = hpvm_launch(Program, Graph, Args);
  if (Status != HPVM_OK && PendingFailure.Code == HPVM_OK)
    PendingFailure = {Status, hpvm_error_message()};
}

/// What data regions' error checks call instead of hpvm_exit_on_error.
void recordOnError(int Status) {
  if (Status != HPVM_OK && PendingFailure.Code == HPVM_OK)
    PendingFailure = {Status, hpvm_error_message()};
}

void launchOrRecordOrExit(const hpvm_program_desc *Program, const char *Graph,
                          void *const *Args) {
  launchOrRecord(Program, Graph, Args);
}

constexpr const char *LaunchSymbol = "hpvm_python_launch";

/// hpvm-rt's C ABI as the host code sees it: this library links hpvm-rt
/// into a Python module whose symbols the process does not export.
std::vector<std::pair<StringRef, void *>> hostSymbols() {
  auto Fn = [](auto *F) { return reinterpret_cast<void *>(F); };
  return {{LaunchSymbol, Fn(&launchOrRecord)},
          {"hpvm_launch", Fn(&hpvm_launch)},
          {"hpvm_launch_or_exit", Fn(&launchOrRecordOrExit)},
          {"hpvm_error_message", Fn(&hpvm_error_message)},
          {"hpvm_print_stats", Fn(&hpvm_print_stats)},
          {"hpvm_release_program", Fn(&hpvm_release_program)},
          {"hpvm_data_enter", Fn(&hpvm_data_enter)},
          {"hpvm_data_exit", Fn(&hpvm_data_exit)},
          {"hpvm_data_request", Fn(&hpvm_data_request)},
          {"hpvm_data_update", Fn(&hpvm_data_update)},
          {"hpvm_exit_on_error", Fn(&recordOnError)},
          {"hpvm_extent_error", Fn(&hpvm_extent_error)},
          {"hpvm_private_copies", Fn(&hpvm_private_copies)},
          {"hpvm_wait_all", Fn(&hpvm_wait_all)},
          {"hpvm_flush_trace", Fn(&hpvm_flush_trace)}};
}

} // namespace

LaunchFailure takeLaunchFailure() {
  LaunchFailure F = std::move(PendingFailure);
  PendingFailure = {};
  return F;
}

struct CProgram::Parts {
  std::unique_ptr<LoadedProgram> Loaded;
  std::vector<CFunction> Functions;
  std::vector<std::string> Uncallable;
  bool FromCache = false;
};

namespace {

/// The options the JIT and compileProgram get for Options.
ProgramOptions programOptions(const CompileOptions &Options) {
  ProgramOptions PO;
  PO.Targets = Options.Targets;
  PO.LaunchFunction = LaunchSymbol;
  PO.NoWaitLaunchFunction = LaunchSymbol;
  // Launches report failures to Python, through LaunchSymbol only.
  PO.SiteLaunchFunction.clear();
  PO.NoWaitSiteLaunchFunction.clear();
  PO.SkipUnsupported = Options.SkipUnsupported && (Options.Targets & TargetCPU);
  return PO;
}

/// This library's file and when it was built: a cache entry written by
/// another build of the compiler is never used.
std::string libraryIdentity() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&libraryIdentity), &Info) ||
      !Info.dli_fname)
    return "unknown";
  sys::fs::file_status Status;
  if (sys::fs::status(Info.dli_fname, Status))
    return Info.dli_fname;
  return std::string(Info.dli_fname) + ":" + std::to_string(Status.getSize()) +
         ":" +
         std::to_string(
             Status.getLastModificationTime().time_since_epoch().count());
}

/// The cache file for a compile: a hash of the compiler, the host
/// processor, the options and Inputs (everything else that decides the
/// code).
std::string cachePath(const CompileOptions &Options,
                      ArrayRef<std::string> Inputs) {
  SHA256 Hash;
  auto Add = [&](StringRef Text) {
    Hash.update(Text);
    Hash.update(StringRef("\0", 1));
  };
  Add("hpvm-python-cache 2");
  Add(libraryIdentity());
  Add(sys::getHostCPUName());
  for (const auto &[Feature, On] : sys::getHostCPUFeatures())
    Add((On ? "+" : "-") + Feature.str());
  ProgramOptions PO = programOptions(Options);
  Add(std::to_string(PO.Targets) + (PO.SkipUnsupported ? "s" : "-"));
  for (const std::string &In : Inputs)
    Add(In);
  std::string Name = toHex(Hash.final(), /*LowerCase=*/true);
  SmallString<256> Path(Options.CacheDir);
  sys::path::append(Path, Name + ".hpvm-cache");
  return std::string(Path);
}

/// The inputs of a compile of IR (marker or graph form).
std::vector<std::string> irInputs(const std::string &IR,
                                  const std::string *GraphText,
                                  const std::vector<CFunction> &Functions) {
  std::vector<std::string> In = {GraphText ? "graph-form" : "marker-form", IR,
                                 GraphText ? *GraphText : ""};
  for (const CFunction &F : Functions)
    In.push_back(F.symbol() + " " + F.signature());
  return In;
}

constexpr StringLiteral CacheMagic = "HPVM-CACHE 2\n";

/// A cache entry: what the compile found that its object code does not
/// hold (Meta: a C program's signatures and the files it read), and the
/// object code.
struct CacheEntry {
  std::string Meta;
  std::vector<std::string> Objects;
};

/// The entry in a cache file, or none if it is missing or damaged.
std::optional<CacheEntry> readCache(const std::string &Path) {
  auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  StringRef Data = (*Buffer)->getBuffer();
  if (!Data.consume_front(CacheMagic))
    return std::nullopt;
  std::vector<std::string> Blobs;
  while (!Data.empty()) {
    uint64_t Size;
    if (Data.size() < sizeof Size)
      return std::nullopt;
    std::memcpy(&Size, Data.data(), sizeof Size);
    Data = Data.drop_front(sizeof Size);
    if (Size > Data.size())
      return std::nullopt;
    Blobs.emplace_back(Data.take_front(Size));
    Data = Data.drop_front(Size);
  }
  if (Blobs.size() < 2) // the meta blob and at least the host object
    return std::nullopt;
  CacheEntry E;
  E.Meta = std::move(Blobs.front());
  E.Objects.assign(std::make_move_iterator(Blobs.begin() + 1),
                   std::make_move_iterator(Blobs.end()));
  return E;
}

/// Writes a cache file whole or not at all (a sibling renamed into
/// place); a cache that cannot be written is only slower.
void writeCache(const std::string &Path, const CacheEntry &E) {
  if (sys::fs::create_directories(sys::path::parent_path(Path)))
    return;
  std::string Tmp =
      Path + ".tmp" + std::to_string(sys::Process::getProcessId());
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC, sys::fs::OF_None);
    if (EC)
      return;
    OS << CacheMagic;
    auto Blob = [&](const std::string &B) {
      uint64_t Size = B.size();
      OS.write(reinterpret_cast<const char *>(&Size), sizeof Size);
      OS << B;
    };
    Blob(E.Meta);
    for (const std::string &O : E.Objects)
      Blob(O);
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Tmp);
      return;
    }
  }
  if (sys::fs::rename(Tmp, Path))
    sys::fs::remove(Tmp);
}

/// The SHA-256 of a file's contents, or "" if it cannot be read.
std::string fileHash(const std::string &Path) {
  auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return "";
  return toHex(SHA256::hash(arrayRefFromStringRef((*Buffer)->getBuffer())),
               /*LowerCase=*/true);
}

/// A C program's meta blob: the files its compile read with their hashes,
/// its callable functions' signatures, the uncallable ones. One record a
/// line, fields separated by tabs (no C name or path here has one; a path
/// that does is not cached).
std::optional<std::string>
writeMeta(const std::vector<std::string> &Deps,
          const std::vector<CFunction> &Functions,
          const std::vector<std::string> &Uncallable) {
  std::string M;
  auto Type = [](const CType &T) {
    return std::to_string(static_cast<int>(T.Scalar)) + "\t" +
           (T.Pointer ? "1" : "0") + "\t" + (T.Const ? "1" : "0");
  };
  for (const std::string &D : Deps) {
    std::string H = fileHash(D);
    if (H.empty() || D.find_first_of("\t\n") != std::string::npos)
      return std::nullopt;
    M += "dep\t" + H + "\t" + D + "\n";
  }
  for (const CFunction &F : Functions) {
    M += "fn\t" + F.Name + "\t" + Type(F.Result) + "\n";
    for (const CParam &P : F.Params)
      M += "param\t" + P.Name + "\t" + Type(P.Type) + "\n";
  }
  for (const std::string &U : Uncallable)
    if (U.find('\n') == std::string::npos)
      M += "uncallable\t" + U + "\n";
  return M;
}

/// Reads a meta blob back, checking that every file it names still has
/// the contents it had; false if not (or if the blob is damaged).
bool readMeta(StringRef M, std::vector<CFunction> &Functions,
              std::vector<std::string> &Uncallable) {
  auto Type = [](ArrayRef<StringRef> F, size_t I, CType &T) {
    int S;
    if (I + 3 > F.size() || F[I].getAsInteger(10, S) || S < 0 ||
        S > static_cast<int>(CScalar::Float64))
      return false;
    T.Scalar = static_cast<CScalar>(S);
    T.Pointer = F[I + 1] == "1";
    T.Const = F[I + 2] == "1";
    return true;
  };
  SmallVector<StringRef, 8> Lines, F;
  M.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef Line : Lines) {
    F.clear();
    Line.split(F, '\t', 2 + 3);
    if (F[0] == "dep") {
      if (F.size() != 3 || fileHash(F[2].str()) != F[1])
        return false;
    } else if (F[0] == "fn") {
      CFunction Fn;
      if (F.size() < 2 || !Type(F, 2, Fn.Result))
        return false;
      Fn.Name = F[1].str();
      Functions.push_back(std::move(Fn));
    } else if (F[0] == "param") {
      CParam P;
      if (Functions.empty() || F.size() < 2 || !Type(F, 2, P.Type))
        return false;
      P.Name = F[1].str();
      Functions.back().Params.push_back(std::move(P));
    } else if (F[0] == "uncallable" && F.size() >= 2) {
      Uncallable.push_back(Line.substr(Line.find('\t') + 1).str());
    } else {
      return false;
    }
  }
  return true;
}

} // namespace

std::unique_ptr<CProgram> CProgram::compile(const std::string &Source,
                                            const CompileOptions &Options,
                                            std::string &Error) {
  std::string CachePath;
  if (!Options.CacheDir.empty()) {
    std::vector<std::string> Inputs = {"c-source", Source, Options.Name};
    Inputs.insert(Inputs.end(), Options.ClangArgs.begin(),
                  Options.ClangArgs.end());
    CachePath = cachePath(Options, Inputs);
    if (auto Entry = readCache(CachePath)) {
      auto P = std::make_unique<Parts>();
      if (readMeta(Entry->Meta, P->Functions, P->Uncallable))
        if (auto Cached = loadCached(Entry->Objects, std::move(P), Options))
          return Cached;
    }
  }
  LLVMContext Ctx;
  std::vector<std::string> Args = Options.ClangArgs;
  // Full debug information, for the signatures (stripped below).
  Args.push_back("-g");
  std::vector<std::string> Deps;
  auto M = cfe::compileCToGraphForm(Source, Options.Name, Args, Ctx,
                                    CachePath.empty() ? nullptr : &Deps);
  if (!M) {
    Error = toString(M.takeError());
    return nullptr;
  }

  auto P = std::make_unique<Parts>();
  for (Function &F : **M) {
    if (F.isDeclaration() || !F.hasExternalLinkage() ||
        F.getName().starts_with("hpvm."))
      continue;
    std::string Why;
    if (auto Sig = signatureOf(F, Why))
      P->Functions.push_back(std::move(*Sig));
    else
      P->Uncallable.push_back(F.getName().str() + ": " + Why);
  }
  StripDebugInfo(**M);
  std::string Meta;
  if (!CachePath.empty()) {
    // Hashed now, before the JIT runs: a file changed during the compile
    // then misses next time rather than hitting stale code.
    if (auto Text = writeMeta(Deps, P->Functions, P->Uncallable))
      Meta = std::move(*Text);
    else
      CachePath.clear(); // a dependency that cannot be recorded
  }
  return load(std::move(*M), std::move(P), Options, Error, CachePath, Meta);
}

std::vector<GraphProblem> verifyGraphText(const std::string &Text) {
  std::vector<Graph> Graphs;
  try {
    Graphs = readGraphText(Text);
  } catch (const GraphError &E) {
    return {{"syntax", "", E.what()}};
  }
  std::vector<GraphProblem> Problems;
  for (const Graph &G : Graphs)
    for (const GraphDiagnostic &D : verifyGraph(G))
      Problems.push_back({D.Rule, D.Where, D.Message});
  return Problems;
}

std::unique_ptr<CProgram>
CProgram::compileGraphForm(const std::string &IR, const std::string &GraphText,
                           const CompileOptions &Options, std::string &Error) {
  return compileIR(IR, &GraphText, Options, {}, Error);
}

std::unique_ptr<CProgram>
CProgram::compileMarkerIR(const std::string &IR, const CompileOptions &Options,
                          std::vector<CFunction> Functions,
                          std::string &Error) {
  return compileIR(IR, nullptr, Options, std::move(Functions), Error);
}

std::unique_ptr<CProgram> CProgram::compileIR(const std::string &IR,
                                              const std::string *GraphText,
                                              const CompileOptions &Options,
                                              std::vector<CFunction> Functions,
                                              std::string &Error) {
  std::string CachePath;
  if (!Options.CacheDir.empty()) {
    CachePath = cachePath(Options, irInputs(IR, GraphText, Functions));
    if (auto Entry = readCache(CachePath)) {
      auto P = std::make_unique<Parts>();
      P->Functions = Functions;
      if (auto Cached = loadCached(Entry->Objects, std::move(P), Options))
        return Cached;
    }
  }
  LLVMContext Ctx;
  std::string Diagnostics;
  CollectDiagnostics Collect(Ctx, Diagnostics);
  auto Fail = [&](std::string Message) {
    Error = Diagnostics.empty() ? Message : Diagnostics + Message;
    while (!Error.empty() && Error.back() == '\n')
      Error.pop_back();
    return nullptr;
  };
  SMDiagnostic Parse;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Parse, Ctx);
  if (!M) {
    std::string Text;
    raw_string_ostream OS(Text);
    Parse.print(Options.Name.c_str(), OS);
    return Fail("the kernel frontend emitted IR that does not parse (a bug "
                "in the frontend): " +
                Text);
  }
  M->setModuleIdentifier(Options.Name);
  if (M->getTargetTriple().empty()) {
    auto TM = createCPUTargetMachine({});
    if (!TM)
      return Fail(toString(TM.takeError()));
    M->setTargetTriple((*TM)->getTargetTriple().str());
    M->setDataLayout((*TM)->createDataLayout());
  }
  std::string Broken;
  raw_string_ostream BrokenOS(Broken);
  if (verifyModule(*M, &BrokenOS))
    return Fail("the kernel frontend emitted invalid IR (a bug in the "
                "frontend): " +
                Broken);
  for (const CFunction &Fn : Functions) {
    Function *F = M->getFunction(Fn.symbol());
    bool Matches = F && !F->isDeclaration() && !F->isVarArg() &&
                   F->arg_size() == Fn.Params.size() &&
                   F->getReturnType() == llvmTypeOf(Fn.Result, Ctx);
    for (unsigned I = 0; Matches && I < Fn.Params.size(); ++I)
      Matches = F->getArg(I)->getType() == llvmTypeOf(Fn.Params[I].Type, Ctx);
    if (!Matches)
      return Fail("the module has no function " + Fn.signature());
  }
  if (!GraphText) {
    if (regionFormFromMarkers(*M) || extractGraphs(*M))
      return Fail("");
  } else {
    if (!GraphText->empty()) {
      std::vector<Graph> Graphs;
      try {
        Graphs = readGraphText(*GraphText);
      } catch (const GraphError &E) {
        return Fail(E.what());
      }
      std::string Problems;
      std::vector<const Graph *> Pointers;
      for (const Graph &G : Graphs) {
        for (const GraphDiagnostic &D : verifyGraph(G))
          Problems += "error: " + D.str() + "\n";
        Pointers.push_back(&G);
      }
      if (!Problems.empty())
        return Fail(Problems);
      writeGraphs(*M, Pointers);
    }
    if (!hasGraphs(*M))
      return Fail("the module has no graphs");
    if (verifyHPVMModule(*M))
      return Fail("");
  }
  auto P = std::make_unique<Parts>();
  P->Functions = std::move(Functions);
  return load(std::move(M), std::move(P), Options, Error, CachePath);
}

std::unique_ptr<CProgram>
CProgram::load(std::unique_ptr<Module> M, std::unique_ptr<Parts> P,
               const CompileOptions &Options, std::string &Error,
               const std::string &CachePath, const std::string &Meta) {
  for (const CFunction &F : P->Functions)
    addWrapper(*M->getFunction(F.symbol()), F);
  // The backends' remarks and warnings (a loop they did not vectorise)
  // are not the Python user's business; errors come back in the error.
  std::string Ignored;
  std::vector<std::string> Objects;
  auto Loaded = [&] {
    CollectDiagnostics Collect(M->getContext(), Ignored);
    return LoadedProgram::build(std::move(M), programOptions(Options),
                                hostSymbols(),
                                CachePath.empty() ? nullptr : &Objects);
  }();
  if (!Loaded) {
    Error = toString(Loaded.takeError());
    return nullptr;
  }
  if (!CachePath.empty())
    writeCache(CachePath, {Meta, std::move(Objects)});
  P->Loaded = std::move(*Loaded);
  return finish(std::move(P), Error);
}

std::unique_ptr<CProgram> CProgram::loadCached(ArrayRef<std::string> Objects,
                                               std::unique_ptr<Parts> P,
                                               const CompileOptions &Options) {
  auto Loaded =
      LoadedProgram::load(Objects, programOptions(Options), hostSymbols());
  if (!Loaded) {
    consumeError(Loaded.takeError()); // damaged: compile it again
    return nullptr;
  }
  P->Loaded = std::move(*Loaded);
  P->FromCache = true;
  std::string Ignored; // a wrapper missing: damaged too
  return finish(std::move(P), Ignored);
}

std::unique_ptr<CProgram> CProgram::finish(std::unique_ptr<Parts> P,
                                           std::string &Error) {
  for (CFunction &F : P->Functions) {
    auto Addr = P->Loaded->lookup(wrapperName(F.symbol()));
    if (!Addr) {
      Error = toString(Addr.takeError());
      return nullptr;
    }
    F.Call = reinterpret_cast<void (*)(void *const *, void *)>(*Addr);
  }
  return std::unique_ptr<CProgram>(new CProgram(std::move(P)));
}

CProgram::CProgram(std::unique_ptr<Parts> P) : P(std::move(P)) {}

CProgram::~CProgram() { hpvm_release_program(&P->Loaded->descriptor()); }

const std::vector<CFunction> &CProgram::functions() const {
  return P->Functions;
}
const std::vector<std::string> &CProgram::uncallable() const {
  return P->Uncallable;
}
const std::vector<Graph> &CProgram::graphs() const {
  return P->Loaded->graphs();
}
bool CProgram::fromCache() const { return P->FromCache; }

const hpvm_program_desc &CProgram::descriptor() const {
  return P->Loaded->descriptor();
}

} // namespace hpvm::python
