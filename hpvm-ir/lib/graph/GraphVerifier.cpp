//===- GraphVerifier.cpp - Structural rules of the graph model ------------===//
//
// Every check runs on every node and keeps going after a failure, so one run
// shows all that is wrong. Checks that need an index to be in range skip the
// things another rule has already reported as out of range, so that one
// mistake gives one diagnostic.
//
//===----------------------------------------------------------------------===//

#include "hpvm/ir/GraphVerifier.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string_view>
#include <unordered_map>

using namespace hpvm;

std::string GraphDiagnostic::str() const {
  // A node path starts with the root's name, which is the graph's name.
  std::string GraphName = Where.substr(0, Where.find('/'));
  return "graph '" + GraphName + "', node '" + Where + "': [" + Rule + "] " +
         Message;
}

namespace {

std::string quote(const std::string &S) { return "'" + S + "'"; }

std::string formatFloat(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%g", V);
  return Buf;
}

const char *paramKindName(const Param &P) {
  return P.isBuffer() ? "buffer" : "value";
}

const char *edgeKindName(EdgeKind K) {
  switch (K) {
  case EdgeKind::Dependency:
    return "dependency";
  case EdgeKind::Value:
    return "value";
  case EdgeKind::Streaming:
    return "streaming";
  }
  return "unknown";
}

class Verifier {
public:
  explicit Verifier(std::vector<GraphDiagnostic> &Diags) : Diags(Diags) {}

  void verify(const Node &N) {
    checkDims(N);
    checkBufferSizes(N);
    checkSections(N);
    checkLeafFunction(N);
    if (N.isInternal()) {
      checkChildNames(N);
      checkEdges(N);
      checkBindings(N);
      checkEdgeCycles(N);
      checkOutputBindings(N);
    }
    checkTargets(N);
  }

private:
  std::vector<GraphDiagnostic> &Diags;

  void report(const Node &N, const char *Rule, std::string Message) {
    Diags.push_back(GraphDiagnostic{Rule, N.path(), std::move(Message)});
  }

  // Why an extent parameter index is unusable, or empty if it is fine.
  static std::string extentProblem(const Node &N, unsigned Index) {
    if (Index >= N.Params.size())
      return "refers to parameter #" + std::to_string(Index) +
             ", but the node has " + std::to_string(N.Params.size()) +
             " parameters";
    const Param &P = N.Params[Index];
    if (P.isBuffer())
      return "refers to parameter " + quote(P.Name) +
             ", which is a buffer, not an integer value";
    if (!isInteger(P.Type))
      return "refers to parameter " + quote(P.Name) + " of type " +
             toString(P.Type) + ", not an integer type";
    return "";
  }

  void checkDims(const Node &N) {
    if (N.Dims.size() > 3)
      report(N, "dims",
             "node has " + std::to_string(N.Dims.size()) +
                 " dims; at most 3 are allowed");
    for (size_t I = 0, E = N.Dims.size(); I != E; ++I) {
      // Instance ids are signed 64-bit on every target.
      if (N.Dims[I].isConstant() && N.Dims[I].value() > uint64_t(INT64_MAX))
        report(N, "dims",
               "dim " + std::to_string(I) + " has " +
                   std::to_string(N.Dims[I].value()) +
                   " instances; at most 2^63 - 1 are allowed");
      if (!N.Dims[I].isParam())
        continue;
      std::string Problem = extentProblem(N, N.Dims[I].paramIndex());
      if (!Problem.empty())
        report(N, "dims", "dim " + std::to_string(I) + " " + Problem);
    }
    if (N.Group.size() > 3)
      report(N, "group",
             "a work-group has " + std::to_string(N.Group.size()) +
                 " dims; at most 3 are allowed");
    if (!N.Group.empty() && !N.isLeaf())
      report(N, "group",
             "only a leaf's instances can be work-groups of work-items");
    for (size_t I = 0, E = N.Group.size(); I != E; ++I) {
      if (N.Group[I].isConstant() && N.Group[I].value() > uint64_t(INT64_MAX))
        report(N, "group",
               "work-group extent " + std::to_string(I) +
                   " is more than 2^63 - 1");
      if (!N.Group[I].isParam())
        continue;
      std::string Problem = extentProblem(N, N.Group[I].paramIndex());
      if (!Problem.empty())
        report(N, "group",
               "work-group extent " + std::to_string(I) + " " + Problem);
    }
    // A leaf's instances are independent by contract: running them in
    // order would promise an order nothing keeps.
    if (N.Sequential && (N.isLeaf() || N.Dims.empty()))
      report(N, "sequential",
             N.isLeaf() ? "a leaf cannot be sequential; only an internal "
                          "node's instances run in order"
                        : "a sequential node needs dims: the iterations "
                          "it runs in order");
  }

