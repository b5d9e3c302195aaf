//===- Driver.cpp - The HPVM C compiler driver, as a library call ---------===//
//
//   hpvm-clang [clang options] [--hpvm-target=cpu,nvptx,spirv]
//              [--hpvm-nvptx-sm=sm_NN] [--hpvm-nvptx-ptx-version=V]
//              [--hpvm-nvptx-libdevice=FILE]
//              [-emit-hpvm-ir] [--dfg-dot=FILE] inputs...
//
// A clang-like driver built on Clang's libraries. Options are parsed with
// Clang's own option table, so every Clang compile option means what it
// means to clang. For each C input, CFrontend.h makes region form; EXTRACT
// makes graph form; hpvm::compileProgram (backends/) makes the host module
// and the kernels; Clang's backend emits them; Clang's driver links the
// objects with hpvm-rt. Inputs that are LLVM IR (.ll, .bc) in marker or
// region form skip the C frontend, so other frontends can use the same
// pipeline.
//
// Resources are found relative to the executable: <bin>/../lib/hpvm/include
// (hpvm.h) and <bin>/../lib (libhpvm-rt.a), the same layout in the build
// tree and in an installation.
//
// runDriver (Driver.h) is the whole of it; the hpvm-clang tool only sets up
// LLVM's process state and maps the result to an exit status. The driver's
// state lives for one call: Clang's and LLVM's diagnostics are written as
// they come, to the stream the caller gives, and the call returns an
// llvm::Error when any was an error.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "CFrontend.h"
#include "HPVMClangConfig.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/GraphPrinter.h"
#include "hpvm/ir/Passes.h"
#if HPVM_HAVE_PROGRAM
#include "hpvm/backends/LeafKernel.h"
#include "hpvm/backends/Program.h"
#endif

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/BackendUtil.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Options.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

using namespace llvm;
namespace copt = clang::driver::options;

namespace {

const char *Tool = "hpvm-clang";

/// Where the current runDriver call writes diagnostics and --help.
raw_ostream *DiagOS = nullptr;
raw_ostream *OutOS = nullptr;
raw_ostream &diag() { return DiagOS ? *DiagOS : errs(); }
raw_ostream &out() { return OutOS ? *OutOS : outs(); }

/// Clang's diagnostics engine, printing to diag().
IntrusiveRefCntPtr<clang::DiagnosticsEngine>
clangDiagnostics(clang::DiagnosticOptions *Opts) {
  return clang::CompilerInstance::createDiagnostics(
      Opts, new clang::TextDiagnosticPrinter(diag(), Opts),
      /*ShouldOwnClient=*/true);
}

/// Set once any error was printed.
bool Failed = false;

raw_ostream &error() {
  Failed = true;
  return WithColor::error(diag(), Tool);
}

//===----------------------------------------------------------------------===//
// Targets: the one table of what --hpvm-target accepts.
//===----------------------------------------------------------------------===//

struct TargetEntry {
  const char *Name;
  hpvm::TargetMask Bit;
};
const TargetEntry Targets[] = {{"cpu", hpvm::TargetCPU},
                               {"nvptx", hpvm::TargetNVPTX},
                               {"spirv", hpvm::TargetSPIRV}};

hpvm::TargetMask builtTargets() {
#if HPVM_HAVE_PROGRAM
  return hpvm::availableTargets();
#else
  return 0;
#endif
}

hpvm::TargetMask defaultTargets() {
#if HPVM_HAVE_PROGRAM
  return hpvm::defaultTargets();
#else
  return 0;
#endif
}

/// Parses "cpu,nvptx"; prints the error and returns 0 on a bad list.
hpvm::TargetMask parseTargetList(StringRef List) {
  hpvm::TargetMask Mask = 0;
  SmallVector<StringRef, 4> Names;
  List.split(Names, ',');
  for (StringRef Name : Names) {
    Name = Name.trim();
    if (Name.empty()) {
      error() << "--hpvm-target='" << List
              << "' has an empty entry; expected a comma-separated list of "
                 "cpu, nvptx and spirv\n";
      return 0;
    }
    const TargetEntry *Found = nullptr;
    for (const TargetEntry &T : Targets)
      if (Name == T.Name)
        Found = &T;
    if (!Found) {
      error() << "unknown target '" << Name
              << "' in --hpvm-target; expected cpu, nvptx or spirv\n";
      return 0;
    }
    if (!(builtTargets() & Found->Bit)) {
      error() << "target '" << Name << "' is not available in this build\n";
      return 0;
    }
    Mask |= Found->Bit;
  }
  return Mask;
}

//===----------------------------------------------------------------------===//
// Diagnostics of the HPVM passes, printed like Clang's.
//===----------------------------------------------------------------------===//

bool Verbose = false;

/// The input files as the command line spells them, by absolute path.
std::map<std::string, std::string> GivenPaths;

/// Where ("file:line:col") with an input file named as the command line
/// names it, as Clang's diagnostics do: debug info spells a file relative
/// to the compilation directory, which is the current one here, and drops
/// that directory from an absolute path inside it.
std::string asGiven(StringRef Where) {
  auto [Rest, Col] = Where.rsplit(':');
  auto [File, Line] = Rest.rsplit(':');
  if (File.empty() || Line.empty())
    return Where.str();
  auto It = GivenPaths.find(hpvm::cfe::absolutePath("", File));
  if (It == GivenPaths.end())
    return Where.str();
  return It->second + ":" + Line.str() + ":" + Col.str();
}

/// -Rpass=, -Rpass-missed=, -Rpass-analysis=: the passes whose optimisation
/// remarks of each kind are printed, as in Clang.
struct RemarkFilters {
  std::optional<Regex> Passed, Missed, Analysis;
} Remarks;

bool matches(const std::optional<Regex> &Filter, StringRef PassName) {
  return Filter && Filter->match(PassName);
}

void handleLLVMDiagnostic(const DiagnosticInfo &DI);

/// The LLVM contexts' handler: prints as Clang does, and asks LLVM for the
/// remarks -Rpass* select, or LLVM's own -pass-remarks* (-mllvm), and only
/// those (LLVM does not even build the others).
struct DriverDiagnosticHandler : DiagnosticHandler {
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    handleLLVMDiagnostic(DI);
    return true;
  }
  bool isAnalysisRemarkEnabled(StringRef PassName) const override {
    return matches(Remarks.Analysis, PassName) ||
           DiagnosticHandler::isAnalysisRemarkEnabled(PassName);
  }
  bool isMissedOptRemarkEnabled(StringRef PassName) const override {
    return matches(Remarks.Missed, PassName) ||
           DiagnosticHandler::isMissedOptRemarkEnabled(PassName);
  }
  bool isPassedOptRemarkEnabled(StringRef PassName) const override {
    return matches(Remarks.Passed, PassName) ||
           DiagnosticHandler::isPassedOptRemarkEnabled(PassName);
  }
  bool isAnyRemarkEnabled() const override {
    return Remarks.Passed || Remarks.Missed || Remarks.Analysis ||
           DiagnosticHandler::isAnyRemarkEnabled();
  }
};

