//===- Pragma.cpp - Reading `#pragma hpvm` --------------------------------===//
#include "Pragma.h"

#include "FrontendDiagnostics.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace hpvm::cfe {

const char *directiveName(Directive D) {
  switch (D) {
  case Directive::ParallelFor:
    return "parallel for";
  case Directive::Task:
    return "task";
  case Directive::Data:
    return "data";
  case Directive::Update:
    return "update";
  case Directive::TaskWait:
    return "taskwait";
  }
  return "?";
}

const char *clauseName(ClauseKind K) {
  switch (K) {
  case ClauseKind::Name:
    return "name";
  case ClauseKind::Collapse:
    return "collapse";
  case ClauseKind::In:
    return "in";
  case ClauseKind::Out:
    return "out";
  case ClauseKind::InOut:
    return "inout";
  case ClauseKind::Value:
    return "value";
  case ClauseKind::Target:
    return "target";
  case ClauseKind::After:
    return "after";
  case ClauseKind::Reduction:
    return "reduction";
  case ClauseKind::Host:
    return "host";
  case ClauseKind::Device:
    return "device";
  case ClauseKind::NoWait:
    return "nowait";
  case ClauseKind::Private:
    return "private";
  case ClauseKind::FirstPrivate:
    return "firstprivate";
  }
  return "?";
}

/// Node clauses on nodes; `data` takes only buffer clauses, `update` only
/// host() and device().
static bool clauseAllowed(ClauseKind K, Directive D) {
  switch (D) {
  case Directive::Data:
    return K == ClauseKind::In || K == ClauseKind::Out ||
           K == ClauseKind::InOut;
  case Directive::Update:
    return K == ClauseKind::Host || K == ClauseKind::Device;
  case Directive::TaskWait:
    return false;
  case Directive::Task:
    if (K == ClauseKind::Collapse || K == ClauseKind::Reduction)
      return false;
    [[fallthrough]];
  case Directive::ParallelFor:
    return K != ClauseKind::Host && K != ClauseKind::Device;
  }
  return false;
}

const char *reductionOpName(ReductionOp Op) {
  switch (Op) {
  case ReductionOp::Add:
    return "+";
  case ReductionOp::Mul:
    return "*";
  case ReductionOp::Min:
    return "min";
  case ReductionOp::Max:
    return "max";
  case ReductionOp::And:
    return "&";
  case ReductionOp::Or:
    return "|";
  case ReductionOp::Xor:
    return "^";
  case ReductionOp::LogicalAnd:
    return "&&";
  case ReductionOp::LogicalOr:
    return "||";
  }
  return "?";
}

const Clause *PragmaInfo::find(ClauseKind K) const {
  for (const Clause &C : Clauses)
    if (C.Kind == K)
      return &C;
  return nullptr;
}

void PragmaTable::add(PragmaInfo Info) {
  auto Key = Info.HashLoc.getRawEncoding();
  Pragmas[Key] = std::move(Info);
}

const PragmaInfo *PragmaTable::find(SourceLocation HashLoc) const {
  auto It = Pragmas.find(HashLoc.getRawEncoding());
  return It == Pragmas.end() ? nullptr : &It->second;
}

namespace {

using TokenRange = llvm::ArrayRef<Token>;

/// Parses the tokens of one pragma line after `hpvm`.
class LineParser {
public:
  LineParser(Preprocessor &PP, Diagnostics &Diags, TokenRange Toks,
             SourceLocation HpvmLoc)
      : PP(PP), SM(PP.getSourceManager()), Diags(Diags), Toks(Toks),
        HpvmLoc(HpvmLoc) {}

  /// Fills Info and the wrapper's argument token runs; false after errors.
  bool parse(PragmaInfo &Info, std::vector<TokenRange> &Args);

private:
  bool parseClause(PragmaInfo &Info, std::vector<TokenRange> &Args);
  bool parseItem(Clause &C, TokenRange Item, std::vector<TokenRange> &Args,
                 bool AllowSection);
  ClauseExpr expr(TokenRange Run, std::vector<TokenRange> &Args);
  std::string text(TokenRange Run) const;
  static std::vector<TokenRange> splitTopLevel(TokenRange R,
                                               tok::TokenKind Sep);
  static std::optional<std::string> identifier(const Token &T) {
    if (const IdentifierInfo *II = T.getIdentifierInfo())
      return II->getName().str();
    return std::nullopt;
  }

