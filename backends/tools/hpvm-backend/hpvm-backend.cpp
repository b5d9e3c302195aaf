//===- hpvm-backend.cpp - Compile the leaves of a graph-form module -------===//
//
//   hpvm-backend --target=cpu in.ll -S -o kernels.ll
//   hpvm-backend --target=cpu in.ll -filetype=obj -mcpu=haswell -o kernels.o
//   hpvm-backend --target=spirv in.ll -S -o kernels.spvasm
//   hpvm-backend --target=spirv --spirv-node=g/leaf in.ll -o leaf.spv
//   hpvm-backend --target=nvptx in.ll -S -o kernels.ptx
//   hpvm-backend --target=nvptx --nvptx-sm=sm_90 --nvptx-dir=ptx/ in.ll
//
// llc for HPVM: reads a module in graph form (hpvm-opt --extract's output),
// checks it with the graph-form verifier, compiles every leaf the target may
// run and writes the kernels as bitcode (default), textual IR (-S), an object
// file or assembly (-filetype=obj|asm); for spirv, the disassembly of every
// kernel (-S) or one kernel's binary module; for nvptx, every kernel's PTX
// module (-S), one kernel's (--nvptx-node), or one file per kernel in a
// folder (--nvptx-dir). Errors are printed as "hpvm-backend: error: ..." and
// give exit status 1.
//
//===----------------------------------------------------------------------===//
#include "hpvm/backends/CPUBackend.h"
#include "hpvm/backends/NVPTXBackend.h"
#include "hpvm/backends/SPIRVBackend.h"
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphFormVerifier.h"
#include "hpvm/ir/GraphMetadata.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static const char *ToolName = "hpvm-backend";

static cl::OptionCategory Category("hpvm-backend options");
static cl::opt<std::string> TargetName("target", cl::Required,
                                       cl::desc("Backend: cpu, nvptx or spirv"),
                                       cl::value_desc("name"),
                                       cl::cat(Category));
static cl::opt<std::string> InputFilename(cl::Positional,
                                          cl::desc("<graph-form .ll/.bc>"),
                                          cl::init("-"), cl::cat(Category));
static cl::opt<std::string> OutputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("filename"),
                                           cl::init("-"), cl::cat(Category));
static cl::opt<bool> OutputAssembly("S", cl::desc("Write textual IR"),
                                    cl::cat(Category));
enum class FileType { Bitcode, Object, Assembly };
static cl::opt<FileType> OutputFileType(
    "filetype", cl::init(FileType::Bitcode),
    cl::desc("What to write (default: bitcode; -S: textual IR)"),
    cl::values(clEnumValN(FileType::Object, "obj", "an object file"),
               clEnumValN(FileType::Assembly, "asm", "assembly text"),
               clEnumValN(FileType::Bitcode, "bc", "LLVM bitcode")),
    cl::cat(Category));
static cl::opt<std::string> TargetTriple("mtriple",
                                         cl::desc("Target triple (default: "
                                                  "this machine's)"),
                                         cl::cat(Category));
static cl::opt<std::string>
    CPUName("mcpu", cl::desc("Processor, e.g. haswell (default: this one)"),
            cl::value_desc("cpu"), cl::cat(Category));
static cl::opt<std::string>
    Features("mattr", cl::desc("Features to add or remove, e.g. +avx2,-fma"),
             cl::value_desc("a1,+a2,-a3"), cl::cat(Category));
static cl::opt<char> OptLevel("O", cl::Prefix, cl::ZeroOrMore, cl::init('3'),
                              cl::desc("Optimisation level: -O0 to -O3 "
                                       "(default -O3)"),
                              cl::cat(Category));
static cl::opt<unsigned> PreferVectorWidth(
    "mprefer-vector-width", cl::init(0),
    cl::desc("Widest vectors the vectoriser should prefer, in bits (default: "
             "the processor's tuning)"),
    cl::cat(Category));