/// Whether -Rpass* (or -mllvm -pass-remarks*) asked for DI, a remark.
/// LLVMContext's own filtering (RespectFilters) cannot be relied on: Clang's
/// code generation action installs its handler for a while and puts this
/// one back without it, after which every remark built reaches here.
const DriverDiagnosticHandler &remarkFilter() {
  static const DriverDiagnosticHandler Filter;
  return Filter;
}

bool wantRemark(const DiagnosticInfo &DI) {
  const auto *OR = dyn_cast<DiagnosticInfoOptimizationBase>(&DI);
  if (!OR)
    return false;
  const DriverDiagnosticHandler &Filter = remarkFilter();
  StringRef Pass = OR->getPassName();
  return OR->isPassed()   ? Filter.isPassedOptRemarkEnabled(Pass)
         : OR->isMissed() ? Filter.isMissedOptRemarkEnabled(Pass)
                          : Filter.isAnalysisRemarkEnabled(Pass);
}

/// Prints a diagnostic as Clang does: "<Where>: <severity>: <Text>", then
/// Detail on lines of its own if any.
void printDiagnostic(StringRef Where, DiagnosticSeverity Severity,
                     StringRef Text, StringRef Detail = "");

void handleLLVMDiagnostic(const DiagnosticInfo &DI) {
  // Notes are never printed, remarks when asked for.
  if (DI.getSeverity() == DS_Note ||
      (DI.getSeverity() == DS_Remark && !wantRemark(DI)))
    return;
  // The CPU backend asks for vectorisation of every kernel loop; a kernel
  // that cannot be vectorised (atomics, inner loops) still runs correctly,
  // in parallel, and the user did not ask: no warning.
  if (const auto *OF = dyn_cast<DiagnosticInfoOptimizationFailure>(&DI))
    if (OF->getFunction().getName().starts_with("hpvm."))
      return;
  std::string Text;
  raw_string_ostream OS(Text);
  DiagnosticPrinterRawOStream DP(OS);
  // An optimisation remark prints its location in front of its message
  // itself ("<unknown>:0:0" when it has none): that goes in front here
  // once, as Where. A kernel's remark names its node (its location is the
  // node's code, or its pragma for the loop over instances).
  const auto *Opt = dyn_cast<DiagnosticInfoOptimizationBase>(&DI);
  if (Opt) {
    StringRef Fn = Opt->getFunction().getName();
    if (Fn.consume_front("hpvm.")) {
      // hpvm.<target>.<node>.<hash>
      Fn = Fn.drop_until([](char C) { return C == '.'; }).drop_front();
      OS << "kernel of node '" << Fn.rsplit('.').first << "': ";
    }
    OS << Opt->getMsg();
  } else {
    DI.print(DP);
  }
  OS.flush();
  // HPVM diagnostics end with "\n  at: <instruction> (file:line:col)": the
  // location goes in front, the instruction only with -v.
  std::string Where = Tool, Detail;
  if (Opt && Opt->isLocationAvailable())
    Where = Opt->getLocationStr();
  size_t At = Text.find("\n  at:");
  if (At != std::string::npos) {
    Detail = Text.substr(At);
    Text.resize(At);
    if (!Detail.empty() && Detail.back() == ')') {
      size_t Open = Detail.rfind(" (");
      if (Open != std::string::npos)
        Where = Detail.substr(Open + 2, Detail.size() - Open - 3);
    }
  }
  printDiagnostic(asGiven(Where), DI.getSeverity(), Text,
                  Verbose && !Detail.empty() ? StringRef(Detail).drop_front()
                                             : "");
}

void printDiagnostic(StringRef Where, DiagnosticSeverity Severity,
                     StringRef Text, StringRef Detail) {
  raw_ostream &ES = diag();
  bool Colors = ES.has_colors();
  const char *Label = "note: ";
  raw_ostream::Colors Color = raw_ostream::BLACK;
  switch (Severity) {
  case DS_Error:
    Failed = true;
    Label = "error: ";
    Color = raw_ostream::RED;
    break;
  case DS_Warning:
    Label = "warning: ";
    Color = raw_ostream::MAGENTA;
    break;
  case DS_Remark:
    Label = "remark: ";
    Color = raw_ostream::BLUE;
    break;
  default:
    break;
  }
  // The layout of Clang's diagnostics: bold location and message.
  if (Colors)
    ES.changeColor(raw_ostream::SAVEDCOLOR, true);
  ES << Where << ": ";
  if (Colors)
    ES.changeColor(Color, true);
  ES << Label;
  if (Colors)
    ES.changeColor(raw_ostream::SAVEDCOLOR, true);
  ES << Text;
  if (Colors)
    ES.resetColor();
  ES << "\n";
  if (!Detail.empty())
    ES << Detail << "\n";
}

//===----------------------------------------------------------------------===//
// The command line.
//===----------------------------------------------------------------------===//

enum class Mode { Link, Compile, Assemble, SyntaxOnly };

struct Input {
  std::string Path;
  /// C and C++ sources go through the frontend (C++ for HPVM-C programs,
  /// docs/hpvm-c.md); IR is read as it is; anything else goes to the link.
  enum Kind { C, CXX, IR, Other } K;
  bool isSource() const { return K == C || K == CXX; }
};

/// Whether clang compiles a file of this extension as C++ source.
bool isCXXSource(StringRef Ext) {
  for (const char *E : {".cc", ".cp", ".cpp", ".CPP", ".cxx", ".c++", ".C"})
    if (Ext == E)
      return true;
  return false;
}

