//===- Lowering.cpp - `#pragma hpvm` to marker calls ----------------------===//
//
// Three steps per translation unit:
//  1. find the wrappers the pragma handler made and build the node tree
//     (a wrapper's parent is the nearest enclosing wrapper);
//  2. check each graph: the statement each pragma applies to, the loops of
//     `parallel for`, the clauses, and the code of every leaf (the kernel);
//  3. if nothing was wrong, compute the rewritten source.
//
// How clauses become marker operands (docs/c-frontend.md explains why):
//  * a buffer is always the variable itself: `in(a[lo:len])` names pointer
//    `a` with (lo + len) * sizeof(a[0]) bytes. EXTRACT gives a leaf the
//    buffers by SSA pointer and the kernel indexes from `a`, so the named
//    pointer must be `a`, not `a + lo`;
//  * internal nodes name the union of their children's buffers (the IR
//    binds a child's buffer to the parent's with the same pointer);
//  * loop bounds and buffer sizes are evaluated once, before the graph
//    starts (OpenMP evaluates bounds once too), in temporaries declared at
//    the top-level pragma; bounds that use variables of the graph itself
//    are evaluated at the node's own pragma;
//  * loops that are not `for (T i = 0; i < n; ++i)` are normalised to a
//    0-based, step-1 counter from which the loop variable is computed.
//
// `#pragma hpvm data` and `update` are host code, not nodes: their buffers
// are read by the same addBuffer, and they become calls of hpvm-rt's data
// region functions (hpvm_data_enter/exit before and after the data
// statement, hpvm_data_request/update in place of an update).
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include "FrontendDiagnostics.h"
#include "Pragma.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

using namespace clang;

namespace hpvm::cfe {

namespace {

enum AccessBits : unsigned { Read = 1, Write = 2 };

unsigned accessOf(ClauseKind K) {
  switch (K) {
  case ClauseKind::In:
  case ClauseKind::Host: // update host(): the host reads
    return Read;
  case ClauseKind::Out:
  case ClauseKind::Device: // update device(): the host wrote
    return Write;
  default:
    return Read | Write;
  }
}

struct Loop {
  ForStmt *For = nullptr;
  VarDecl *Var = nullptr;
  bool DeclaredInInit = false;
  Expr *LB = nullptr, *UB = nullptr;
  BinaryOperatorKind Op = BO_LT;
  int64_t Step = 1;
  /// `for (T i = 0; i < n; ++i)`: only the bound is replaced by a temporary.
  bool Keep = false;
  /// Evaluated before the graph (else at the node's own pragma).
  bool Hoisted = true;
  /// The trip count is an unsigned 64-bit value, which may pass the signed
  /// instance ids' 2^63 - 1 (checked before the graph starts).
  bool UnsignedTrips = false;
  unsigned Temp = 0;
  /// A collapsed loop whose bounds are affine in an enclosing collapsed
  /// loop's variable (Loops[OuterIndex]): its extent is the bounds' range
  /// over that loop, and instances outside this row's bounds do nothing.
  VarDecl *Outer = nullptr;
  unsigned OuterIndex = 0;
};

struct Node;

/// A buffer of a node: named by its own clauses and/or by its children.
struct Buffer {
  VarDecl *Var = nullptr;
  std::string PtrText;
  unsigned Access = 0;
  /// Named by this node's own clauses (then Access is what they say).
  bool Explicit = false;
  ClauseKind FirstClause = ClauseKind::In;
  SourceLocation Loc;
  /// Byte sizes from this node's clauses, and children's buffers of the
  /// same variable: the node's size is the largest.
  std::vector<std::string> BytesTexts;
  std::vector<const Buffer *> FromChildren;
  std::string BytesTemp; // set while rewriting
  /// `a[lo:len]` with lo an instance id of an enclosing parallel loop (or a
  /// value computed from one): PtrText is where this instance's section
  /// starts, evaluated at the node's pragma, and the size is len's.
  bool PerInstance = false;
  std::string BaseText; // the array's own pointer
};

struct Reduction {
  VarDecl *Var = nullptr;
  ReductionOp Op = ReductionOp::Add;
  SourceLocation Loc;
  /// `reduction(op: a[lo:len])` (or a whole array): the node's instances
  /// run in chunks, each accumulating into a private copy of a[0 : lo+len]
  /// (BytesText bytes), and a second node combines the copies into a.
  bool Array = false;
  std::string LoText, LenText;
  std::string BytesText;
  QualType Elem;
  /// The copies, a buffer of the node and its ancestors, keyed by a
  /// variable made for it; Suffix names its temporaries.
  VarDecl *Copies = nullptr;
  std::string Suffix;
};

/// A node; also a data or update directive (P->Kind says which), of which
/// only P, Wrapper, Args, S, F, Parent (the node it is in, an error), Valid
/// and Buffers are used, so that addBuffer reads their clauses as a node's.
struct Node {
  const PragmaInfo *P = nullptr;
  SwitchStmt *Wrapper = nullptr;
  /// The clause expressions of the wrapper, typed.
  std::vector<Expr *> Args;
  Stmt *S = nullptr;
  FunctionDecl *F = nullptr;
  Node *Parent = nullptr;
  std::vector<Node *> Children;
  unsigned Id = 0;
  unsigned Depth = 0;
  bool Valid = true;

  std::string Name;
  SourceLocation NameLoc;
  bool ExplicitName = false;
  std::vector<Loop> Loops;
  Stmt *Body = nullptr;
  std::vector<Buffer> Buffers;
  std::vector<std::pair<VarDecl *, std::string>> Values;
  std::vector<Reduction> Reductions;
  /// Variables each instance has its own copy of: private(), firstprivate()
  /// (First: the copy starts at the variable's value), and scalars the
  /// node assigns before it reads them (KernelChecker::assignedFirst).
  struct Private {
    VarDecl *Var;
    bool First;
    /// firstprivate() of a local: the temporary made before the node that
    /// holds the value the copies start at (set while rewriting).
    std::string Temp = {};
    /// private() whose copy the body may read before writing it.
    bool StartsAtZero = false;
  };
  std::vector<Private> Privates;
  unsigned Targets = 0;
  std::vector<Node *> After;
  /// With array reductions: the instances run in chunks (rewriteChunks).
  bool Chunked = false;

  /// A plain `for` loop around child nodes (no pragma of its own): an
  /// internal node whose instances, the loop's iterations, run in order.
  bool Sequential = false;
  /// The statement that stands for the node in its parent's body.
  Stmt *stmtInParent() const {
    return Wrapper ? static_cast<Stmt *>(Wrapper) : S;
  }

  bool isParallelFor() const { return P->Kind == Directive::ParallelFor; }
  bool isLeaf() const { return Children.empty(); }
  Buffer *buffer(const VarDecl *V) {
    for (Buffer &B : Buffers)
      if (B.Var == V)
        return &B;
    return nullptr;
  }
  bool isLoopVar(const VarDecl *V) const {
    for (const Loop &L : Loops)
      if (L.Var == V)
        return true;
    return false;
  }
  bool isReductionVar(const VarDecl *V) const {
    for (const Reduction &R : Reductions)
      if (R.Var == V)
        return true;
    return false;
  }
  bool isArrayReductionVar(const VarDecl *V) const {
    for (const Reduction &R : Reductions)
      if (R.Var == V && R.Array)
        return true;
    return false;
  }
};

/// The variables an expression or statement refers to.
class VarRefs : public RecursiveASTVisitor<VarRefs> {
public:
  std::vector<std::pair<VarDecl *, SourceLocation>> Refs;
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *V = dyn_cast<VarDecl>(E->getDecl()))
      Refs.push_back({V, E->getLocation()});
    return true;
  }
  static std::vector<std::pair<VarDecl *, SourceLocation>> of(Stmt *S) {
    VarRefs R;
    if (S)
      R.TraverseStmt(S);
    return std::move(R.Refs);
  }
};

/// Whether E is affine in V: sums, differences, negations and products by
/// expressions without V of V and expressions without V.
bool affineIn(const Expr *E, const VarDecl *V) {
  E = E->IgnoreParenCasts();
  auto Uses = [V](const Expr *X) {
    for (auto &[U, Loc] : VarRefs::of(const_cast<Expr *>(X)))
      if (U == V)
        return true;
    return false;
  };
  if (!Uses(E))
    return true;
  if (auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl() == V;
  if (auto *U = dyn_cast<UnaryOperator>(E))
    return (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus) &&
           affineIn(U->getSubExpr(), V);
  if (auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->isAdditiveOp())
      return affineIn(B->getLHS(), V) && affineIn(B->getRHS(), V);
    if (B->getOpcode() == BO_Mul)
      return (!Uses(B->getLHS()) && affineIn(B->getRHS(), V)) ||
             (!Uses(B->getRHS()) && affineIn(B->getLHS(), V));
  }
  return false;
}

/// Variables declared inside a statement.
class VarDecls : public RecursiveASTVisitor<VarDecls> {
public:
  llvm::SmallPtrSet<const VarDecl *, 32> Decls;
  bool VisitVarDecl(VarDecl *V) {
    Decls.insert(V);
    return true;
  }
};

/// Finds the wrappers (Pragma.h) and their nesting.
/// The pragma a wrapper stands for, and the wrapper's void-cast operands.
const PragmaInfo *pragmaOf(SwitchStmt *SW, const PragmaTable &Table,
                           std::vector<Expr *> *ArgsOut = nullptr) {
  // ((void)(arg), ..., __hpvm_pragma(0)): a left-leaning comma chain.
  std::vector<Expr *> Args;
  Expr *E = SW->getCond() ? SW->getCond()->IgnoreParenImpCasts() : nullptr;
  while (auto *Comma = dyn_cast_or_null<BinaryOperator>(E)) {
    if (Comma->getOpcode() != BO_Comma)
      break;
    Expr *Arg = Comma->getRHS()->IgnoreParens();
    if (auto *Cast = dyn_cast<CStyleCastExpr>(Arg))
      Arg = Cast->getSubExpr()->IgnoreParens();
    Args.push_back(Arg);
    E = Comma->getLHS()->IgnoreParens();
  }
  if (auto *Cast = dyn_cast_or_null<CStyleCastExpr>(E)) {
    Args.push_back(Cast->getSubExpr()->IgnoreParens());
    E = nullptr;
  }
  std::reverse(Args.begin(), Args.end());
  // The marker call is the last operand, now Args.back().
  auto *Call = Args.empty() ? dyn_cast_or_null<CallExpr>(E)
                            : dyn_cast<CallExpr>(Args.back());
  if (!Args.empty() && Call)
    Args.pop_back();
  if (!Call || !Call->getDirectCallee() ||
      Call->getDirectCallee()->getName() != PragmaMarkerName ||
      !isa_and_nonnull<DefaultStmt>(SW->getBody()))
    return nullptr;
  if (ArgsOut)
    *ArgsOut = std::move(Args);
  return Table.find(SW->getSwitchLoc());
}

/// Whether S contains a `parallel for` or `task` pragma.
bool containsNodePragma(Stmt *S, const PragmaTable &Table) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const PragmaTable &Table;
    bool Found = false;
    explicit Finder(const PragmaTable &T) : Table(T) {}
    bool VisitSwitchStmt(SwitchStmt *SW) {
      if (const PragmaInfo *P = pragmaOf(SW, Table))
        Found |=
            P->Kind == Directive::ParallelFor || P->Kind == Directive::Task;
      return !Found;
    }
  } F(Table);
  F.TraverseStmt(S);
  return F.Found;
}

class WrapperFinder : public RecursiveASTVisitor<WrapperFinder> {
public:
  WrapperFinder(const PragmaTable &Table,
                std::vector<std::unique_ptr<Node>> &Nodes,
                std::vector<std::unique_ptr<Node>> &Directives,
                std::vector<std::unique_ptr<PragmaInfo>> &LoopPragmas)
      : Table(Table), Nodes(Nodes), Directives(Directives),
        LoopPragmas(LoopPragmas) {}

  bool TraverseFunctionDecl(FunctionDecl *F) {
    if (!F->doesThisDeclarationHaveABody())
      return true;
    FunctionDecl *Saved = CurF;
    CurF = F;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(F);
    CurF = Saved;
    return R;
  }

  bool TraverseSwitchStmt(SwitchStmt *SW) {
    std::vector<Expr *> Args;
    const PragmaInfo *P = pragmaOf(SW, Table, &Args);
    if (!P || !CurF)
      return RecursiveASTVisitor::TraverseSwitchStmt(SW);
    auto N = std::make_unique<Node>();
    N->P = P;
    N->Wrapper = SW;
    N->Args = std::move(Args);
    N->S = cast<DefaultStmt>(SW->getBody())->getSubStmt();
    // Data and update directives are host code around graphs: a graph in
    // a data statement is a graph of its own.
    if (P->Kind == Directive::Data || P->Kind == Directive::Update ||
        P->Kind == Directive::TaskWait) {
      place(*N);
      Directives.push_back(std::move(N));
      return RecursiveASTVisitor::TraverseSwitchStmt(SW);
    }
    return traverseNode(std::move(N), [&] {
      return RecursiveASTVisitor::TraverseSwitchStmt(SW);
    });
  }

  /// A plain `for` loop inside a node around child nodes is a node of its
  /// own: the loop's iterations run in order (a time-step loop). It has no
  /// pragma: a made-up `parallel for` without clauses stands for it.
  bool TraverseForStmt(ForStmt *FS) {
    if (Stack.empty() || !CurF || NestLoops.count(FS) ||
        !containsNodePragma(FS->getBody(), Table))
      return RecursiveASTVisitor::TraverseForStmt(FS);
    auto Info = std::make_unique<PragmaInfo>();
    Info->Kind = Directive::ParallelFor;
    Info->HashLoc = Info->EndLoc = FS->getForLoc();
    auto N = std::make_unique<Node>();
    N->P = Info.get();
    N->S = FS;
    N->Sequential = true;
    LoopPragmas.push_back(std::move(Info));
    return traverseNode(
        std::move(N), [&] { return RecursiveASTVisitor::TraverseForStmt(FS); });
  }

  llvm::SmallPtrSet<const FunctionDecl *, 8> FunctionsWithNodes;

private:
  void place(Node &N) {
    N.F = CurF;
    N.Id = Nodes.size();
    N.Parent = Stack.empty() ? nullptr : Stack.back();
    N.Depth = Stack.size();
    FunctionsWithNodes.insert(CurF);
  }
  template <typename Fn> bool traverseNode(std::unique_ptr<Node> N, Fn Inside) {
    place(*N);
    // The loops of a `parallel for` (collapse(k): k of them) are its own.
    if (N->P->Kind == Directive::ParallelFor && !N->Sequential) {
      const Clause *Collapse = N->P->find(ClauseKind::Collapse);
      Stmt *Cur = N->S;
      for (unsigned K = 0, E = Collapse ? Collapse->Collapse : 1; K < E; ++K) {
        auto *F = dyn_cast_or_null<ForStmt>(Cur);
        if (!F)
          break;
        NestLoops.insert(F);
        Cur = F->getBody();
        if (auto *CS = dyn_cast_or_null<CompoundStmt>(Cur))
          if (CS->size() == 1)
            Cur = CS->body_front();
      }
    }
    if (N->Parent)
      N->Parent->Children.push_back(N.get());
    Stack.push_back(N.get());
    Nodes.push_back(std::move(N));
    bool R = Inside();
    Stack.pop_back();
    return R;
  }

  const PragmaTable &Table;
  std::vector<std::unique_ptr<Node>> &Nodes, &Directives;
  std::vector<std::unique_ptr<PragmaInfo>> &LoopPragmas;
  std::vector<Node *> Stack;
  llvm::SmallPtrSet<const ForStmt *, 16> NestLoops;
  FunctionDecl *CurF = nullptr;
};

/// Math functions code in a node may call without a definition: the libm
/// functions of one or two scalar arguments that write no memory. Backends
/// map them to their devices' math libraries.
bool isMathFunction(StringRef Name) {
  static const llvm::StringSet<> Names = [] {
    llvm::StringSet<> S;
    for (const char *Base :
         {"acos",      "asin",    "atan",   "atan2",   "cos",       "sin",
          "tan",       "acosh",   "asinh",  "atanh",   "cosh",      "sinh",
          "tanh",      "exp",     "exp2",   "exp10",   "expm1",     "log",
          "log10",     "log1p",   "log2",   "logb",    "cbrt",      "sqrt",
          "hypot",     "pow",     "erf",    "erfc",    "lgamma",    "tgamma",
          "ceil",      "floor",   "trunc",  "round",   "nearbyint", "rint",
          "lround",    "llround", "lrint",  "llrint",  "fmod",      "remainder",
          "fdim",      "fmax",    "fmin",   "fma",     "fabs",      "copysign",
          "nextafter", "ldexp",   "scalbn", "scalbln", "ilogb"}) {
      S.insert(Base);
      S.insert(std::string(Base) + "f");
      S.insert(std::string(Base) + "l");
    }
    for (const char *Other : {"abs", "labs", "llabs"})
      S.insert(Other);
    return S;
  }();
  return Names.count(Name);
}

bool isMemFunction(StringRef Name) {
  Name.consume_front("__builtin_");
  return Name == "memcpy" || Name == "memmove" || Name == "memset";
}