  /// A section offset's coefficients are extents, and its ids exist.
  void checkSections(const Node &N) {
    for (const Param &P : N.Params)
      for (const OffsetTerm &T : P.Offset) {
        std::string Where = "the section offset of " + quote(P.Name) + " ";
        if (!P.isBuffer()) {
          report(N, "buffer-section",
                 "value parameter " + quote(P.Name) + " has a section offset");
          break;
        }
        if (T.Coef.isParam())
          if (std::string Problem = extentProblem(N, T.Coef.paramIndex());
              !Problem.empty())
            report(N, "buffer-section", Where + Problem);
        if (!T.Level)
          continue;
        const Node *A = &N;
        for (unsigned L = 0; A && L != T.Level; ++L)
          A = A->parent();
        if (!A)
          report(N, "buffer-section",
                 Where + "uses the ids of ancestor level " +
                     std::to_string(T.Level) + ", above the root");
        else if (T.Dim >= A->Dims.size())
          report(N, "buffer-section",
                 Where + "uses id dim " + std::to_string(T.Dim) + " of " +
                     quote(A->path()) + ", which has " +
                     std::to_string(A->Dims.size()) + " dims");
      }
  }

  void checkBufferSizes(const Node &N) {
    for (const Param &P : N.Params) {
      if (P.isBuffer() && (P.WritesAll || P.Written) &&
          (P.Mode != Access::Out || N.isInternal()))
        report(N, "writes-all",
               "buffer " + quote(P.Name) + " is marked " +
                   (P.WritesAll ? "writes-all" : "writes-rows") +
                   ", which only an out buffer of a leaf may be");
      if (P.Written)
        for (const DerivedExtent *D : {&P.Written->Start, &P.Written->RowBytes,
                                       &P.Written->Stride, &P.Written->Rows})
          if (const Extent *E = &D->Of; E->isParam())
            if (std::string Problem = extentProblem(N, E->paramIndex());
                !Problem.empty())
              report(N, "writes-all",
                     "the rows written of buffer " + quote(P.Name) + " " +
                         Problem);
      if (!P.isBuffer() || !P.Bytes.isParam())
        continue;
      std::string Problem = extentProblem(N, P.Bytes.paramIndex());
      if (!Problem.empty())
        report(N, "buffer-size",
               "byte size of buffer " + quote(P.Name) + " " + Problem);
    }
  }

  void checkLeafFunction(const Node &N) {
    if (N.isInternal()) {
      if (!N.Function.empty())
        report(N, "leaf-function",
               "internal node names function " + quote(N.Function) +
                   "; only leaves have one");
      return;
    }
    if (N.Function.empty())
      report(N, "leaf-function", "leaf names no function");
    auto Forbid = [&](size_t Count, const char *What) {
      if (Count)
        report(N, "leaf-function",
               "leaf has " + std::to_string(Count) + " " + What +
                   "; only internal nodes may have them");
    };
    Forbid(N.Children.size(), "children");
    Forbid(N.Edges.size(), "edges");
    Forbid(N.Bindings.size(), "bindings");
    Forbid(N.OutputBindings.size(), "output bindings");
  }

