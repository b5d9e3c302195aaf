//===- Diagnostics.h - Reporting broken HPVM IR rules -----------*- C++ -*-===//
//
// Every HPVM pass reports a broken rule as a DiagnosticInfoHPVM through the
// LLVMContext, never by asserting: the message names the rule (as in
// docs/ir.md), the function, the node and, where there is one, the offending
// instruction and its source line.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_DIAGNOSTICS_H
#define HPVM_IR_DIAGNOSTICS_H

#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"

#include <memory>
#include <string>

namespace llvm {
class Function;
class Value;
class Instruction;
class LLVMContext;
class Module;
} // namespace llvm

namespace hpvm {

class DiagnosticInfoHPVM : public llvm::DiagnosticInfo {
public:
  DiagnosticInfoHPVM(llvm::DiagnosticSeverity Severity, std::string Rule,
                     std::string Message, const llvm::Function *F = nullptr,
                     std::string Node = "",
                     const llvm::Instruction *At = nullptr);

  const std::string &rule() const { return Rule; }
  const std::string &message() const { return Message; }
  /// The offending instruction, if there is one (its debug location is the
  /// source position frontends report).
  const llvm::Instruction *at() const { return At; }
  /// "[rule] function 'f', node 'n': message\n  at: <instruction> (file:line)"
  void print(llvm::DiagnosticPrinter &DP) const override;
  static bool classof(const llvm::DiagnosticInfo *DI);
  static int kindID();

private:
  std::string Rule, Message, Node;
  const llvm::Function *F;
  const llvm::Instruction *At;
};

/// How a diagnostic names a value: "%x", "@g" or "i64 4".
std::string describe(const llvm::Value *V);

/// "\n  at: <instruction> (file:line:col)", the tail of every diagnostic
/// that has an offending instruction (the location only if it has one);
/// "" for null.
std::string atInstruction(const llvm::Instruction *At);

/// "file:line:col" of At (or of the nearest instruction in its block that
/// has a location); "" when there is none.
std::string sourceLocationOf(const llvm::Instruction *At);

/// True once an error was reported through reportError in Ctx.
bool hadErrors(const llvm::LLVMContext &Ctx);

/// Reports an error through Ctx; the pass that calls it must leave the
/// module valid LLVM IR.
void reportError(llvm::LLVMContext &Ctx, std::string Rule, std::string Message,
                 const llvm::Function *F = nullptr, std::string Node = "",
                 const llvm::Instruction *At = nullptr);

/// While it lives, collects the errors and warnings reported through Ctx
/// into Out as text ("error: ..." or "warning: ..." and a newline each),
/// for library entry points that return their diagnostics instead of
/// printing them; then gives Ctx its handler back.
class CollectDiagnostics {
public:
  CollectDiagnostics(llvm::LLVMContext &Ctx, std::string &Out);
  ~CollectDiagnostics();
  CollectDiagnostics(const CollectDiagnostics &) = delete;
  CollectDiagnostics &operator=(const CollectDiagnostics &) = delete;

private:
  llvm::LLVMContext &Ctx;
  std::unique_ptr<llvm::DiagnosticHandler> Saved;
};

} // namespace hpvm

#endif // HPVM_IR_DIAGNOSTICS_H