bool isSetJmp(StringRef Name) {
  Name.consume_front("__builtin_");
  return Name == "setjmp" || Name == "_setjmp" || Name == "sigsetjmp" ||
         Name == "longjmp" || Name == "_longjmp" || Name == "siglongjmp";
}

bool isLongJmp(StringRef Name) {
  return isSetJmp(Name) && Name.ends_with("longjmp");
}

/// Calls Walk(child, loops, breakable) for each child of S, where S is
/// inside Loops loops and Breakable loops or switches (what `continue` and
/// `break` leave) of the statement being walked, and the children one
/// level deeper where S is a loop (its body) or a switch.
template <typename WalkFn>
void walkChildren(Stmt *S, unsigned Loops, unsigned Breakable, WalkFn Walk) {
  if (auto *F = dyn_cast<ForStmt>(S)) {
    Walk(F->getInit(), Loops, Breakable);
    Walk(F->getCond(), Loops, Breakable);
    Walk(F->getInc(), Loops, Breakable);
    Walk(F->getBody(), Loops + 1, Breakable + 1);
    return;
  }
  bool Loop = isa<WhileStmt, DoStmt>(S), Switch = isa<SwitchStmt>(S);
  for (Stmt *C : S->children())
    Walk(C, Loops + Loop, Breakable + (Loop || Switch));
}

/// Compiler builtins allowed in nodes: everything that is not a library
/// function in disguise or stack allocation.
bool isAllowedBuiltin(StringRef Name) {
  if (Name.starts_with("__builtin_alloca") || isSetJmp(Name))
    return false;
  return Name.starts_with("__builtin_") || Name.starts_with("__sync_") ||
         Name.starts_with("__atomic_") || Name.starts_with("__c11_atomic_");
}

/// What one __hpvm_region_begin names: the node's own (beginCall(N)), or
/// those of the nodes an array reduction makes of it.
struct RegionShape {
  std::string Name;
  std::vector<std::string> Extents;
  struct Buf {
    unsigned Access;
    std::string Ptr, Bytes;
  };
  std::vector<Buf> Buffers;
  /// The node's value() clauses, after() and nowait.
  bool Own = true;
};

struct Edit {
  unsigned Offset;
  unsigned Length; // 0: insertion
  std::string Text;
  int Order;
};

/// A stretch of rewritten text: copied from the user's text at UserOffset
/// on, or inserted there.
struct TextStretch {
  unsigned Begin, Length, UserOffset;
  bool Inserted;
};

/// RewrittenFile::ChangedLines of Text, made of Stretches of the file FID:
/// each stretch split at line ends, its column in the user's line found,
/// for the lines with inserted text.
std::map<unsigned, std::vector<RewrittenFile::Piece>>
changedLines(const SourceManager &SM, FileID FID, StringRef Text,
             const std::vector<TextStretch> &Stretches) {
  std::map<unsigned, std::vector<RewrittenFile::Piece>> Lines;
  std::set<unsigned> Changed;
  unsigned Line = 1, LineStart = 0;
  unsigned BufferSize = SM.getBufferData(FID).size();
  for (const TextStretch &S : Stretches) {
    unsigned Off = S.Begin, End = S.Begin + S.Length, User = S.UserOffset;
    while (Off < End) {
      size_t NewLine = Text.find('\n', Off);
      bool EndsLine = NewLine != StringRef::npos && NewLine < End;
      unsigned ChunkEnd = EndsLine ? unsigned(NewLine) + 1 : End;
      unsigned Column = User < BufferSize ? SM.getColumnNumber(FID, User) : 1;
      Lines[Line].push_back(
          {Off - LineStart + 1, ChunkEnd - Off, Column, S.Inserted});
      if (S.Inserted)
        Changed.insert(Line);
      else
        User += ChunkEnd - Off;
      if (EndsLine) {
        ++Line;
        LineStart = ChunkEnd;
      }
      Off = ChunkEnd;
    }
  }
  for (auto It = Lines.begin(); It != Lines.end();)
    It = Changed.count(It->first) ? std::next(It) : Lines.erase(It);
  return Lines;
}

class Lowering {
public:
  Lowering(CompilerInstance &CI, ASTContext &Ctx, Diagnostics &D)
      : CI(CI), Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()),
        D(D) {}

  void run(const PragmaTable &Table, std::vector<RewrittenFile> &Out);

private:
  // Checking.
  void analyzeStructure(Node &N);
  bool analyzeLoop(Node &N, ForStmt *F, Loop &L);
  void checkLoopVarUse(Loop &L, Stmt *Body);
  void checkChildren(Node &N);
  void analyzeClauses(Node &N);
  void addBuffer(Node &N, const Clause &C, const ClauseItem &Item);
  void addValue(Node &N, const ClauseItem &Item);
  void addReduction(Node &N, const Clause &C, const ClauseItem &Item);
  void addArrayReduction(Node &N, const Clause &C, const ClauseItem &Item,
                         VarDecl *V);
  void checkArrayReductions(Node &N);
  void addPrivate(Node &N, const Clause &C, const ClauseItem &Item);
  void addImplicitBuffers(Node &N);
  unsigned implicitAccess(const DeclRefExpr *E);
  bool addressTaken(const FunctionDecl *F, const VarDecl *V);
  void checkExtents(Node &N);
  void resolveAfter(Node &N);
  void mergeChildBuffers(Node &N);
  void checkKernel(Node &N);
  void checkPrivateReads(Node &N);
  void checkDirective(Node &R);
  void checkDataJumps(Node &R);
  Expr *argExpr(const Node &N, const ClauseExpr &E) const;
  bool isGraphLocal(const VarDecl *V) const { return GraphLocal.count(V); }

  // Rewriting.
  void generate(Node &Root);
  std::string tempsFor(Node &N, bool Hoisted);
  std::string bufferTemps(Node &N);
  std::string beginCall(Node &N);
  std::string beginCall(Node &N, const RegionShape &R);
  std::string privateCopies(Node &N);
  std::string firstPrivateTemps(Node &N, bool Hoisted);
  bool firstPrivateReadsMemory(Node &N, const VarDecl *V);
  std::string rewriteChunks(Node &N);
  void rewriteLoops(Node &N);
  void generateDirective(Node &R);
  void replacePragmaLine(const PragmaInfo &P, std::string Text);
  void edit(SourceLocation Loc, unsigned Length, std::string Text, int Order);
  void insertAfterStmt(Stmt *S, std::string Text, int Order);
  void insertBeforeStmt(Stmt *S, std::string Text, int Order);
  SourceLocation lastTokenLoc(Stmt *S);
  std::string sourceText(SourceRange R);
  unsigned newlinesIn(SourceLocation B, SourceLocation E);

  CompilerInstance &CI;
  ASTContext &Ctx;
  SourceManager &SM;
  const LangOptions &LO;
  Diagnostics &D;
  std::vector<std::unique_ptr<Node>> Nodes;
  /// What stands for the pragma of a loop run in order (WrapperFinder).
  std::vector<std::unique_ptr<PragmaInfo>> LoopPragmas;
  /// Data and update directives; the wrappers of every pragma; the jumps
  /// into or out of data statements reported (once, also when nested).
  std::vector<std::unique_ptr<Node>> Directives;
  llvm::SmallPtrSet<const Stmt *, 16> Wrappers;
  llvm::SmallPtrSet<const Stmt *, 8> JumpsReported;
  /// Functions with nodes or data directives.
  llvm::SmallPtrSet<const FunctionDecl *, 8> FunctionsWithNodes;
  /// Variables declared inside the current graph, and every loop variable
  /// of its parallel loops.
  llvm::SmallPtrSet<const VarDecl *, 32> GraphLocal;
  /// Scalars a node of the current graph writes (a clause says so).
  llvm::SmallPtrSet<const VarDecl *, 16> GraphWrites;
  /// Per function with nodes: the locals whose address its code or its
  /// clauses take (addressTaken).
  std::map<const FunctionDecl *, llvm::SmallPtrSet<const VarDecl *, 16>>
      AddressTaken;
  std::map<FileID, std::vector<Edit>> Edits;
  unsigned NextTemp = 0;
  bool EditFailed = false;
};

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

Expr *Lowering::argExpr(const Node &N, const ClauseExpr &E) const {
  return E.Arg < N.Args.size() ? N.Args[E.Arg] : nullptr;
}

static VarDecl *varOf(Expr *E) {
  if (!E)
    return nullptr;
  if (auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

static bool refersTo(Expr *E, const VarDecl *V) { return E && varOf(E) == V; }

/// Whether S names V anywhere (a declaration of the same name inside S
/// hides V from what follows it).
static bool namesVar(Stmt *S, const VarDecl *V) {
  for (auto &[U, Loc] : VarRefs::of(S))
    if (U == V)
      return true;
  return false;
}

static bool isLogical(ReductionOp Op) {
  return Op == ReductionOp::LogicalAnd || Op == ReductionOp::LogicalOr;
}

static std::optional<int64_t> constantInt(Expr *E, ASTContext &Ctx) {
  Expr::EvalResult R;
  if (!E || E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

static const char *opSpelling(BinaryOperatorKind Op) {
  return BinaryOperator::getOpcodeStr(Op).data();
}

bool Lowering::analyzeLoop(Node &N, ForStmt *F, Loop &L) {
  L.For = F;
  Stmt *Init = F->getInit();
  if (auto *DS = dyn_cast_or_null<DeclStmt>(Init)) {
    if (DS->isSingleDecl())
      if (auto *V = dyn_cast<VarDecl>(DS->getSingleDecl()))
        if (V->getInit()) {
          L.Var = V;
          L.LB = V->getInit();
          L.DeclaredInInit = true;
        }
  } else if (auto *E = dyn_cast_or_null<Expr>(Init)) {
    if (auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParens()))
      if (BO->getOpcode() == BO_Assign)
        if (VarDecl *V = varOf(BO->getLHS())) {
          L.Var = V;
          L.LB = BO->getRHS();
        }
  }
  if (!L.Var) {
    D.report(Init ? Init->getBeginLoc() : F->getLParenLoc().getLocWithOffset(1),
             Diag::LoopInit);
    return false;
  }
  std::string VarName = L.Var->getName().str();
  QualType T = L.Var->getType();
  if (!T->isIntegerType() || T->isBooleanType() || T->isEnumeralType()) {
    D.report(L.Var->getLocation(), Diag::LoopVarType) << VarName;
    return false;
  }

  auto *Cond = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  bool CondOK = false;
  if (Cond) {
    BinaryOperatorKind Op = Cond->getOpcode();
    bool Relational =
        Op == BO_LT || Op == BO_LE || Op == BO_GT || Op == BO_GE || Op == BO_NE;
    if (Relational && refersTo(Cond->getLHS(), L.Var)) {
      L.UB = Cond->getRHS();
      L.Op = Op;
      CondOK = true;
    } else if (Relational && refersTo(Cond->getRHS(), L.Var)) {
      L.UB = Cond->getLHS();
      L.Op = BinaryOperator::reverseComparisonOp(Op);
      CondOK = true;
    }
  }
  if (!CondOK) {
    D.report(F->getCond() ? F->getCond()->getBeginLoc() : F->getLParenLoc(),
             Diag::LoopCond)
        << VarName;
    return false;
  }

  Expr *Inc = F->getInc() ? F->getInc()->IgnoreParens() : nullptr;
  std::optional<int64_t> Step;
  if (auto *UO = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (UO->isIncrementDecrementOp() && refersTo(UO->getSubExpr(), L.Var))
      Step = UO->isIncrementOp() ? 1 : -1;
  } else if (auto *BO = dyn_cast_or_null<BinaryOperator>(Inc)) {
    if (refersTo(BO->getLHS(), L.Var)) {
      if (BO->getOpcode() == BO_AddAssign)
        Step = constantInt(BO->getRHS(), Ctx);
      else if (BO->getOpcode() == BO_SubAssign) {
        if (auto C = constantInt(BO->getRHS(), Ctx))
          Step = -*C;
      } else if (BO->getOpcode() == BO_Assign) {
        if (auto *RHS =
                dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts())) {
          if (RHS->getOpcode() == BO_Add && refersTo(RHS->getLHS(), L.Var))
            Step = constantInt(RHS->getRHS(), Ctx);
          else if (RHS->getOpcode() == BO_Add && refersTo(RHS->getRHS(), L.Var))
            Step = constantInt(RHS->getLHS(), Ctx);
          else if (RHS->getOpcode() == BO_Sub && refersTo(RHS->getLHS(), L.Var))
            if (auto C = constantInt(RHS->getRHS(), Ctx))
              Step = -*C;
        }
      }
    }
  }
  if (!Step || *Step == 0) {
    D.report(Inc ? Inc->getBeginLoc() : F->getRParenLoc(), Diag::LoopInc)
        << VarName;
    return false;
  }
  L.Step = *Step;
  bool Up = L.Op == BO_LT || L.Op == BO_LE,
       Down = L.Op == BO_GT || L.Op == BO_GE;
  if ((Up && L.Step < 0) || (Down && L.Step > 0) ||
      (L.Op == BO_NE && L.Step != 1 && L.Step != -1)) {
    D.report(Inc->getBeginLoc(), Diag::LoopStepDirection)
        << opSpelling(L.Op) << std::to_string(L.Step);
    return false;
  }
  auto Zero = constantInt(L.LB, Ctx);
  // The kept bound becomes the node's extent at the comparison's width,
  // which HPVM reads as signed: an unsigned comparison narrower than 64
  // bits (3e9 iterations of an unsigned int) goes through the rewrite's
  // 64-bit counter instead.
  // A constant bound below 0 would be a negative constant extent, which
  // the IR rejects; the rewrite counts it as 0.
  QualType Cmp = Cond->getLHS()->getType();
  bool SignedOrWide = Cmp->isSignedIntegerType() || Ctx.getIntWidth(Cmp) >= 64;
  auto Bound = constantInt(L.UB, Ctx);
  L.Keep = L.DeclaredInInit && Zero && *Zero == 0 && L.Step == 1 &&
           L.Op == BO_LT && SignedOrWide && !(Bound && *Bound < 0);
  L.UnsignedTrips = L.Keep ? !Cmp->isSignedIntegerType()
                           : L.Var->getType()->isUnsignedIntegerType();
  // The rewrite replaces the bound, or else the whole header: both must be
  // spelled in the file (a bound passed to a macro is).
  bool Rewritable =
      L.Keep
          ? Lexer::makeFileCharRange(
                CharSourceRange::getTokenRange(L.UB->getSourceRange()), SM, LO)
                .isValid()
          : F->getForLoc().isFileID() && F->getRParenLoc().isFileID();
  if (!Rewritable) {
    D.report(F->getForLoc(), Diag::LoopInMacro);
    return false;
  }
  checkLoopVarUse(L, F->getBody());
  return true;
}

/// The loop variable must keep the value the loop gives it: each instance
/// computes it from its id.
void Lowering::checkLoopVarUse(Loop &L, Stmt *Body) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    Finder(const VarDecl *V) : V(V) {}
    bool VisitBinaryOperator(BinaryOperator *BO) {
      if (BO->isAssignmentOp() && refersTo(BO->getLHS(), V) && !Where.isValid())
        Where = BO->getExprLoc();
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *UO) {
      if ((UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf) &&
          refersTo(UO->getSubExpr(), V) && !Where.isValid())
        Where = UO->getExprLoc();
      return true;
    }
    const VarDecl *V;
    SourceLocation Where;
  } F(L.Var);
  F.TraverseStmt(Body);
  if (F.Where.isValid())
    D.report(F.Where, Diag::LoopVarModified) << L.Var->getName();
}

void Lowering::analyzeStructure(Node &N) {
  const PragmaInfo &P = *N.P;
  if (N.isParallelFor()) {
    const Clause *Collapse = P.find(ClauseKind::Collapse);
    unsigned Depth = Collapse ? Collapse->Collapse : 1;
    Stmt *Cur = N.S;
    if (!isa_and_nonnull<ForStmt>(Cur)) {
      D.report(P.HashLoc, Diag::NotFollowedByFor);
      N.Valid = false;
      return;
    }
    for (unsigned K = 0; K < Depth; ++K) {
      auto *F = cast<ForStmt>(Cur);
      Loop L;
      if (!analyzeLoop(N, F, L)) {
        N.Valid = false;
        return;
      }
      N.Loops.push_back(L);
      if (K + 1 == Depth)
        break;
      Stmt *Next = F->getBody();
      if (auto *CS = dyn_cast_or_null<CompoundStmt>(Next))
        if (CS->size() == 1)
          Next = CS->body_front();
      if (!isa_and_nonnull<ForStmt>(Next)) {
        D.report(Collapse->Loc, Diag::CollapseTooDeep)
            << std::to_string(Depth) << std::to_string(K + 1);
        // Point at the statement that is not a loop, not at the brace.
        if (auto *CS = dyn_cast_or_null<CompoundStmt>(Next))
          if (!CS->body_empty())
            Next = CS->body_front();
        D.report(Next ? Next->getBeginLoc() : F->getEndLoc(),
                 Diag::NoteNestEnds);
        N.Valid = false;
        return;
      }
      Cur = Next;
    }
    N.Body = N.Loops.back().For->getBody();
    // A collapsed nest is rectangular, or an inner loop's bounds are
    // affine in one enclosing collapsed loop's variable (a triangle), the
    // inner loop counting up by 1.
    for (unsigned K = 0; K != N.Loops.size(); ++K) {
      Loop &L = N.Loops[K];
      bool Reported = false; // once per loop
      for (Expr *E : {L.LB, L.UB})
        for (auto &[V, Loc] : VarRefs::of(E)) {
          if (!N.isLoopVar(V) || Reported)
            continue;
          unsigned J = 0;
          while (N.Loops[J].Var != V)
            ++J;
          bool Affine = J < K && (!L.Outer || L.Outer == V) && L.Step == 1 &&
                        (L.Op == BO_LT || L.Op == BO_LE) && affineIn(L.LB, V) &&
                        affineIn(L.UB, V);
          if (!Affine) {
            D.report(Loc, Diag::LoopBoundDependsOnVar) << V->getName();
            N.Valid = false;
            Reported = true;
            continue;
          }
          L.Outer = V;
          L.OuterIndex = J;
          L.Keep = false;
        }
    }
  } else {
    // Any statement, as OpenMP's structured block (a C23 label before a
    // declaration would make the declaration the task).
    if (!N.S || isa<DeclStmt>(N.S)) {
      D.report(P.HashLoc, Diag::TaskNotStatement);
      N.Valid = false;
      return;
    }
    N.Body = N.S;
  }
}