  void checkChildNames(const Node &N) {
    // The first child of each name, so that a graph of many children is
    // checked in linear time.
    std::unordered_map<std::string_view, size_t> First;
    First.reserve(N.Children.size());
    for (size_t I = 0, E = N.Children.size(); I != E; ++I) {
      const std::string &Name = N.Children[I]->name();
      if (Name.empty()) {
        report(N, "child-name", "child #" + std::to_string(I) + " has no name");
        continue;
      }
      // Paths join names with '/', so a name containing one is ambiguous.
      if (Name.find('/') != std::string::npos)
        report(N, "child-name", "child name " + quote(Name) + " contains '/'");
      auto [It, New] = First.emplace(Name, I);
      if (!New)
        report(N, "child-name",
               "children #" + std::to_string(It->second) + " and #" +
                   std::to_string(I) + " are both named " + quote(Name));
    }
  }

  static std::string childName(const Node &N, unsigned Index) {
    if (Index < N.Children.size())
      return quote(N.Children[Index]->name());
    return "#" + std::to_string(Index);
  }

  static std::string paramName(const Node &N, unsigned Index) {
    if (Index < N.Params.size())
      return quote(N.Params[Index].Name);
    return "#" + std::to_string(Index);
  }

  static std::string outputName(const Node &N, unsigned Index) {
    if (Index < N.Outputs.size())
      return quote(N.Outputs[Index].Name);
    return "#" + std::to_string(Index);
  }

  // "value edge #2 from 'a' output 'x' to 'b' parameter 'y'", robust to
  // indices that are out of range.
  static std::string describeEdge(const Node &N, size_t Index) {
    const Edge &E = N.Edges[Index];
    std::string S = std::string(edgeKindName(E.Kind)) + " edge #" +
                    std::to_string(Index) + " from " + childName(N, E.Src);
    bool Carries = E.Kind != EdgeKind::Dependency;
    if (Carries && E.Src < N.Children.size())
      S += " output " + outputName(*N.Children[E.Src], E.SrcOutput);
    S += " to " + childName(N, E.Dst);
    if (Carries && E.Dst < N.Children.size())
      S += " parameter " + paramName(*N.Children[E.Dst], E.DstParam);
    return S;
  }

  // Per edge: whether it is well formed enough for the binding count and the
  // cycle search to use.
  std::vector<bool> EdgeOK;

  void checkEdges(const Node &N) {
    EdgeOK.assign(N.Edges.size(), false);
    size_t NumChildren = N.Children.size();
    for (size_t I = 0, End = N.Edges.size(); I != End; ++I) {
      const Edge &E = N.Edges[I];
      std::string What = describeEdge(N, I);
      bool OK = true;
      for (unsigned Endpoint : {E.Src, E.Dst}) {
        if (Endpoint >= NumChildren) {
          report(N, "edge",
                 What + ": child index " + std::to_string(Endpoint) +
                     " is out of range; the node has " +
                     std::to_string(NumChildren) + " children");
          OK = false;
        }
      }
      if (!OK)
        continue;
      if (E.Src == E.Dst) {
        report(N, "edge", What + " joins a child to itself");
        continue;
      }
      if (E.Kind == EdgeKind::Dependency) {
        EdgeOK[I] = true;
        continue;
      }
      const Node &Src = *N.Children[E.Src];
      const Node &Dst = *N.Children[E.Dst];
      if (E.SrcOutput >= Src.Outputs.size()) {
        report(N, "edge",
               What + ": child " + quote(Src.name()) + " has no output #" +
                   std::to_string(E.SrcOutput) + " (it has " +
                   std::to_string(Src.Outputs.size()) + ")");
        OK = false;
      }
      if (E.DstParam >= Dst.Params.size()) {
        report(N, "edge",
               What + ": child " + quote(Dst.name()) + " has no parameter #" +
                   std::to_string(E.DstParam) + " (it has " +
                   std::to_string(Dst.Params.size()) + ")");
        OK = false;
      } else if (Dst.Params[E.DstParam].isBuffer()) {
        report(N, "edge",
               What + ": parameter " + quote(Dst.Params[E.DstParam].Name) +
                   " of " + quote(Dst.name()) +
                   " is a buffer; edges carry only values");
        OK = false;
      }
      if (E.Kind == EdgeKind::Streaming && E.Capacity < 1) {
        report(N, "edge",
               What + " has capacity " + std::to_string(E.Capacity) +
                   "; a streaming edge needs at least 1");
        // The endpoints are fine, so the edge still binds its parameter.
      }
      if (!OK)
        continue;
      EdgeOK[I] = true;
      ScalarType From = Src.Outputs[E.SrcOutput].Type;
      ScalarType To = Dst.Params[E.DstParam].Type;
      if (From != To)
        report(N, "value-edge-type",
               What + " joins an output of type " + toString(From) +
                   " to a parameter of type " + toString(To));
    }
  }