  Preprocessor &PP;
  SourceManager &SM;
  Diagnostics &Diags;
  TokenRange Toks;
  SourceLocation HpvmLoc;
  unsigned Pos = 0;
  Directive Kind = Directive::Task;
};

} // namespace

std::string LineParser::text(TokenRange Run) const {
  // Tokens a macro gave are spelled as the compiler saw them: a macro may
  // expand to more than this run (`in(INPUTS)` with INPUTS `a[0:n], b[0:n]`
  // is two items), and its name would expand to all of it again.
  if (llvm::any_of(
          Run, [](const Token &T) { return T.getLocation().isMacroID(); })) {
    std::string Out;
    for (const Token &T : Run) {
      if (!Out.empty() && (T.hasLeadingSpace() || T.isAnyIdentifier() ||
                           T.is(tok::numeric_constant)))
        Out += ' ';
      Out += PP.getSpelling(T);
    }
    return Out;
  }
  // Otherwise the text as written.
  SourceLocation B = SM.getExpansionLoc(Run.front().getLocation());
  SourceLocation E = SM.getExpansionRange(Run.back().getLocation()).getEnd();
  return Lexer::getSourceText(CharSourceRange::getTokenRange(B, E), SM,
                              PP.getLangOpts())
      .str();
}

ClauseExpr LineParser::expr(TokenRange Run, std::vector<TokenRange> &Args) {
  ClauseExpr E;
  E.Text = text(Run);
  E.Loc = Run.front().getLocation();
  E.Arg = Args.size();
  Args.push_back(Run);
  return E;
}

std::vector<TokenRange> LineParser::splitTopLevel(TokenRange R,
                                                  tok::TokenKind Sep) {
  std::vector<TokenRange> Parts;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < R.size(); ++I) {
    switch (R[I].getKind()) {
    case tok::l_paren:
    case tok::l_square:
    case tok::l_brace:
      ++Depth;
      break;
    case tok::r_paren:
    case tok::r_square:
    case tok::r_brace:
      --Depth;
      break;
    default:
      if (Depth == 0 && R[I].is(Sep)) {
        Parts.push_back(R.slice(Start, I - Start));
        Start = I + 1;
      }
    }
  }
  Parts.push_back(R.slice(Start));
  return Parts;
}