/// The language of a source file clang would compile with a frontend
/// other than C's (by its extension, as clang tells them apart), or null.
/// Passed on to the linker, such a file would be compiled by clang with its
/// #pragma hpvm ignored, without a word.
const char *otherSourceLanguage(StringRef Ext) {
  static const struct {
    const char *Ext, *Language;
  } Sources[] = {
      {".ii", "C++"},
      {".cppm", "C++"},
      {".ixx", "C++"},
      {".m", "Objective-C"},
      {".mi", "Objective-C"},
      {".mm", "Objective-C++"},
      {".mii", "Objective-C++"},
      {".cu", "CUDA"},
      {".hip", "HIP"},
      {".cl", "OpenCL C"},
  };
  for (const auto &S : Sources)
    if (Ext == S.Ext)
      return S.Language;
  return nullptr;
}

struct Options {
  /// --help or --version was answered: nothing else to do.
  bool Done = false;
  Mode M = Mode::Link;
  bool EmitHPVMIR = false;
  bool SaveTemps = false;
  /// -save-temps=obj: next to the output, named after it.
  bool SaveTempsObj = false;
  std::string Output;
  std::string DfgDot;
  hpvm::TargetMask Targets = 0;
  std::vector<Input> Inputs;
  /// Arguments for the compile step (Clang driver syntax, no inputs).
  std::vector<std::string> CompileArgs;
  /// Arguments for the link step, in order; "\0<index>" stands for the
  /// object of input <index>.
  std::vector<std::string> LinkArgs;
  bool EmitLLVM = false;
  /// -fopenmp: Clang links libomp, which has OpenMP's runtime calls;
  /// otherwise hpvm-omp has them (runtime/omp).
  bool OpenMP = false;
  /// -march=: also the processor the kernels are optimised for.
  std::string March;
  /// -mllvm <arg>: options of LLVM itself (-pass-remarks-missed=...).
  std::vector<std::string> LLVMArgs;
  /// -mprefer-vector-width=: also the kernels' (0: the CPU backend's
  /// default, CPUOptions::PreferVectorWidth).
  unsigned PreferVectorWidth = 0;
#if HPVM_HAVE_PROGRAM
  /// --hpvm-nvptx-*: the SM, PTX version and libdevice of PTX kernels.
  hpvm::NVPTXOptions NVPTX;
#endif
};

void printHelp() {
  out() << "OVERVIEW: HPVM C compiler (Clang " << HPVM_LLVM_VERSION
        << " libraries)\n\n"
        << "USAGE: hpvm-clang [options] file...\n\n"
        << "HPVM OPTIONS:\n"
        << "  --hpvm-target=<list>  targets to compile nodes for: cpu, "
           "nvptx, spirv (default: cpu)\n"
        << "  -emit-hpvm-ir         write the region form (.ll with -S, "
           ".bc otherwise) instead of code\n"
        << "  --dfg-dot=<file>      write the dataflow graphs as Graphviz "
           "DOT\n"
        << "  --hpvm-nvptx-sm=<sm>  GPU architecture of PTX kernels, e.g. "
           "sm_90 (default: sm_80)\n"
        << "  --hpvm-nvptx-ptx-version=<v>\n"
        << "                        PTX ISA version of PTX kernels, e.g. 8.0 "
           "(default: 7.8)\n"
        << "  --hpvm-nvptx-libdevice=<file>\n"
        << "                        libdevice.10.bc for math functions "
           "(default: searched\n"
        << "                        in the CUDA toolkit)\n\n"
        << "Other options are Clang's: -o -c -S -O0..3 -I -D -U -std= -L -l "
           "-g -W... -v -save-temps -fsyntax-only\n"
        << "-march= -mprefer-vector-width= (the kernels' too).\n"
        << "See docs/c-frontend.md.\n";
}

/// --hpvm-nvptx-sm=, --hpvm-nvptx-ptx-version=, --hpvm-nvptx-libdevice=.
bool parseNVPTXOption(StringRef S, Options &O) {
#if HPVM_HAVE_PROGRAM
  auto [Name, Value] = S.split('=');
  if (!S.contains('=') || Value.empty()) {
    error() << Name << " needs a value: " << Name << "=<value>\n";
    return false;
  }
  if (Name == "--hpvm-nvptx-sm") {
    auto SM = hpvm::parseNVPTXSM(Value);
    if (!SM) {
      error() << Name << ": " << toString(SM.takeError()) << "\n";
      return false;
    }
    O.NVPTX.SM = *SM;
    return true;
  }
  if (Name == "--hpvm-nvptx-ptx-version") {
    auto V = hpvm::parsePTXVersion(Value);
    if (!V) {
      error() << Name << ": " << toString(V.takeError()) << "\n";
      return false;
    }
    O.NVPTX.PTXVersion = *V;
    return true;
  }
  if (Name == "--hpvm-nvptx-libdevice") {
    O.NVPTX.LibdevicePath = Value.str();
    return true;
  }
  error() << "unknown argument: '" << S
          << "' (NVPTX options: --hpvm-nvptx-sm=, --hpvm-nvptx-ptx-version=, "
             "--hpvm-nvptx-libdevice=)\n";
  return false;
#else
  error() << "'" << S << "': this build has no NVPTX backend\n";
  return false;
#endif
}