/// Children must be statements directly in the body; the rest of an
/// internal node's body may only declare values.
void Lowering::checkChildren(Node &N) {
  auto *CS = dyn_cast<CompoundStmt>(N.Body);
  std::vector<Node *> Placed;
  for (Node *C : N.Children) {
    bool Direct = N.Body == C->stmtInParent();
    if (CS)
      for (Stmt *S : CS->body())
        Direct |= S == C->stmtInParent();
    if (!Direct) {
      D.report(C->P->HashLoc, Diag::MisplacedChild);
      C->Valid = false;
      N.Valid = false;
    }
  }
  if (N.Children.empty() || !CS || !N.Valid)
    return;
  for (Stmt *S : CS->body()) {
    bool IsChild = false;
    for (Node *C : N.Children)
      IsChild |= S == C->stmtInParent();
    if (IsChild || isa<NullStmt>(S))
      continue;
    if (auto *DS = dyn_cast<DeclStmt>(S)) {
      for (Decl *Dcl : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(Dcl)) {
          if (V->getType()->isVariablyModifiedType()) {
            D.report(V->getLocation(), Diag::ArrayOfVariableLength)
                << V->getName();
            N.Valid = false;
          } else if (!V->hasLocalStorage()) {
            D.report(V->getLocation(), Diag::UnsupportedInNode)
                << ("static variable '" + V->getName() + "'").str();
            N.Valid = false;
          }
        }
      continue;
    }
    // A pointer swap between time steps, as OpenMP code has it.
    if (auto *Assign = dyn_cast<BinaryOperator>(S))
      if (Assign->getOpcode() == BO_Assign &&
          Assign->getLHS()->getType()->isPointerType())
        if (VarDecl *V = varOf(Assign->getLHS())) {
          D.report(S->getBeginLoc(), Diag::InternalPointerAssignment)
              << V->getName();
          N.Valid = false;
          continue;
        }
    D.report(S->getBeginLoc(), Diag::InternalStatement);
    N.Valid = false;
  }
}

void Lowering::addBuffer(Node &N, const Clause &C, const ClauseItem &Item) {
  const char *CName = clauseName(C.Kind);
  Expr *BaseE = argExpr(N, Item.Base);
  VarDecl *V = varOf(BaseE);
  if (!V) {
    D.report(Item.Loc, Diag::BufferNotVariable) << CName;
    N.Valid = false;
    return;
  }
  std::string Name = V->getName().str();
  const std::string &Base = Item.Base.Text;
  QualType T = V->getType();
  std::string Ptr, Bytes;
  // A start that uses a variable of the graph (an instance id of an
  // enclosing parallel loop, or a value computed from one) makes the
  // section the instance's own: the node names where it starts.
  bool PerInstance = false;
  if (Item.Section && Item.Lo && Item.Len)
    for (auto &[U, Loc] : VarRefs::of(argExpr(N, *Item.Lo)))
      PerInstance |= isGraphLocal(U);
  if (Item.Section) {
    if (!T->isPointerType() && !T->isArrayType()) {
      D.report(Item.Loc, Diag::SectionNotArray) << Name;
      N.Valid = false;
      return;
    }
    QualType Elem = T->isPointerType()
                        ? T->getPointeeType()
                        : Ctx.getAsArrayType(T)->getElementType();
    if (Elem->isIncompleteType() || Elem->isFunctionType()) {
      D.report(Item.Loc, Diag::SectionElementSize) << Name << Elem;
      N.Valid = false;
      return;
    }
    if (Elem->isPointerType()) {
      D.report(Item.Loc, Diag::BufferOfPointers) << Name << Elem;
      N.Valid = false;
      return;
    }
    // Sections of further dimensions need arrays of arrays (a 2-D array, a
    // VLA parameter `float a[n][m]`). What moves is the whole rows of the
    // first dimension's section: the buffer starts at `a` (above), and the
    // rows are contiguous, so a row's columns narrow nothing.
    QualType Row = Elem;
    for (const auto &[Lo, Len] : Item.Inner) {
      const ArrayType *AT = Ctx.getAsArrayType(Row);
      if (!AT) {
        D.report(Item.Loc, Diag::SectionNotArrayOfArrays) << Name << Row;
        N.Valid = false;
        return;
      }
      for (const std::optional<ClauseExpr> *Bound : {&Lo, &Len}) {
        Expr *E = *Bound ? argExpr(N, **Bound) : nullptr;
        if (*Bound && (!E || !E->getType()->isIntegerType())) {
          D.report((*Bound)->Loc, Diag::SectionBoundNotInteger);
          N.Valid = false;
          return;
        }
      }
      Row = AT->getElementType();
    }
    // Bounds known now are checked now: a negative one, or a section
    // whose byte size does not fit in 64 bits, would only fail (or be
    // misread) at run time.
    llvm::APInt End(128, 0);
    bool ConstantEnd = true;
    for (auto [Bound, What] :
         {std::pair(&Item.Lo, "start"), std::pair(&Item.Len, "length")}) {
      if (!*Bound)
        continue;
      Expr *E = argExpr(N, **Bound);
      if (!E || !E->getType()->isIntegerType()) {
        D.report((*Bound)->Loc, Diag::SectionBoundNotInteger);
        N.Valid = false;
        return;
      }
      Expr::EvalResult R;
      if (E->isValueDependent() || !E->EvaluateAsInt(R, Ctx)) {
        ConstantEnd = false;
        continue;
      }
      const llvm::APSInt &V = R.Val.getInt();
      if (V.isNegative()) {
        D.report((*Bound)->Loc, Diag::SectionBoundNegative)
            << What << Name << llvm::toString(V, 10);
        N.Valid = false;
        return;
      }
      End += V.zext(128);
    }
    if (ConstantEnd && Item.Len) {
      if (const ConstantArrayType *CAT = Ctx.getAsConstantArrayType(T);
          CAT && End.ugt(CAT->getSize().zext(128))) {
        D.report(Item.Loc, Diag::SectionBeyondArray)
            << Name << llvm::toString(End, 10, /*Signed=*/false)
            << llvm::toString(CAT->getSize(), 10, /*Signed=*/false);
        N.Valid = false;
        return;
      }
      uint64_t Size = Ctx.getTypeSizeInChars(Elem).getQuantity();
      if ((End * llvm::APInt(128, Size)).getActiveBits() > 64) {
        D.report(Item.Loc, Diag::SectionTooLarge)
            << Name << llvm::toString(End, 10, /*Signed=*/false)
            << std::to_string(Size);
        N.Valid = false;
        return;
      }
    }
    if (!Item.Len) {
      if (T->isPointerType()) {
        D.report(Item.Loc, Diag::PointerNoExtent) << Name << CName;
        N.Valid = false;
        return;
      }
      Bytes = "sizeof(" + Base + ")";
    } else if (Item.Lo && PerInstance) {
      Bytes = "(unsigned long long)(" + Item.Len->Text + ") * sizeof((" + Base +
              ")[0])";
    } else if (Item.Lo) {
      Bytes = "((unsigned long long)(" + Item.Lo->Text +
              ") + (unsigned long long)(" + Item.Len->Text + ")) * sizeof((" +
              Base + ")[0])";
    } else {
      Bytes = "(unsigned long long)(" + Item.Len->Text + ") * sizeof((" + Base +
              ")[0])";
    }
    Ptr = PerInstance ? "(void *)((" + Base + ") + (" + Item.Lo->Text + "))"
                      : "(void *)(" + Base + ")";
  } else if (T->isPointerType()) {
    D.report(Item.Loc, Diag::PointerNoExtent) << Name << CName;
    N.Valid = false;
    return;
  } else {
    if (T->isArrayType() &&
        Ctx.getAsArrayType(T)->getElementType()->isPointerType()) {
      D.report(Item.Loc, Diag::BufferOfPointers)
          << Name << Ctx.getAsArrayType(T)->getElementType();
      N.Valid = false;
      return;
    }
    Ptr =
        T->isArrayType() ? "(void *)(" + Base + ")" : "(void *)&(" + Base + ")";
    Bytes = "sizeof(" + Base + ")";
  }

  // Every node of the graph names this pointer and this size, so both must
  // exist before the graph starts; only a per-instance section's start
  // is the instance's own.
  std::vector<std::pair<VarDecl *, SourceLocation>> Used = {{V, Item.Loc}};
  for (const std::optional<ClauseExpr> *Bound : {&Item.Lo, &Item.Len})
    if (*Bound && !(PerInstance && Bound == &Item.Lo))
      for (auto &R : VarRefs::of(argExpr(N, **Bound)))
        Used.push_back(R);
  for (auto &[U, Loc] : Used)
    if (isGraphLocal(U)) {
      if (U == V)
        D.report(Loc, Diag::GraphLocalVariable) << Name;
      else
        D.report(Loc, Diag::GraphLocalBuffer) << Name << U->getName();
      N.Valid = false;
      return;
    }

  for (const auto &[Other, Text] : N.Values)
    if (Other == V) {
      D.report(Item.Loc, Diag::VariableInTwoClauses)
          << Name << CName << "value";
      N.Valid = false;
      return;
    }
  Buffer *B = N.buffer(V);
  if (!B) {
    N.Buffers.emplace_back();
    B = &N.Buffers.back();
    B->Var = V;
    B->PtrText = Ptr;
    B->FirstClause = C.Kind;
    B->Loc = Item.Loc;
    B->PerInstance = PerInstance;
    B->BaseText = "(void *)(" + Base + ")";
  } else if (PerInstance || B->PerInstance) {
    // One pointer per buffer and node: one section of an instance's own.
    if (B->PtrText != Ptr || B->PerInstance != PerInstance) {
      D.report(Item.Loc, Diag::SectionPerInstanceTwice) << Name;
      N.Valid = false;
      return;
    }
  } else if (B->PtrText != Ptr) {
    // `a` and `a[0:n]` of an array: one pointer, either spelling.
    B->PtrText = Ptr;
  }
  // in(a) out(a) is inout(a): said, since a reader may take it for a
  // mistake (or mean two sections).
  unsigned Access = accessOf(C.Kind);
  if (B->Explicit && B->Access != Access &&
      (B->Access | Access) == (Read | Write) && B->Access != (Read | Write) &&
      Access != (Read | Write))
    D.report(Item.Loc, Diag::InAndOut)
        << Name << clauseName(B->FirstClause) << CName;
  B->Explicit = true;
  B->Access |= Access;
  B->BytesTexts.push_back(Bytes);
}

void Lowering::addValue(Node &N, const ClauseItem &Item) {
  Expr *E = argExpr(N, Item.Base);
  VarDecl *V = varOf(E);
  if (V && V->getType()->isPointerType()) {
    D.report(Item.Loc, Diag::ValuePointer) << V->getName();
    N.Valid = false;
    return;
  }
  if (!V || !V->hasLocalStorage() || !V->getType()->isArithmeticType() ||
      V->getType()->isAnyComplexType()) {
    D.report(Item.Loc, Diag::ValueNotScalar) << Item.Base.Text;
    N.Valid = false;
    return;
  }
  if (N.buffer(V)) {
    D.report(Item.Loc, Diag::VariableInTwoClauses)
        << V->getName() << "value" << clauseName(N.buffer(V)->FirstClause);
    N.Valid = false;
    return;
  }
  N.Values.push_back({V, Item.Base.Text});
  // A variable in memory (its address taken) has no value the node could
  // be given: a copy of the value it has when the graph starts is.
  if (addressTaken(N.F, V))
    N.Privates.push_back({V, /*First=*/true});
}

void Lowering::addPrivate(Node &N, const Clause &C, const ClauseItem &Item) {
  const char *Name = clauseName(C.Kind);
  bool First = C.Kind == ClauseKind::FirstPrivate;
  VarDecl *V = varOf(argExpr(N, Item.Base));
  // The loop's own variable is each instance's already: OpenMP lets
  // private() name it, and firstprivate() not.
  if (V && N.isLoopVar(V)) {
    if (First) {
      D.report(Item.Loc, Diag::FirstPrivateLoopVar) << V->getName();
      N.Valid = false;
    }
    return;
  }
  // A private pointer is each instance's own cursor into the node's
  // buffers (what it points to is checked like any other access); a
  // private array its own scratch. A firstprivate copy of either would
  // start at host memory.
  QualType T = V ? V->getType() : QualType();
  bool Scratch =
      !First && V &&
      (T->isPointerType() || (T->isConstantArrayType() &&
                              Ctx.getBaseElementType(T)->isArithmeticType()));
  if (!V || (!V->hasLocalStorage() && !V->hasGlobalStorage()) ||
      (!T->isArithmeticType() && !Scratch)) {
    D.report(Item.Loc, Diag::PrivateNotScalar) << Name << Item.Base.Text;
    N.Valid = false;
    return;
  }
  auto Twice = [&](const char *Other) {
    D.report(Item.Loc, Diag::VariableInTwoClauses)
        << V->getName() << Name << Other;
    N.Valid = false;
  };
  if (Buffer *B = N.buffer(V))
    return Twice(clauseName(B->FirstClause));
  for (const Node::Private &P : N.Privates)
    if (P.Var == V)
      return Twice(P.First ? "firstprivate" : "private");
  for (const auto &[Other, Text] : N.Values)
    if (Other == V)
      return Twice("value");
  N.Privates.push_back({V, First});
}

void Lowering::addReduction(Node &N, const Clause &C, const ClauseItem &Item) {
  VarDecl *V = varOf(argExpr(N, Item.Base));
  if (V && (Item.Section || V->getType()->isArrayType()))
    return addArrayReduction(N, C, Item, V);
  if (V && V->getType()->isPointerType()) {
    D.report(Item.Loc, Diag::PointerNoExtent) << V->getName() << "reduction";
    N.Valid = false;
    return;
  }
  if (!V || (!V->hasLocalStorage() && !V->hasGlobalStorage()) ||
      !V->getType()->isArithmeticType() || V->getType().isConstQualified() ||
      N.isLoopVar(V)) {
    D.report(Item.Loc, Diag::ReductionNotVariable);
    N.Valid = false;
    return;
  }
  QualType T = V->getType();
  bool Bitwise = C.Op == ReductionOp::And || C.Op == ReductionOp::Or ||
                 C.Op == ReductionOp::Xor;
  if (Bitwise && !T->isIntegerType()) {
    D.report(Item.Loc, Diag::ReductionNeedsInteger)
        << reductionOpName(C.Op) << V->getName() << T;
    N.Valid = false;
    return;
  }
  // long double has no atomics on the devices; _Complex and _Bool have no
  // order or make no sense here, but for && and ||. Those normalise the
  // shared value to 0 or 1 with a compare-and-swap, which devices have for
  // 32- and 64-bit types only (a _Bool is 0 or 1 already).
  bool Logical = isLogical(C.Op);
  if (T->isAnyComplexType() || (T->isBooleanType() && !Logical) ||
      T->isSpecificBuiltinType(BuiltinType::LongDouble)) {
    D.report(Item.Loc, Diag::ReductionType) << V->getName() << T;
    N.Valid = false;
    return;
  }
  if (Logical && !T->isBooleanType() && Ctx.getTypeSize(T) < 32) {
    D.report(Item.Loc, Diag::ReductionLogicalNarrow)
        << reductionOpName(C.Op) << V->getName() << T;
    N.Valid = false;
    return;
  }
  if (isGraphLocal(V)) {
    D.report(Item.Loc, Diag::GraphLocalVariable) << V->getName();
    N.Valid = false;
    return;
  }
  if (Buffer *B = N.buffer(V)) {
    D.report(Item.Loc, Diag::VariableInTwoClauses)
        << V->getName() << "reduction" << clauseName(B->FirstClause);
    N.Valid = false;
    return;
  }
  for (const auto &[Other, Text] : N.Values)
    if (Other == V) {
      D.report(Item.Loc, Diag::VariableInTwoClauses)
          << V->getName() << "reduction"
          << "value";
      N.Valid = false;
      return;
    }
  Reduction R;
  R.Var = V;
  R.Op = C.Op;
  R.Loc = Item.Loc;
  N.Reductions.push_back(R);
  // The shared variable is the buffer the instances combine into.
  N.Buffers.emplace_back();
  Buffer &B = N.Buffers.back();
  B.Var = V;
  B.PtrText = "(void *)&(" + V->getName().str() + ")";
  B.Access = Read | Write;
  B.Explicit = true;
  B.FirstClause = ClauseKind::Reduction;
  B.Loc = Item.Loc;
  B.BytesTexts.push_back("sizeof(" + V->getName().str() + ")");
}