static cl::opt<hpvm::SPIRVFlavour> SPIRVFlavour(
    "spirv-flavour", cl::init(hpvm::SPIRVFlavour::Vulkan),
    cl::desc("SPIR-V environment (default: vulkan)"),
    cl::values(clEnumValN(hpvm::SPIRVFlavour::Vulkan, "vulkan",
                          "Shader, physical storage buffers, GLCompute"),
               clEnumValN(hpvm::SPIRVFlavour::OpenCL, "opencl",
                          "Kernel, Physical64 addressing")),
    cl::cat(Category));
static cl::opt<std::string> SPIRVNode(
    "spirv-node",
    cl::desc("The node (path) whose binary SPIR-V module to write; needed "
             "without -S when there are several kernels"),
    cl::value_desc("path"), cl::cat(Category));

static cl::opt<bool> SPIRVWorkGroup(
    "spirv-work-group",
    cl::desc("With --spirv-node: the node's work-group kernel (a device "
             "work-group per instance of a work-group leaf) instead of its "
             "other kernel"),
    cl::cat(Category));

static cl::opt<std::string>
    NVPTXSM("nvptx-sm",
            cl::desc("GPU architecture of the PTX (default: sm_80)"),
            cl::value_desc("sm_NN"), cl::cat(Category));
static cl::opt<std::string> NVPTXVersion(
    "nvptx-ptx-version",
    cl::desc("PTX ISA version written in .version, e.g. 7.8 or 78 (default: "
             "7.8)"),
    cl::value_desc("version"), cl::cat(Category));
static cl::opt<std::string> NVPTXLibdevice(
    "nvptx-libdevice",
    cl::desc("libdevice.10.bc for math functions PTX has no instruction for "
             "(default: searched in the CUDA toolkit)"),
    cl::value_desc("file"), cl::cat(Category));
static cl::opt<std::string> NVPTXNode(
    "nvptx-node",
    cl::desc("The node (path) whose PTX module to write; needed without -S "
             "or --nvptx-dir when there are several kernels"),
    cl::value_desc("path"), cl::cat(Category));
static cl::opt<std::string> NVPTXDir(
    "nvptx-dir",
    cl::desc("Write each kernel's PTX module to <dir>/<node path, '/' as "
             "'.'>.ptx (for ptxas)"),
    cl::value_desc("dir"), cl::cat(Category));

static int fail(const Twine &Message) {
  WithColor::error(errs(), ToolName) << Message << "\n";
  return 1;
}

static void handleDiagnostic(const DiagnosticInfo *Info, void *) {
  std::string Text;
  raw_string_ostream OS(Text);
  DiagnosticPrinterRawOStream DP(OS);
  Info->print(DP);
  switch (Info->getSeverity()) {
  case DS_Error:
    WithColor::error(errs(), ToolName) << OS.str() << "\n";
    break;
  case DS_Warning:
    WithColor::warning(errs(), ToolName) << OS.str() << "\n";
    break;
  default:
    // Remarks only when asked for (-pass-remarks and friends).
    if (Info->getSeverity() != DS_Remark ||
        !isa<DiagnosticInfoOptimizationBase>(Info) ||
        cast<DiagnosticInfoOptimizationBase>(Info)->isEnabled())
      WithColor::note(errs(), ToolName) << OS.str() << "\n";
  }
}