std::optional<Options> parseCommandLine(ArrayRef<const char *> Argv) {
  Options O;
  std::vector<const char *> ClangArgs;
  std::optional<std::string> Targets;
  for (const char *A : Argv) {
    StringRef S(A);
    if (S.consume_front("--hpvm-target=") || S.consume_front("-hpvm-target="))
      Targets = S.str();
    else if (S == "-emit-hpvm-ir" || S == "--emit-hpvm-ir")
      O.EmitHPVMIR = true;
    else if (S.consume_front("--dfg-dot=") || S.consume_front("-dfg-dot="))
      O.DfgDot = S.str();
    else if (S == "--dfg-dot" || S == "-dfg-dot") {
      error() << "--dfg-dot needs a file: --dfg-dot=FILE\n";
      return std::nullopt;
    } else if (S.starts_with("--hpvm-nvptx-")) {
      if (!parseNVPTXOption(S, O))
        return std::nullopt;
    } else
      ClangArgs.push_back(A);
  }

  const opt::OptTable &Table = clang::driver::getDriverOptTable();
  unsigned MissingIndex = 0, MissingCount = 0;
  opt::InputArgList Args =
      Table.ParseArgs(ClangArgs, MissingIndex, MissingCount,
                      llvm::opt::Visibility(copt::ClangOption));
  if (MissingCount) {
    error() << "argument to '" << Args.getArgString(MissingIndex)
            << "' is missing (expected " << MissingCount << " value"
            << (MissingCount > 1 ? "s" : "") << ")\n";
    return std::nullopt;
  }

  bool OK = true;
  for (opt::Arg *A : Args) {
    const opt::Option &Opt = A->getOption();
    opt::ArgStringList Rendered;
    A->render(Args, Rendered);
    auto Both = [&] {
      for (const char *R : Rendered) {
        O.CompileArgs.push_back(R);
        O.LinkArgs.push_back(R);
      }
    };
    switch (Opt.getID()) {
    case copt::OPT_INPUT: {
      StringRef Path = A->getValue();
      StringRef Ext = sys::path::extension(Path);
      Input In{Path.str(), Input::Other};
      if (Ext == ".c" || Ext == ".i")
        In.K = Input::C;
      else if (isCXXSource(Ext))
        In.K = Input::CXX;
      else if (Ext == ".ll" || Ext == ".bc")
        In.K = Input::IR;
      O.LinkArgs.push_back(std::string(1, '\0') +
                           std::to_string(O.Inputs.size()));
      O.Inputs.push_back(In);
      GivenPaths.emplace(hpvm::cfe::absolutePath("", Path), Path.str());
      break;
    }
    case copt::OPT_help:
      printHelp();
      O.Done = true;
      return O;
    case copt::OPT__version:
      out() << "hpvm-clang (HPVM) with Clang " << HPVM_LLVM_VERSION
            << " libraries\nTarget: " << sys::getDefaultTargetTriple()
            << "\nHPVM targets: "
            << (builtTargets() ? hpvm::targetsToString(builtTargets())
                               : std::string("none"))
            << "\n";
      O.Done = true;
      return O;
    case copt::OPT_o:
      O.Output = A->getValue();
      break;
    case copt::OPT_c:
      O.M = Mode::Compile;
      break;
    case copt::OPT_S:
      O.M = Mode::Assemble;
      break;
    case copt::OPT_fsyntax_only:
      O.M = Mode::SyntaxOnly;
      break;
    case copt::OPT_emit_llvm:
      O.EmitLLVM = true;
      break;
    case copt::OPT_march_EQ:
      O.March = A->getValue();
      Both();
      break;
    case copt::OPT_Rpass_EQ:
    case copt::OPT_Rpass_missed_EQ:
    case copt::OPT_Rpass_analysis_EQ: {
      Regex Pattern(A->getValue());
      std::string Why;
      if (!Pattern.isValid(Why)) {
        error() << "'" << A->getAsString(Args) << "': " << Why << "\n";
        OK = false;
        break;
      }
      unsigned ID = Opt.getID();
      (ID == copt::OPT_Rpass_EQ          ? Remarks.Passed
       : ID == copt::OPT_Rpass_missed_EQ ? Remarks.Missed
                                         : Remarks.Analysis) =
          std::move(Pattern);
      // Clang prints the host code's remarks itself.
      O.CompileArgs.insert(O.CompileArgs.end(), Rendered.begin(),
                           Rendered.end());
      break;
    }
    case copt::OPT_mllvm:
      // In clang, cc1 hands these to LLVM's option parser; this driver runs
      // LLVM in its own process, so it does (main), for the kernels' passes
      // and the host code alike.
      O.LLVMArgs.push_back(A->getValue());
      break;
    case copt::OPT_mprefer_vector_width_EQ: {
      StringRef V = A->getValue();
      unsigned Width = 0;
      if (V.getAsInteger(10, Width) || !isPowerOf2_32(Width) || Width < 64 ||
          Width > 512) {
        error() << "'" << A->getAsString(Args)
                << "': the width must be 64, 128, 256 or 512 bits\n";
        OK = false;
        break;
      }
      O.PreferVectorWidth = Width;
      Both();
      break;
    }
    case copt::OPT_fopenmp:
    case copt::OPT_fopenmp_EQ:
      O.OpenMP = true;
      Both();
      break;
    case copt::OPT_fno_openmp:
      O.OpenMP = false;
      Both();
      break;
    case copt::OPT_v:
      Verbose = true;
      O.LinkArgs.push_back("-v");
      break;
    case copt::OPT_save_temps:
      O.SaveTemps = true;
      break;
    case copt::OPT_save_temps_EQ:
      O.SaveTemps = true;
      O.SaveTempsObj = StringRef(A->getValue()) == "obj";
      break;
    case copt::OPT_E:
    case copt::OPT_M:
    case copt::OPT_MM:
      error() << "'" << A->getAsString(Args)
              << "' is not supported; use clang-19 for preprocessing\n";
      OK = false;
      break;
    case copt::OPT_UNKNOWN:
      error() << "unknown argument: '" << A->getAsString(Args) << "'\n";
      OK = false;
      break;
    default:
      // Linker inputs (-l, -Wl, -Xlinker) and link-only flags go to the link
      // step alone; the rest to both (the link step ignores compile flags).
      if (Opt.hasFlag(copt::LinkerInput) || Opt.matches(copt::OPT_L) ||
          Opt.matches(copt::OPT_static) || Opt.matches(copt::OPT_shared) ||
          Opt.matches(copt::OPT_rdynamic) || Opt.matches(copt::OPT_nostdlib) ||
          Opt.matches(copt::OPT_fuse_ld_EQ))
        for (const char *R : Rendered)
          O.LinkArgs.push_back(R);
      else
        Both();
    }
  }
  if (!OK)
    return std::nullopt;

  if (O.Inputs.empty()) {
    error() << "no input files\n";
    return std::nullopt;
  }
  for (const Input &In : O.Inputs)
    if (In.K != Input::Other && !sys::fs::exists(In.Path)) {
      error() << "no such file or directory: '" << In.Path << "'\n";
      OK = false;
    }
  if (!OK)
    return std::nullopt;
  for (const Input &In : O.Inputs)
    if (const char *Language =
            otherSourceLanguage(sys::path::extension(In.Path))) {
      error() << "'" << In.Path << "': " << Language
              << " sources are not supported: hpvm-clang compiles C and "
                 "C++, and would pass this file to clang, which ignores "
                 "HPVM's nodes; write the nodes in C, or compile this file "
                 "into an object with clang (without nodes) and link the "
                 "object\n";
      return std::nullopt;
    }
  O.Targets = !Targets ? defaultTargets() : parseTargetList(*Targets);
  if (Targets && !O.Targets)
    return std::nullopt;
#if HPVM_HAVE_PROGRAM
  // Once, before any input is compiled, rather than once per input.
  if (O.Targets & hpvm::TargetNVPTX)
    if (Error E = hpvm::checkNVPTXOptions(O.NVPTX)) {
      error() << "nvptx target: " << toString(std::move(E)) << "\n";
      return std::nullopt;
    }
#endif
  unsigned Compiled = 0;
  for (const Input &In : O.Inputs)
    Compiled += In.K != Input::Other;
  if (O.M != Mode::Link || O.EmitHPVMIR) {
    for (const Input &In : O.Inputs)
      if (In.K == Input::Other) {
        error() << "'" << In.Path
                << "': only C (.c, .i), C++ (.cpp, .cc, ...) and LLVM IR "
                   "(.ll, .bc) files can be compiled without linking\n";
        return std::nullopt;
      }
    if (!O.Output.empty() && Compiled > 1 && O.M != Mode::SyntaxOnly) {
      error() << "cannot specify -o when generating multiple output files\n";
      return std::nullopt;
    }
  }
  if (O.EmitLLVM && !O.EmitHPVMIR) {
    error() << "-emit-llvm is not supported; -emit-hpvm-ir writes the "
               "region form\n";
    return std::nullopt;
  }
  return O;
}