void Lowering::addArrayReduction(Node &N, const Clause &C,
                                 const ClauseItem &Item, VarDecl *V) {
  auto Fail = [&](Diag Id) -> DiagnosticBuilder {
    N.Valid = false;
    return D.report(Item.Loc, Id);
  };
  QualType T = V->getType();
  QualType Elem;
  if (T->isPointerType())
    Elem = T->getPointeeType();
  else if (T->isArrayType())
    Elem = Ctx.getAsArrayType(T)->getElementType();
  if (!Elem.isNull() && (!Item.Inner.empty() || Elem->isArrayType())) {
    Fail(Diag::ArrayReductionOneDimension) << V->getName();
    return;
  }
  if (!Elem.isNull() &&
      (!Elem->isArithmeticType() || Elem.isConstQualified() ||
       Elem->isAnyComplexType() ||
       (Elem->isBooleanType() && !isLogical(C.Op)) ||
       Elem->isSpecificBuiltinType(BuiltinType::LongDouble))) {
    Fail(Diag::ArrayReductionElement) << V->getName() << Elem;
    return;
  }
  bool Bitwise = C.Op == ReductionOp::And || C.Op == ReductionOp::Or ||
                 C.Op == ReductionOp::Xor;
  if (Bitwise && !Elem.isNull() && !Elem->isIntegerType()) {
    Fail(Diag::ReductionNeedsInteger)
        << reductionOpName(C.Op) << V->getName() << Elem;
    return;
  }
  if (Buffer *B = N.buffer(V)) {
    Fail(Diag::VariableInTwoClauses)
        << V->getName() << "reduction" << clauseName(B->FirstClause);
    return;
  }
  // The shared array is an inout buffer of the node; addBuffer checks the
  // section as for any other clause.
  size_t Before = N.Buffers.size();
  addBuffer(N, C, Item);
  if (N.Buffers.size() == Before)
    return;
  Buffer &B = N.Buffers.back();
  if (B.PerInstance) {
    Fail(Diag::ArrayReductionPerInstance) << V->getName();
    return;
  }
  Reduction R;
  R.Var = V;
  R.Op = C.Op;
  R.Loc = Item.Loc;
  R.Array = true;
  R.Elem = Elem;
  const std::string &Base = Item.Base.Text;
  R.LoText = Item.Lo ? Item.Lo->Text : "0";
  R.LenText = Item.Len ? Item.Len->Text
                       : "sizeof(" + Base + ") / sizeof((" + Base +
                             ")[0]) - (" + R.LoText + ")";
  R.BytesText = B.BytesTexts.back();
  N.Reductions.push_back(R);
}

/// A node with an array reduction becomes three: its instances run in
/// chunks (their number decided at run time), so the chunks and the
/// copies' memory must be known when the graph starts, once per launch.
void Lowering::checkArrayReductions(Node &N) {
  const Reduction *R = nullptr;
  for (const Reduction &Red : N.Reductions)
    if (Red.Array && !R)
      R = &Red;
  if (!R)
    return;
  Node *Root = &N;
  for (Node *A = N.Parent; A; A = A->Parent) {
    Root = A;
    if (!A->Loops.empty()) {
      D.report(R->Loc, Diag::ArrayReductionReplicated) << A->Name;
      N.Valid = false;
      return;
    }
  }
  if (const Clause *NoWait = Root->P->find(ClauseKind::NoWait)) {
    D.report(R->Loc, Diag::ArrayReductionNoWait);
    D.report(NoWait->Loc, Diag::NoteNoWaitHere);
    N.Valid = false;
    return;
  }
  Loop &L = N.Loops.front();
  if (!L.Hoisted) {
    for (Expr *E : {L.LB, L.UB})
      for (auto &[V, Loc] : VarRefs::of(E))
        if (isGraphLocal(V) && N.Valid) {
          D.report(Loc, Diag::ArrayReductionBounds) << V->getName();
          N.Valid = false;
        }
    return;
  }
  // Chunks run the outer loop from a chunk's first to its last iteration.
  L.Keep = false;
  N.Chunked = true;
  unsigned K = 0;
  for (Reduction &Red : N.Reductions) {
    if (!Red.Array)
      continue;
    Red.Suffix = std::to_string(N.Id) + "_" + std::to_string(K++);
    SourceLocation Loc = N.P->HashLoc;
    Red.Copies = VarDecl::Create(Ctx, N.F, Loc, Loc,
                                 &Ctx.Idents.get("__hpvm_m" + Red.Suffix),
                                 Ctx.VoidPtrTy, nullptr, SC_None);
    N.Buffers.emplace_back();
    Buffer &B = N.Buffers.back();
    B.Var = Red.Copies;
    B.PtrText = B.BaseText = "__hpvm_m" + Red.Suffix;
    B.Access = Read | Write;
    B.Explicit = true;
    B.FirstClause = ClauseKind::Reduction;
    B.Loc = Red.Loc;
    B.BytesTexts.push_back("__hpvm_c" + std::to_string(N.Id) + " * __hpvm_w" +
                           std::to_string(N.Id) + " * sizeof((" +
                           Red.Var->getName().str() + ")[0])");
  }
}

void Lowering::analyzeClauses(Node &N) {
  for (const Clause &C : N.P->Clauses) {
    switch (C.Kind) {
    case ClauseKind::Name:
      N.Name = C.Idents.front().first;
      N.NameLoc = C.Idents.front().second;
      N.ExplicitName = true;
      break;
    case ClauseKind::Collapse:
    case ClauseKind::After:
      break;
    case ClauseKind::NoWait:
      if (N.Parent) {
        D.report(C.Loc, Diag::NoWaitInNode);
        N.Valid = false;
      }
      break;
    case ClauseKind::Target:
      N.Targets |= C.TargetMask;
      break;
    case ClauseKind::In:
    case ClauseKind::Out:
    case ClauseKind::InOut:
    case ClauseKind::Host:
    case ClauseKind::Device:
      for (const ClauseItem &Item : C.Items)
        addBuffer(N, C, Item);
      break;
    case ClauseKind::Value:
      for (const ClauseItem &Item : C.Items)
        addValue(N, Item);
      break;
    case ClauseKind::Reduction:
      if (!N.isLeaf()) {
        D.report(C.Loc, Diag::ReductionOnInternal);
        N.Valid = false;
        break;
      }
      for (const ClauseItem &Item : C.Items)
        addReduction(N, C, Item);
      break;
    case ClauseKind::Private:
    case ClauseKind::FirstPrivate:
      if (!N.isLeaf()) {
        D.report(C.Loc, Diag::PrivateOnInternal) << clauseName(C.Kind);
        N.Valid = false;
        break;
      }
      for (const ClauseItem &Item : C.Items)
        addPrivate(N, C, Item);
      break;
    }
  }
  if (N.Name.empty()) {
    unsigned Line = SM.getPresumedLineNumber(N.P->HashLoc);
    N.Name = N.F->getName().str() + "_" + std::to_string(Line);
    N.NameLoc = N.P->HashLoc;
  }
}

/// A constant global table (`static const float lut[]`): every device gets
/// a copy of it, so it is no buffer.
static bool isConstantTable(const VarDecl *V, ASTContext &Ctx) {
  QualType T = V->getType();
  return T->isArrayType() && V->hasGlobalStorage() &&
         Ctx.getBaseElementType(T).isConstQualified();
}

/// Data a device can copy byte for byte: arithmetic values, and arrays and
/// structs of them (a pointer would still point into host memory).
static bool isPlainData(QualType T, ASTContext &Ctx) {
  T = Ctx.getBaseElementType(T);
  if (T->isArithmeticType())
    return true;
  if (const RecordType *RT = T->getAs<RecordType>()) {
    const RecordDecl *RD = RT->getDecl()->getDefinition();
    if (!RD)
      return false;
    for (const FieldDecl *F : RD->fields())
      if (!isPlainData(F->getType(), Ctx))
        return false;
    return true;
  }
  return false;
}

/// How one use of an array (or of a scalar) touches its memory: Read for an
/// element's value, Write for a plain store of an element, nothing under
/// sizeof; every other use (its address taken or passed on, ++, +=)
/// could be either.
unsigned Lowering::implicitAccess(const DeclRefExpr *E) {
  const Expr *Cur = E;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    const Expr *P = Parents.size() == 1 ? Parents[0].get<Expr>() : nullptr;
    if (!P)
      return Read | Write;
    if (isa<ParenExpr>(P)) {
      Cur = P;
      continue;
    }
    if (isa<UnaryExprOrTypeTraitExpr>(P))
      return 0;
    if (auto *Cast = dyn_cast<ImplicitCastExpr>(P)) {
      if (Cast->getCastKind() == CK_ArrayToPointerDecay) {
        Cur = P;
        continue;
      }
      return Cast->getCastKind() == CK_LValueToRValue ? Read : Read | Write;
    }
    if (auto *Sub = dyn_cast<ArraySubscriptExpr>(P)) {
      if (Sub->getBase() != Cur)
        return Read | Write;
      Cur = P;
      continue;
    }
    if (auto *Member = dyn_cast<MemberExpr>(P)) {
      if (Member->isArrow())
        return Read | Write;
      Cur = P;
      continue;
    }
    if (auto *Assign = dyn_cast<BinaryOperator>(P))
      if (Assign->getOpcode() == BO_Assign && Assign->getLHS() == Cur &&
          !Cur->getType()->isArrayType())
        return Write;
    return Read | Write;
  }
}

/// Whether F's code takes V's address, or a clause of a pragma in F names
/// V as a buffer or a reduction (the rewrite takes its address then): V is
/// then not an SSA value that a node could be given by value.
bool Lowering::addressTaken(const FunctionDecl *F, const VarDecl *V) {
  auto [It, New] = AddressTaken.try_emplace(F);
  if (New) {
    struct Finder : RecursiveASTVisitor<Finder> {
      llvm::SmallPtrSet<const VarDecl *, 16> &Out;
      explicit Finder(llvm::SmallPtrSet<const VarDecl *, 16> &Out) : Out(Out) {}
      bool VisitUnaryOperator(UnaryOperator *U) {
        if (U->getOpcode() == UO_AddrOf)
          if (VarDecl *V = varOf(U->getSubExpr()))
            Out.insert(V);
        return true;
      }
    } Find(It->second);
    Find.TraverseStmt(F->getBody());
    for (auto *List : {&Nodes, &Directives})
      for (auto &N : *List) {
        if (N->F != F)
          continue;
        for (const Clause &C : N->P->Clauses) {
          if (C.Kind != ClauseKind::In && C.Kind != ClauseKind::Out &&
              C.Kind != ClauseKind::InOut && C.Kind != ClauseKind::Reduction &&
              C.Kind != ClauseKind::Host && C.Kind != ClauseKind::Device)
            continue;
          for (const ClauseItem &Item : C.Items)
            if (VarDecl *Named = varOf(argExpr(*N, Item.Base)))
              It->second.insert(Named);
        }
      }
  }
  return It->second.count(V);
}

/// OpenMP's implicit mapping: an array whose size the leaf's code can see
/// (a global, a static, a local declared before the graph) and a global
/// scalar it only reads are buffers of the leaf without a clause, the whole
/// of them, with the access its uses show. Pointers and array parameters
/// have no size here and still need a clause.
void Lowering::addImplicitBuffers(Node &N) {
  // The leaf's code and the functions it calls: a global a helper reads is
  // the leaf's buffer as one its own code reads (a helper's locals and
  // statics are its own).
  struct Uses : RecursiveASTVisitor<Uses> {
    std::vector<DeclRefExpr *> Refs;
    llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
    unsigned InCallee = 0;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      auto *V = dyn_cast<VarDecl>(E->getDecl());
      if (!InCallee || (V && V->hasGlobalStorage() && !V->isStaticLocal()))
        Refs.push_back(E);
      return true;
    }
    bool VisitCallExpr(CallExpr *CE) {
      const FunctionDecl *Def = nullptr;
      if (FunctionDecl *FD = CE->getDirectCallee())
        if (FD->hasBody(Def) && Def && Seen.insert(Def).second) {
          ++InCallee;
          TraverseStmt(Def->getBody());
          --InCallee;
        }
      return true;
    }
  } U;
  U.TraverseStmt(N.Body);
  struct Use {
    VarDecl *Var;
    unsigned Access;
    SourceLocation First;
  };
  std::vector<Use> Found;
  auto IsPrivate = [&](const VarDecl *V) {
    return llvm::any_of(N.Privates,
                        [&](const Node::Private &P) { return P.Var == V; });
  };
  for (DeclRefExpr *E : U.Refs) {
    auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (!V || isGraphLocal(V) || N.buffer(V) || N.isReductionVar(V) ||
        IsPrivate(V) || !isPlainData(V->getType(), Ctx) ||
        V->getType().isVolatileQualified() || V->getType()->isAtomicType())
      continue;
    QualType T = V->getType();
    bool Array = T->isConstantArrayType() ||
                 (T->isVariableArrayType() && V->hasLocalStorage());
    bool GlobalScalar =
        !T->isArrayType() && V->hasGlobalStorage() && !T.isConstQualified();
    // A local whose address is taken (by the program, or by a clause that
    // names it: a reduction, a scalar buffer) lives in memory, which a node
    // cannot read without naming it. Where a node of the graph writes it,
    // the leaf reads it as a buffer, after that node; otherwise it takes
    // the value the variable has when the graph starts, as any scalar
    // (through a temporary made then, as for firstprivate()).
    bool MemoryScalar = !T->isArrayType() && V->hasLocalStorage() &&
                        T->isArithmeticType() && addressTaken(N.F, V);
    if (!Array && !GlobalScalar && !MemoryScalar)
      continue;
    if (isConstantTable(V, Ctx))
      continue;
    auto It = llvm::find_if(Found, [&](const Use &F) { return F.Var == V; });
    if (It == Found.end())
      It = Found.insert(Found.end(), {V, 0, E->getLocation()});
    It->Access |= implicitAccess(E);
  }
  // Memory scalars the leaf only reads, which no node of the graph writes:
  // by value. (Ones it writes or takes the address of are errors that
  // KernelChecker reports, as for any local from outside.)
  llvm::erase_if(Found, [&](const Use &U) {
    const VarDecl *V = U.Var;
    if (!V->hasLocalStorage() || V->getType()->isArrayType())
      return false;
    if (U.Access == Read && !GraphWrites.count(V))
      N.Privates.push_back({U.Var, /*First=*/true});
    return U.Access != Read || !GraphWrites.count(V);
  });
  // An instance's own copy that starts at a value the node reads from
  // memory (firstPrivateReadsMemory): the node reads it once.
  for (const Node::Private &P : N.Privates)
    if (P.First && firstPrivateReadsMemory(N, P.Var) && !N.buffer(P.Var))
      Found.push_back({P.Var, Read, N.P->HashLoc});
  for (const auto &[V, Access, Loc] : Found) {
    bool Array = V->getType()->isArrayType();
    // A global number the leaf writes is the same error as a local one; a
    // struct is memory like an array (`s.rows[i] = ...`).
    if (!Access || (!Array && !V->getType()->isRecordType() && Access != Read))
      continue;
    std::string Name = V->getName().str();
    Buffer &B = N.Buffers.emplace_back();
    B.Var = V;
    B.PtrText = Array ? "(void *)(" + Name + ")" : "(void *)&(" + Name + ")";
    B.BaseText = B.PtrText;
    B.Access = Access;
    B.Explicit = true; // what the leaf's code does is what it names
    B.FirstClause = Access == Read    ? ClauseKind::In
                    : Access == Write ? ClauseKind::Out
                                      : ClauseKind::InOut;
    B.Loc = Loc;
    B.BytesTexts.push_back("sizeof(" + Name + ")");
  }
}

/// Loop bounds are extents: they may use values the graph computes (they
/// are then evaluated at the node's own pragma), but not the instance ids
/// of enclosing parallel loops.
void Lowering::checkExtents(Node &N) {
  for (Loop &L : N.Loops)
    for (Expr *E : {L.LB, L.UB})
      for (auto &[V, Loc] : VarRefs::of(E)) {
        for (Node *A = N.Parent; A; A = A->Parent)
          if (A->isLoopVar(V)) {
            D.report(Loc, A->Sequential ? Diag::ExtentUsesStep
                                        : Diag::ExtentUsesInstanceId)
                << V->getName();
            N.Valid = false;
          }
        if (isGraphLocal(V))
          L.Hoisted = false;
      }
}

void Lowering::resolveAfter(Node &N) {
  for (const Clause &C : N.P->Clauses) {
    if (C.Kind != ClauseKind::After)
      continue;
    if (!N.Parent) {
      D.report(C.Loc, Diag::AfterOnGraph);
      N.Valid = false;
      continue;
    }
    for (const auto &[Id, Loc] : C.Idents) {
      Node *Found = nullptr;
      for (Node *S : N.Parent->Children) {
        if (S == &N)
          break;
        if (S->Name == Id)
          Found = S;
      }
      if (!Found) {
        D.report(Loc, Diag::AfterUnknown) << Id;
        N.Valid = false;
        continue;
      }
      N.After.push_back(Found);
    }
  }
}