/// Every kernel's disassembly (-S), or one kernel's binary module.
static int writeSPIRV(const Module &M) {
  hpvm::SPIRVOptions Opts;
  Opts.Flavour = SPIRVFlavour;
  auto Kernels = hpvm::buildSPIRVKernels(M, Opts);
  if (!Kernels)
    return fail(toString(Kernels.takeError()));
  std::vector<const hpvm::SPIRVKernel *> Chosen;
  for (const hpvm::SPIRVKernel &K : *Kernels)
    if (SPIRVNode.empty() ||
        (K.NodePath == SPIRVNode && K.WorkGroups == SPIRVWorkGroup))
      Chosen.push_back(&K);
  if (!SPIRVNode.empty() && Chosen.empty())
    return fail("no spirv kernel for node '" + SPIRVNode + "'");
  if (!OutputAssembly && Chosen.size() != 1) {
    std::string Paths;
    for (const hpvm::SPIRVKernel *K : Chosen)
      Paths += (Paths.empty() ? "" : ", ") + K->NodePath;
    return fail(Twine(Chosen.size()) + " spirv kernels (" + Paths +
                "): choose one with --spirv-node=<path>, or write their "
                "disassembly with -S");
  }
  std::error_code EC;
  ToolOutputFile Out(OutputFilename, EC,
                     OutputAssembly ? sys::fs::OF_Text : sys::fs::OF_None);
  if (EC)
    return fail("cannot open '" + OutputFilename + "': " + EC.message());
  for (const hpvm::SPIRVKernel *K : Chosen) {
    if (!OutputAssembly) {
      Out.os().write(reinterpret_cast<const char *>(K->Words.data()),
                     K->Words.size() * sizeof(uint32_t));
      continue;
    }
    auto Text = hpvm::disassembleSPIRV(K->Words);
    if (!Text)
      return fail(toString(Text.takeError()));
    Out.os() << "; node '" << K->NodePath << "', entry point '" << K->EntryName
             << "'\n"
             << *Text;
  }
  Out.keep();
  return 0;
}

