//===- GraphText.cpp - The line-based text form of graphs -----------------===//
//
// One statement per line, so that an error can name its line and a reader in
// another language needs no real parser. Names are always quoted: they are
// arbitrary strings in the model, and quoting keeps spaces, '#' and control
// characters unambiguous. Indices (children, parameters, outputs) are written
// as numbers, not names, because the model itself refers by index and an
// out-of-range index must survive the trip for the verifier to report it.
//
//===----------------------------------------------------------------------===//

#include "hpvm/ir/GraphText.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace hpvm;

namespace {

constexpr std::string_view Header = "hpvm-graphs";
constexpr unsigned FormatVersion = 1;

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

void writeQuoted(std::string &Out, const std::string &S) {
  static const char Hex[] = "0123456789abcdef";
  Out += '"';
  for (unsigned char C : S) {
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += static_cast<char>(C);
    } else if (C == '\n') {
      Out += "\\n";
    } else if (C == '\t') {
      Out += "\\t";
    } else if (C < 0x20 || C == 0x7f) {
      Out += "\\x";
      Out += Hex[C >> 4];
      Out += Hex[C & 15];
    } else {
      Out += static_cast<char>(C);
    }
  }
  Out += '"';
}

std::string extentText(const Extent &E) {
  if (E.isParam())
    return "p" + std::to_string(E.paramIndex());
  return std::to_string(E.value());
}

/// "4*p3+4", "p4", "-2*p1-8", "16": a derived extent.
std::string derivedText(const DerivedExtent &D) {
  if (D.Of == Extent::constant(0) && D.Scale == 1)
    return std::to_string(D.Add); // a constant
  std::string S;
  if (D.Scale != 1)
    S = std::to_string(D.Scale) + "*";
  S += extentText(D.Of);
  if (D.Add)
    S += (D.Add > 0 ? "+" : "") + std::to_string(D.Add);
  return S;
}

/// "p5*id1.0+64": a section offset's terms, joined by '+'.
std::string offsetText(const std::vector<OffsetTerm> &Terms) {
  std::string S;
  for (const OffsetTerm &T : Terms) {
    if (!S.empty())
      S += "+";
    S += extentText(T.Coef);
    if (T.Level)
      S += "*id" + std::to_string(T.Level) + "." + std::to_string(T.Dim);
  }
  return S;
}

std::string targetsText(TargetMask Mask) {
  if (Mask == 0)
    return "none";
  // Names cannot spell unknown bits; a number keeps them for the verifier.
  if (Mask & ~AllTargets) {
    char Buf[16];
    std::snprintf(Buf, sizeof(Buf), "0x%x", static_cast<unsigned>(Mask));
    return Buf;
  }
  return targetsToString(Mask);
}

std::string floatBitsText(double V) {
  uint64_t Bits;
  std::memcpy(&Bits, &V, sizeof(Bits));
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0x%016llx",
                static_cast<unsigned long long>(Bits));
  return Buf;
}