/// Bottom-up: a node names every buffer of its children, with the same
/// pointer, the largest size and the union of their accesses (or its own
/// clauses' access, which the children may not exceed by writing).
void Lowering::mergeChildBuffers(Node &N) {
  for (Node *C : N.Children)
    mergeChildBuffers(*C);
  for (Node *C : N.Children)
    for (const Buffer &CB : C->Buffers) {
      Buffer *B = N.buffer(CB.Var);
      // A loop run in order has no clauses: it passes down what the
      // nearest ancestor that names the buffer names.
      if (CB.PerInstance && !B && N.Sequential)
        for (Node *A = N.Parent; A && !B; A = A->Parent)
          if (Buffer *AB = A->buffer(CB.Var); AB && AB->Explicit) {
            N.Buffers.push_back(*AB);
            B = &N.Buffers.back();
            B->FromChildren.clear();
          }
      // A section per instance says nothing of the whole the parent
      // passes down: the parent names that itself.
      if (CB.PerInstance && !(B && B->Explicit)) {
        D.report(CB.Loc, Diag::SectionPerInstanceNeedsParent)
            << CB.Var->getName() << C->Name << N.Name;
        N.Valid = false;
        continue;
      }
      if (!B) {
        N.Buffers.emplace_back();
        B = &N.Buffers.back();
        B->Var = CB.Var;
        B->PtrText = CB.PtrText;
        B->BaseText = CB.BaseText;
        B->FirstClause = CB.FirstClause;
        B->Loc = CB.Loc;
      }
      if (B->Explicit) {
        if ((CB.Access & Write) && !(B->Access & Write)) {
          D.report(CB.Loc, Diag::ChildWritesParentInput)
              << C->Name << CB.Var->getName() << N.Name;
          N.Valid = false;
        }
      } else {
        B->Access |= CB.Access;
      }
      B->FromChildren.push_back(&CB);
    }
}

namespace {

/// What a write goes to: a variable, written directly (`x = ...`,
/// `arr[i] = ...` of an array variable) or through a pointer it holds.
struct WriteRoot {
  VarDecl *Var = nullptr;
  bool Indirect = false;
};

/// Checks the code of one leaf node and of the functions it calls.
class KernelChecker {
public:
  KernelChecker(Node &N, ASTContext &Ctx, Diagnostics &D,
                const llvm::SmallPtrSetImpl<const FunctionDecl *> &WithNodes)
      : N(N), Ctx(Ctx), D(D), WithNodes(WithNodes) {}

  void run() {
    VarDecls Locals;
    Locals.TraverseStmt(N.Body);
    Local = std::move(Locals.Decls);
    for (const Node::Private &P : N.Privates)
      Local.insert(P.Var);
    walk(N.Body, 0, 0);
  }

private:
  void error(SourceLocation Loc, Diag Id, const std::string &Arg) {
    D.report(Loc, InCallee && Id == Diag::UnsupportedInNode
                      ? Diag::UnsupportedInCallee
                      : Id)
        << Arg;
    if (InCallee)
      D.report(CallSite, Diag::NoteCalledFrom);
    N.Valid = false;
  }
  void walk(Stmt *S, unsigned Loops, unsigned Breakable);
  void checkRef(DeclRefExpr *E);
  void checkCall(CallExpr *CE);
  /// Callee: the write is a call of code the node cannot see (named so in
  /// the message), which may write through the pointer LHS.
  void checkWrite(Expr *LHS, SourceLocation Loc, bool ThroughPointer,
                  StringRef Callee = "");
  void checkAddressOf(Expr *Sub, SourceLocation Loc);
  std::optional<WriteRoot> rootOf(Expr *E, bool Indirect, unsigned Depth = 0);
  /// Whether every use of V in the node is inside a `for` loop whose
  /// initialisation assigns V (from an expression without V): then each
  /// instance writes V before it reads it, and V is private by nature.
  bool assignedFirst(const VarDecl *V);
  /// Whether the node stores through V (an assignment, compound assignment
  /// or increment whose target is reached through it): for the clause an
  /// unnamed pointer's error suggests.
  bool writesThrough(const VarDecl *V);

  Node &N;
  ASTContext &Ctx;
  Diagnostics &D;
  const llvm::SmallPtrSetImpl<const FunctionDecl *> &WithNodes;
  llvm::SmallPtrSet<const VarDecl *, 32> Local;
  std::set<const VarDecl *> Reported;
  std::vector<const FunctionDecl *> CallStack;
  std::set<const FunctionDecl *> Checked;
  bool InCallee = false;
  SourceLocation CallSite;
};

} // namespace

std::optional<WriteRoot> KernelChecker::rootOf(Expr *E, bool Indirect,
                                               unsigned Depth) {
  if (!E || Depth > 8)
    return std::nullopt;
  E = E->IgnoreParenCasts();
  if (auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return std::nullopt;
    // A pointer initialised from a buffer (in the kernel, or before it:
    // EXTRACT recomputes such pointers in the leaf) stands for that buffer.
    if (Indirect && V->getType()->isPointerType() && V->hasLocalStorage() &&
        V->getInit() && !N.buffer(V))
      if (auto R = rootOf(V->getInit(), true, Depth + 1))
        return R;
    return WriteRoot{V, Indirect};
  }
  if (auto *A = dyn_cast<ArraySubscriptExpr>(E))
    return rootOf(A->getBase(), true, Depth);
  if (auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_Deref)
      return rootOf(UO->getSubExpr(), true, Depth);
    if (UO->getOpcode() == UO_AddrOf)
      return rootOf(UO->getSubExpr(), Indirect, Depth);
    return std::nullopt;
  }
  if (auto *ME = dyn_cast<MemberExpr>(E))
    return rootOf(ME->getBase(), Indirect || ME->isArrow(), Depth);
  if (auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->isAdditiveOp())
      return rootOf(BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                             : BO->getRHS(),
                    Indirect, Depth);
  return std::nullopt;
}

bool KernelChecker::assignedFirst(const VarDecl *V) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    unsigned Inside = 0; // loops that assign V first
    bool UsedOutside = false;
    explicit Finder(const VarDecl *V) : V(V) {}
    bool TraverseForStmt(ForStmt *F) {
      bool Assigns = false;
      if (auto *B = dyn_cast_or_null<BinaryOperator>(F->getInit()))
        if (B->getOpcode() == BO_Assign)
          if (auto *L = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParens()))
            if (L->getDecl() == V) {
              Finder InValue(V); // the value may not use V
              InValue.TraverseStmt(B->getRHS());
              Assigns = !InValue.UsedOutside;
            }
      Inside += Assigns;
      bool Go = RecursiveASTVisitor::TraverseForStmt(F);
      Inside -= Assigns;
      return Go;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      UsedOutside |= E->getDecl() == V && !Inside;
      return !UsedOutside;
    }
  } F(V);
  F.TraverseStmt(N.Body);
  return !F.UsedOutside;
}

/// Whether a function that the node cannot see into may write through the
/// pointer passed as argument Index of CE: a parameter that is not a
/// pointer to const, or a variadic argument (scanf's), but for printf's.
static bool mayWriteThrough(CallExpr *CE, unsigned Index) {
  QualType Param;
  const FunctionProtoType *Proto = nullptr;
  if (QualType T = CE->getCallee()->getType(); !T.isNull()) {
    if (const auto *P = T->getAs<PointerType>())
      T = P->getPointeeType();
    Proto = T->getAs<FunctionProtoType>();
  }
  if (Proto && Index < Proto->getNumParams())
    Param = Proto->getParamType(Index);
  else if (FunctionDecl *FD = CE->getDirectCallee()) {
    StringRef Name = FD->getName();
    if (Name.ends_with("printf") || Name == "puts" || Name == "fputs")
      return false; // variadic but reading (no %n in kernels, please)
  }
  if (Param.isNull())
    return true;
  return !Param->isPointerType() || !Param->getPointeeType().isConstQualified();
}

bool KernelChecker::writesThrough(const VarDecl *V) {
  struct Finder : RecursiveASTVisitor<Finder> {
    KernelChecker &K;
    const VarDecl *V;
    bool Found = false;
    Finder(KernelChecker &K, const VarDecl *V) : K(K), V(V) {}
    bool stores(Expr *Target, bool Through = false) {
      if (std::optional<WriteRoot> R = K.rootOf(Target, Through))
        Found |= R->Var == V && R->Indirect;
      return !Found; // stop at the first
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      return !B->isAssignmentOp() || stores(B->getLHS());
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      return !U->isIncrementDecrementOp() || stores(U->getSubExpr());
    }
    bool VisitAtomicExpr(AtomicExpr *AE) {
      switch (AE->getOp()) {
      case AtomicExpr::AO__atomic_load:
      case AtomicExpr::AO__atomic_load_n:
      case AtomicExpr::AO__c11_atomic_load:
        return true;
      default:
        return stores(AE->getPtr(), true);
      }
    }
    // A call may write through a pointer it is given: memcpy's and
    // memset's destination, a parameter that is not a pointer to const.
    bool VisitCallExpr(CallExpr *CE) {
      FunctionDecl *FD = CE->getDirectCallee();
      if (FD && isMemFunction(FD->getName()))
        return CE->getNumArgs() == 0 || stores(CE->getArg(0), true);
      if (FD && (FD->getBuiltinID() || isMathFunction(FD->getName())))
        return true;
      for (unsigned I = 0; I != CE->getNumArgs() && !Found; ++I)
        if (CE->getArg(I)->getType()->isPointerType() && mayWriteThrough(CE, I))
          stores(CE->getArg(I), true);
      return !Found;
    }
  } F(*this, V);
  F.TraverseStmt(N.Body);
  return F.Found;
}

void KernelChecker::checkWrite(Expr *LHS, SourceLocation Loc,
                               bool ThroughPointer, StringRef Callee) {
  if (InCallee) // the IR verifier sees through calls
    return;
  std::optional<WriteRoot> R = rootOf(LHS, ThroughPointer);
  if (!R || Local.count(R->Var))
    return;
  VarDecl *V = R->Var;
  if (N.isLoopVar(V) || N.isReductionVar(V))
    return; // the loop check reports the first; the second is private
  if (Buffer *B = N.buffer(V)) {
    if (!(B->Access & Write)) {
      if (Callee.empty())
        D.report(Loc, Diag::WriteToInput) << V->getName();
      else
        D.report(Loc, Diag::InputToUnseenCode) << V->getName() << Callee;
      N.Valid = false;
    }
    return;
  }
  if (!Callee.empty())
    return; // a pointer the node does not know is reported where it is used
  if (R->Indirect || V->getType()->isArrayType())
    return; // reported as an unnamed pointer where it is used
  // A loop counter declared outside the node (`int i, j;` at the top of a
  // function, as C89 and most OpenMP code have it): each instance's own.
  if (V->hasLocalStorage() && V->getType()->isArithmeticType() &&
      !V->getType().isVolatileQualified() && assignedFirst(V)) {
    N.Privates.push_back({V, false});
    Local.insert(V);
    return;
  }
  if (Reported.insert(V).second) {
    // A task runs once: nothing to combine, its write is the result.
    D.report(Loc, N.isParallelFor() ? Diag::WriteToOutsideVariable
                                    : Diag::TaskWritesOutsideVariable)
        << V->getName();
    N.Valid = false;
  }
}

void KernelChecker::checkAddressOf(Expr *Sub, SourceLocation Loc) {
  if (InCallee)
    return;
  auto *V = varOf(Sub);
  if (!V || Local.count(V) || N.buffer(V) || N.isReductionVar(V) ||
      N.isLoopVar(V) || V->getType()->isArrayType() || V->hasGlobalStorage())
    return;
  if (Reported.insert(V).second) {
    D.report(Loc, Diag::AddressOfOutsideVariable) << V->getName();
    N.Valid = false;
  }
}

/// Whether E's value is only handed to code the node cannot see (a
/// function without a body): `fprintf(stderr, ...)`. Such code runs on the
/// CPU alone, where the host's global is the one it means.
static bool onlyPassedToUnseenCode(const Expr *E, ASTContext &Ctx) {
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*E);
    const Expr *P = Parents.size() == 1 ? Parents[0].get<Expr>() : nullptr;
    if (!P)
      return false;
    if (isa<ParenExpr, ImplicitCastExpr>(P)) {
      E = P;
      continue;
    }
    const auto *Call = dyn_cast<CallExpr>(P);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    return FD && Call->getCallee() != E && !FD->hasBody() &&
           !isAllowedBuiltin(FD->getName());
  }
}

void KernelChecker::checkRef(DeclRefExpr *E) {
  auto *V = dyn_cast<VarDecl>(E->getDecl());
  if (!V || Local.count(V) || N.isLoopVar(V) || N.isReductionVar(V) ||
      N.buffer(V))
    return;
  QualType T = V->getType();
  // A handle (a FILE *), not data a device could hold.
  if (V->hasGlobalStorage() && T->isPointerType() &&
      !isPlainData(T->getPointeeType(), Ctx) && onlyPassedToUnseenCode(E, Ctx))
    return;
  if (T->isFunctionPointerType())
    return; // calling it is reported
  if (T->isPointerType() && !Local.count(V) && V->hasLocalStorage())
    if (std::optional<WriteRoot> R = rootOf(E, true))
      if (R->Var != V && N.buffer(R->Var))
        return; // derived from a buffer of the node
  if (T->isPointerType() || T->isArrayType()) {
    // Constant tables are constant globals: every device can have a copy.
    if (isConstantTable(V, Ctx))
      return;
    if (!Reported.insert(V).second)
      return;
    if (InCallee) {
      error(E->getLocation(), Diag::GlobalInNode, V->getName().str());
      return;
    }
    // The clause that fits how the node uses it: a buffer it stores into
    // is out() or inout(), in() would be the next error.
    // An array parameter (`double A[N][N]`) is a pointer, but its
    // declaration says how many rows the caller means.
    // Without a declaration that says, the length is the user's to give:
    // every element the node uses (a device gets only those).
    std::string Rows = "len", Where = "";
    if (auto *Parm = dyn_cast<ParmVarDecl>(V))
      if (auto *Declared = Ctx.getAsConstantArrayType(Parm->getOriginalType()))
        Rows = std::to_string(Declared->getSize().getZExtValue());
    if (Rows == "len" && !T->isConstantArrayType())
      Where = ", where len counts every element of '" + V->getName().str() +
              "' the node uses (a device gets only those)";
    std::string Section = T->isConstantArrayType()
                              ? V->getName().str()
                              : V->getName().str() + "[0:" + Rows + "]";
    std::string Hint =
        (writesThrough(V) ? "out(" + Section + ") or inout(" + Section + ")"
                          : "in(" + Section + ")") +
        Where;
    D.report(E->getLocation(), Diag::UnnamedPointer) << V->getName() << Hint;
    N.Valid = false;
    return;
  }
  if (V->hasGlobalStorage() && !T.isConstQualified() &&
      Reported.insert(V).second)
    error(E->getLocation(), Diag::GlobalInNode, V->getName().str());
}

void KernelChecker::checkCall(CallExpr *CE) {
  FunctionDecl *FD = CE->getDirectCallee();
  SourceLocation Loc = CE->getExprLoc();
  // Code the node cannot see (a function pointer, a function defined
  // elsewhere) runs on the CPU only (GPU targets leave the node out, with
  // a remark); what it may write through a pointer it is given must be a
  // buffer the node may write.
  auto CheckUnseen = [&](StringRef Callee) {
    for (unsigned I = 0; I != CE->getNumArgs(); ++I) {
      Expr *Arg = CE->getArg(I);
      if (Arg->getType()->isPointerType() && mayWriteThrough(CE, I))
        checkWrite(Arg, Arg->getBeginLoc(), /*ThroughPointer=*/true, Callee);
    }
  };
  if (!FD) {
    CheckUnseen("a function pointer");
    return;
  }
  StringRef Name = FD->getName();
  if (isSetJmp(Name)) {
    error(Loc, Diag::UnsupportedInNode, ("'" + Name + "'").str());
    return;
  }
  if (isMemFunction(Name)) {
    if (CE->getNumArgs() > 0)
      checkWrite(CE->getArg(0), Loc, true);
    return;
  }
  if (FD->getBuiltinID() && isAllowedBuiltin(Name))
    return;
  if (Name.starts_with("__builtin_alloca")) {
    error(Loc, Diag::UnsupportedInNode, ("'" + Name + "'").str());
    return;
  }
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def) {
    if (isMathFunction(Name))
      return;
    if (Name.starts_with("omp_")) {
      error(Loc, Diag::OpenMPCallInNode, Name.str());
      return;
    }
    CheckUnseen(("'" + Name + "'").str());
    return;
  }
  // Recursion runs on the CPU (GPU targets leave the node out); the
  // function is being checked already.
  if (llvm::is_contained(CallStack, Def))
    return;
  if (WithNodes.count(Def)) {
    error(Loc, Diag::CallNestedGraph, Name.str());
    return;
  }
  if (!Checked.insert(Def).second)
    return;
  // Walk the callee with its own locals; notes point back at the call in
  // the node.
  auto SavedLocal = Local;
  bool SavedInCallee = InCallee;
  SourceLocation SavedSite = CallSite;
  if (!InCallee)
    CallSite = Loc;
  InCallee = true;
  VarDecls Locals;
  Locals.TraverseDecl(const_cast<FunctionDecl *>(Def));
  Local = std::move(Locals.Decls);
  CallStack.push_back(Def);
  walk(Def->getBody(), 0, 0);
  CallStack.pop_back();
  Local = std::move(SavedLocal);
  InCallee = SavedInCallee;
  CallSite = SavedSite;
}

