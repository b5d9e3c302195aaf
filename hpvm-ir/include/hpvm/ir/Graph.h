//===- Graph.h - The HPVM dataflow graph model and builder ------*- C++ -*-===//
//
// The graph form of an HPVM program, independent of LLVM so that the runtime
// and the Python binding can share it. Leaf bodies are referred to by the
// symbol name of their SPMD function; the LLVM encoding lives in
// GraphMetadata.h. See docs/ir.md for the semantics of every field.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_GRAPH_H
#define HPVM_IR_GRAPH_H

#include "hpvm/abi/targets.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hpvm {

/// Raised by the builder for misuse it can see at once (unknown names, a
/// node that is not a child). Everything else is reported by verifyGraph.
class GraphError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Compilation targets a node may be placed on, as a bit mask.
enum Target : uint32_t {
  TargetCPU = HPVM_ABI_TARGET_CPU,
  TargetNVPTX = HPVM_ABI_TARGET_NVPTX,
  TargetSPIRV = HPVM_ABI_TARGET_SPIRV,
};
using TargetMask = uint32_t;
constexpr TargetMask AllTargets = TargetCPU | TargetNVPTX | TargetSPIRV;

/// "cpu,nvptx,spirv" style spelling of a mask; parseTargets accepts the same.
std::string targetsToString(TargetMask Mask);
std::optional<TargetMask> parseTargets(std::string_view Text);

/// Types a scalar parameter or a node output may have.
enum class ScalarType { I1, I8, I16, I32, I64, F16, F32, F64, Ptr };
const char *toString(ScalarType T);
std::optional<ScalarType> parseScalarType(std::string_view Text);
bool isInteger(ScalarType T);

/// How a node uses a buffer parameter.
enum class Access { In, Out, InOut };
const char *toString(Access A);
std::optional<Access> parseAccess(std::string_view Text);
inline bool reads(Access A) { return A != Access::Out; }
inline bool writes(Access A) { return A != Access::In; }

/// A count (a replication extent or a buffer's byte size): either known when
/// the graph is built, or the run-time value of one of the node's integer
/// value parameters.
class Extent {
public:
  static Extent constant(uint64_t Value) { return Extent(false, Value); }
  static Extent param(unsigned Index) { return Extent(true, Index); }
  bool isConstant() const { return !IsParam; }
  bool isParam() const { return IsParam; }
  uint64_t value() const { return Payload; }
  unsigned paramIndex() const { return static_cast<unsigned>(Payload); }
  bool operator==(const Extent &O) const {
    return IsParam == O.IsParam && Payload == O.Payload;
  }
  bool operator!=(const Extent &O) const { return !(*this == O); }

private:
  Extent(bool IsParam, uint64_t Payload) : IsParam(IsParam), Payload(Payload) {}
  bool IsParam;
  uint64_t Payload;
};

/// One term of where a buffer section starts, in bytes from the buffer's
/// pointer: Coef times the instance id of the node's ancestor Level (1 =
/// the parent) in dim Dim, or, for Level 0, Coef itself.
struct OffsetTerm {
  Extent Coef = Extent::constant(0);
  unsigned Level = 0, Dim = 0;
  bool operator==(const OffsetTerm &O) const {
    return Coef == O.Coef && Level == O.Level && Dim == O.Dim;
  }
};

/// Scale * Of + Add: a count derived from one extent, so that describing
/// a node needs no parameters beyond those its code uses.
struct DerivedExtent {
  Extent Of = Extent::constant(0);
  int64_t Scale = 1, Add = 0;
  bool operator==(const DerivedExtent &O) const {
    // A constant one is its value, however it is spelled.
    if (Of.isConstant() && O.Of.isConstant())
      return Of.value() * Scale + Add == O.Of.value() * O.Scale + O.Add;
    return Of == O.Of && Scale == O.Scale && Add == O.Add;
  }
};

/// Rows of a buffer section that every execution of a leaf writes: Rows
/// rows of RowBytes bytes, Stride bytes apart, the first Start bytes into
/// the section (the interior of a grid, without its borders).
struct WrittenRows {
  DerivedExtent Start, RowBytes, Stride, Rows;
  bool operator==(const WrittenRows &O) const {
    return Start == O.Start && RowBytes == O.RowBytes && Stride == O.Stride &&
           Rows == O.Rows;
  }
};