bool LineParser::parseItem(Clause &C, TokenRange Item,
                           std::vector<TokenRange> &Args, bool AllowSection) {
  const char *Name = clauseName(C.Kind);
  if (Item.empty()) {
    Diags.report(C.Loc, Diag::ClauseEmpty) << Name;
    return false;
  }
  ClauseItem CI;
  CI.Loc = Item.front().getLocation();
  // The first '[' outside parentheses starts a section.
  int Depth = 0;
  size_t Open = Item.size();
  for (size_t I = 0; I < Item.size() && Open == Item.size(); ++I) {
    if (Item[I].isOneOf(tok::l_paren, tok::l_brace))
      ++Depth;
    else if (Item[I].isOneOf(tok::r_paren, tok::r_brace))
      --Depth;
    else if (Depth == 0 && Item[I].is(tok::l_square))
      Open = I;
  }
  if (Open == Item.size() || !AllowSection) {
    CI.Base = expr(Item, Args);
    C.Items.push_back(std::move(CI));
    return true;
  }
  // base followed by '[' lo? ':' len? ']' groups, one per dimension,
  // with nothing after the last.
  if (Open == 0 || !Item.back().is(tok::r_square)) {
    Diags.report(CI.Loc, Diag::BadSection) << Name;
    return false;
  }
  std::vector<TokenRange> Groups;
  for (size_t I = Open; I < Item.size();) {
    if (!Item[I].is(tok::l_square)) {
      Diags.report(CI.Loc, Diag::BadSection) << Name;
      return false;
    }
    int D = 0;
    size_t Close = I;
    for (; Close < Item.size(); ++Close) {
      if (Item[Close].isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
        ++D;
      else if (Item[Close].isOneOf(tok::r_paren, tok::r_square, tok::r_brace) &&
               --D == 0)
        break;
    }
    if (Close == Item.size() || !Item[Close].is(tok::r_square)) {
      Diags.report(CI.Loc, Diag::BadSection) << Name;
      return false;
    }
    Groups.push_back(Item.slice(I + 1, Close - I - 1));
    I = Close + 1;
  }
  CI.Base = expr(Item.take_front(Open), Args);
  CI.Section = true;
  for (size_t G = 0; G != Groups.size(); ++G) {
    std::vector<TokenRange> Bounds = splitTopLevel(Groups[G], tok::colon);
    if (Bounds.size() != 2) {
      Diags.report(CI.Loc, Diag::BadSection) << Name;
      return false;
    }
    std::optional<ClauseExpr> Lo, Len;
    if (!Bounds[0].empty())
      Lo = expr(Bounds[0], Args);
    if (!Bounds[1].empty())
      Len = expr(Bounds[1], Args);
    if (G == 0) {
      CI.Lo = std::move(Lo);
      CI.Len = std::move(Len);
    } else {
      CI.Inner.push_back({std::move(Lo), std::move(Len)});
    }
  }
  C.Items.push_back(std::move(CI));
  return true;
}

bool LineParser::parseClause(PragmaInfo &Info, std::vector<TokenRange> &Args) {
  const Token &NameTok = Toks[Pos];
  std::optional<std::string> Name = identifier(NameTok);
  if (!Name) {
    Diags.report(NameTok.getLocation(), Diag::ExpectedClause)
        << directiveName(Kind);
    Pos = Toks.size();
    return false;
  }
  ++Pos;
  auto K = llvm::StringSwitch<std::optional<ClauseKind>>(*Name)
               .Case("name", ClauseKind::Name)
               .Case("collapse", ClauseKind::Collapse)
               .Case("in", ClauseKind::In)
               .Case("out", ClauseKind::Out)
               .Case("inout", ClauseKind::InOut)
               .Case("value", ClauseKind::Value)
               .Case("target", ClauseKind::Target)
               .Case("after", ClauseKind::After)
               .Case("reduction", ClauseKind::Reduction)
               .Case("host", ClauseKind::Host)
               .Case("device", ClauseKind::Device)
               .Case("nowait", ClauseKind::NoWait)
               .Case("private", ClauseKind::Private)
               .Case("firstprivate", ClauseKind::FirstPrivate)
               .Default(std::nullopt);

  // The parenthesised argument list, for known and unknown clauses alike,
  // so that one mistake does not hide the next.
  bool HasParens = Pos < Toks.size() && Toks[Pos].is(tok::l_paren);
  size_t Close = Pos;
  if (HasParens) {
    int Depth = 0;
    for (Close = Pos; Close < Toks.size(); ++Close) {
      if (Toks[Close].isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
        ++Depth;
      else if (Toks[Close].isOneOf(tok::r_paren, tok::r_square, tok::r_brace) &&
               --Depth == 0)
        break;
    }
  }
  if (!K) {
    Pos = HasParens && Close < Toks.size() ? Close + 1 : Pos;
    // OpenMP's clauses, as code converted from `#pragma omp` keeps them:
    // those that only tune or restate what HPVM does anyway are ignored
    // with a word, the others named as OpenMP's.
    const char *NoEffect =
        llvm::StringSwitch<const char *>(*Name)
            .Case("shared", "variables from outside a node are shared unless "
                            "private, firstprivate or reduction says so")
            .Case("default", "variables from outside a node are shared unless "
                             "private, firstprivate or reduction says so")
            .Case("schedule", "hpvm-rt decides how the instances are split")
            .Case("num_threads", "HPVM_NUM_THREADS sets the CPU's threads")
            .Case("proc_bind", "hpvm-rt places its threads")
            .Cases("simd", "safelen", "simdlen", "aligned",
                   "the CPU backend vectorises every parallel loop")
            .Case("nontemporal",
                  "the CPU backend chooses non-temporal stores itself")
            .Case("order", "the instances of a node run concurrently anyway")
            .Case("if", "the loop is computed the same either way; HPVM runs "
                        "it in parallel")
            .Cases("untied", "mergeable", "priority", "final",
                   "hpvm-rt schedules tasks itself")
            .Default(nullptr);
    if (NoEffect) {
      Diags.report(NameTok.getLocation(), Diag::OpenMPClauseIgnored)
          << *Name << directiveName(Kind) << NoEffect;
      return true;
    }
    if (*Name == "map") {
      Diags.report(NameTok.getLocation(), Diag::OpenMPMapClause);
      return false;
    }
    if (Kind == Directive::Update && (*Name == "to" || *Name == "from")) {
      Diags.report(NameTok.getLocation(), Diag::OpenMPUpdateClause)
          << *Name << (*Name == "to" ? "device" : "host");
      return false;
    }
    if (llvm::is_contained({"lastprivate", "linear", "ordered", "allocate",
                            "copyin", "depend"},
                           *Name)) {
      Diags.report(NameTok.getLocation(), Diag::OpenMPClauseUnsupported)
          << *Name << directiveName(Kind);
      return false;
    }
    Diags.report(NameTok.getLocation(), Diag::UnknownClause)
        << *Name << directiveName(Kind);
    return false;
  }
  if (*K == ClauseKind::NoWait) { // OpenMP's: no argument list
    if (HasParens) {
      Diags.report(Toks[Pos].getLocation(), Diag::ClauseTakesNoArguments)
          << *Name;
      Pos = Close < Toks.size() ? Close + 1 : Toks.size();
      return false;
    }
    if (!clauseAllowed(*K, Kind)) {
      Diags.report(NameTok.getLocation(), Diag::ClauseWrongDirective)
          << *Name << directiveName(Kind);
      return false;
    }
    if (Info.find(*K)) {
      Diags.report(NameTok.getLocation(), Diag::ClauseRepeated) << *Name;
      return false;
    }
    Clause C;
    C.Kind = *K;
    C.Loc = NameTok.getLocation();
    Info.Clauses.push_back(std::move(C));
    return true;
  }
  if (!HasParens) {
    Diags.report(NameTok.getLocation(), Diag::ExpectedLParen) << *Name;
    Pos = Toks.size();
    return false;
  }
  if (Close == Toks.size()) {
    Diags.report(NameTok.getLocation(), Diag::ExpectedRParen) << *Name;
    Pos = Toks.size();
    return false;
  }
  TokenRange Inside = Toks.slice(Pos + 1, Close - Pos - 1);
  Pos = Close + 1;

  bool OK = true;
  if (!clauseAllowed(*K, Kind)) {
    Diags.report(NameTok.getLocation(), Diag::ClauseWrongDirective)
        << *Name << directiveName(Kind);
    OK = false;
  }
  if ((*K == ClauseKind::Name || *K == ClauseKind::Collapse ||
       *K == ClauseKind::Target) &&
      Info.find(*K)) {
    Diags.report(NameTok.getLocation(), Diag::ClauseRepeated) << *Name;
    OK = false;
  }
  if (!OK)
    return false;

  Clause C;
  C.Kind = *K;
  C.Loc = NameTok.getLocation();
  if (Inside.empty()) {
    Diags.report(C.Loc, Diag::ClauseEmpty) << *Name;
    return false;
  }
  switch (*K) {
  case ClauseKind::Name:
  case ClauseKind::After:
    for (TokenRange Part : splitTopLevel(Inside, tok::comma)) {
      std::optional<std::string> Id =
          Part.size() == 1 ? identifier(Part[0]) : std::nullopt;
      if (!Id || (*K == ClauseKind::Name && !C.Idents.empty())) {
        Diags.report(Part.empty() ? C.Loc : Part[0].getLocation(),
                     Diag::ExpectedIdentifier)
            << *Name;
        return false;
      }
      C.Idents.push_back({*Id, Part[0].getLocation()});
    }
    break;
  case ClauseKind::Collapse: {
    unsigned Value = 0;
    if (Inside.size() != 1 || !Inside[0].is(tok::numeric_constant) ||
        StringRef(PP.getSpelling(Inside[0])).getAsInteger(10, Value) ||
        Value < 1 || Value > 3) {
      Diags.report(Inside[0].getLocation(), Diag::CollapseValue);
      return false;
    }
    C.Collapse = Value;
    break;
  }
  case ClauseKind::Target:
    for (TokenRange Part : splitTopLevel(Inside, tok::comma)) {
      std::optional<std::string> Id =
          Part.size() == 1 ? identifier(Part[0]) : std::nullopt;
      unsigned Bit = !Id              ? 0
                     : *Id == "cpu"   ? 1
                     : *Id == "nvptx" ? 2
                     : *Id == "spirv" ? 4
                                      : 0;
      if (!Bit) {
        Diags.report(Part.empty() ? C.Loc : Part[0].getLocation(),
                     Diag::UnknownTarget)
            << (Part.empty() ? std::string() : text(Part));
        return false;
      }
      C.TargetMask |= Bit;
      C.Idents.push_back({*Id, Part[0].getLocation()});
    }
    break;
  case ClauseKind::In:
  case ClauseKind::Out:
  case ClauseKind::InOut:
  case ClauseKind::Host:
  case ClauseKind::Device:
  case ClauseKind::Value:
  case ClauseKind::Private:
  case ClauseKind::FirstPrivate:
    for (TokenRange Part : splitTopLevel(Inside, tok::comma))
      if (!parseItem(C, Part, Args,
                     *K != ClauseKind::Value && *K != ClauseKind::Private &&
                         *K != ClauseKind::FirstPrivate))
        return false;
    break;
  case ClauseKind::Reduction: {
    std::vector<TokenRange> OpAndVars = splitTopLevel(Inside, tok::colon);
    std::optional<ReductionOp> Op;
    if (OpAndVars.size() == 2 && OpAndVars[0].size() == 1) {
      const Token &T = OpAndVars[0][0];
      // OpenMP's `-` reduction adds the instances' partial values too.
      if (T.is(tok::plus) || T.is(tok::minus))
        Op = ReductionOp::Add;
      else if (T.is(tok::star))
        Op = ReductionOp::Mul;
      else if (T.is(tok::amp))
        Op = ReductionOp::And;
      else if (T.is(tok::pipe))
        Op = ReductionOp::Or;
      else if (T.is(tok::caret))
        Op = ReductionOp::Xor;
      else if (T.is(tok::ampamp))
        Op = ReductionOp::LogicalAnd;
      else if (T.is(tok::pipepipe))
        Op = ReductionOp::LogicalOr;
      else if (identifier(T) == "min")
        Op = ReductionOp::Min;
      else if (identifier(T) == "max")
        Op = ReductionOp::Max;
    }
    if (!Op || OpAndVars[1].empty()) {
      Diags.report(Inside[0].getLocation(), Diag::ReductionSyntax);
      return false;
    }
    C.Op = *Op;
    for (TokenRange Part : splitTopLevel(OpAndVars[1], tok::comma))
      if (!parseItem(C, Part, Args, /*AllowSection=*/true))
        return false;
    break;
  }
  case ClauseKind::NoWait: // handled above
    break;
  }
  Info.Clauses.push_back(std::move(C));
  return true;
}

bool LineParser::parse(PragmaInfo &Info, std::vector<TokenRange> &Args) {
  if (Toks.empty()) {
    Diags.report(HpvmLoc, Diag::MissingDirective);
    return false;
  }
  std::optional<std::string> First = identifier(Toks[0]);
  if (First == "parallel" && Toks.size() > 1 && Toks[1].is(tok::kw_for)) {
    Kind = Directive::ParallelFor;
    Pos = 2;
  } else if (First == "task" || First == "data" || First == "update" ||
             First == "taskwait") {
    Kind = *First == "task"     ? Directive::Task
           : *First == "data"   ? Directive::Data
           : *First == "update" ? Directive::Update
                                : Directive::TaskWait;
    Pos = 1;
  } else {
    Diags.report(Toks[0].getLocation(), Diag::UnknownDirective)
        << (First ? *First : PP.getSpelling(Toks[0]));
    return false;
  }
  Info.Kind = Kind;
  bool OK = true;
  while (Pos < Toks.size()) {
    if (Toks[Pos].is(tok::comma)) { // OpenMP allows commas between clauses
      ++Pos;
      continue;
    }
    OK &= parseClause(Info, Args);
  }
  // What a data region keeps, or what an update moves, must be said.
  if (OK && Info.Clauses.empty() &&
      (Kind == Directive::Data || Kind == Directive::Update)) {
    Diags.report(Toks[0].getLocation(), Diag::DirectiveNeedsClause)
        << directiveName(Kind)
        << (Kind == Directive::Data ? "in(), out() or inout()"
                                    : "host() or device()");
    return false;
  }
  return OK;
}

/// The first token after Loc in the file, lexed raw (no macro expansion,
/// no directives).
static std::optional<Token> rawTokenAfter(Preprocessor &PP,
                                          SourceLocation Loc) {
  SourceManager &SM = PP.getSourceManager();
  Loc = SM.getExpansionLoc(Loc);
  auto [FID, Offset] = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid || Offset > Buf.size())
    return std::nullopt;
  Lexer Raw(SM.getLocForStartOfFile(FID), PP.getLangOpts(), Buf.begin(),
            Buf.begin() + Offset, Buf.end());
  Token Tok;
  Raw.LexFromRawLexer(Tok);
  if (Tok.is(tok::eof))
    return std::nullopt;
  return Tok;
}

/// Whether the rest of the directive line from Loc (with its continuation
/// lines) spells `_Pragma`.
static bool lineSpellsPragmaOperator(Preprocessor &PP, SourceLocation Loc) {
  SourceManager &SM = PP.getSourceManager();
  auto [FID, Offset] = SM.getDecomposedLoc(SM.getSpellingLoc(Loc));
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid || Offset > Buf.size())
    return false;
  size_t End = Offset;
  while (End < Buf.size() && Buf[End] != '\n')
    End += Buf[End] == '\\' && End + 1 < Buf.size() ? 2 : 1;
  return Buf.slice(Offset, End).contains("_Pragma");
}