//===----------------------------------------------------------------------===//
// Resources.
//===----------------------------------------------------------------------===//

struct Resources {
  std::string IncludeDir; // holds hpvm.h and hpvm_markers.h
  std::string LibDir;     // holds libhpvm-rt.a
};

Resources findResources(const hpvm::cfe::DriverOptions &DO) {
  std::string Exe =
      sys::fs::getMainExecutable(DO.Argv0.c_str(), (void *)&findResources);
  SmallString<256> Prefix(
      DO.InstallDir.empty()
          ? sys::path::parent_path(sys::path::parent_path(Exe))
          : StringRef(DO.InstallDir));
  Resources R;
  SmallString<256> Inc(Prefix), Lib(Prefix);
  sys::path::append(Inc, "lib", "hpvm", "include");
  sys::path::append(Lib, "lib");
  R.IncludeDir = Inc.str().str();
  R.LibDir = Lib.str().str();
  return R;
}

//===----------------------------------------------------------------------===//
// Compiling one input.
//===----------------------------------------------------------------------===//

std::string stem(StringRef Path) { return sys::path::stem(Path).str(); }

bool writeModule(Module &M, StringRef Path, bool Text) {
  std::error_code EC;
  ToolOutputFile Out(Path, EC, Text ? sys::fs::OF_Text : sys::fs::OF_None);
  if (EC) {
    error() << "cannot write '" << Path << "': " << EC.message() << "\n";
    return false;
  }
  if (Text)
    M.print(Out.os(), nullptr);
  else
    WriteBitcodeToFile(M, Out.os());
  Out.keep();
  return true;
}

bool appendDot(Module &GraphForm, raw_ostream &OS) {
  auto Graphs = hpvm::readGraphs(GraphForm);
  if (!Graphs) {
    error() << toString(Graphs.takeError()) << "\n";
    return false;
  }
  for (const hpvm::Graph &G : *Graphs) {
    std::ostringstream S;
    hpvm::printDot(G, S);
    OS << S.str();
  }
  return true;
}

/// -save-temps: <input stem>.<what> in the current directory, or with
/// -save-temps=obj <output without extension>.<what> next to the output
/// (<output without extension>.<input stem>.<what> when one command
/// compiles several inputs, which would otherwise overwrite each other's).
std::string tempBase(const Options &O, const Input &In) {
  if (O.SaveTempsObj && !O.Output.empty()) {
    SmallString<256> P(O.Output);
    sys::path::replace_extension(P, "");
    unsigned Compiled = 0;
    for (const Input &I : O.Inputs)
      Compiled += I.K != Input::Other;
    if (Compiled > 1)
      P += "." + stem(In.Path);
    return P.str().str();
  }
  return stem(In.Path);
}

/// Where the outputs of one input go.
std::string outputFor(const Options &O, const Input &In, StringRef Ext) {
  if (!O.Output.empty() && (O.M != Mode::Link || O.EmitHPVMIR))
    return O.Output;
  return stem(In.Path) + Ext.str();
}

/// Runs Clang's driver with Args (after the program name) in-process: how
/// the objects are linked, with the same crt files, libraries and linker
/// clang would use.
bool runClangDriver(const std::vector<std::string> &Args) {
  std::vector<const char *> Argv = {HPVM_CLANG_EXECUTABLE};
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  auto DiagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  auto *Printer = new clang::TextDiagnosticPrinter(diag(), &*DiagOpts);
  clang::DiagnosticsEngine Diags(
      llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), &*DiagOpts, Printer);
  clang::driver::Driver D(HPVM_CLANG_EXECUTABLE, sys::getDefaultTargetTriple(),
                          Diags, "hpvm-clang linker");
  std::unique_ptr<clang::driver::Compilation> C(D.BuildCompilation(Argv));
  if (!C || C->containsError() || Diags.hasErrorOccurred()) {
    Failed = true;
    return false;
  }
  SmallVector<std::pair<int, const clang::driver::Command *>, 4> Failing;
  if (D.ExecuteCompilation(*C, Failing) || !Failing.empty()) {
    Failed = true;
    return false;
  }
  return true;
}

/// Files to remove at exit.
std::vector<std::string> Temporaries;

class Compiler {
public:
  Compiler(const Options &O, const Resources &R, raw_ostream *Dot)
      : O(O), R(R), Dot(Dot) {}

  /// Compiles input I; for the link step, returns the objects to link.
  bool compile(const Input &In, std::vector<std::string> &Objects);

private:
  std::unique_ptr<clang::CompilerInvocation> invocation(const Input &In);
  bool emitCode(std::unique_ptr<Module> M, const Input &In,
                const clang::CompilerInvocation *Inv, bool AddedDebugInfo,
                std::vector<std::string> &Objects);

  const Options &O;
  const Resources &R;
  raw_ostream *Dot;
};

/// An IR input is the user's: invalid IR is its fault, said with its name,
/// before any pass can trip over it; without a target (hand-written IR) it
/// gets the host's, as clang gives it.
bool checkIRInput(Module &M, StringRef Path) {
  std::string Broken;
  raw_string_ostream OS(Broken);
  if (verifyModule(M, &OS)) {
    error() << Path << ": not valid LLVM IR:\n" << OS.str();
    return false;
  }
  if (M.getTargetTriple().empty())
    M.setTargetTriple(sys::getDefaultTargetTriple());
  if (M.getDataLayoutStr().empty()) {
    std::string Why;
    const Target *T = TargetRegistry::lookupTarget(M.getTargetTriple(), Why);
    std::unique_ptr<TargetMachine> TM(
        T ? T->createTargetMachine(M.getTargetTriple(), "generic", "",
                                   TargetOptions(), std::nullopt)
          : nullptr);
    if (!TM) {
      error() << Path << ": target '" << M.getTargetTriple()
              << "' is not supported" << (Why.empty() ? "" : ": " + Why)
              << "\n";
      return false;
    }
    M.setDataLayout(TM->createDataLayout());
  }
  return true;
}