/// Every kernel's PTX module (-S, each after a comment naming it), one
/// kernel's (--nvptx-node, or the only one), or one file per kernel
/// (--nvptx-dir).
static int writeNVPTX(const Module &M) {
  hpvm::NVPTXOptions Opts;
  if (!NVPTXSM.empty()) {
    auto SM = hpvm::parseNVPTXSM(NVPTXSM);
    if (!SM)
      return fail("--nvptx-sm: " + toString(SM.takeError()));
    Opts.SM = *SM;
  }
  if (!NVPTXVersion.empty()) {
    auto V = hpvm::parsePTXVersion(NVPTXVersion);
    if (!V)
      return fail("--nvptx-ptx-version: " + toString(V.takeError()));
    Opts.PTXVersion = *V;
  }
  Opts.LibdevicePath = NVPTXLibdevice;
  auto Kernels = hpvm::buildNVPTXKernels(M, Opts);
  if (!Kernels)
    return fail(toString(Kernels.takeError()));
  std::vector<const hpvm::NVPTXKernel *> Chosen;
  for (const hpvm::NVPTXKernel &K : *Kernels)
    if (NVPTXNode.empty() || K.NodePath == NVPTXNode)
      Chosen.push_back(&K);
  if (!NVPTXNode.empty() && Chosen.empty())
    return fail("no nvptx kernel for node '" + NVPTXNode + "'");

  if (!NVPTXDir.empty()) {
    if (std::error_code EC = sys::fs::create_directories(NVPTXDir))
      return fail("cannot create '" + NVPTXDir + "': " + EC.message());
    for (const hpvm::NVPTXKernel *K : Chosen) {
      std::string File = K->NodePath;
      std::replace(File.begin(), File.end(), '/', '.');
      SmallString<256> Path(NVPTXDir);
      sys::path::append(Path,
                        File + (K->WorkGroups ? ".work_group" : "") + ".ptx");
      std::error_code EC;
      ToolOutputFile Out(Path, EC, sys::fs::OF_Text);
      if (EC)
        return fail("cannot open '" + Path + "': " + EC.message());
      Out.os() << K->PTX;
      Out.keep();
    }
    if (OutputFilename == "-")
      return 0;
  }

  if (!OutputAssembly && Chosen.size() != 1) {
    std::string Paths;
    for (const hpvm::NVPTXKernel *K : Chosen)
      Paths += (Paths.empty() ? "" : ", ") + K->NodePath;
    return fail(Twine(Chosen.size()) + " nvptx kernels (" + Paths +
                "): choose one with --nvptx-node=<path>, write one file "
                "each with --nvptx-dir=<dir>, or all of them with -S");
  }
  std::error_code EC;
  ToolOutputFile Out(OutputFilename, EC, sys::fs::OF_Text);
  if (EC)
    return fail("cannot open '" + OutputFilename + "': " + EC.message());
  for (const hpvm::NVPTXKernel *K : Chosen) {
    if (OutputAssembly)
      Out.os() << "// node '" << K->NodePath << "', entry '" << K->EntryName
               << "'\n";
    Out.os() << K->PTX;
  }
  Out.keep();
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Category);
  cl::ParseCommandLineOptions(argc, argv, "HPVM backend driver\n");

  if (TargetName != "cpu" && TargetName != "spirv" && TargetName != "nvptx")
    return fail("unknown or unsupported target '" + TargetName +
                "' (supported: cpu, nvptx, spirv)");
  if (TargetName == "spirv" && OutputFileType != FileType::Bitcode)
    return fail("-filetype applies to --target=cpu; spirv writes a binary "
                "module, or its disassembly with -S");
  if (TargetName == "nvptx" && OutputFileType != FileType::Bitcode)
    return fail("-filetype applies to --target=cpu; nvptx writes PTX");
  if (OutputAssembly && OutputFileType != FileType::Bitcode)
    return fail("-S (textual IR) and -filetype=obj/asm exclude each other");
  if (OptLevel < '0' || OptLevel > '3')
    return fail("invalid optimisation level -O" + Twine(OptLevel.getValue()) +
                " (use -O0 to -O3)");

  hpvm::CPUOptions Opts;
  Opts.Triple = TargetTriple;
  Opts.CPU = CPUName;
  Opts.Features = Features;
  Opts.OptLevel = OptLevel - '0';
  Opts.PreferVectorWidth = PreferVectorWidth;

  LLVMContext Ctx;
  Ctx.setDiagnosticHandlerCallBack(handleDiagnostic);
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseIRFile(InputFilename, Err, Ctx);
  if (!M) {
    Err.print(ToolName, errs());
    return 1;
  }
  if (!hpvm::hasGraphs(*M))
    return fail("'" + InputFilename +
                "' has no graphs (!hpvm.graphs): run hpvm-opt --extract on "
                "region form first");
  if (hpvm::verifyGraphForm(*M))
    return 1;

  if (TargetName == "spirv")
    return writeSPIRV(*M);
  if (TargetName == "nvptx")
    return writeNVPTX(*M);

  auto Kernels = hpvm::buildCPUKernels(*M, Opts);
  if (!Kernels)
    return fail(toString(Kernels.takeError()));

  std::error_code EC;
  ToolOutputFile Out(OutputFilename, EC,
                     OutputAssembly || OutputFileType == FileType::Assembly
                         ? sys::fs::OF_Text
                         : sys::fs::OF_None);
  if (EC)
    return fail("cannot open '" + OutputFilename + "': " + EC.message());
  switch (OutputFileType) {
  case FileType::Bitcode:
    if (OutputAssembly)
      (*Kernels)->print(Out.os(), nullptr);
    else
      WriteBitcodeToFile(**Kernels, Out.os());
    break;
  case FileType::Object:
  case FileType::Assembly: {
    // Object writers seek back to patch headers; pipes cannot.
    SmallVector<char, 0> Buffer;
    raw_svector_ostream BufferOS(Buffer);
    Error E = OutputFileType == FileType::Object
                  ? hpvm::emitObjectFile(**Kernels, Opts, BufferOS)
                  : hpvm::emitAssemblyFile(**Kernels, Opts, BufferOS);
    if (E)
      return fail(toString(std::move(E)));
    Out.os() << StringRef(Buffer.data(), Buffer.size());
    break;
  }
  }
  Out.keep();
  return 0;
}
