//===- Diagnostics.cpp ----------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hpvm {

// The mark that an HPVM error was reported through a context is a metadata
// kind name registered in it: the context owns it, so it dies with the
// context and never leaks into another one (several contexts in one process,
// as the Python binding has, each start clean), and reading it registers
// nothing.
static constexpr const char *ErrorMark = "hpvm.error-reported";

bool hadErrors(const LLVMContext &Ctx) {
  SmallVector<StringRef, 64> Kinds;
  Ctx.getMDKindNames(Kinds);
  return is_contained(Kinds, ErrorMark);
}

int DiagnosticInfoHPVM::kindID() {
  static const int ID = getNextAvailablePluginDiagnosticKind();
  return ID;
}

DiagnosticInfoHPVM::DiagnosticInfoHPVM(DiagnosticSeverity Severity,
                                       std::string Rule, std::string Message,
                                       const Function *F, std::string Node,
                                       const Instruction *At)
    : DiagnosticInfo(kindID(), Severity), Rule(std::move(Rule)),
      Message(std::move(Message)), Node(std::move(Node)), F(F), At(At) {}

bool DiagnosticInfoHPVM::classof(const DiagnosticInfo *DI) {
  return DI->getKind() == kindID();
}

void DiagnosticInfoHPVM::print(DiagnosticPrinter &DP) const {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "[" << Rule << "] ";
  // C++ functions by their source names (`host(Args*)`, not `_Z4hostP4Args`).
  if (F)
    OS << "function '" << demangle(F->getName()) << "'";
  if (!Node.empty())
    OS << (F ? ", " : "") << "node '" << Node << "'";
  OS << (F || !Node.empty() ? ": " : "") << Message << atInstruction(At);
  DP << OS.str();
}

std::string sourceLocationOf(const Instruction *At) {
  if (!At)
    return "";
  // Phis and instructions passes made carry no location: the nearest one in
  // the block that does stands in, so that the error has a source line.
  const DebugLoc *DL = &At->getDebugLoc();
  for (const Instruction &I : *At->getParent())
    if (!*DL && I.getDebugLoc())
      DL = &I.getDebugLoc();
  if (!*DL)
    return "";
  // Code inlined into a kernel by way of the leaf's code (a helper, a libc
  // function defined in a header) is named by where the leaf's code calls
  // it: the outermost location below the function's own frame.
  const DISubprogram *Own = At->getFunction()->getSubprogram();
  const DILocation *Loc = DL->get();
  for (const DILocation *Up = Loc->getInlinedAt(); Up;
       Up = Up->getInlinedAt()) {
    if (Up->getScope()->getSubprogram() == Own)
      break;
    Loc = Up;
  }
  return (Loc->getFilename() + ":" + Twine(Loc->getLine()) + ":" +
          Twine(Loc->getColumn()))
      .str();
}

std::string atInstruction(const Instruction *At) {
  if (!At)
    return "";
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "\n  at:";
  At->print(OS);
  if (std::string Where = sourceLocationOf(At); !Where.empty())
    OS << " (" << Where << ")";
  return OS.str();
}

std::string describe(const Value *V) {
  std::string Text;
  raw_string_ostream OS(Text);
  V->printAsOperand(OS, /*PrintType=*/isa<Constant>(V) && !isa<GlobalValue>(V));
  return OS.str();
}

void reportError(LLVMContext &Ctx, std::string Rule, std::string Message,
                 const Function *F, std::string Node, const Instruction *At) {
  Ctx.getMDKindID(ErrorMark);
  Ctx.diagnose(DiagnosticInfoHPVM(DS_Error, std::move(Rule), std::move(Message),
                                  F, std::move(Node), At));
}

namespace {
struct Collect : llvm::DiagnosticHandler {
  explicit Collect(std::string &Out) : Out(Out) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &DI) override {
    if (DI.getSeverity() != llvm::DS_Error &&
        DI.getSeverity() != llvm::DS_Warning)
      return true;
    llvm::raw_string_ostream OS(Out);
    llvm::DiagnosticPrinterRawOStream DP(OS);
    OS << (DI.getSeverity() == llvm::DS_Error ? "error: " : "warning: ");
    DI.print(DP);
    OS << "\n";
    return true;
  }
  std::string &Out;
};
} // namespace

CollectDiagnostics::CollectDiagnostics(llvm::LLVMContext &Ctx, std::string &Out)
    : Ctx(Ctx), Saved(Ctx.getDiagnosticHandler()) {
  Ctx.setDiagnosticHandler(std::make_unique<Collect>(Out));
}

CollectDiagnostics::~CollectDiagnostics() {
  Ctx.setDiagnosticHandler(std::move(Saved));
}

} // namespace hpvm