/// One formal parameter of a node: a buffer (pointer + byte size + access
/// mode) or a scalar passed by value.
struct Param {
  enum class Kind { Buffer, Value };
  std::string Name;
  Kind ParamKind = Kind::Value;
  ScalarType Type = ScalarType::I64;  // Ptr for buffers
  Access Mode = Access::In;           // buffers only
  Extent Bytes = Extent::constant(0); // buffers only
  /// Out buffers of leaves: each execution of the node (all its instances
  /// together) writes every byte of the buffer, so the bytes there before
  /// are dead and need not be copied to the device that runs it. EXTRACT
  /// sets it where it proves it; without it an out buffer's unwritten bytes
  /// keep their values, as in the sequential program.
  bool WritesAll = false;
  /// Out buffers of leaves that do not write all of it: rows that each
  /// execution writes, so that only the bytes around them need copying to
  /// the device that runs it. Set by EXTRACT where it proves it.
  std::optional<WrittenRows> Written;
  /// Buffers: the node touches bytes [offset, offset + Bytes) of the buffer,
  /// the offset being the sum of these terms (0 when there are none). With
  /// terms in instance ids, each instance of a replicated ancestor has a
  /// section of its own (`x[r*n : n]`).
  std::vector<OffsetTerm> Offset;

  bool isBuffer() const { return ParamKind == Kind::Buffer; }
  bool operator==(const Param &O) const;
};

/// A value a node produces for its siblings (value and streaming edges) or
/// for its parent (output bindings).
struct Output {
  std::string Name;
  ScalarType Type = ScalarType::I64;
  bool operator==(const Output &O) const {
    return Name == O.Name && Type == O.Type;
  }
};

enum class EdgeKind { Dependency, Value, Streaming };
const char *toString(EdgeKind K);
std::optional<EdgeKind> parseEdgeKind(std::string_view Text);

/// An edge between two children of the same internal node (indices into its
/// children). Dependency edges only order; value edges carry output SrcOutput
/// of Src into parameter DstParam of Dst; streaming edges do the same through
/// a bounded channel of Capacity elements.
struct Edge {
  EdgeKind Kind = EdgeKind::Dependency;
  unsigned Src = 0, Dst = 0;
  unsigned SrcOutput = 0, DstParam = 0; // value and streaming edges
  unsigned Capacity = 0;                // streaming edges
  bool operator==(const Edge &O) const;
};

/// Where a child's parameter gets its value from inside its parent: one of
/// the parent's parameters, or a constant.
struct Binding {
  enum class Source { ParentParam, Constant };
  unsigned Child = 0;
  unsigned ChildParam = 0;
  Source From = Source::ParentParam;
  unsigned ParentParam = 0; // Source::ParentParam
  int64_t IntValue = 0;     // Source::Constant, integer parameters
  double FloatValue = 0;    // Source::Constant, floating-point parameters
  /// Source::Constant: the constant is FloatValue (a `double C` in the
  /// metadata) rather than IntValue, so the verifier can check it against
  /// the parameter's type.
  bool IsFloat = false;
  bool operator==(const Binding &O) const;
};

/// An internal node's output ParentOutput is child Child's output ChildOutput.
struct OutputBinding {
  unsigned ParentOutput = 0;
  unsigned Child = 0;
  unsigned ChildOutput = 0;
  bool operator==(const OutputBinding &O) const {
    return ParentOutput == O.ParentOutput && Child == O.Child &&
           ChildOutput == O.ChildOutput;
  }
};

/// A node of the hierarchical dataflow graph. A leaf runs an SPMD function
/// once per instance of its index space; an internal node instantiates its
/// child graph once per instance of its own index space.
/// How many levels nodes may nest (the root is level 1). Readers and the
/// region parser reject deeper graphs with an error: the walks over a graph
/// (verifiers, EXTRACT, the executor) recurse once per level, and a graph
/// thousands of levels deep would exhaust their stacks. Real graphs have a
/// handful of levels.
constexpr unsigned MaxNodeDepth = 256;
/// How many nodes one graph may have. Graph metadata may name one node
/// tuple from several parents (uniqued metadata shares equal subtrees), and
/// each parent gets a copy: a few dozen levels of shared children would
/// otherwise read as billions of nodes. Real graphs have at most thousands.
constexpr unsigned MaxGraphNodes = 1u << 16;

class Node {
public:
  enum class Kind { Leaf, Internal };