  void checkBindings(const Node &N) {
    size_t NumChildren = N.Children.size();
    // Sources[c][p]: what binds parameter p of child c, for the
    // bound-exactly-once check.
    std::vector<std::vector<std::vector<std::string>>> Sources(NumChildren);
    for (size_t C = 0; C != NumChildren; ++C)
      Sources[C].resize(N.Children[C]->Params.size());

    for (size_t I = 0, End = N.Bindings.size(); I != End; ++I) {
      const Binding &B = N.Bindings[I];
      std::string Which = "binding #" + std::to_string(I);
      if (B.Child >= NumChildren) {
        report(N, "binding",
               Which + ": child index " + std::to_string(B.Child) +
                   " is out of range; the node has " +
                   std::to_string(NumChildren) + " children");
        continue;
      }
      const Node &Child = *N.Children[B.Child];
      if (B.ChildParam >= Child.Params.size()) {
        report(N, "binding",
               Which + ": child " + quote(Child.name()) +
                   " has no parameter #" + std::to_string(B.ChildParam) +
                   " (it has " + std::to_string(Child.Params.size()) + ")");
        continue;
      }
      const Param &CP = Child.Params[B.ChildParam];
      std::string Target = std::string(paramKindName(CP)) + " parameter " +
                           quote(CP.Name) + " of child " + quote(Child.name());
      if (!CP.isBuffer())
        Target += " (" + std::string(toString(CP.Type)) + ")";

      if (B.From == Binding::Source::Constant) {
        std::string Constant =
            B.IsFloat ? "floating-point constant " + formatFloat(B.FloatValue)
                      : "integer constant " + std::to_string(B.IntValue);
        Sources[B.Child][B.ChildParam].push_back(Constant);
        bool Fits = !CP.isBuffer() && CP.Type != ScalarType::Ptr &&
                    B.IsFloat == !isInteger(CP.Type);
        if (!Fits)
          report(N, "binding", Target + " is bound to " + Constant);
        continue;
      }

      if (B.ParentParam >= N.Params.size()) {
        report(N, "binding",
               Target + " is bound to parameter #" +
                   std::to_string(B.ParentParam) + ", but the node has " +
                   std::to_string(N.Params.size()) + " parameters");
        continue;
      }
      const Param &PP = N.Params[B.ParentParam];
      Sources[B.Child][B.ChildParam].push_back("parameter " + quote(PP.Name));
      std::string Source =
          std::string(paramKindName(PP)) + " parameter " + quote(PP.Name);
      if (CP.isBuffer() != PP.isBuffer()) {
        report(N, "binding",
               Target + " is bound to " + Source +
                   "; buffers bind to buffers and values to values");
        continue;
      }
      if (!CP.isBuffer()) {
        if (CP.Type != PP.Type)
          report(N, "binding",
                 Target + " is bound to " + Source + " of type " +
                     toString(PP.Type));
        continue;
      }
      if (writes(CP.Mode) && PP.Mode == Access::In)
        report(N, "write-to-input",
               "child " + quote(Child.name()) + " may write (" +
                   toString(CP.Mode) + ") its buffer " + quote(CP.Name) +
                   ", bound to buffer " + quote(PP.Name) +
                   " which this node declares 'in'");
    }

    for (size_t I = 0, End = N.Edges.size(); I != End; ++I) {
      const Edge &E = N.Edges[I];
      if (EdgeOK[I] && E.Kind != EdgeKind::Dependency)
        Sources[E.Dst][E.DstParam].push_back(
            std::string(edgeKindName(E.Kind)) + " edge #" + std::to_string(I) +
            " from " + quote(N.Children[E.Src]->name()));
    }

    for (size_t C = 0; C != NumChildren; ++C) {
      const Node &Child = *N.Children[C];
      for (size_t P = 0, PE = Child.Params.size(); P != PE; ++P) {
        const std::vector<std::string> &From = Sources[C][P];
        if (From.size() == 1)
          continue;
        std::string Target = std::string(paramKindName(Child.Params[P])) +
                             " parameter " + quote(Child.Params[P].Name) +
                             " of child " + quote(Child.name());
        if (From.empty()) {
          report(N, "binding", Target + " is not bound");
          continue;
        }
        std::string List;
        for (const std::string &S : From)
          List += (List.empty() ? "" : ", ") + S;
        report(N, "binding",
               Target + " is bound " + std::to_string(From.size()) +
                   " times: by " + List);
      }
    }
  }

