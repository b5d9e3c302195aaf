//===- GraphPrinter.cpp - Text and Graphviz views of a graph --------------===//
//
// Both printers are debugging aids and run on graphs that may not verify, so
// an index that is out of range is printed as "#N" instead of being followed.
//
//===----------------------------------------------------------------------===//

#include "hpvm/ir/GraphPrinter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace hpvm;

namespace {

std::string paramName(const Node &N, unsigned Index) {
  if (Index < N.Params.size())
    return N.Params[Index].Name;
  return "#" + std::to_string(Index);
}

std::string outputName(const Node &N, unsigned Index) {
  if (Index < N.Outputs.size())
    return N.Outputs[Index].Name;
  return "#" + std::to_string(Index);
}

const Node *child(const Node &N, unsigned Index) {
  return Index < N.Children.size() ? N.Children[Index].get() : nullptr;
}

std::string childName(const Node &N, unsigned Index) {
  if (const Node *C = child(N, Index))
    return C->name();
  return "#" + std::to_string(Index);
}

std::string childParamName(const Node &N, unsigned Child, unsigned Param) {
  if (const Node *C = child(N, Child))
    return paramName(*C, Param);
  return "#" + std::to_string(Param);
}

std::string childOutputName(const Node &N, unsigned Child, unsigned Out) {
  if (const Node *C = child(N, Child))
    return outputName(*C, Out);
  return "#" + std::to_string(Out);
}

std::string extentString(const Node &N, const Extent &E) {
  if (E.isConstant())
    return std::to_string(E.value());
  return paramName(N, E.paramIndex());
}

std::string derivedString(const Node &N, const DerivedExtent &D) {
  if (D.Of == Extent::constant(0) && D.Scale == 1)
    return std::to_string(D.Add);
  std::string S = D.Scale != 1 ? std::to_string(D.Scale) + "*" : "";
  S += extentString(N, D.Of);
  if (D.Add)
    S += (D.Add > 0 ? "+" : "") + std::to_string(D.Add);
  return S;
}

std::string dimsString(const Node &N) {
  auto List = [&](const std::vector<Extent> &Extents) {
    std::string S = "[";
    for (size_t I = 0, E = Extents.size(); I != E; ++I)
      S += (I ? ", " : "") + extentString(N, Extents[I]);
    return S + "]";
  };
  std::string S = List(N.Dims);
  if (N.Sequential)
    S += " in order";
  if (!N.Group.empty())
    S += " groups of " + List(N.Group);
  return S;
}

// The shortest spelling that reads back as the same double, marked as
// floating point so that "<- 2.0" and "<- 2" stay distinguishable.
std::string floatString(double V) {
  if (std::isnan(V))
    return "nan";
  if (std::isinf(V))
    return V < 0 ? "-inf" : "inf";
  char Buf[64];
  for (int Precision = 1; Precision <= 17; ++Precision) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Precision, V);
    if (std::strtod(Buf, nullptr) == V)
      break;
  }
  std::string S = Buf;
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

std::string bindingSource(const Node &N, const Binding &B) {
  if (B.From == Binding::Source::ParentParam)
    return paramName(N, B.ParentParam);
  return B.IsFloat ? floatString(B.FloatValue) : std::to_string(B.IntValue);
}

std::string edgeString(const Node &N, const Edge &E) {
  std::string S = std::string(toString(E.Kind)) + " ";
  if (E.Kind == EdgeKind::Dependency)
    return S + childName(N, E.Src) + " -> " + childName(N, E.Dst);
  S += childName(N, E.Src) + "." + childOutputName(N, E.Src, E.SrcOutput) +
       " -> " + childName(N, E.Dst) + "." +
       childParamName(N, E.Dst, E.DstParam);
  if (E.Kind == EdgeKind::Streaming)
    S += " capacity " + std::to_string(E.Capacity);
  return S;
}

void printNode(const Node &N, std::ostream &OS, unsigned Depth) {
  std::string Indent(2 * Depth, ' ');
  std::string Inner(2 * Depth + 2, ' ');
  OS << Indent << (N.isLeaf() ? "leaf " : "internal ") << N.name() << " dims "
     << dimsString(N) << " targets "
     << (N.Targets ? targetsToString(N.Targets) : "none");
  if (!N.Function.empty())
    OS << " function @" << N.Function;
  OS << "\n";

  for (const Param &P : N.Params) {
    OS << Inner << "param " << P.Name << ": ";
    if (!P.isBuffer()) {
      OS << toString(P.Type) << "\n";
      continue;
    }
    OS << "buffer " << toString(P.Mode) << " bytes " << extentString(N, P.Bytes)
       << (P.WritesAll ? " writes-all" : "");
    if (P.Written)
      OS << " writes " << derivedString(N, P.Written->Rows) << " rows of "
         << derivedString(N, P.Written->RowBytes) << " every "
         << derivedString(N, P.Written->Stride) << " from "
         << derivedString(N, P.Written->Start);
    for (size_t I = 0; I != P.Offset.size(); ++I) {
      const OffsetTerm &T = P.Offset[I];
      OS << (I ? " + " : " at ") << extentString(N, T.Coef);
      if (T.Level)
        OS << "*id(" << T.Level << "," << T.Dim << ")";
    }
    OS << "\n";
  }
  for (const Output &O : N.Outputs)
    OS << Inner << "output " << O.Name << ": " << toString(O.Type) << "\n";

  for (const auto &C : N.Children)
    printNode(*C, OS, Depth + 1);
  for (const Edge &E : N.Edges)
    OS << Inner << "edge " << edgeString(N, E) << "\n";
  for (const Binding &B : N.Bindings)
    OS << Inner << "bind " << childName(N, B.Child) << "."
       << childParamName(N, B.Child, B.ChildParam) << " <- "
       << bindingSource(N, B) << "\n";
  for (const OutputBinding &B : N.OutputBindings)
    OS << Inner << "output " << outputName(N, B.ParentOutput) << " <- "
       << childName(N, B.Child) << "."
       << childOutputName(N, B.Child, B.ChildOutput) << "\n";
}