std::unique_ptr<clang::CompilerInvocation>
Compiler::invocation(const Input &In) {
  std::vector<std::string> Args = {HPVM_CLANG_EXECUTABLE,
                                   "-Qunused-arguments",
                                   "-D__HPVM__=1",
                                   "-isystem",
                                   R.IncludeDir,
                                   "-include",
                                   R.IncludeDir + "/hpvm_markers.h"};
  Args.insert(Args.end(), O.CompileArgs.begin(), O.CompileArgs.end());
  Args.push_back("-c");
  Args.push_back(In.Path);
  if (Verbose) {
    diag() << "hpvm-clang: compiling with:";
    for (const std::string &A : Args)
      diag() << " " << A;
    diag() << "\n";
  }
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  clang::CreateInvocationOptions CIOpts;
  auto DiagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  CIOpts.Diags = clangDiagnostics(DiagOpts.get());
  CIOpts.RecoverOnError = false;
  std::unique_ptr<clang::CompilerInvocation> Inv =
      clang::createInvocation(Argv, CIOpts);
  if (!Inv || CIOpts.Diags->hasErrorOccurred()) {
    Failed = true;
    return nullptr;
  }
  return Inv;
}

bool Compiler::compile(const Input &In, std::vector<std::string> &Objects) {
  LLVMContext Ctx;
  Ctx.setDiagnosticHandler(std::make_unique<DriverDiagnosticHandler>());
  std::unique_ptr<Module> M;
  std::unique_ptr<clang::CompilerInvocation> Inv;
  bool AddedDebugInfo = false;

  if (In.isSource()) {
    Inv = invocation(In);
    if (!Inv)
      return false;
    hpvm::cfe::FrontendOptions FO;
    FO.SyntaxOnly = O.M == Mode::SyntaxOnly;
    // A caller's own stream gets the C frontend's diagnostics too (without
    // Clang's "N errors generated", which only the tool prints).
    std::unique_ptr<clang::TextDiagnosticPrinter> Printer;
    if (DiagOS) {
      auto PrinterOpts = makeIntrusiveRefCnt<clang::DiagnosticOptions>();
      Printer = std::make_unique<clang::TextDiagnosticPrinter>(
          *DiagOS, PrinterOpts.get());
      FO.Diagnostics = Printer.get();
    }
    if (O.SaveTemps)
      FO.SaveRewrittenAs = tempBase(O, In) + ".hpvm.c";
    hpvm::cfe::FrontendResult FR =
        hpvm::cfe::compileToRegionForm(*Inv, Ctx, FO);
    if (FO.SyntaxOnly || !FR.M) {
      Failed |= !FR.OK;
      return FR.OK;
    }
    M = std::move(FR.M);
    AddedDebugInfo = FR.AddedDebugInfo;
  } else {
    SMDiagnostic Err;
    M = parseIRFile(In.Path, Err, Ctx);
    if (!M) {
      Err.print(Tool, diag());
      Failed = true;
      return false;
    }
    if (!checkIRInput(*M, In.Path))
      return false;
    if (hpvm::lowerMarkers(*M))
      return false;
    if (O.M == Mode::SyntaxOnly)
      return !hpvm::verifyHPVMModule(*M);
  }

  if (O.SaveTemps && !writeModule(*M, tempBase(O, In) + ".region.ll", true))
    return false;

  if (O.EmitHPVMIR) {
    if (hpvm::verifyHPVMModule(*M))
      return false;
    if (Dot) {
      std::unique_ptr<Module> Copy = CloneModule(*M);
      if (hpvm::extractGraphs(*Copy) || !appendDot(*Copy, *Dot))
        return false;
    }
    if (AddedDebugInfo)
      StripDebugInfo(*M);
    bool Text = O.M == Mode::Assemble;
    return writeModule(*M, outputFor(O, In, Text ? ".ll" : ".bc"), Text);
  }

  if (hpvm::extractGraphs(*M))
    return false;
  if (Dot && !appendDot(*M, *Dot))
    return false;
  if (O.SaveTemps && !writeModule(*M, tempBase(O, In) + ".graph.ll", true))
    return false;
  return emitCode(std::move(M), In, Inv.get(), AddedDebugInfo, Objects);
}

#if HPVM_HAVE_PROGRAM

/// Kernel wrappers are external symbols named after their graph and node
/// (hpvm.cpu.<path>), so two files with a graph of the same name would
/// define the same symbol. The runtime reaches kernels through the program
/// descriptor, never by name: a suffix unique to this input and its flags
/// (deterministic, so builds are reproducible) and hidden visibility keep
/// them apart.
void makeKernelSymbolsUnique(Module &Host, Module &Kernels, const Input &In,
                             const Options &O) {
  SmallString<256> Path(In.Path);
  sys::fs::make_absolute(Path);
  std::string Key = Path.str().str();
  for (const std::string &A : O.CompileArgs)
    Key += '\0' + A;
  std::string Suffix = "." + utohexstr(xxh3_64bits(Key), /*LowerCase=*/true);
  for (Function &F : Kernels) {
    if (F.isDeclaration() || !F.hasExternalLinkage() ||
        !F.getName().starts_with(hpvm::CPUWrapperPrefix))
      continue;
    std::string Old = F.getName().str();
    F.setName(Old + Suffix);
    F.setVisibility(GlobalValue::HiddenVisibility);
    if (Function *Decl = Host.getFunction(Old)) {
      Decl->setName(F.getName());
      Decl->setVisibility(GlobalValue::HiddenVisibility);
    }
  }
}