void writeNode(std::string &Out, const Node &N, unsigned Depth) {
  std::string In(2 * Depth + 2, ' ');
  auto Line = [&](const std::string &S) {
    Out += In;
    Out += S;
    Out += '\n';
  };
  auto Quoted = [](const std::string &S) {
    std::string Q;
    writeQuoted(Q, S);
    return Q;
  };

  if (!N.Function.empty())
    Line("function " + Quoted(N.Function));
  if (!N.Dims.empty()) {
    std::string S = "dims";
    for (const Extent &E : N.Dims)
      S += " " + extentText(E);
    Line(S);
  }
  if (N.Sequential)
    Line("sequential");
  if (!N.Group.empty()) {
    std::string S = "group";
    for (const Extent &E : N.Group)
      S += " " + extentText(E);
    Line(S);
  }
  Line("targets " + targetsText(N.Targets));
  for (const Param &P : N.Params) {
    if (P.isBuffer())
      Line("param buffer " + Quoted(P.Name) + " " + toString(P.Mode) + " " +
           extentText(P.Bytes) + (P.WritesAll ? " writes-all" : "") +
           (P.Written ? " writes-rows " + derivedText(P.Written->Start) + ":" +
                            derivedText(P.Written->RowBytes) + ":" +
                            derivedText(P.Written->Stride) + ":" +
                            derivedText(P.Written->Rows)
                      : "") +
           (P.Offset.empty() ? "" : " at " + offsetText(P.Offset)));
    else
      Line("param value " + Quoted(P.Name) + " " + toString(P.Type));
  }
  for (const Output &O : N.Outputs)
    Line("output " + Quoted(O.Name) + " " + toString(O.Type));
  for (const auto &C : N.Children) {
    Line(std::string("node ") + (C->isLeaf() ? "leaf " : "internal ") +
         Quoted(C->name()));
    writeNode(Out, *C, Depth + 1);
    Line("end");
  }
  for (const Edge &E : N.Edges) {
    std::string S = std::string("edge ") + toString(E.Kind) + " " +
                    std::to_string(E.Src) + " ";
    if (E.Kind != EdgeKind::Dependency)
      S += std::to_string(E.SrcOutput) + " ";
    S += std::to_string(E.Dst);
    if (E.Kind != EdgeKind::Dependency)
      S += " " + std::to_string(E.DstParam);
    if (E.Kind == EdgeKind::Streaming)
      S += " " + std::to_string(E.Capacity);
    Line(S);
  }
  for (const Binding &B : N.Bindings) {
    std::string S = "bind " + std::to_string(B.Child) + " " +
                    std::to_string(B.ChildParam) + " ";
    if (B.From == Binding::Source::ParentParam)
      S += "param " + std::to_string(B.ParentParam);
    else if (B.IsFloat)
      S += "floatbits " + floatBitsText(B.FloatValue);
    else
      S += "int " + std::to_string(B.IntValue);
    Line(S);
  }
  for (const OutputBinding &B : N.OutputBindings)
    Line("outbind " + std::to_string(B.ParentOutput) + " " +
         std::to_string(B.Child) + " " + std::to_string(B.ChildOutput));
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

class Reader {
public:
  explicit Reader(std::string_view Text) : Text(Text) {}

  std::vector<Graph> read() {
    std::vector<Graph> Graphs;
    bool SawHeader = false;
    // The nodes whose bodies are open, innermost last.
    std::vector<Node *> Open;
    // Per open node: which once-only statements it has had.
    struct Seen {
      bool Function = false, Dims = false, Sequential = false, Targets = false,
           Group = false;
    };
    std::vector<Seen> OpenSeen;

    while (nextLine()) {
      if (atEnd())
        continue; // blank or comment
      std::string Keyword = word("a statement");

      if (!SawHeader) {
        if (Keyword != Header)
          fail("expected the header '" + std::string(Header) + " " +
               std::to_string(FormatVersion) + "', got '" + Keyword + "'");
        uint64_t Version =
            number("the format version", std::numeric_limits<uint32_t>::max());
        if (Version != FormatVersion)
          fail("unsupported format version " + std::to_string(Version) +
               "; this reader knows version " + std::to_string(FormatVersion));
        endOfLine();
        SawHeader = true;
        continue;
      }

      if (Keyword == "graph") {
        if (!Open.empty())
          fail("'graph' inside node '" + Open.back()->path() +
               "'; close it with 'end' first");
        Node::Kind Kind = nodeKind();
        std::string Name = quoted("the graph name");
        endOfLine();
        Graphs.emplace_back(Name, Kind);
        Open.push_back(&Graphs.back().root());
        OpenSeen.emplace_back();
        continue;
      }
      if (Open.empty())
        fail("'" + Keyword + "' outside a graph; expected 'graph'");
      Node &N = *Open.back();
      Seen &S = OpenSeen.back();

      if (Keyword == "end") {
        endOfLine();
        Open.pop_back();
        OpenSeen.pop_back();
      } else if (Keyword == "node") {
        Node::Kind Kind = nodeKind();
        std::string Name = quoted("the node name");
        endOfLine();
        if (N.isLeaf())
          fail("node '" + Name + "' inside leaf '" + N.path() +
               "'; only internal nodes have children");
        if (Open.size() >= MaxNodeDepth)
          fail("node '" + Name + "' is nested more than " +
               std::to_string(MaxNodeDepth) + " levels deep");
        Node &Child = Kind == Node::Kind::Leaf ? N.addLeaf(Name, "")
                                               : N.addInternal(Name);
        Open.push_back(&Child);
        OpenSeen.emplace_back();
      } else if (Keyword == "function") {
        once(S.Function, "function");
        N.Function = quoted("the function name");
        endOfLine();
      } else if (Keyword == "dims") {
        once(S.Dims, "dims");
        while (!atEnd())
          N.Dims.push_back(extent("a dim"));
      } else if (Keyword == "group") {
        once(S.Group, "group");
        while (!atEnd())
          N.Group.push_back(extent("a work-group extent"));
      } else if (Keyword == "sequential") {
        once(S.Sequential, "sequential");
        N.Sequential = true;
        endOfLine();
      } else if (Keyword == "targets") {
        once(S.Targets, "targets");
        N.Targets = targets();
        endOfLine();
      } else if (Keyword == "param") {
        readParam(N);
      } else if (Keyword == "output") {
        Output O;
        O.Name = quoted("the output name");
        O.Type = scalarType();
        endOfLine();
        N.Outputs.push_back(std::move(O));
      } else if (Keyword == "edge") {
        readEdge(N);
      } else if (Keyword == "bind") {
        readBinding(N);
      } else if (Keyword == "outbind") {
        OutputBinding B;
        B.ParentOutput = index("the parent output");
        B.Child = index("the child index");
        B.ChildOutput = index("the child output");
        endOfLine();
        N.OutputBindings.push_back(B);
      } else {
        fail("unknown statement '" + Keyword + "'");
      }
    }

    if (!SawHeader)
      fail("missing the header '" + std::string(Header) + " " +
           std::to_string(FormatVersion) + "'");
    if (!Open.empty())
      fail("node '" + Open.back()->path() + "' is not closed by 'end'");
    return Graphs;
  }

private:
  std::string_view Text;
  size_t LineStart = 0;
  unsigned LineNo = 0;
  std::string_view Line; // the rest of the current line
  bool Done = false;

  [[noreturn]] void fail(const std::string &Message) const {
    throw GraphError("graph text line " + std::to_string(LineNo) + ": " +
                     Message);
  }

  bool nextLine() {
    if (Done)
      return false;
    size_t End = Text.find('\n', LineStart);
    if (End == std::string_view::npos) {
      End = Text.size();
      Done = true;
    }
    Line = Text.substr(LineStart, End - LineStart);
    if (!Line.empty() && Line.back() == '\r')
      Line.remove_suffix(1);
    LineStart = End + 1;
    ++LineNo;
    skipBlanks();
    if (!Line.empty() && Line.front() == '#')
      Line = {};
    return true;
  }

  void skipBlanks() {
    while (!Line.empty() && (Line.front() == ' ' || Line.front() == '\t'))
      Line.remove_prefix(1);
  }

  bool atEnd() const { return Line.empty(); }

  void endOfLine() {
    if (!atEnd())
      fail("unexpected '" + std::string(Line) + "' at the end of the line");
  }

  void once(bool &Flag, const char *Keyword) {
    if (Flag)
      fail(std::string("a second '") + Keyword + "' for the same node");
    Flag = true;
  }

  // An unquoted token: everything up to the next blank.
  std::string word(const std::string &What) {
    if (atEnd())
      fail("expected " + What + " at the end of the line");
    size_t End = 0;
    while (End < Line.size() && Line[End] != ' ' && Line[End] != '\t')
      ++End;
    std::string W(Line.substr(0, End));
    Line.remove_prefix(End);
    skipBlanks();
    return W;
  }

  static int hexDigit(char C) {
    if (C >= '0' && C <= '9')
      return C - '0';
    if (C >= 'a' && C <= 'f')
      return C - 'a' + 10;
    if (C >= 'A' && C <= 'F')
      return C - 'A' + 10;
    return -1;
  }

  std::string quoted(const std::string &What) {
    if (atEnd() || Line.front() != '"')
      fail("expected " + What + " as a quoted string" +
           (atEnd() ? std::string(" at the end of the line")
                    : ", got '" + std::string(Line) + "'"));
    std::string S;
    size_t I = 1;
    while (true) {
      if (I >= Line.size())
        fail("unterminated string in " + What);
      char C = Line[I++];
      if (C == '"')
        break;
      if (C != '\\') {
        S += C;
        continue;
      }
      if (I >= Line.size())
        fail("unterminated string in " + What);
      char E = Line[I++];
      switch (E) {
      case '\\':
      case '"':
        S += E;
        break;
      case 'n':
        S += '\n';
        break;
      case 't':
        S += '\t';
        break;
      case 'x': {
        int Hi = I < Line.size() ? hexDigit(Line[I]) : -1;
        int Lo = I + 1 < Line.size() ? hexDigit(Line[I + 1]) : -1;
        if (Hi < 0 || Lo < 0)
          fail("'\\x' needs two hex digits in " + What);
        S += static_cast<char>(Hi * 16 + Lo);
        I += 2;
        break;
      }
      default:
        fail(std::string("unknown escape '\\") + E + "' in " + What);
      }
    }
    Line.remove_prefix(I);
    if (!atEnd() && Line.front() != ' ' && Line.front() != '\t')
      fail("expected a blank after the closing quote of " + What);
    skipBlanks();
    return S;
  }

  uint64_t parseUnsigned(const std::string &W, const std::string &What,
                         uint64_t Max) {
    uint64_t V = 0;
    auto [Ptr, Ec] = std::from_chars(W.data(), W.data() + W.size(), V);
    if (W.empty() || W[0] == '-' || W[0] == '+' || Ec != std::errc() ||
        Ptr != W.data() + W.size()) {
      if (Ec == std::errc::result_out_of_range)
        fail(What + " '" + W + "' is out of range (at most " +
             std::to_string(Max) + ")");
      fail("expected " + What + " as an unsigned decimal number, got '" + W +
           "'");
    }
    if (V > Max)
      fail(What + " '" + W + "' is out of range (at most " +
           std::to_string(Max) + ")");
    return V;
  }

  uint64_t number(const std::string &What, uint64_t Max) {
    return parseUnsigned(word(What), What, Max);
  }

  unsigned index(const std::string &What) {
    return static_cast<unsigned>(
        number(What, std::numeric_limits<unsigned>::max()));
  }

  Extent extent(const std::string &What) { return extentOf(word(What), What); }

  /// <start>:<row bytes>:<stride>:<rows>, four derived extents.
  WrittenRows writtenRows(const std::string &W) {
    std::vector<DerivedExtent> Parts;
    size_t Start = 0;
    for (unsigned I = 0; I != 4; ++I) {
      size_t Colon = I == 3 ? W.size() : W.find(':', Start);
      if (Colon == std::string::npos)
        fail("expected <start>:<bytes>:<stride>:<rows> after writes-rows, "
             "got '" +
             W + "'");
      Parts.push_back(derived(W.substr(Start, Colon - Start)));
      Start = Colon + 1;
    }
    return WrittenRows{Parts[0], Parts[1], Parts[2], Parts[3]};
  }

  /// [<scale>*]<extent>[+<add>|-<sub>], the numbers signed decimals.
  DerivedExtent derived(const std::string &W) {
    DerivedExtent D;
    if (!W.empty() && W.find_first_of("*p") == std::string::npos &&
        W.find_first_of("+-", 1) == std::string::npos) {
      D.Add = signedNumber(W, W); // a constant
      return D;
    }
    std::string Rest = W;
    if (size_t Star = Rest.find('*'); Star != std::string::npos) {
      D.Scale = signedNumber(Rest.substr(0, Star), W);
      Rest = Rest.substr(Star + 1);
    }
    size_t Sign = Rest.find_first_of("+-", 1);
    if (Sign != std::string::npos) {
      D.Add = signedNumber(Rest.substr(Sign), W);
      Rest = Rest.substr(0, Sign);
    }
    D.Of = extentOf(Rest, "a writes-rows extent");
    return D;
  }

  int64_t signedNumber(const std::string &S, const std::string &Whole) {
    int64_t V = 0;
    const char *B = S.data() + (!S.empty() && S[0] == '+');
    auto [Ptr, Ec] = std::from_chars(B, S.data() + S.size(), V);
    if (S.empty() || Ec != std::errc() || Ptr != S.data() + S.size())
      fail("bad number '" + S + "' in '" + Whole + "'");
    return V;
  }

  /// Terms joined by '+', each an extent or <extent>*id<level>.<dim>.
  std::vector<OffsetTerm> offset(const std::string &W) {
    std::vector<OffsetTerm> Terms;
    size_t Start = 0;
    while (true) {
      size_t Plus = W.find('+', Start);
      std::string Term = W.substr(Start, Plus - Start);
      OffsetTerm T;
      size_t Star = Term.find("*id");
      T.Coef = extentOf(Term.substr(0, Star), "an offset coefficient");
      if (Star != std::string::npos) {
        std::string Id = Term.substr(Star + 3);
        size_t Dot = Id.find('.');
        if (Dot == std::string::npos)
          fail("expected <level>.<dim> after 'id' in offset term '" + Term +
               "'");
        T.Level = static_cast<unsigned>(
            parseUnsigned(Id.substr(0, Dot), "an id level", 255));
        T.Dim = static_cast<unsigned>(
            parseUnsigned(Id.substr(Dot + 1), "an id dim", 255));
        if (!T.Level)
          fail("offset term '" + Term + "': id levels start at 1");
      }
      Terms.push_back(T);
      if (Plus == std::string::npos)
        return Terms;
      Start = Plus + 1;
    }
  }

  Extent extentOf(const std::string &W, const std::string &What) {
    if (!W.empty() && W[0] == 'p')
      return Extent::param(static_cast<unsigned>(
          parseUnsigned(W.substr(1), What + " parameter index",
                        std::numeric_limits<unsigned>::max())));
    return Extent::constant(
        parseUnsigned(W, What, std::numeric_limits<uint64_t>::max()));
  }

  Node::Kind nodeKind() {
    std::string W = word("the node kind ('leaf' or 'internal')");
    if (W == "leaf")
      return Node::Kind::Leaf;
    if (W == "internal")
      return Node::Kind::Internal;
    fail("expected the node kind ('leaf' or 'internal'), got '" + W + "'");
  }

  ScalarType scalarType() {
    std::string W = word("a type");
    if (std::optional<ScalarType> T = parseScalarType(W))
      return *T;
    fail("unknown type '" + W + "'");
  }

  TargetMask targets() {
    std::string W = word("the targets");
    if (W == "none")
      return 0;
    if (W.size() > 2 && W[0] == '0' && (W[1] == 'x' || W[1] == 'X')) {
      uint32_t Mask = 0;
      auto [Ptr, Ec] =
          std::from_chars(W.data() + 2, W.data() + W.size(), Mask, 16);
      if (Ec != std::errc() || Ptr != W.data() + W.size())
        fail("bad target mask '" + W + "'");
      return Mask;
    }
    if (std::optional<TargetMask> Mask = parseTargets(W))
      return *Mask;
    fail("unknown targets '" + W + "'; expected a comma-separated list of " +
         targetsToString(AllTargets) + ", 'none' or a hex mask");
  }

  void readParam(Node &N) {
    std::string Kind = word("the parameter kind ('buffer' or 'value')");
    if (Kind == "buffer") {
      std::string Name = quoted("the parameter name");
      std::string Mode = word("the access mode");
      std::optional<Access> A = parseAccess(Mode);
      if (!A)
        fail("unknown access mode '" + Mode + "'; expected in, out or inout");
      Extent Bytes = extent("the byte size");
      Param &P = N.Params[N.addBuffer(std::move(Name), *A, Bytes)];
      while (!atEnd()) {
        std::string Flag = word("a buffer flag");
        if (Flag == "writes-all" && !P.WritesAll)
          P.WritesAll = true;
        else if (Flag == "at" && P.Offset.empty())
          P.Offset = offset(word("the section offset"));
        else if (Flag == "writes-rows" && !P.Written)
          P.Written = writtenRows(word("the rows written"));
        else
          fail("unexpected '" + Flag +
               "' after a buffer; expected writes-all, writes-rows "
               "<start>:<bytes>:<stride>:<rows> or at <offset>, each at most "
               "once");
      }
      return;
    }
    if (Kind == "value") {
      std::string Name = quoted("the parameter name");
      ScalarType T = scalarType();
      endOfLine();
      N.addValue(std::move(Name), T);
      return;
    }
    fail("expected the parameter kind ('buffer' or 'value'), got '" + Kind +
         "'");
  }

  void readEdge(Node &N) {
    std::string KindWord = word("the edge kind");
    std::optional<EdgeKind> K = parseEdgeKind(KindWord);
    if (!K)
      fail("unknown edge kind '" + KindWord + "'; expected dep, value or " +
           "stream");
    Edge E;
    E.Kind = *K;
    E.Src = index("the source child");
    if (E.Kind != EdgeKind::Dependency)
      E.SrcOutput = index("the source output");
    E.Dst = index("the destination child");
    if (E.Kind != EdgeKind::Dependency)
      E.DstParam = index("the destination parameter");
    if (E.Kind == EdgeKind::Streaming)
      E.Capacity = index("the capacity");
    endOfLine();
    N.Edges.push_back(E);
  }

  void readBinding(Node &N) {
    Binding B;
    B.Child = index("the child index");
    B.ChildParam = index("the child parameter");
    std::string From = word("the binding source");
    if (From == "param") {
      B.From = Binding::Source::ParentParam;
      B.ParentParam = index("the parent parameter");
    } else if (From == "int") {
      B.From = Binding::Source::Constant;
      std::string W = word("the integer constant");
      auto [Ptr, Ec] =
          std::from_chars(W.data(), W.data() + W.size(), B.IntValue);
      if (Ec != std::errc() || Ptr != W.data() + W.size())
        fail("bad integer constant '" + W + "'");
    } else if (From == "floatbits") {
      B.From = Binding::Source::Constant;
      B.IsFloat = true;
      std::string W = word("the constant's bits");
      uint64_t Bits = 0;
      if (W.size() < 3 || W[0] != '0' || (W[1] != 'x' && W[1] != 'X'))
        fail("bad float bits '" + W + "'; expected 0x and up to 16 hex digits");
      auto [Ptr, Ec] =
          std::from_chars(W.data() + 2, W.data() + W.size(), Bits, 16);
      if (Ec != std::errc() || Ptr != W.data() + W.size())
        fail("bad float bits '" + W + "'; expected 0x and up to 16 hex digits");
      std::memcpy(&B.FloatValue, &Bits, sizeof(Bits));
    } else if (From == "float") {
      // For hand-written text; the writer uses floatbits to be exact.
      B.From = Binding::Source::Constant;
      B.IsFloat = true;
      std::string W = word("the floating-point constant");
      const char *Begin = W.data();
      if (!W.empty() && W[0] == '+')
        ++Begin;
      auto [Ptr, Ec] =
          std::from_chars(Begin, W.data() + W.size(), B.FloatValue);
      if (Ec != std::errc() || Ptr != W.data() + W.size())
        fail("bad floating-point constant '" + W + "'");
    } else {
      fail("unknown binding source '" + From +
           "'; expected param, int, float or floatbits");
    }
    endOfLine();
    N.Bindings.push_back(B);
  }
};

} // namespace

std::string hpvm::writeGraphText(const std::vector<const Graph *> &Graphs) {
  std::string Out;
  Out += Header;
  Out += ' ';
  Out += std::to_string(FormatVersion);
  Out += '\n';
  for (const Graph *G : Graphs) {
    const Node &Root = G->root();
    Out += std::string("graph ") + (Root.isLeaf() ? "leaf " : "internal ");
    writeQuoted(Out, G->name());
    Out += '\n';
    writeNode(Out, Root, 0);
    Out += "end\n";
  }
  return Out;
}

std::vector<Graph> hpvm::readGraphText(std::string_view Text) {
  return Reader(Text).read();
}