/// Escapes S for a double-quoted DOT string. Newlines become "\n", which
/// Graphviz renders as a centred line break.
std::string dotEscape(const std::string &S) {
  std::string R;
  for (char C : S) {
    if (C == '"' || C == '\\')
      R += '\\';
    if (C == '\n') {
      R += "\\n";
      continue;
    }
    R += C;
  }
  return R;
}

class DotPrinter {
public:
  explicit DotPrinter(std::ostream &OS) : OS(OS) {}

  void print(const Graph &G) {
    OS << "digraph \"" << dotEscape(G.name()) << "\" {\n";
    // compound lets an edge end at a cluster's border (lhead/ltail).
    OS << "  compound=true;\n";
    OS << "  node [shape=box];\n";
    printNode(G.root(), 1);
    OS << "}\n";
  }

private:
  std::ostream &OS;
  unsigned NextId = 0;

  // How an edge reaches a node: the DOT node to connect and, for an internal
  // node, the cluster whose border the edge should stop at.
  struct Endpoint {
    std::string Id;
    std::string Cluster;
  };

  Endpoint printNode(const Node &N, unsigned Depth) {
    std::string Indent(2 * Depth, ' ');
    unsigned Id = NextId++;
    std::string Dims = N.Dims.empty() ? "" : " " + dimsString(N);
    if (N.isLeaf()) {
      std::string NodeId = "n" + std::to_string(Id);
      std::string Label = N.name() + Dims;
      if (!N.Function.empty())
        Label += "\n@" + N.Function;
      OS << Indent << NodeId << " [label=\"" << dotEscape(Label) << "\"];\n";
      return {NodeId, ""};
    }

    std::string Cluster = "cluster_" + std::to_string(Id);
    OS << Indent << "subgraph " << Cluster << " {\n";
    OS << Indent << "  label=\"" << dotEscape(N.name() + Dims) << "\";\n";
    // Edges need a node to attach to and an empty cluster is not drawn at
    // all, so every cluster holds an invisible anchor.
    std::string Anchor = "a" + std::to_string(Id);
    OS << Indent << "  " << Anchor
       << " [shape=point, style=invis, width=0, height=0, label=\"\"];\n";
    std::vector<Endpoint> Ends;
    for (const auto &C : N.Children)
      Ends.push_back(printNode(*C, Depth + 1));
    for (const Edge &E : N.Edges)
      printEdge(N, E, Ends, Indent + "  ");
    OS << Indent << "}\n";
    return {Anchor, Cluster};
  }

  void printEdge(const Node &N, const Edge &E,
                 const std::vector<Endpoint> &Ends, const std::string &Indent) {
    if (E.Src >= Ends.size() || E.Dst >= Ends.size())
      return;
    const Endpoint &From = Ends[E.Src];
    const Endpoint &To = Ends[E.Dst];
    std::vector<std::string> Attrs;
    switch (E.Kind) {
    case EdgeKind::Dependency:
      Attrs.push_back("style=dashed");
      break;
    case EdgeKind::Value:
      Attrs.push_back("style=solid");
      Attrs.push_back("label=\"" +
                      dotEscape(childOutputName(N, E.Src, E.SrcOutput) +
                                " -> " + childParamName(N, E.Dst, E.DstParam)) +
                      "\"");
      break;
    case EdgeKind::Streaming:
      Attrs.push_back("style=bold");
      Attrs.push_back("label=\"" +
                      dotEscape(childOutputName(N, E.Src, E.SrcOutput) +
                                " -> " + childParamName(N, E.Dst, E.DstParam) +
                                "\ncapacity " + std::to_string(E.Capacity)) +
                      "\"");
      break;
    }
    if (!From.Cluster.empty())
      Attrs.push_back("ltail=" + From.Cluster);
    if (!To.Cluster.empty())
      Attrs.push_back("lhead=" + To.Cluster);
    OS << Indent << From.Id << " -> " << To.Id << " [";
    for (size_t I = 0, End = Attrs.size(); I != End; ++I)
      OS << (I ? ", " : "") << Attrs[I];
    OS << "];\n";
  }
};

} // namespace

void hpvm::printGraph(const Graph &G, std::ostream &OS) {
  OS << "graph " << G.name() << "\n";
  printNode(G.root(), OS, 0);
}

void hpvm::printDot(const Graph &G, std::ostream &OS) {
  DotPrinter(OS).print(G);
}