void KernelChecker::walk(Stmt *S, unsigned Loops, unsigned Breakable) {
  if (!S)
    return;
  auto Children = [&] {
    walkChildren(S, Loops, Breakable,
                 [&](Stmt *C, unsigned L, unsigned B) { walk(C, L, B); });
  };
  switch (S->getStmtClass()) {
  case Stmt::ReturnStmtClass:
    if (!InCallee)
      error(S->getBeginLoc(), Diag::UnsupportedInNode, "'return'");
    Children();
    return;
  case Stmt::GotoStmtClass:
  case Stmt::IndirectGotoStmtClass:
    error(S->getBeginLoc(), Diag::UnsupportedInNode, "'goto'");
    return;
  case Stmt::GCCAsmStmtClass:
  case Stmt::MSAsmStmtClass:
    error(S->getBeginLoc(), Diag::UnsupportedInNode, "inline assembly");
    return;
  case Stmt::BreakStmtClass:
    if (!InCallee && Breakable == 0)
      error(S->getBeginLoc(), Diag::UnsupportedInNode,
            N.isParallelFor() ? "'break' out of the parallel loop"
                              : "'break' out of the task");
    return;
  case Stmt::ContinueStmtClass:
    // `continue` in a parallel loop ends the instance: allowed.
    if (!InCallee && Loops == 0 && !N.isParallelFor())
      error(S->getBeginLoc(), Diag::UnsupportedInNode,
            "'continue' out of the task");
    return;
  case Stmt::DeclStmtClass:
    for (Decl *Dcl : cast<DeclStmt>(S)->decls())
      if (auto *V = dyn_cast<VarDecl>(Dcl)) {
        if (V->getType()->isVariablyModifiedType())
          error(V->getLocation(), Diag::ArrayOfVariableLength,
                V->getName().str());
        else if (!V->hasLocalStorage() && !V->hasExternalStorage())
          error(V->getLocation(), Diag::UnsupportedInNode,
                "static variable '" + V->getName().str() + "'");
        walk(V->getInit(), Loops, Breakable);
      }
    return;
  case Stmt::UnaryExprOrTypeTraitExprClass:
    return; // sizeof does not evaluate its operand
  case Stmt::DeclRefExprClass:
    checkRef(cast<DeclRefExpr>(S));
    return;
  case Stmt::CallExprClass:
    checkCall(cast<CallExpr>(S));
    Children();
    return;
  case Stmt::AtomicExprClass: {
    auto *AE = cast<AtomicExpr>(S);
    switch (AE->getOp()) {
    case AtomicExpr::AO__atomic_load:
    case AtomicExpr::AO__atomic_load_n:
    case AtomicExpr::AO__c11_atomic_load:
      break;
    default:
      checkWrite(AE->getPtr(), AE->getExprLoc(), true);
    }
    Children();
    return;
  }
  default:
    break;
  }
  if (auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->isAssignmentOp())
      checkWrite(BO->getLHS(), BO->getExprLoc(), false);
  } else if (auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->isIncrementDecrementOp())
      checkWrite(UO->getSubExpr(), UO->getExprLoc(), false);
    else if (UO->getOpcode() == UO_AddrOf)
      checkAddressOf(UO->getSubExpr(), UO->getExprLoc());
  }
  Children();
}

void Lowering::checkKernel(Node &N) {
  KernelChecker(N, Ctx, D, FunctionsWithNodes).run();
  if (N.Valid)
    checkPrivateReads(N);
}

/// A private() copy starts without a value, as in OpenMP. Where the body
/// may read it before the instance writes it, the copy would hold what an
/// earlier instance left on the same thread (a value carried from one
/// iteration to the next, which the IR verifier would report without a
/// name), so the first such read is pointed out, naming the variable, and
/// the copy starts at 0 instead. A forward must-be-written analysis over
/// the body's CFG (Clang's linearised one, each subexpression an element
/// in evaluation order) finds the reads: a read is an lvalue-to-rvalue
/// conversion of the variable, a write an assignment to it; `++`, `+=`
/// read first; taking its address counts as a write.
void Lowering::checkPrivateReads(Node &N) {
  std::vector<Node::Private *> Unset;
  for (Node::Private &P : N.Privates)
    if (!P.First && namesVar(N.Body, P.Var) && P.Var->hasLocalStorage() &&
        P.Var->getType()->isScalarType())
      Unset.push_back(&P);
  if (Unset.empty())
    return;
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  // A parallel loop's innermost loop, not its body alone, which `continue`
  // would leave for a loop the CFG does not have (each iteration is an
  // instance: the copies are unset at the loop's entry, and so at the
  // body's start).
  Stmt *Root = N.isParallelFor() && !N.Loops.empty()
                   ? static_cast<Stmt *>(N.Loops.back().For)
                   : N.Body;
  std::unique_ptr<CFG> Graph = CFG::buildCFG(N.F, Root, &Ctx, Options);
  if (!Graph)
    return;
  unsigned NumVars = Unset.size();
  auto IndexOf = [&](const Expr *E) -> int {
    if (VarDecl *V = varOf(const_cast<Expr *>(E)))
      for (unsigned I = 0; I != NumVars; ++I)
        if (Unset[I]->Var == V)
          return I;
    return -1;
  };
  // Written[b]: the variables written on every path to block b's start.
  std::vector<llvm::BitVector> Written(Graph->getNumBlockIDs(),
                                       llvm::BitVector(NumVars, true));
  std::vector<SourceLocation> FirstRead(NumVars);
  auto Transfer = [&](const CFGBlock &B, llvm::BitVector State, bool Report) {
    for (const CFGElement &E : B) {
      std::optional<CFGStmt> S = E.getAs<CFGStmt>();
      if (!S)
        continue;
      auto Read = [&](const Expr *X) {
        int I = IndexOf(X);
        if (I >= 0 && !State[I] && Report &&
            (FirstRead[I].isInvalid() || X->getBeginLoc() < FirstRead[I]))
          FirstRead[I] = X->getBeginLoc();
      };
      auto Write = [&](const Expr *X) {
        if (int I = IndexOf(X); I >= 0)
          State.set(I);
      };
      const Stmt *St = S->getStmt();
      if (auto *Cast = dyn_cast<ImplicitCastExpr>(St)) {
        if (Cast->getCastKind() == CK_LValueToRValue)
          Read(Cast->getSubExpr()->IgnoreParens());
      } else if (auto *BO = dyn_cast<BinaryOperator>(St)) {
        if (BO->isCompoundAssignmentOp())
          Read(BO->getLHS()->IgnoreParens());
        if (BO->isAssignmentOp())
          Write(BO->getLHS()->IgnoreParens());
      } else if (auto *UO = dyn_cast<UnaryOperator>(St)) {
        if (UO->isIncrementDecrementOp())
          Read(UO->getSubExpr()->IgnoreParens());
        if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
          Write(UO->getSubExpr()->IgnoreParens());
      }
    }
    return State;
  };
  // Iterate to the fixed point, then report once.
  Written[Graph->getEntry().getBlockID()].reset();
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const CFGBlock *B : *Graph) {
      if (!B || B == &Graph->getEntry())
        continue;
      llvm::BitVector In(NumVars, true);
      bool Reached = false;
      for (const CFGBlock::AdjacentBlock &P : B->preds())
        if (const CFGBlock *Pred = P.getReachableBlock()) {
          In &= Transfer(*Pred, Written[Pred->getBlockID()], false);
          Reached = true;
        }
      if (Reached && In != Written[B->getBlockID()]) {
        Written[B->getBlockID()] = In;
        Changed = true;
      }
    }
  }
  for (const CFGBlock *B : *Graph)
    if (B)
      Transfer(*B, Written[B->getBlockID()], true);
  for (unsigned I = 0; I != NumVars; ++I)
    if (FirstRead[I].isValid()) {
      D.report(FirstRead[I], Diag::PrivateReadFirst)
          << Unset[I]->Var->getName();
      Unset[I]->StartsAtZero = true;
    }
}

/// A data, update or taskwait directive: host code, outside every node; a data
/// statement is a compound statement that control enters and leaves only
/// through its braces; the buffers follow the rules of node clauses, and an
/// update moves each one way.
void Lowering::checkDirective(Node &R) {
  const PragmaInfo &P = *R.P;
  if (R.Parent) {
    D.report(P.HashLoc, Diag::DirectiveInNode) << directiveName(P.Kind);
    R.Parent->Valid = false; // the graph's other errors would be about it
    R.Valid = false;
    return;
  }
  unsigned Errors = D.numErrors();
  if (P.Kind == Directive::Data) {
    if (!isa_and_nonnull<CompoundStmt>(R.S)) {
      D.report(P.HashLoc, Diag::NotCompound) << directiveName(P.Kind);
      R.Valid = false;
      return;
    }
    checkDataJumps(R);
  } else {
    // Where another compiler ignores the pragma, the next statement would
    // take its place as the body.
    DynTypedNodeList Parents = Ctx.getParents(*R.Wrapper);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!isa_and_nonnull<CompoundStmt, LabelStmt, SwitchCase>(Parent))
      D.report(P.HashLoc, Diag::UpdateAsBody) << directiveName(P.Kind);
  }
  if (P.Kind == Directive::TaskWait) {
    R.Valid = D.numErrors() == Errors;
    return;
  }
  GraphLocal.clear();
  if (P.Kind == Directive::Data) {
    analyzeClauses(R);
    R.Valid = D.numErrors() == Errors;
    return;
  }
  // An update moves each item on its own, read by addBuffer as a node's
  // clause, then narrowed to the elements it names: a node's section runs
  // from the buffer's start (docs/c-frontend.md §2), but an update that
  // marked the elements before a section as written by the host would
  // lose what a device wrote there.
  std::map<const VarDecl *, ClauseKind> Named;
  for (const Clause &C : P.Clauses)
    for (const ClauseItem &Item : C.Items) {
      Node One = R;
      One.Buffers.clear();
      addBuffer(One, C, Item);
      if (One.Buffers.empty())
        continue;
      Buffer &B = One.Buffers.front();
      ClauseKind First = Named.insert({B.Var, C.Kind}).first->second;
      if (First != C.Kind) {
        D.report(Item.Loc, Diag::VariableInTwoClauses)
            << B.Var->getName() << clauseName(First) << clauseName(C.Kind);
        continue;
      }
      if (Item.Lo) {
        std::string Offset = "(unsigned long long)(" + Item.Lo->Text +
                             ") * sizeof((" + Item.Base.Text + ")[0])";
        B.PtrText = "(void *)((char *)" + B.PtrText + " + " + Offset + ")";
        B.BytesTexts.front() = "(" + B.BytesTexts.front() + ") - " + Offset;
      }
      R.Buffers.push_back(std::move(B));
    }
  R.Valid = D.numErrors() == Errors;
}

