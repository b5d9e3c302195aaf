//===- Pragma.h - Reading `#pragma hpvm` ------------------------*- C++ -*-===//
//
// The pragma handler reads one `#pragma hpvm` line, checks its syntax and
// records it in a PragmaTable. It cannot see the statement that follows, and
// Clang's parser cannot be taught new statements, so the handler hands the
// parser a wrapper around that statement instead:
//
//   #pragma hpvm parallel for in(a[0:n]) value(s)
//   for (...) ...
//
// is parsed as
//
//   switch (((void)(a), (void)(0), (void)(n), (void)(s), __hpvm_pragma(0)))
//   default: for (...) ...
//
// with every clause expression keeping the source location it has on the
// pragma line. Sema then checks the expressions in the scope of the
// statement (undeclared names are ordinary Clang errors at the right
// column), and the AST gives the lowering (Lowering.h) both the typed clause
// expressions and the exact statement. `switch ... default:` is used because,
// unlike `if`, it cannot capture a following `else`, and unlike a loop it
// does not capture `continue`. The wrapper exists only in this first parse;
// the code that is compiled is the rewritten source.
//
// `#pragma hpvm update` and `taskwait` label no statement: each is a
// statement of its own,
// so the handler hands the parser a complete one, the same wrapper around
// an empty statement:
//
//   switch (((void)(a), (void)(0), (void)(n), __hpvm_pragma(0))) default: ;
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_FRONTENDS_C_PRAGMA_H
#define HPVM_FRONTENDS_C_PRAGMA_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/Pragma.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
}

namespace hpvm::cfe {

class Diagnostics;

/// The name of the function the wrapper calls (declared in hpvm.h).
constexpr const char *PragmaMarkerName = "__hpvm_pragma";

/// Graph nodes (ParallelFor, Task), a data region around host code (Data),
/// the standalone data movement directive (Update), and the wait for the
/// thread's `nowait` launches (TaskWait).
enum class Directive { ParallelFor, Task, Data, Update, TaskWait };
const char *directiveName(Directive D);

enum class ClauseKind {
  Name,
  Collapse,
  In,
  Out,
  InOut,
  Value,
  Target,
  After,
  Reduction,
  Host,
  Device,
  NoWait,
  Private,
  FirstPrivate
};
const char *clauseName(ClauseKind K);

enum class ReductionOp {
  Add,
  Mul,
  Min,
  Max,
  And,
  Or,
  Xor,
  LogicalAnd,
  LogicalOr
};
const char *reductionOpName(ReductionOp Op);

/// A C expression written in a clause: its source text (what the rewritten
/// code evaluates) and its position among the wrapper's void-cast operands
/// (where the typed AST is).
struct ClauseExpr {
  std::string Text;
  clang::SourceLocation Loc;
  unsigned Arg = 0;
};

/// One item of a list clause: `a`, `a[lo:len]`, `a[:len]`, `a[lo:]`, and
/// sections of arrays of arrays, `a[lo:len][lo2:len2]...`.
struct ClauseItem {
  clang::SourceLocation Loc;
  ClauseExpr Base;
  bool Section = false;
  std::optional<ClauseExpr> Lo, Len;
  /// The sections of the dimensions after the first (rows' columns, ...).
  std::vector<std::pair<std::optional<ClauseExpr>, std::optional<ClauseExpr>>>
      Inner;
};

struct Clause {
  ClauseKind Kind;
  clang::SourceLocation Loc;
  std::vector<ClauseItem> Items;
  /// name(), after(), target(): the identifiers and where they are.
  std::vector<std::pair<std::string, clang::SourceLocation>> Idents;
  unsigned Collapse = 1;
  ReductionOp Op = ReductionOp::Add;
  unsigned TargetMask = 0;
};

struct PragmaInfo {
  Directive Kind = Directive::Task;
  /// The '#' and the end of the pragma line (the last line, if it was
  /// continued with backslashes).
  clang::SourceLocation HashLoc, EndLoc;
  std::vector<Clause> Clauses;
  /// Clause expressions in the wrapper.
  unsigned NumArgs = 0;

  const Clause *find(ClauseKind K) const;
};

/// Every pragma of a translation unit, by the location of its '#', which is
/// also the location of the wrapper's `switch`.
class PragmaTable {
public:
  void add(PragmaInfo Info);
  const PragmaInfo *find(clang::SourceLocation HashLoc) const;
  bool empty() const { return Pragmas.empty(); }

private:
  std::map<clang::SourceLocation::UIntTy, PragmaInfo> Pragmas;
};

class PragmaHandler : public clang::PragmaHandler {
public:
  PragmaHandler(clang::CompilerInstance &CI, PragmaTable &Table,
                Diagnostics &Diags)
      : clang::PragmaHandler("hpvm"), CI(CI), Table(Table), Diags(Diags) {}
  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer Intro,
                    clang::Token &FirstToken) override;

private:
  clang::CompilerInstance &CI;
  PragmaTable &Table;
  Diagnostics &Diags;
};

} // namespace hpvm::cfe

#endif // HPVM_FRONTENDS_C_PRAGMA_H
