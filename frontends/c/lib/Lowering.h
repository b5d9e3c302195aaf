//===- Lowering.h - `#pragma hpvm` to marker calls --------------*- C++ -*-===//
//
// After the first parse (Pragma.h), the lowering finds every pragma'd
// statement in the AST, builds the node tree, checks it (docs/c-frontend.md
// lists the rules and their diagnostics) and rewrites the source: each
// pragma line becomes the start of a block that calls __hpvm_region_begin,
// and __hpvm_region_end follows the statement. Data and update directives
// become calls of hpvm-rt's data regions (hpvm_data_enter before a data
// statement, hpvm_data_exit after it, hpvm_data_request or
// hpvm_data_update for an update). The rewritten text keeps
// every line where it was, so diagnostics and debug locations of the second
// parse point at the user's lines.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_FRONTENDS_C_LOWERING_H
#define HPVM_FRONTENDS_C_LOWERING_H

#include "clang/AST/ASTConsumer.h"

#include <map>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
}

namespace hpvm::cfe {

class Diagnostics;
class PragmaTable;

/// A file whose text the lowering changed.
struct RewrittenFile {
  std::string Path;
  std::string Text;
  /// Where the columns of the lines the rewrite changed were in the user's
  /// lines (line number, which the rewrite keeps, -> pieces in order):
  /// text copied from Column on, or inserted text, which stands for the
  /// user's code at Column (a pragma line's text: its '#'), so that
  /// diagnostics of the second parse point at the user's columns.
  struct Piece {
    unsigned RewrittenColumn, Length, Column;
    bool Inserted;
  };
  std::map<unsigned, std::vector<Piece>> ChangedLines;
  /// The user's column of column Col of rewritten line Line.
  unsigned userColumn(unsigned Line, unsigned Col) const;
};

class LoweringConsumer : public clang::ASTConsumer {
public:
  LoweringConsumer(clang::CompilerInstance &CI, PragmaTable &Table,
                   Diagnostics &Diags, std::vector<RewrittenFile> &Out)
      : CI(CI), Table(Table), Diags(Diags), Out(Out) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override;

private:
  clang::CompilerInstance &CI;
  PragmaTable &Table;
  Diagnostics &Diags;
  std::vector<RewrittenFile> &Out;
};

} // namespace hpvm::cfe

#endif // HPVM_FRONTENDS_C_LOWERING_H