/// The rewrite starts a data region at the statement's '{' and ends it
/// at its '}': jumps past either would skip one of them. Graphs and other
/// directives inside check their own code.
void Lowering::checkDataJumps(Node &R) {
  SourceLocation Begin = SM.getExpansionLoc(R.S->getBeginLoc());
  SourceLocation End = SM.getExpansionRange(R.S->getEndLoc()).getEnd();
  auto Inside = [&](SourceLocation L) {
    L = SM.getExpansionLoc(L);
    return !SM.isBeforeInTranslationUnit(L, Begin) &&
           !SM.isBeforeInTranslationUnit(End, L);
  };
  auto Report = [&](Stmt *S, Diag Id, const char *What) {
    if (JumpsReported.insert(S).second)
      D.report(S->getBeginLoc(), Id) << What;
  };
  std::function<void(Stmt *, unsigned, unsigned)> Walk =
      [&](Stmt *S, unsigned Loops, unsigned Breakable) {
        if (!S || (S != R.S && Wrappers.count(S)))
          return;
        if (isa<ReturnStmt>(S))
          Report(S, Diag::JumpOutOfData, "'return'");
        else if (isa<IndirectGotoStmt>(S))
          Report(S, Diag::JumpOutOfData, "'goto'");
        else if (auto *G = dyn_cast<GotoStmt>(S);
                 G && !Inside(G->getLabel()->getStmt()->getBeginLoc()))
          Report(S, Diag::JumpOutOfData, "'goto'");
        else if (isa<BreakStmt>(S) && Breakable == 0)
          Report(S, Diag::JumpOutOfData, "'break'");
        else if (isa<ContinueStmt>(S) && Loops == 0)
          Report(S, Diag::JumpOutOfData, "'continue'");
        else if (auto *CE = dyn_cast<CallExpr>(S);
                 CE && CE->getDirectCallee() &&
                 isLongJmp(CE->getDirectCallee()->getName()))
          Report(S, Diag::JumpOutOfData, "'longjmp'");
        // Loops count in both: no switch in between is one outside.
        else if (isa<SwitchCase>(S) && Breakable == Loops)
          Report(S, Diag::JumpIntoData, "a 'case' label of a 'switch' outside");
        walkChildren(S, Loops, Breakable, Walk);
      };
  Walk(R.S, 0, 0);

  class Gotos : public RecursiveASTVisitor<Gotos> {
  public:
    std::vector<GotoStmt *> All;
    bool VisitGotoStmt(GotoStmt *G) {
      All.push_back(G);
      return true;
    }
  } Finder;
  Finder.TraverseStmt(R.F->getBody());
  for (GotoStmt *G : Finder.All)
    if (!Inside(G->getGotoLoc()) &&
        Inside(G->getLabel()->getStmt()->getBeginLoc()))
      Report(G, Diag::JumpIntoData, "'goto'");
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

void Lowering::edit(SourceLocation Loc, unsigned Length, std::string Text,
                    int Order) {
  Loc = SM.getExpansionLoc(Loc);
  auto [FID, Offset] = SM.getDecomposedLoc(Loc);
  if (FID.isInvalid()) {
    EditFailed = true;
    return;
  }
  Edits[FID].push_back({Offset, Length, std::move(Text), Order});
}

SourceLocation Lowering::lastTokenLoc(Stmt *S) {
  if (auto *CS = dyn_cast<CompoundStmt>(S))
    return CS->getRBracLoc();
  if (auto *F = dyn_cast<ForStmt>(S))
    return lastTokenLoc(F->getBody());
  if (auto *W = dyn_cast<WhileStmt>(S))
    return lastTokenLoc(W->getBody());
  if (auto *I = dyn_cast<IfStmt>(S))
    return lastTokenLoc(I->getElse() ? I->getElse() : I->getThen());
  if (auto *SW = dyn_cast<SwitchStmt>(S))
    return lastTokenLoc(SW->getBody());
  if (auto *SC = dyn_cast<SwitchCase>(S))
    return lastTokenLoc(SC->getSubStmt());
  if (auto *L = dyn_cast<LabelStmt>(S))
    return lastTokenLoc(L->getSubStmt());
  if (auto *NS = dyn_cast<NullStmt>(S))
    return NS->getSemiLoc();
  // Expression statements, do-while, return, break...: the range ends
  // before the ';'.
  SourceLocation End = SM.getExpansionRange(S->getEndLoc()).getEnd();
  if (std::optional<Token> Next = Lexer::findNextToken(End, SM, LO))
    if (Next->is(tok::semi))
      return Next->getLocation();
  return End;
}

void Lowering::insertAfterStmt(Stmt *S, std::string Text, int Order) {
  SourceLocation Last = SM.getExpansionRange(lastTokenLoc(S)).getEnd();
  edit(Lexer::getLocForEndOfToken(Last, 0, SM, LO), 0, std::move(Text), Order);
}

void Lowering::insertBeforeStmt(Stmt *S, std::string Text, int Order) {
  edit(S->getBeginLoc(), 0, std::move(Text), Order);
}

std::string Lowering::sourceText(SourceRange R) {
  CharSourceRange CR =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (CR.isInvalid()) {
    EditFailed = true;
    return "0";
  }
  return Lexer::getSourceText(CR, SM, LO).str();
}

unsigned Lowering::newlinesIn(SourceLocation B, SourceLocation E) {
  auto [FB, OB] = SM.getDecomposedLoc(SM.getExpansionLoc(B));
  auto [FE, OE] = SM.getDecomposedLoc(SM.getExpansionLoc(E));
  if (FB != FE || OE < OB)
    return 0;
  StringRef Buf = SM.getBufferData(FB);
  return Buf.substr(OB, OE - OB).count('\n');
}

/// Temporaries of loop bounds; hoisted ones go before the graph, the others
/// to the node's own pragma.
std::string Lowering::tempsFor(Node &N, bool Hoisted) {
  std::string Out;
  for (Loop &L : N.Loops) {
    if (L.Hoisted != Hoisted)
      continue;
    L.Temp = NextTemp++;
    std::string K = std::to_string(L.Temp);
    std::string UB = sourceText(L.UB->getSourceRange());
    // Instance ids are signed 64-bit: an unsigned trip count above that is
    // an error before the graph starts (not a negative extent, which would
    // run no instances).
    std::string CheckTrips =
        L.UnsignedTrips && Hoisted
            ? "if ((unsigned long long)__hpvm_t" + K +
                  " > 9223372036854775807ull) "
                  "hpvm_exit_on_error(hpvm_extent_error(\"" +
                  N.Name + "\", (unsigned long long)__hpvm_t" + K + ")); "
            : "";
    if (L.Keep) {
      // A bound below 0 is an extent below 0, which runs no instances, as
      // the loop runs no iterations.
      Out += "__typeof__((" + UB + ")) __hpvm_t" + K + " = (" + UB + "); " +
             CheckTrips;
      continue;
    }
    std::string W = L.Var->getType()->isUnsignedIntegerType()
                        ? "unsigned long long"
                        : "long long";
    std::string LB = sourceText(L.LB->getSourceRange());
    if (L.Outer) {
      // The bounds' range over the enclosing loop: affine, so the extremes
      // are at its first and last values.
      Loop &O = N.Loops[L.OuterIndex];
      std::string OK = std::to_string(O.Temp);
      std::string OT =
          O.Var->getType().getCanonicalType().getUnqualifiedType().getAsString(
              PrintingPolicy(LO));
      bool OUp =
          O.Op == BO_LT || O.Op == BO_LE || (O.Op == BO_NE && O.Step > 0);
      std::string First = O.Keep ? "0" : "__hpvm_lb" + OK;
      std::string Last = "(" + First + (OUp ? " + " : " - ") + "(__hpvm_t" +
                         OK + " - 1) * " +
                         std::to_string(O.Step < 0 ? -O.Step : O.Step) + ")";
      auto At = [&](const std::string &Value, const std::string &E) {
        return "({ " + OT + " " + O.Var->getName().str() + " = (" + OT + ")(" +
               Value + "); (" + W + ")(" + E + "); })";
      };
      auto Pick = [&](const std::string &E, const char *Cmp) {
        std::string A = At(First, E), B = At(Last, E);
        return "(" + A + " " + Cmp + " " + B + " ? " + A + " : " + B + ")";
      };
      LB = Pick(LB, "<");
      UB = Pick(UB, ">");
    }
    std::string Lo = "__hpvm_lb" + K, Hi = "__hpvm_ub" + K;
    bool Up = L.Op == BO_LT || L.Op == BO_LE || (L.Op == BO_NE && L.Step > 0);
    bool Inclusive = L.Op == BO_LE || L.Op == BO_GE;
    std::string S = std::to_string(L.Step < 0 ? -L.Step : L.Step);
    std::string From = Up ? Lo : Hi, To = Up ? Hi : Lo; // From <= To: runs
    std::string Trips =
        Inclusive ? "(" + To + " - " + From + ") / " + S + " + 1"
                  : "(" + To + " - " + From + " + " + S + " - 1) / " + S;
    Out += W + " " + Lo + " = (" + W + ")(" + LB + "); " + W + " " + Hi +
           " = (" + W + ")(" + UB + "); " + W + " __hpvm_t" + K + " = " + From +
           (Inclusive ? " <= " : " < ") + To + " ? " + Trips + " : 0; " +
           CheckTrips;
  }
  return Out;
}

/// The byte-size temporaries of N's buffers (after its children's).
std::string Lowering::bufferTemps(Node &N) {
  std::string Out;
  for (Node *C : N.Children)
    Out += bufferTemps(*C);
  for (Buffer &B : N.Buffers) {
    std::vector<std::string> Parts;
    for (const std::string &Text : B.BytesTexts) {
      std::string T = "__hpvm_b" + std::to_string(NextTemp++);
      Out += "unsigned long long " + T + " = " + Text + "; ";
      Parts.push_back(T);
    }
    for (const Buffer *CB : B.FromChildren)
      if (!CB->PerInstance && !llvm::is_contained(Parts, CB->BytesTemp))
        Parts.push_back(CB->BytesTemp);
    std::string Result = Parts.front();
    for (size_t I = 1; I < Parts.size(); ++I) {
      std::string T = "__hpvm_b" + std::to_string(NextTemp++);
      Out += "unsigned long long " + T + " = " + Result + " > " + Parts[I] +
             " ? " + Result + " : " + Parts[I] + "; ";
      Result = T;
    }
    B.BytesTemp = Result;
  }
  return Out;
}

std::string Lowering::beginCall(Node &N) {
  RegionShape R;
  R.Name = N.Name;
  // With array reductions the node is the parent of its chunks (below).
  if (!N.Chunked)
    for (Loop &L : N.Loops)
      R.Extents.push_back("__hpvm_t" + std::to_string(L.Temp));
  for (Buffer &B : N.Buffers)
    R.Buffers.push_back({B.Access, B.PtrText, B.BytesTemp});
  return beginCall(N, R);
}

std::string Lowering::beginCall(Node &N, const RegionShape &R) {
  std::string Call = "__hpvm_region_begin(\"" + R.Name + "\"";
  if (!R.Extents.empty()) {
    Call += ", 1, " + std::to_string(R.Extents.size());
    for (const std::string &E : R.Extents)
      Call += ", " + E;
  }
  for (unsigned Mode :
       {unsigned(Read), unsigned(Write), unsigned(Read | Write)}) {
    const char *Tag = Mode == Read ? "2" : Mode == Write ? "3" : "4";
    for (const RegionShape::Buf &B : R.Buffers)
      if (B.Access == Mode)
        Call += std::string(", ") + Tag + ", " + B.Ptr + ", " + B.Bytes;
  }
  if (R.Own)
    for (auto &[V, Text] : N.Values)
      Call += ", 5, (" + Text + ")";
  if (N.Targets)
    Call += ", 6, " + std::to_string(N.Targets);
  if (R.Own) {
    for (Node *A : N.After)
      Call += ", 7, __hpvm_r" + std::to_string(A->Id);
    if (N.P->find(ClauseKind::NoWait))
      Call += ", 8";
  }
  if (N.Sequential)
    Call += ", 9";
  return Call + ", 0)";
}

namespace {

/// The value an array reduction's private copies start at.
std::string identityOf(ReductionOp Op, QualType Elem, const std::string &T) {
  // The largest value of a signed integer type of sizeof(T) bytes.
  std::string SMax = "(~0ull >> (65 - 8 * sizeof(" + T + ")))";
  switch (Op) {
  case ReductionOp::Add:
  case ReductionOp::Or:
  case ReductionOp::Xor:
    return "(" + T + ")0";
  case ReductionOp::Mul:
  case ReductionOp::LogicalAnd:
    return "(" + T + ")1";
  case ReductionOp::LogicalOr:
    return "(" + T + ")0";
  case ReductionOp::And:
    return "(" + T + ")~(" + T + ")0";
  case ReductionOp::Min:
    if (Elem->isFloatingType())
      return "(" + T + ")__builtin_inf()";
    if (Elem->isSignedIntegerType())
      return "(" + T + ")" + SMax;
    return "(" + T + ")~(" + T + ")0";
  case ReductionOp::Max:
    if (Elem->isFloatingType())
      return "(" + T + ")-__builtin_inf()";
    if (Elem->isSignedIntegerType())
      return "(" + T + ")(-(long long)" + SMax + " - 1)";
    return "(" + T + ")0";
  }
  return "";
}

/// A op B, as C.
std::string combined(ReductionOp Op, const std::string &A,
                     const std::string &B) {
  switch (Op) {
  case ReductionOp::Add:
    return A + " + " + B;
  case ReductionOp::Mul:
    return A + " * " + B;
  case ReductionOp::And:
    return A + " & " + B;
  case ReductionOp::Or:
    return A + " | " + B;
  case ReductionOp::Xor:
    return A + " ^ " + B;
  case ReductionOp::LogicalAnd:
    return A + " && " + B;
  case ReductionOp::LogicalOr:
    return A + " || " + B;
  case ReductionOp::Min:
    return B + " < " + A + " ? " + B + " : " + A;
  case ReductionOp::Max:
    return B + " > " + A + " ? " + B + " : " + A;
  }
  return "";
}

} // namespace

/// Host code before the graph for a node with array reductions: how many
/// chunks and copies the runtime gives it (hpvm_private_copies, one block
/// of memory for all), and where each reduction's copies lie in the block.
/// Every copy spans its array from the start to the section's end, so that
/// the loop nest indexes it as it indexes the array; all copies of a node
/// have the width of the longest (__hpvm_w, one kernel parameter rather
/// than one per array: Vulkan's push constants are few), and chunk k's copy
/// of array r starts k * width elements into __hpvm_m<r>.
std::string Lowering::privateCopies(Node &N) {
  if (!N.Chunked)
    return "";
  std::string Id = std::to_string(N.Id);
  std::string Width = "__hpvm_w" + Id, Out = "long long " + Width + " = 0; ";
  std::string PerCopy = "0", Reductions;
  for (Reduction &R : N.Reductions) {
    if (!R.Array)
      continue;
    std::string Elem = "sizeof((" + R.Var->getName().str() + ")[0])";
    std::string E = "__hpvm_we" + R.Suffix;
    Out += "long long " + E + " = (long long)((unsigned long long)(" +
           R.BytesText + ") / " + Elem + "); if (" + E + " > " + Width + ") " +
           Width + " = " + E + "; ";
    // Each array's copies start 16-byte aligned.
    PerCopy += " + " + Width + " * " + Elem + " + 16";
  }
  std::string Iterations = "__hpvm_t" + std::to_string(N.Loops[0].Temp);
  // The call's results are copied to variables whose address is not
  // taken: the nodes name them as values and buffers.
  Out += "unsigned long long __hpvm_cu" + Id + "; void *__hpvm_mu" + Id +
         "; hpvm_exit_on_error(hpvm_private_copies((long long)" + Iterations +
         " > 0 ? (unsigned long long)" + Iterations + " : 0ull, " + PerCopy +
         ", &__hpvm_cu" + Id + ", &__hpvm_mu" + Id + ")); long long __hpvm_c" +
         Id + " = (long long)__hpvm_cu" + Id + "; ";
  std::string At = "(char *)__hpvm_mu" + Id;
  for (Reduction &R : N.Reductions) {
    if (!R.Array)
      continue;
    const std::string &S = R.Suffix;
    Out += "void *__hpvm_m" + S + " = " + At + "; long long __hpvm_l" + S +
           " = (long long)(" + R.LoText + "); long long __hpvm_n" + S +
           " = (long long)(" + R.LenText + "); ";
    At = "(char *)__hpvm_m" + S + " + ((__hpvm_cu" + Id + " * " + Width +
         " * sizeof((" + R.Var->getName().str() + ")[0]) + 15) & ~15ull)";
  }
  return Out;
}

/// A node with array reductions is an internal node of the same name with
/// children `partial` — the loop nest, its outer loop split in chunks,
/// each chunk working on its own copies of the arrays — and `combine_<a>`
/// per array, which folds the copies into the array in chunk order (no
/// atomics, the same result on every device). The pragma line opens the
/// nodes and a chunk; the statement's end closes them (the copies start
/// at the operator's identity, so the array's value before takes part).
std::string Lowering::rewriteChunks(Node &N) {
  std::string Id = std::to_string(N.Id);
  std::string C = "__hpvm_c" + Id, K = "__hpvm_k" + Id;
  Loop &L = N.Loops.front();
  std::string T0 = "__hpvm_t" + std::to_string(L.Temp);
  std::string W = L.Var->getType()->isUnsignedIntegerType()
                      ? "unsigned long long"
                      : "long long";

  RegionShape Partial;
  Partial.Name = "partial";
  Partial.Extents = {C};
  // The arrays are the combining nodes' only; the chunks write copies.
  for (Buffer &Buf : N.Buffers) {
    bool IsCopies = llvm::any_of(
        N.Reductions, [&](const Reduction &R) { return R.Copies == Buf.Var; });
    if (!N.isArrayReductionVar(Buf.Var))
      Partial.Buffers.push_back(
          {IsCopies ? Write : Buf.Access, Buf.PtrText, Buf.BytesTemp});
  }
  Partial.Own = false;

  // Chunk k runs iterations [kb, ke) of the outer loop, the first `rem`
  // chunks one more than the others.
  std::string Its = "(" + T0 + " > 0 ? (unsigned long long)" + T0 + " : 0ull)";
  std::string Q = "__hpvm_q" + Id, Rem = "(long long)__hpvm_rem" + Id;
  std::string Open =
      "void *__hpvm_p" + Id + " = " + beginCall(N, Partial) +
      "; for (long long " + K + " = 0; " + K + " < " + C + "; ++" + K +
      ") { unsigned long long " + Q + " = " + Its + " / " + C + ", __hpvm_rem" +
      Id + " = " + Its + " % " + C + "; " + W + " __hpvm_kb" + Id + " = (" + W +
      ")(" + K + " * " + Q + " + (" + K + " < " + Rem + " ? " + K + " : " +
      Rem + ")); " + W + " __hpvm_ke" + Id + " = __hpvm_kb" + Id + " + (" + W +
      ")" + Q + " + (" + K + " < " + Rem + "); ";
  std::string Shadows, Close = "} } __hpvm_region_end(__hpvm_p" + Id + "); ";
  for (Reduction &R : N.Reductions) {
    if (!R.Array)
      continue;
    std::string X = R.Var->getName().str();
    const std::string &S = R.Suffix;
    std::string T = "__typeof__((" + X + ")[0])";
    std::string Copies = "((" + T + " *)__hpvm_m" + S + ")";
    std::string Width = "__hpvm_w" + Id, Lo = "__hpvm_l" + S,
                Len = "__hpvm_n" + S, E = "__hpvm_e" + S, Row = "__hpvm_y" + S;
    Open += T + " *" + Row + " = " + Copies + " + " + K + " * " + Width +
            "; for (long long " + E + " = 0; " + E + " < " + Width + "; ++" +
            E + ") " + Row + "[" + E + "] = " + identityOf(R.Op, R.Elem, T) +
            "; ";
    // The array's name in the loop nest is the chunk's copy.
    Shadows += T + " *" + X + " = " + Row + "; ";

    Buffer *Shared = N.buffer(R.Var);
    Buffer *Mine = N.buffer(R.Copies);
    RegionShape Combine;
    Combine.Name = "combine_" + X;
    Combine.Extents = {Len};
    Combine.Buffers = {{Read, Mine->PtrText, Mine->BytesTemp},
                       {Read | Write, Shared->PtrText, Shared->BytesTemp}};
    Combine.Own = false;
    std::string Acc = "__hpvm_a" + S, Ch = "__hpvm_j" + S,
                At = "(" + Lo + " + " + E + ")";
    Close += "{ void *__hpvm_g" + S + " = " + beginCall(N, Combine) +
             "; for (long long " + E + " = 0; " + E + " < " + Len + "; ++" + E +
             ") { " + T + " " + Acc + " = (" + X + ")[" + At +
             "]; for (long long " + Ch + " = 0; " + Ch + " < " + C + "; ++" +
             Ch + ") " + Acc + " = " +
             combined(R.Op, Acc,
                      Copies + "[" + Ch + " * " + Width + " + " + At + "]") +
             "; (" + X + ")[" + At + "] = " + Acc +
             "; } __hpvm_region_end(__hpvm_g" + S + "); } ";
  }
  // After the chunk's scalar reductions' epilogue, before the node's end.
  insertAfterStmt(N.S, " " + Close, 1000 - 10 * N.Depth - 1);
  return Open + "{ " + Shadows;
}

/// The loop headers, and the prologue/epilogue of the innermost body:
/// normalised loop variables and reductions.
void Lowering::rewriteLoops(Node &N) {
  std::string Prologue, Epilogue;
  PrintingPolicy Policy(LO);
  for (const Node::Private &P : N.Privates) {
    if (!namesVar(N.Body, P.Var))
      continue;
    std::string X = P.Var->getName().str();
    std::string Ty = "__typeof__(" + X + ")";
    if (!P.First) {
      Prologue += Ty + " " + X + (P.StartsAtZero ? " = 0; " : "; ");
      continue;
    }
    // `T x = x;` would read the new x: through a temporary, made before
    // the node for a local (firstPrivateTemps), here for a global (the node
    // reads it as an in() buffer).
    std::string Tmp = P.Temp;
    if (Tmp.empty()) {
      Tmp = "__hpvm_fp" + std::to_string(NextTemp++);
      Prologue += Ty + " " + Tmp + " = " + X + "; ";
    }
    Prologue += Ty + " " + X + " = " + Tmp + "; ";
  }
  for (Loop &L : N.Loops) {
    std::string K = std::to_string(L.Temp);
    if (L.Keep) {
      SourceRange R = L.UB->getSourceRange();
      CharSourceRange CR =
          Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
      if (CR.isInvalid()) {
        EditFailed = true;
        continue;
      }
      unsigned Len =
          SM.getFileOffset(CR.getEnd()) - SM.getFileOffset(CR.getBegin());
      edit(CR.getBegin(), Len, "__hpvm_t" + K, 500);
      continue;
    }
    bool Unsigned = L.Var->getType()->isUnsignedIntegerType();
    std::string W = Unsigned ? "unsigned long long" : "long long";
    std::string IV = "__hpvm_iv" + K;
    SourceLocation B = SM.getExpansionLoc(L.For->getForLoc());
    SourceLocation E = SM.getExpansionLoc(L.For->getRParenLoc());
    unsigned Len = SM.getFileOffset(E) + 1 - SM.getFileOffset(B);
    // A chunk of a node with array reductions runs part of the outer loop.
    std::string From = "0", To = "__hpvm_t" + K;
    if (N.Chunked && &L == &N.Loops.front()) {
      From = "__hpvm_kb" + std::to_string(N.Id);
      To = "__hpvm_ke" + std::to_string(N.Id);
    }
    edit(B, Len,
         "for (" + W + " " + IV + " = " + From + "; " + IV + " < " + To +
             "; ++" + IV + ")" + std::string(newlinesIn(B, E), '\n'),
         500);
    bool Up = L.Op == BO_LT || L.Op == BO_LE || (L.Op == BO_NE && L.Step > 0);
    std::string S = std::to_string(L.Step < 0 ? -L.Step : L.Step);
    // The canonical type: a typedef's name could be hidden where the
    // declaration lands.
    std::string T =
        L.Var->getType().getCanonicalType().getUnqualifiedType().getAsString(
            Policy);
    Prologue += T + " " + L.Var->getName().str() + " = (" + T + ")(__hpvm_lb" +
                K + (Up ? " + " : " - ") + IV + " * " + S + "); ";
    // An instance of the bounding box outside this row's bounds does
    // nothing (`continue` ends the instance).
    if (L.Outer)
      Prologue += "if (!(" + L.Var->getName().str() + " >= (" +
                  sourceText(L.LB->getSourceRange()) + ") && " +
                  L.Var->getName().str() + (L.Op == BO_LE ? " <= (" : " < (") +
                  sourceText(L.UB->getSourceRange()) + "))) continue; ";
  }
  for (Reduction &R : N.Reductions) {
    // Array reductions: rewriteChunks. A variable the body cannot name (a
    // loop variable of the same name hides it) keeps its value.
    if (R.Array || !namesVar(N.Body, R.Var))
      continue;
    std::string X = R.Var->getName().str();
    std::string P = "__hpvm_x" + std::to_string(NextTemp++);
    std::string Ty = "__typeof__(" + X + ")";
    // Each instance works on a private copy that starts at the operator's
    // identity (min/max: at the shared value, which is as good), then
    // combines it into the shared variable atomically.
    Prologue += Ty + " *" + P + " = &(" + X + "); " + Ty + " " + X;
    switch (R.Op) {
    case ReductionOp::Add:
    case ReductionOp::Or:
    case ReductionOp::Xor:
      Prologue += " = 0; ";
      break;
    case ReductionOp::Mul:
    case ReductionOp::LogicalAnd:
      Prologue += " = 1; ";
      break;
    case ReductionOp::LogicalOr:
      Prologue += " = 0; ";
      break;
    case ReductionOp::And:
      Prologue += " = (" + Ty + ")~(" + Ty + ")0; ";
      break;
    case ReductionOp::Min:
    case ReductionOp::Max:
      Prologue += "; __atomic_load(" + P + ", &" + X + ", __ATOMIC_RELAXED); ";
      break;
    }
    const char *Fetch = nullptr;
    switch (R.Op) {
    case ReductionOp::Add:
      Fetch = "add";
      break;
    case ReductionOp::And:
      Fetch = "and";
      break;
    case ReductionOp::Or:
      Fetch = "or";
      break;
    case ReductionOp::Xor:
      Fetch = "xor";
      break;
    case ReductionOp::Min:
      Fetch = "min";
      break;
    case ReductionOp::Max:
      Fetch = "max";
      break;
    case ReductionOp::Mul:
    case ReductionOp::LogicalAnd:
    case ReductionOp::LogicalOr:
      break;
    }
    if (isLogical(R.Op)) {
      // The shared value becomes 0 or 1 as OpenMP's `x = x && p` makes it:
      // an instance whose copy decides the result stores it (all such
      // stores store the same value), any other one turns a shared value
      // other than 0 or 1 into 1, once, by compare-and-swap (a _Bool needs
      // none).
      bool And = R.Op == ReductionOp::LogicalAnd;
      std::string Decides = And ? "!(" + X + ")" : "(" + X + ")";
      std::string Result = And ? "0" : "1";
      Epilogue +=
          "if (" + Decides + ") *" + P + " = (" + Ty + ")" + Result + "; ";
      if (!R.Var->getType()->isBooleanType())
        Epilogue += "else { " + Ty + " __hpvm_old, __hpvm_one = (" + Ty +
                    ")1; __atomic_load(" + P +
                    ", &__hpvm_old, __ATOMIC_RELAXED); if (__hpvm_old != (" +
                    Ty + ")0 && __hpvm_old != (" + Ty +
                    ")1) __atomic_compare_exchange(" + P +
                    ", &__hpvm_old, &__hpvm_one, 0, __ATOMIC_RELAXED, "
                    "__ATOMIC_RELAXED); } ";
    } else if (Fetch) {
      Epilogue += std::string("__atomic_fetch_") + Fetch + "(" + P + ", " + X +
                  ", __ATOMIC_RELAXED); ";
    } else {
      // No atomic multiply anywhere: a compare-and-swap loop.
      Epilogue += "{ " + Ty + " __hpvm_old, __hpvm_new; __atomic_load(" + P +
                  ", &__hpvm_old, __ATOMIC_RELAXED); do { __hpvm_new = "
                  "__hpvm_old * " +
                  X + "; } while (!__atomic_compare_exchange(" + P +
                  ", &__hpvm_old, &__hpvm_new, 0, __ATOMIC_RELAXED, "
                  "__ATOMIC_RELAXED)); } ";
    }
  }
  if (Prologue.empty())
    return;
  // `continue` in the body must still reach the combining code.
  if (!Epilogue.empty()) {
    Prologue += "do { ";
    Epilogue = "} while (0); " + Epilogue;
  }
  // A block of its own around the body, so that the body's own
  // declarations hide the copies (`private(t)` and `{ double t = ...`), as
  // any inner block's would.
  int Open = 10 * N.Depth + 5, Close = 1000 - 10 * N.Depth - 5;
  insertBeforeStmt(N.Body, "{ " + Prologue, Open);
  insertAfterStmt(N.Body, " " + Epilogue + "}", Close);
}

/// Where a firstprivate() copy of V (or a scalar the leaf reads by value)
/// starts from: the memory of V, read as the node starts, where a node of
/// the graph writes V (it must see that write) and for a global of a graph
/// that waits (the kernel reads it through an in() buffer, wherever it
/// runs); otherwise a temporary made when the graph starts (below), which
/// is the value the sequential program has there too, and what a `nowait`
/// graph must take before the host goes on.
bool Lowering::firstPrivateReadsMemory(Node &N, const VarDecl *V) {
  if (GraphWrites.count(V))
    return true;
  Node *Root = &N;
  while (Root->Parent)
    Root = Root->Parent;
  return V->hasGlobalStorage() && !Root->P->find(ClauseKind::NoWait);
}

/// The temporaries that firstprivate() copies start from: the variable's
/// value when the graph starts, read before it (or at the node's own
/// pragma, for a value the graph computes). Reading it in the kernel would
/// read the variable's memory wherever its address is taken.
std::string Lowering::firstPrivateTemps(Node &N, bool Hoisted) {
  std::string Out;
  for (Node::Private &P : N.Privates) {
    if (!P.First || firstPrivateReadsMemory(N, P.Var) ||
        isGraphLocal(P.Var) != !Hoisted || !namesVar(N.Body, P.Var))
      continue;
    std::string X = P.Var->getName().str();
    P.Temp = "__hpvm_fp" + std::to_string(NextTemp++);
    Out += "__typeof__(" + X + ") " + P.Temp + " = " + X + "; ";
  }
  return Out;
}

/// The pragma's lines become Text, with as many line breaks as they had,
/// so that every line after keeps its number.
void Lowering::replacePragmaLine(const PragmaInfo &P, std::string Text) {
  Text += std::string(newlinesIn(P.HashLoc, P.EndLoc), '\n');
  unsigned Len = SM.getFileOffset(SM.getExpansionLoc(P.EndLoc)) -
                 SM.getFileOffset(SM.getExpansionLoc(P.HashLoc));
  edit(P.HashLoc, Len, std::move(Text), 500);
}

void Lowering::generate(Node &Root) {
  std::vector<Node *> Order; // pre-order
  std::function<void(Node &)> Collect = [&](Node &N) {
    Order.push_back(&N);
    for (Node *C : N.Children)
      Collect(*C);
  };
  Collect(Root);

  std::string Hoisted, Frees;
  for (Node *N : Order)
    Hoisted += tempsFor(*N, /*Hoisted=*/true) +
               firstPrivateTemps(*N, /*Hoisted=*/true);
  for (Node *N : Order) {
    Hoisted += privateCopies(*N);
    if (N->Chunked)
      Frees += " __builtin_free(__hpvm_mu" + std::to_string(N->Id) + ");";
  }
  Hoisted += bufferTemps(Root);
  std::string Handles;
  for (Node *N : Order)
    if (N != &Root)
      Handles += (Handles.empty() ? "void *" : ", *") +
                 std::string("__hpvm_r") + std::to_string(N->Id);
  if (!Handles.empty())
    Handles += "; ";

  for (Node *N : Order) {
    const PragmaInfo &P = *N->P;
    std::string Text = "{ ";
    if (N == &Root)
      Text += Handles + Hoisted;
    Text += tempsFor(*N, /*Hoisted=*/false) +
            firstPrivateTemps(*N, /*Hoisted=*/false);
    Text += (N == &Root ? "void *" : "") + std::string("__hpvm_r") +
            std::to_string(N->Id) + " = " + beginCall(*N) + ";";
    if (N->Chunked)
      Text += " " + rewriteChunks(*N);
    // A loop run in order has no pragma line: its text goes before it.
    if (N->Sequential)
      edit(P.HashLoc, 0, Text, 499);
    else
      replacePragmaLine(P, Text);
    rewriteLoops(*N);
    insertAfterStmt(N->S,
                    " __hpvm_region_end(__hpvm_r" + std::to_string(N->Id) +
                        ");" + (N == &Root ? Frees : "") + " }",
                    1000 - 10 * N->Depth);
  }
}

/// A data statement: each buffer's pointer and size evaluated once, then
/// hpvm_data_enter for each, and after the statement hpvm_data_exit for
/// each in reverse order. An update: hpvm_data_request (host()) or
/// hpvm_data_update (device()) for each buffer. Buffers of no bytes (an
/// empty or negative section) are skipped: the runtime enters none. A
/// taskwait: hpvm_wait_all.
void Lowering::generateDirective(Node &R) {
  const PragmaInfo &P = *R.P;
  if (P.Kind == Directive::TaskWait) {
    replacePragmaLine(P, "hpvm_exit_on_error(hpvm_wait_all());");
    return;
  }
  std::string Text = "{ " + bufferTemps(R), Calls, Exits;
  for (Buffer &B : R.Buffers) {
    std::string If = "if ((long long)" + B.BytesTemp + " > 0) ";
    auto Call = [&](const char *Fn, const std::string &Args) {
      return If + "hpvm_exit_on_error(hpvm_data_" + Fn + "(" + Args + ")); ";
    };
    if (P.Kind == Directive::Update) {
      Calls += Call(B.Access == Read ? "request" : "update",
                    B.PtrText + ", " + B.BytesTemp);
      continue;
    }
    std::string Ptr = "__hpvm_p" + std::to_string(NextTemp++);
    Text += "void *" + Ptr + " = " + B.PtrText + "; ";
    Calls += Call("enter", Ptr + ", " + B.BytesTemp);
    Exits = Call("exit", Ptr) + Exits;
  }
  replacePragmaLine(P, Text + Calls + (P.Kind == Directive::Update ? "}" : ""));
  if (P.Kind == Directive::Data)
    insertAfterStmt(R.S, " " + Exits + "}", 1000);
}

void Lowering::run(const PragmaTable &Table, std::vector<RewrittenFile> &Out) {
  WrapperFinder Finder(Table, Nodes, Directives, LoopPragmas);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  FunctionsWithNodes = Finder.FunctionsWithNodes;
  if (Nodes.empty() && Directives.empty())
    return;
  for (auto *List : {&Nodes, &Directives})
    for (auto &N : *List)
      Wrappers.insert(N->Wrapper);
  for (auto &R : Directives)
    checkDirective(*R);

  for (auto &NPtr : Nodes) {
    Node &Root = *NPtr;
    if (Root.Parent)
      continue;
    std::vector<Node *> Graph;
    std::function<void(Node &)> Collect = [&](Node &N) {
      Graph.push_back(&N);
      for (Node *C : N.Children)
        Collect(*C);
    };
    Collect(Root);

    for (Node *N : Graph)
      analyzeStructure(*N);
    if (!llvm::all_of(Graph, [](Node *N) { return N->Valid; }))
      continue;
    GraphLocal.clear();
    VarDecls Inside;
    Inside.TraverseStmt(Root.S);
    GraphLocal.insert(Inside.Decls.begin(), Inside.Decls.end());
    for (Node *N : Graph)
      for (Loop &L : N->Loops)
        GraphLocal.insert(L.Var);

    for (Node *N : Graph)
      checkChildren(*N);
    for (Node *N : Graph)
      if (N->Valid)
        analyzeClauses(*N);
    for (Node *N : Graph)
      if (N->Valid) {
        checkExtents(*N);
        resolveAfter(*N);
        if (N->Valid)
          checkArrayReductions(*N);
      }
    // Sibling names: after() refers to them, and node paths must be unique.
    for (Node *N : Graph) {
      std::map<std::string, Node *> Seen;
      for (Node *C : N->Children) {
        auto [It, New] = Seen.insert({C->Name, C});
        if (!New && C->ExplicitName) {
          D.report(C->NameLoc, Diag::DuplicateName) << C->Name;
          D.report(It->second->NameLoc, Diag::NotePreviousNode) << C->Name;
          C->Valid = false;
        }
      }
    }
    if (!llvm::all_of(Graph, [](Node *N) { return N->Valid; }))
      continue;
    // Scalars some node of the graph writes (out(), inout(), reduction()):
    // a node that reads one reads it from memory, after the writer.
    GraphWrites.clear();
    for (Node *N : Graph) {
      for (const Buffer &B : N->Buffers)
        if ((B.Access & Write) && !B.Var->getType()->isArrayType())
          GraphWrites.insert(B.Var);
      for (const Reduction &R : N->Reductions)
        GraphWrites.insert(R.Var);
    }
    for (Node *N : Graph)
      if (N->isLeaf())
        addImplicitBuffers(*N);
    mergeChildBuffers(Root);
    for (Node *N : Graph)
      if (N->isLeaf())
        checkKernel(*N);
    if (!llvm::all_of(Graph, [](Node *N) { return N->Valid; }))
      continue;
    if (D.numErrors() == 0)
      generate(Root);
  }
  for (auto &R : Directives)
    if (R->Valid && D.numErrors() == 0)
      generateDirective(*R);

  if (D.numErrors() || D.engine().hasErrorOccurred())
    return;
  SourceLocation FirstPragma =
      (Nodes.empty() ? Directives : Nodes).front()->P->HashLoc;
  if (EditFailed) {
    D.report(FirstPragma, Diag::InternalRewrite);
    return;
  }
  for (auto &[FID, FileEdits] : Edits) {
    std::stable_sort(
        FileEdits.begin(), FileEdits.end(), [](const Edit &A, const Edit &B) {
          return A.Offset != B.Offset ? A.Offset < B.Offset : A.Order < B.Order;
        });
    StringRef Buf = SM.getBufferData(FID);
    std::string Text;
    unsigned Pos = 0;
    // What each stretch of the new text is: copied from the user's offset
    // on, or inserted at it.
    std::vector<TextStretch> Stretches;
    auto Append = [&](StringRef Part, unsigned UserOffset, bool Inserted) {
      Stretches.push_back(
          {unsigned(Text.size()), unsigned(Part.size()), UserOffset, Inserted});
      Text += Part;
    };
    for (const Edit &E : FileEdits) {
      if (E.Offset < Pos) { // overlapping edits: a bug here, not the user's
        D.report(FirstPragma, Diag::InternalRewrite);
        return;
      }
      Append(Buf.substr(Pos, E.Offset - Pos), Pos, false);
      Append(E.Text, E.Offset, true);
      Pos = E.Offset + E.Length;
    }
    Append(Buf.substr(Pos), Pos, false);
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    RewrittenFile RF;
    RF.Path = FE ? FE->getName().str() : "";
    RF.ChangedLines = changedLines(SM, FID, Text, Stretches);
    RF.Text = std::move(Text);
    for (const RewrittenFile &Prev : Out)
      if (Prev.Path == RF.Path) {
        // The same file included twice, rewritten twice: one text cannot
        // stand for both.
        D.report(SM.getLocForStartOfFile(FID), Diag::PragmaFileIncludedTwice)
            << RF.Path;
        return;
      }
    Out.push_back(std::move(RF));
  }
}

} // namespace

unsigned RewrittenFile::userColumn(unsigned Line, unsigned Col) const {
  auto It = ChangedLines.find(Line);
  if (It == ChangedLines.end() || It->second.empty())
    return Col;
  for (const Piece &P : It->second)
    if (Col >= P.RewrittenColumn && Col < P.RewrittenColumn + P.Length)
      return P.Inserted ? P.Column : P.Column + (Col - P.RewrittenColumn);
  return It->second.back().Column; // past the line's end
}

void LoweringConsumer::HandleTranslationUnit(ASTContext &Ctx) {
  // Clang's own errors first: the AST may be incomplete.
  if (Ctx.getDiagnostics().getClient()->getNumErrors() > Diags.numErrors())
    return;
  Lowering(CI, Ctx, Diags).run(Table, Out);
}

} // namespace hpvm::cfe