/// Emits a module with Clang's backend (its -O pipeline and code
/// generator), as clang would for the same options.
bool emitWithClang(Module &M, const clang::CompilerInvocation &Inv,
                   clang::BackendAction Action, StringRef Path) {
  std::error_code EC;
  auto OS = std::make_unique<raw_fd_ostream>(
      Path, EC,
      Action == clang::Backend_EmitAssembly ? sys::fs::OF_Text
                                            : sys::fs::OF_None);
  if (EC) {
    error() << "cannot write '" << Path << "': " << EC.message() << "\n";
    return false;
  }
  auto DiagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  IntrusiveRefCntPtr<clang::DiagnosticsEngine> Diags =
      clangDiagnostics(DiagOpts.get());
  clang::EmitBackendOutput(*Diags, Inv.getHeaderSearchOpts(),
                           Inv.getCodeGenOpts(), Inv.getTargetOpts(),
                           Inv.getLangOpts(), M.getDataLayoutStr(), &M, Action,
                           vfs::getRealFileSystem(), std::move(OS));
  if (Diags->hasErrorOccurred()) {
    Failed = true;
    return false;
  }
  return true;
}

bool Compiler::emitCode(std::unique_ptr<Module> M, const Input &In,
                        const clang::CompilerInvocation *Inv,
                        bool AddedDebugInfo,
                        std::vector<std::string> &Objects) {
  // IR inputs have no invocation: the host code is compiled with the
  // options a C file with no flags would get.
  std::unique_ptr<clang::CompilerInvocation> Own;
  if (!Inv) {
    std::vector<const char *> Argv = {HPVM_CLANG_EXECUTABLE, "-c", "-x", "c",
                                      "/dev/null"};
    clang::CreateInvocationOptions CIOpts;
    auto DiagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    CIOpts.Diags = clangDiagnostics(DiagOpts.get());
    Own = clang::createInvocation(Argv, CIOpts);
    if (!Own)
      return false;
    Inv = Own.get();
  }
  // The line tables the frontend added for its own diagnostics also give
  // the backends' diagnostics and the kernels' optimisation remarks their
  // locations: kept through the backends, stripped from what is emitted.
  bool KeepLines = AddedDebugInfo;

  hpvm::ProgramOptions PO;
  PO.Targets = O.Targets;
  // Code a GPU target cannot express (a libc call, a global a helper
  // reads) leaves the leaf to the targets that can, with a remark.
  PO.SkipUnsupported = true;
  PO.CPU.CPU = O.March; // empty: the host's processor
  PO.CPU.PreferVectorWidth = O.PreferVectorWidth;
  PO.NVPTX = O.NVPTX;
  auto Program = hpvm::compileProgram(std::move(M), PO);
  if (!Program) {
    // Where the backends' diagnostics have a source location, it comes
    // first, as in Clang's.
    handleAllErrors(
        Program.takeError(),
        [&](const hpvm::gpu::UnsupportedLeaf &U) {
          if (U.Location.empty()) {
            error() << U.Message << "\n";
            return;
          }
          Failed = true;
          printDiagnostic(asGiven(U.Location), DS_Error,
                          StringRef(U.Message).split("\n  at:").first);
        },
        [&](const ErrorInfoBase &E) { error() << E.message() << "\n"; });
    return false;
  }
  // One remark per node left out: the targets, and the first one's reason
  // (the others' differ in the backend's name, if at all).
  struct LeftOut {
    std::string Targets;
    const hpvm::SkippedLeaf *First;
  };
  std::vector<std::pair<std::string, LeftOut>> LeftOutNodes;
  for (auto [Skipped, Target] :
       {std::pair(&Program->NVPTXSkipped, "nvptx"),
        std::pair(&Program->VulkanSkipped, "spirv (vulkan)"),
        std::pair(&Program->OpenCLSkipped, "spirv (opencl)")})
    for (const hpvm::SkippedLeaf &S : *Skipped) {
      auto It = llvm::find_if(LeftOutNodes, [&](const auto &Entry) {
        return Entry.first == S.NodePath;
      });
      if (It == LeftOutNodes.end())
        LeftOutNodes.push_back({S.NodePath, {Target, &S}});
      else
        It->second.Targets += std::string(", ") + Target;
    }
  for (const auto &[Path, L] : LeftOutNodes)
    printDiagnostic(L.First->Location.empty() ? Tool
                                              : asGiven(L.First->Location),
                    DS_Remark,
                    "node '" + Path + "' gets no " + L.Targets +
                        " kernel and runs on the other devices it may use: " +
                        L.First->Why);
  Module &Host = *Program->Host;
  Module *Kernels = Program->CPUKernels.get();
  if (KeepLines) {
    StripDebugInfo(Host);
    if (Kernels)
      StripDebugInfo(*Kernels);
  }
  if (Kernels)
    makeKernelSymbolsUnique(Host, *Kernels, In, O);
  std::string Stem = O.SaveTemps ? tempBase(O, In) : stem(In.Path);
  if (O.SaveTemps) {
    if (!writeModule(Host, Stem + ".host.ll", true) ||
        (Kernels && !writeModule(*Kernels, Stem + ".kernels.ll", true)))
      return false;
    // One PTX module per kernel, named after its node (entry names repeat
    // when nodes share a leaf function), for ptxas or cuobjdump.
    for (const hpvm::NVPTXKernel &K : Program->NVPTXKernels) {
      std::string Node = K.NodePath;
      std::replace(Node.begin(), Node.end(), '/', '.');
      std::string Path =
          Stem + "." + Node + (K.WorkGroups ? ".work_group" : "") + ".ptx";
      std::error_code EC;
      ToolOutputFile Out(Path, EC, sys::fs::OF_Text);
      if (EC) {
        error() << "cannot write '" << Path << "': " << EC.message() << "\n";
        return false;
      }
      Out.os() << K.PTX;
      Out.keep();
    }
  }

  // The host code goes through Clang's backend at the user's -O level; the
  // kernels, already optimised by the CPU backend, only through code
  // generation for the processor they were optimised for.
  if (O.M == Mode::Assemble) {
    std::string Out = outputFor(O, In, ".s");
    if (!emitWithClang(Host, *Inv, clang::Backend_EmitAssembly, Out))
      return false;
    if (!Kernels)
      return true;
    std::error_code EC;
    raw_fd_ostream OS(Out, EC, sys::fs::OF_Append | sys::fs::OF_Text);
    if (!EC)
      if (Error E = hpvm::emitAssemblyFile(*Kernels, PO.CPU, OS)) {
        error() << toString(std::move(E)) << "\n";
        return false;
      }
    return !EC;
  }

  auto Temporary = [&](StringRef Suffix, std::string &Path) {
    if (O.SaveTemps) {
      Path = (Stem + Suffix).str();
      return true;
    }
    SmallString<128> Tmp;
    if (std::error_code EC = sys::fs::createTemporaryFile(
            Stem + Suffix.drop_back(2), "o", Tmp)) {
      error() << "cannot create a temporary file: " << EC.message() << "\n";
      return false;
    }
    Path = Tmp.str().str();
    Temporaries.push_back(Path);
    return true;
  };
  bool OneObject = O.M == Mode::Compile;
  std::string HostObject, KernelObject;
  if (OneObject && !Kernels)
    HostObject = outputFor(O, In, ".o");
  else if (!Temporary(".host.o", HostObject))
    return false;
  if (!emitWithClang(Host, *Inv, clang::Backend_EmitObj, HostObject))
    return false;
  if (Kernels) {
    if (!Temporary(".kernels.o", KernelObject))
      return false;
    std::error_code EC;
    raw_fd_ostream OS(KernelObject, EC, sys::fs::OF_None);
    if (EC) {
      error() << "cannot write '" << KernelObject << "': " << EC.message()
              << "\n";
      return false;
    }
    if (Error E = hpvm::emitObjectFile(*Kernels, PO.CPU, OS)) {
      error() << toString(std::move(E)) << "\n";
      return false;
    }
  }
  if (!OneObject || !Kernels) {
    Objects.push_back(HostObject);
    if (Kernels)
      Objects.push_back(KernelObject);
    return true;
  }
  // -c makes one object, as clang does: a relocatable link of the two.
  std::string Out = outputFor(O, In, ".o");
  if (!runClangDriver({"-r", HostObject, KernelObject, "-o", Out}))
    return false;
  Objects.push_back(Out);
  return true;
}

