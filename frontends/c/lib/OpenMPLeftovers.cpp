//===- OpenMPLeftovers.cpp - `#pragma omp` in a program for hpvm-clang ----===//
#include "OpenMPLeftovers.h"

#include "FrontendDiagnostics.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace hpvm::cfe {
namespace {

/// What to write instead of an OpenMP directive (its words, lower case, the
/// clauses dropped); "" where hpvm has no equivalent.
StringRef replacementOf(ArrayRef<StringRef> Words) {
  auto Has = [&](StringRef W) { return is_contained(Words, W); };
  if (Has("for") || Has("loop") || (Has("distribute") && !Has("target")) ||
      (Has("target") && Has("distribute")))
    return "#pragma hpvm parallel for";
  if (Words.size() >= 2 && Words[0] == "target" && Words[1] == "data")
    return "#pragma hpvm data";
  if (Words.size() >= 2 && Words[0] == "target" && Words[1] == "update")
    return "#pragma hpvm update";
  if (Words[0] == "taskwait")
    return "#pragma hpvm taskwait";
  if (Words[0] == "task" || Words[0] == "target")
    return "#pragma hpvm task";
  return "";
}

/// Why a directive without an equivalent has none, and what to do.
StringRef adviceFor(StringRef First) {
  if (First == "parallel")
    return "a parallel region runs code on a team of threads, which HPVM "
           "does not have: write its loops as '#pragma hpvm parallel for' "
           "(docs/c-frontend.md, 'Porting from OpenMP')";
  if (First == "atomic")
    return "inside a node, use __atomic builtins or reduction()";
  if (First == "simd")
    return "the CPU backend vectorises parallel loops and the loops inside "
           "nodes itself: delete it";
  if (First == "single" || First == "master" || First == "masked")
    return "code outside nodes runs once, on the host: delete it, and write "
           "the loops of the parallel region as '#pragma hpvm parallel for'";
  if (First == "critical" || First == "barrier" || First == "ordered" ||
      First == "sections" || First == "section" || First == "flush")
    return "instances of a node are not threads and do not synchronise; "
           "use reduction() or __atomic builtins";
  return "HPVM has no equivalent";
}

class Warner : public PPCallbacks {
public:
  Warner(SourceManager &SM, Diagnostics &Diags) : SM(SM), Diags(Diags) {}

  void PragmaDirective(SourceLocation Loc,
                       PragmaIntroducerKind Introducer) override {
    if (Introducer != PIK_HashPragma || !Loc.isFileID() ||
        SM.isInSystemHeader(Loc))
      return;
    // The line's text from '#': `# pragma omp parallel for private(i)`.
    bool Invalid = false;
    StringRef Line = SM.getCharacterData(Loc, &Invalid);
    if (Invalid)
      return;
    // To the end of the directive: a line that ends in '\' goes on.
    size_t End = 0;
    while (End < Line.size() &&
           !(Line[End] == '\n' && (End == 0 || Line[End - 1] != '\\')))
      ++End;
    std::string Joined;
    for (char C : Line.take_front(End))
      Joined += C == '\\' || C == '\n' || C == '\r' ? ' ' : C;
    Line = Joined;
    SmallVector<StringRef, 8> Words;
    // Words up to the first clause (a word followed by '(') or separator.
    StringRef Rest = Line.drop_front().ltrim();
    while (!Rest.empty()) {
      size_t End = Rest.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
      StringRef Word = Rest.take_front(End);
      if (Word.empty())
        break;
      Rest = Rest.drop_front(Word.size()).ltrim();
      // A clause (a word and '('), but for a directive's first word
      // (`threadprivate(x)`, `critical(name)`).
      if (Rest.starts_with("(") && Words.size() > 2)
        break;
      Words.push_back(Word);
      if (Rest.starts_with("("))
        break;
      if (Rest.starts_with(","))
        break;
    }
    if (Words.size() < 2 || Words[0] != "pragma" || Words[1] != "omp")
      return;
    ArrayRef<StringRef> Directive = ArrayRef(Words).drop_front(2);
    if (Directive.empty())
      return;
    std::string Name = join(Directive, " ");
    StringRef Instead = replacementOf(Directive);
    bool RunsCode = Instead == "#pragma hpvm parallel for" ||
                    Instead == "#pragma hpvm task";
    if (!Instead.empty())
      Diags.report(Loc, Diag::OpenMPPragmaIgnored)
          << Name << Instead
          << (RunsCode ? " with in(), out() or inout() clauses for the "
                         "pointers it uses: as it is, the code runs "
                         "sequentially"
                       : "");
    else
      Diags.report(Loc, Diag::OpenMPPragmaNoEquivalent)
          << Name << adviceFor(Directive[0]);
  }

private:
  SourceManager &SM;
  Diagnostics &Diags;
};

} // namespace

std::unique_ptr<PPCallbacks> warnOnOpenMPPragmas(SourceManager &SM,
                                                 Diagnostics &Diags) {
  return std::make_unique<Warner>(SM, Diags);
}

} // namespace hpvm::cfe