  Node(Kind K, std::string Name, Node *Parent = nullptr)
      : NodeKind(K), Name(std::move(Name)), Parent(Parent) {}
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  Kind kind() const { return NodeKind; }
  bool isLeaf() const { return NodeKind == Kind::Leaf; }
  bool isInternal() const { return NodeKind == Kind::Internal; }
  const std::string &name() const { return Name; }
  Node *parent() const { return Parent; }
  /// "root/stage/leaf": names from the graph's root, for diagnostics.
  std::string path() const;

  // --- Interface ----------------------------------------------------------
  /// Replication extents, outermost first (at most 3; none = one instance).
  std::vector<Extent> Dims;
  /// Internal nodes with dims: the instances run one after another, in
  /// order, each child graph finished before the next starts (a time-step
  /// loop around child nodes), instead of in parallel.
  bool Sequential = false;
  /// Leaves: each instance is a work-group of this many work-items,
  /// outermost first (at most 3; none: not a work-group leaf). The leaf
  /// function runs a whole group, its work-items in loops of its own, the
  /// stretches between barriers one after another (HPVM-C's barriers,
  /// docs/hpvm-c.md). A GPU backend may compile, beside it, a work-group
  /// kernel that runs each work-item on a device thread of its own, the
  /// group one device work-group, with the device's barriers between them
  /// (docs/ir.md, "Work-group leaves").
  std::vector<Extent> Group;
  std::vector<Param> Params;
  std::vector<Output> Outputs;
  TargetMask Targets = AllTargets;
  /// Leaves: the symbol of the SPMD function computing one instance.
  std::string Function;

  // --- Internal nodes -----------------------------------------------------
  std::vector<std::unique_ptr<Node>> Children;
  std::vector<Edge> Edges;
  std::vector<Binding> Bindings;
  std::vector<OutputBinding> OutputBindings;

  // --- Builder ------------------------------------------------------------
  unsigned addBuffer(std::string Name, Access Mode, Extent Bytes);
  unsigned addValue(std::string Name, ScalarType Type);
  unsigned addOutput(std::string Name, ScalarType Type);
  Node &setDims(std::vector<Extent> NewDims);
  Node &setTargets(TargetMask Mask);

  Node &addLeaf(std::string Name, std::string FunctionName);
  Node &addInternal(std::string Name);

  /// Child parameter ChildParam takes the value of this node's ParentParam.
  void bind(const Node &Child, unsigned ChildParam, unsigned ParentParam);
  void bind(const Node &Child, std::string_view ChildParam,
            std::string_view ParentParam);
  void bindConstant(const Node &Child, unsigned ChildParam, int64_t Value);
  void bindConstant(const Node &Child, unsigned ChildParam, double Value);
  void bindOutput(unsigned ParentOutput, const Node &Child,
                  unsigned ChildOutput);

  void addDependency(const Node &From, const Node &To);
  void addValueEdge(const Node &From, unsigned Output, const Node &To,
                    unsigned Param);
  void addStreamingEdge(const Node &From, unsigned Output, const Node &To,
                        unsigned Param, unsigned Capacity);

  /// Index of a direct child; throws GraphError if Child is not one.
  unsigned childIndex(const Node &Child) const;
  /// Index of the parameter called Name; throws GraphError if there is none.
  unsigned paramIndex(std::string_view Name) const;
  Node *findChild(std::string_view Name) const;

  /// Structural equality, including the whole subtree.
  bool equals(const Node &O) const;

private:
  Kind NodeKind;
  std::string Name;
  Node *Parent;
};

/// A graph: the unit the host launches. Its root's parameters are the
/// arguments of the launch.
class Graph {
public:
  explicit Graph(std::string Name, Node::Kind RootKind = Node::Kind::Internal)
      : Name(Name), Root(std::make_unique<Node>(RootKind, Name)) {}
  const std::string &name() const { return Name; }
  Node &root() { return *Root; }
  const Node &root() const { return *Root; }
  bool equals(const Graph &O) const {
    return Name == O.Name && Root->equals(*O.Root);
  }

private:
  std::string Name;
  std::unique_ptr<Node> Root;
};

/// Calls F on N and every node below it, parents before children.
template <typename Fn> void forEachNode(const Node &N, Fn &&F) {
  F(N);
  for (const auto &C : N.Children)
    forEachNode(*C, F);
}

} // namespace hpvm

#endif // HPVM_IR_GRAPH_H