#else

bool Compiler::emitCode(std::unique_ptr<Module>, const Input &,
                        const clang::CompilerInvocation *, bool,
                        std::vector<std::string> &) {
  error() << "generating code needs the HPVM backends, which this build "
             "does not have; -emit-hpvm-ir writes the region form\n";
  return false;
}

#endif

//===----------------------------------------------------------------------===//
// Linking.
//===----------------------------------------------------------------------===//

bool link(const Options &O, const Resources &R,
          const std::vector<std::vector<std::string>> &ObjectsOf) {
  std::vector<std::string> Args;
  for (const std::string &A : O.LinkArgs) {
    if (!A.empty() && A[0] == '\0') {
      for (const std::string &Object : ObjectsOf[std::stoul(A.substr(1))])
        Args.push_back(Object);
    } else
      Args.push_back(A);
  }
  Args.push_back("-o");
  Args.push_back(O.Output.empty() ? "a.out" : O.Output);
  // OpenMP's calls first: they call hpvm-rt, which comes after them.
  std::vector<std::string> Libraries;
  if (!O.OpenMP)
    Libraries.push_back(R.LibDir + "/" + HPVM_OPENMP_LIBRARY);
  for (const char *Lib : HPVM_RUNTIME_LIBRARIES)
    Libraries.push_back(R.LibDir + "/" + Lib);
  append_range(Args, Libraries);
  for (const char *Flag :
       {"-lstdc++", "-lpthread", "-ldl", "-lm", "-Qunused-arguments"})
    Args.push_back(Flag);
  if (*HPVM_RUNTIME_SANITIZERS) {
    // The runtime is C++: its checks need the C++ parts of the sanitizer
    // runtimes, which a C link leaves out.
    Args.push_back(std::string("-fsanitize=") + HPVM_RUNTIME_SANITIZERS);
    Args.push_back("-fsanitize-link-c++-runtime");
  }
  for (const std::string &Lib : Libraries)
    if (!sys::fs::exists(Lib)) {
      error() << "the HPVM runtime '" << Lib
              << "' is missing (build the target hpvm-clang-resources)\n";
      return false;
    }

  return runClangDriver(Args);
}

} // namespace

namespace hpvm::cfe {

Error runDriver(ArrayRef<const char *> Args, const DriverOptions &DO) {
  // LLVM's command-line options and the driver's state are process-wide.
  static std::mutex OneAtATime;
  std::lock_guard<std::mutex> Lock(OneAtATime);
  static std::once_flag TargetsReady;
  std::call_once(TargetsReady, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    InitializeAllAsmParsers();
  });
  DiagOS = DO.Diagnostics;
  OutOS = DO.Output;
  Failed = false;
  Verbose = false;
  Remarks = RemarkFilters();
  Temporaries.clear();
  auto Result = [&]() -> Error {
    if (!Failed)
      return Error::success();
    // The diagnostics themselves went to the stream as they came.
    return createStringError(inconvertibleErrorCode(),
                             "%s failed (its diagnostics say why)", Tool);
  };

  std::optional<Options> O = parseCommandLine(Args);
  if (!O) {
    Failed = true;
    return Result();
  }
  if (O->Done)
    return Result();
  if (!O->LLVMArgs.empty()) {
    std::vector<const char *> LLVMArgv{"hpvm-clang (-mllvm)"};
    for (const std::string &A : O->LLVMArgs)
      LLVMArgv.push_back(A.c_str());
    if (!cl::ParseCommandLineOptions(int(LLVMArgv.size()), LLVMArgv.data(), "",
                                     &diag())) {
      Failed = true;
      return Result();
    }
  }
  if (Verbose)
    diag() << "hpvm-clang (HPVM) with Clang " << HPVM_LLVM_VERSION
           << " libraries; targets:"
           << (O->Targets ? " " + hpvm::targetsToString(O->Targets)
                          : std::string(" none"))
           << "\n";
  Resources R = findResources(DO);

  std::unique_ptr<ToolOutputFile> DotFile;
  if (!O->DfgDot.empty()) {
    std::error_code EC;
    DotFile = std::make_unique<ToolOutputFile>(O->DfgDot, EC, sys::fs::OF_Text);
    if (EC) {
      error() << "cannot write '" << O->DfgDot << "': " << EC.message() << "\n";
      return Result();
    }
  }

  Compiler C(*O, R, DotFile ? &DotFile->os() : nullptr);
  std::vector<std::vector<std::string>> ObjectsOf(O->Inputs.size());
  for (size_t I = 0; I < O->Inputs.size(); ++I) {
    const Input &In = O->Inputs[I];
    if (In.K == Input::Other)
      ObjectsOf[I].push_back(In.Path);
    else if (!C.compile(In, ObjectsOf[I]))
      Failed = true;
  }
  if (!Failed && O->M == Mode::Link && !O->EmitHPVMIR)
    link(*O, R, ObjectsOf);
  for (const std::string &T : Temporaries)
    sys::fs::remove(T);
  Temporaries.clear();
  if (DotFile && !Failed)
    DotFile->keep();
  return Result();
}

} // namespace hpvm::cfe