  void checkEdgeCycles(const Node &N) {
    size_t Count = N.Children.size();
    std::vector<std::vector<unsigned>> Succ(Count);
    for (size_t I = 0, End = N.Edges.size(); I != End; ++I) {
      const Edge &E = N.Edges[I];
      // Streaming edges may close a cycle: their channel decouples the two
      // ends. Self edges are reported by the `edge` rule.
      if (EdgeOK[I] && E.Kind != EdgeKind::Streaming)
        Succ[E.Src].push_back(E.Dst);
    }

    // Tarjan's strongly connected components; every component of more than
    // one child holds a cycle, and each is reported once.
    std::vector<int> Index(Count, -1), Low(Count, 0);
    std::vector<bool> OnStack(Count, false);
    std::vector<unsigned> Stack;
    std::vector<std::vector<unsigned>> Components;
    int Next = 0;
    std::function<void(unsigned)> Visit = [&](unsigned V) {
      Index[V] = Low[V] = Next++;
      Stack.push_back(V);
      OnStack[V] = true;
      for (unsigned W : Succ[V]) {
        if (Index[W] < 0) {
          Visit(W);
          Low[V] = std::min(Low[V], Low[W]);
        } else if (OnStack[W]) {
          Low[V] = std::min(Low[V], Index[W]);
        }
      }
      if (Low[V] != Index[V])
        return;
      std::vector<unsigned> Component;
      unsigned W;
      do {
        W = Stack.back();
        Stack.pop_back();
        OnStack[W] = false;
        Component.push_back(W);
      } while (W != V);
      if (Component.size() > 1)
        Components.push_back(std::move(Component));
    };
    for (unsigned V = 0; V != Count; ++V)
      if (Index[V] < 0)
        Visit(V);

    // Report components in child order, each by its shortest cycle through
    // its first child, so that the message is stable and easy to follow.
    std::sort(Components.begin(), Components.end(),
              [](const auto &A, const auto &B) {
                return *std::min_element(A.begin(), A.end()) <
                       *std::min_element(B.begin(), B.end());
              });
    for (const std::vector<unsigned> &Component : Components) {
      std::vector<bool> In(Count, false);
      for (unsigned V : Component)
        In[V] = true;
      unsigned Start = *std::min_element(Component.begin(), Component.end());
      std::vector<int> Pred(Count, -1);
      std::vector<unsigned> Queue{Start};
      int Last = -1;
      for (size_t Q = 0; Q != Queue.size() && Last < 0; ++Q) {
        unsigned V = Queue[Q];
        for (unsigned W : Succ[V]) {
          if (W == Start) {
            Last = static_cast<int>(V);
            break;
          }
          if (In[W] && Pred[W] < 0 && W != Start) {
            Pred[W] = static_cast<int>(V);
            Queue.push_back(W);
          }
        }
      }
      std::vector<unsigned> Cycle;
      for (int V = Last; V >= 0 && static_cast<unsigned>(V) != Start;
           V = Pred[V])
        Cycle.push_back(static_cast<unsigned>(V));
      Cycle.push_back(Start);
      std::reverse(Cycle.begin(), Cycle.end());
      std::string Path;
      for (unsigned V : Cycle)
        Path += quote(N.Children[V]->name()) + " -> ";
      Path += quote(N.Children[Start]->name());
      report(N, "edge-cycle",
             "dependency and value edges form a cycle: " + Path);
    }
  }