/// Whether a statement starting with T is a declaration (C's keywords of
/// declaration specifiers; a typedef name is an identifier, which the AST
/// check sees).
static bool startsDeclaration(const Token &T) {
  switch (T.getKind()) {
  case tok::kw_int:
  case tok::kw_char:
  case tok::kw_short:
  case tok::kw_long:
  case tok::kw_float:
  case tok::kw_double:
  case tok::kw_void:
  case tok::kw_signed:
  case tok::kw_unsigned:
  case tok::kw__Bool:
  case tok::kw_bool:
  case tok::kw__Complex:
  case tok::kw_struct:
  case tok::kw_union:
  case tok::kw_enum:
  case tok::kw_const:
  case tok::kw_volatile:
  case tok::kw_restrict:
  case tok::kw_static:
  case tok::kw_extern:
  case tok::kw_register:
  case tok::kw_auto:
  case tok::kw_typedef:
  case tok::kw__Atomic:
  case tok::kw__Alignas:
  case tok::kw__Thread_local:
  case tok::kw__Static_assert:
  case tok::kw_static_assert:
  case tok::kw_typeof:
  case tok::kw_inline:
    return true;
  default:
    return false;
  }
}

void PragmaHandler::HandlePragma(Preprocessor &PP, PragmaIntroducer Intro,
                                 Token &FirstToken) {
  if (PP.getLangOpts().CPlusPlus) {
    Diags.report(FirstToken.getLocation(), Diag::PragmaInCPlusPlus);
    PP.DiscardUntilEndOfDirective();
    return;
  }
  // Clang 19 crashes expanding a _Pragma whose string is not terminated
  // inside a pragma line (its error recovery eats the end of the
  // directive), so such lines are refused before they are lexed.
  if (Intro.Kind == PIK_HashPragma &&
      lineSpellsPragmaOperator(PP, FirstToken.getLocation())) {
    Diags.report(FirstToken.getLocation(), Diag::PragmaOperatorInLine);
    PP.DiscardUntilEndOfDirective();
    return;
  }
  SmallVector<Token, 32> Toks;
  Token Tok;
  PP.Lex(Tok);
  while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof)) {
    Toks.push_back(Tok);
    PP.Lex(Tok);
  }
  SourceLocation EndLoc = Tok.getLocation();
  // Clang 19 parses '::' in C (it lexes it for C23's attributes) forever
  // where an expression should be: `(::b)` hangs clang itself. A clause's
  // text goes into the rewritten program, so it is refused here.
  for (const Token &T : Toks)
    if (T.is(tok::coloncolon)) {
      Diags.report(T.getLocation(), Diag::ScopeOperatorInLine);
      return;
    }

  if (Intro.Kind != PIK_HashPragma) {
    Diags.report(Intro.Loc, Diag::PragmaNotHash);
    return;
  }
  // At file scope there is no statement to wrap.
  if (!CI.hasSema() || !CI.getSema().getCurFunctionDecl()) {
    Diags.report(Intro.Loc, Diag::PragmaOutsideFunction);
    return;
  }

  PragmaInfo Info;
  Info.HashLoc = Intro.Loc;
  Info.EndLoc = EndLoc;
  std::vector<TokenRange> Args;
  LineParser Parser(PP, Diags, Toks, FirstToken.getLocation());
  if (!Parser.parse(Info, Args))
    return; // no wrapper: the statement is compiled as it is, after errors
  Info.NumArgs = Args.size();

  // The wrapper in front of a declaration or a '}' would give Clang parse
  // errors about code the user did not write; the next token in the file
  // tells most misuses apart. Macros and directives are left to the checks
  // on the AST. (An update is a whole statement: anything may follow it.)
  if (std::optional<Token> Next = rawTokenAfter(PP, EndLoc)) {
    bool Unknown = Next->is(tok::hash);
    if (Next->is(tok::raw_identifier)) {
      IdentifierInfo *II = PP.getIdentifierInfo(Next->getRawIdentifier());
      Unknown = PP.isMacroDefined(II) || II->getTokenID() == tok::identifier;
      Next->setKind(II->getTokenID());
    }
    if (!Unknown && Info.Kind == Directive::ParallelFor &&
        !Next->is(tok::kw_for)) {
      Diags.report(Intro.Loc, Diag::NotFollowedByFor);
      return;
    }
    if (!Unknown && Info.Kind == Directive::Data && !Next->is(tok::l_brace)) {
      Diags.report(Intro.Loc, Diag::NotCompound) << directiveName(Info.Kind);
      return;
    }
    // A task labels any statement, as OpenMP's structured block: a loop, a
    // call, a block.
    if (!Unknown && Info.Kind == Directive::Task &&
        (Next->is(tok::r_brace) || startsDeclaration(*Next))) {
      Diags.report(Intro.Loc, Diag::TaskNotStatement);
      return;
    }
  }

  // switch ( ( ( void ) ( arg ) , ... __hpvm_pragma ( 0 ) ) ) default :
  // Casting each clause expression to void checks it in the statement's
  // scope without converting it (no promotion warnings, no decay).
  std::vector<Token> Out;
  auto Push = [&](tok::TokenKind K, const char *Keyword = nullptr) {
    Token T;
    T.startToken();
    T.setKind(K);
    T.setLocation(Intro.Loc);
    T.setLength(Keyword ? strlen(Keyword) : 1);
    if (Keyword)
      T.setIdentifierInfo(PP.getIdentifierInfo(Keyword));
    Out.push_back(T);
  };
  Push(tok::kw_switch, "switch");
  Push(tok::l_paren);
  Push(tok::l_paren);
  for (TokenRange Arg : Args) {
    Push(tok::l_paren);
    Push(tok::kw_void, "void");
    Push(tok::r_paren);
    Push(tok::l_paren);
    Out.insert(Out.end(), Arg.begin(), Arg.end());
    Push(tok::r_paren);
    Push(tok::comma);
  }
  Push(tok::identifier, PragmaMarkerName);
  Push(tok::l_paren);
  Token Zero;
  Zero.startToken();
  Zero.setKind(tok::numeric_constant);
  PP.CreateString("0", Zero);
  Out.push_back(Zero);
  Push(tok::r_paren);
  Push(tok::r_paren);
  Push(tok::r_paren);
  Push(tok::kw_default, "default");
  Push(tok::colon);
  if (Info.Kind == Directive::Update || Info.Kind == Directive::TaskWait)
    Push(tok::semi); // a statement of its own

  auto Stream = std::make_unique<Token[]>(Out.size());
  std::copy(Out.begin(), Out.end(), Stream.get());
  PP.EnterTokenStream(std::move(Stream), Out.size(),
                      /*DisableMacroExpansion=*/true, /*IsReinject=*/false);
  Table.add(std::move(Info));
}

} // namespace hpvm::cfe