  void checkOutputBindings(const Node &N) {
    std::vector<unsigned> Bound(N.Outputs.size(), 0);
    for (size_t I = 0, End = N.OutputBindings.size(); I != End; ++I) {
      const OutputBinding &B = N.OutputBindings[I];
      std::string Which = "output binding #" + std::to_string(I);
      bool OK = true;
      if (B.ParentOutput >= N.Outputs.size()) {
        report(N, "output-binding",
               Which + ": the node has no output #" +
                   std::to_string(B.ParentOutput) + " (it has " +
                   std::to_string(N.Outputs.size()) + ")");
        OK = false;
      } else {
        ++Bound[B.ParentOutput];
      }
      if (B.Child >= N.Children.size()) {
        report(N, "output-binding",
               Which + ": child index " + std::to_string(B.Child) +
                   " is out of range; the node has " +
                   std::to_string(N.Children.size()) + " children");
        continue;
      }
      const Node &Child = *N.Children[B.Child];
      if (B.ChildOutput >= Child.Outputs.size()) {
        report(N, "output-binding",
               Which + ": child " + quote(Child.name()) + " has no output #" +
                   std::to_string(B.ChildOutput) + " (it has " +
                   std::to_string(Child.Outputs.size()) + ")");
        continue;
      }
      if (!OK)
        continue;
      const Output &PO = N.Outputs[B.ParentOutput];
      const Output &CO = Child.Outputs[B.ChildOutput];
      if (PO.Type != CO.Type)
        report(N, "output-binding",
               "output " + quote(PO.Name) + " (" + toString(PO.Type) +
                   ") is bound to output " + quote(CO.Name) + " of child " +
                   quote(Child.name()) + ", of type " + toString(CO.Type));
    }
    // An output with no child output behind it would have no value.
    for (size_t O = 0, End = N.Outputs.size(); O != End; ++O) {
      if (Bound[O] == 1)
        continue;
      report(N, "output-binding",
             "output " + quote(N.Outputs[O].Name) +
                 (Bound[O] ? " is bound " + std::to_string(Bound[O]) + " times"
                           : std::string(" is not bound to a child output")));
    }
  }

  void checkTargets(const Node &N) {
    if (N.Targets == 0) {
      report(N, "targets",
             "no targets; a node needs at least one of " +
                 targetsToString(AllTargets));
      return;
    }
    if (TargetMask Unknown = N.Targets & ~AllTargets) {
      std::ostringstream OS;
      OS << "target mask 0x" << std::hex << N.Targets
         << " has unknown target bits 0x" << Unknown;
      report(N, "targets", OS.str());
    }
  }
};

} // namespace

std::vector<GraphDiagnostic> hpvm::verifyGraph(const Graph &G) {
  std::vector<GraphDiagnostic> Diags;
  Verifier V(Diags);
  forEachNode(G.root(), [&](const Node &N) { V.verify(N); });
  return Diags;
}
