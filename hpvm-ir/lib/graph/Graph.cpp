//===- Graph.cpp - The HPVM dataflow graph model and builder --------------===//
//
// The builder throws only for mistakes it can see from its own arguments
// (a node that is not a child, an unknown parameter name, children under a
// leaf). Anything that a graph read from metadata could also get wrong is left
// to verifyGraph, so that both paths report it the same way.
//
//===----------------------------------------------------------------------===//

#include "hpvm/ir/Graph.h"

#include <cmath>

using namespace hpvm;

namespace {

struct TargetName {
  Target Bit;
  const char *Name;
};

// Printing order of a mask, and the only names parseTargets accepts.
constexpr TargetName TargetNames[] = {
    {TargetCPU, "cpu"}, {TargetNVPTX, "nvptx"}, {TargetSPIRV, "spirv"}};

std::string_view trim(std::string_view S) {
  while (!S.empty() && (S.front() == ' ' || S.front() == '\t'))
    S.remove_prefix(1);
  while (!S.empty() && (S.back() == ' ' || S.back() == '\t'))
    S.remove_suffix(1);
  return S;
}

// NaN constants must still compare equal to themselves, or a graph holding
// one would never equal its own round trip through metadata.
bool sameDouble(double A, double B) {
  return A == B || (std::isnan(A) && std::isnan(B));
}

} // namespace

std::string hpvm::targetsToString(TargetMask Mask) {
  std::string Result;
  for (const TargetName &T : TargetNames) {
    if (!(Mask & T.Bit))
      continue;
    if (!Result.empty())
      Result += ',';
    Result += T.Name;
  }
  return Result;
}

std::optional<TargetMask> hpvm::parseTargets(std::string_view Text) {
  TargetMask Mask = 0;
  // The empty mask has the empty spelling, so that it survives a round trip
  // and the verifier (rule `targets`) gets to report it.
  if (trim(Text).empty())
    return Mask;
  while (true) {
    size_t Comma = Text.find(',');
    std::string_view Item = trim(Text.substr(0, Comma));
    bool Known = false;
    for (const TargetName &T : TargetNames) {
      if (Item == T.Name) {
        Mask |= T.Bit;
        Known = true;
      }
    }
    if (!Known)
      return std::nullopt;
    if (Comma == std::string_view::npos)
      return Mask;
    Text.remove_prefix(Comma + 1);
  }
}

const char *hpvm::toString(ScalarType T) {
  switch (T) {
  case ScalarType::I1:
    return "i1";
  case ScalarType::I8:
    return "i8";
  case ScalarType::I16:
    return "i16";
  case ScalarType::I32:
    return "i32";
  case ScalarType::I64:
    return "i64";
  case ScalarType::F16:
    return "f16";
  case ScalarType::F32:
    return "f32";
  case ScalarType::F64:
    return "f64";
  case ScalarType::Ptr:
    return "ptr";
  }
  return "<invalid type>";
}

std::optional<ScalarType> hpvm::parseScalarType(std::string_view Text) {
  for (ScalarType T : {ScalarType::I1, ScalarType::I8, ScalarType::I16,
                       ScalarType::I32, ScalarType::I64, ScalarType::F16,
                       ScalarType::F32, ScalarType::F64, ScalarType::Ptr})
    if (Text == toString(T))
      return T;
  return std::nullopt;
}

bool hpvm::isInteger(ScalarType T) {
  switch (T) {
  case ScalarType::I1:
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::I32:
  case ScalarType::I64:
    return true;
  default:
    return false;
  }
}

const char *hpvm::toString(Access A) {
  switch (A) {
  case Access::In:
    return "in";
  case Access::Out:
    return "out";
  case Access::InOut:
    return "inout";
  }
  return "<invalid access>";
}

std::optional<Access> hpvm::parseAccess(std::string_view Text) {
  for (Access A : {Access::In, Access::Out, Access::InOut})
    if (Text == toString(A))
      return A;
  return std::nullopt;
}

const char *hpvm::toString(EdgeKind K) {
  switch (K) {
  case EdgeKind::Dependency:
    return "dep";
  case EdgeKind::Value:
    return "value";
  case EdgeKind::Streaming:
    return "stream";
  }
  return "<invalid edge kind>";
}

std::optional<EdgeKind> hpvm::parseEdgeKind(std::string_view Text) {
  for (EdgeKind K :
       {EdgeKind::Dependency, EdgeKind::Value, EdgeKind::Streaming})
    if (Text == toString(K))
      return K;
  return std::nullopt;
}

// Fields that a kind of parameter, edge or binding does not use are left out
// of the comparisons: a reader that never sets them must still produce an
// equal graph.
bool Param::operator==(const Param &O) const {
  if (Name != O.Name || ParamKind != O.ParamKind)
    return false;
  if (isBuffer())
    return Mode == O.Mode && Bytes == O.Bytes && WritesAll == O.WritesAll &&
           Written == O.Written && Offset == O.Offset;
  return Type == O.Type;
}

bool Edge::operator==(const Edge &O) const {
  if (Kind != O.Kind || Src != O.Src || Dst != O.Dst)
    return false;
  if (Kind == EdgeKind::Dependency)
    return true;
  if (SrcOutput != O.SrcOutput || DstParam != O.DstParam)
    return false;
  return Kind != EdgeKind::Streaming || Capacity == O.Capacity;
}

bool Binding::operator==(const Binding &O) const {
  if (Child != O.Child || ChildParam != O.ChildParam || From != O.From)
    return false;
  if (From == Source::ParentParam)
    return ParentParam == O.ParentParam;
  if (IsFloat != O.IsFloat)
    return false;
  return IsFloat ? sameDouble(FloatValue, O.FloatValue)
                 : IntValue == O.IntValue;
}

std::string Node::path() const {
  if (!Parent)
    return Name;
  return Parent->path() + "/" + Name;
}

unsigned Node::addBuffer(std::string ParamName, Access Mode, Extent Bytes) {
  Param P;
  P.Name = std::move(ParamName);
  P.ParamKind = Param::Kind::Buffer;
  P.Type = ScalarType::Ptr;
  P.Mode = Mode;
  P.Bytes = Bytes;
  Params.push_back(std::move(P));
  return static_cast<unsigned>(Params.size() - 1);
}

unsigned Node::addValue(std::string ParamName, ScalarType Type) {
  Param P;
  P.Name = std::move(ParamName);
  P.ParamKind = Param::Kind::Value;
  P.Type = Type;
  Params.push_back(std::move(P));
  return static_cast<unsigned>(Params.size() - 1);
}

unsigned Node::addOutput(std::string OutputName, ScalarType Type) {
  Outputs.push_back(Output{std::move(OutputName), Type});
  return static_cast<unsigned>(Outputs.size() - 1);
}

Node &Node::setDims(std::vector<Extent> NewDims) {
  Dims = std::move(NewDims);
  return *this;
}

Node &Node::setTargets(TargetMask Mask) {
  Targets = Mask;
  return *this;
}

Node &Node::addLeaf(std::string ChildName, std::string FunctionName) {
  if (isLeaf())
    throw GraphError("cannot add child '" + ChildName + "' to leaf node '" +
                     path() + "'");
  Children.push_back(
      std::make_unique<Node>(Kind::Leaf, std::move(ChildName), this));
  Children.back()->Function = std::move(FunctionName);
  return *Children.back();
}

Node &Node::addInternal(std::string ChildName) {
  if (isLeaf())
    throw GraphError("cannot add child '" + ChildName + "' to leaf node '" +
                     path() + "'");
  Children.push_back(
      std::make_unique<Node>(Kind::Internal, std::move(ChildName), this));
  return *Children.back();
}

void Node::bind(const Node &Child, unsigned ChildParam, unsigned ParentParam) {
  Binding B;
  B.Child = childIndex(Child);
  B.ChildParam = ChildParam;
  B.From = Binding::Source::ParentParam;
  B.ParentParam = ParentParam;
  Bindings.push_back(B);
}

void Node::bind(const Node &Child, std::string_view ChildParam,
                std::string_view ParentParam) {
  // Check that Child is ours before blaming its parameter names.
  childIndex(Child);
  bind(Child, Child.paramIndex(ChildParam), paramIndex(ParentParam));
}

void Node::bindConstant(const Node &Child, unsigned ChildParam, int64_t Value) {
  Binding B;
  B.Child = childIndex(Child);
  B.ChildParam = ChildParam;
  B.From = Binding::Source::Constant;
  B.IntValue = Value;
  Bindings.push_back(B);
}

void Node::bindConstant(const Node &Child, unsigned ChildParam, double Value) {
  Binding B;
  B.Child = childIndex(Child);
  B.ChildParam = ChildParam;
  B.From = Binding::Source::Constant;
  B.FloatValue = Value;
  B.IsFloat = true;
  Bindings.push_back(B);
}

void Node::bindOutput(unsigned ParentOutput, const Node &Child,
                      unsigned ChildOutput) {
  OutputBindings.push_back(
      OutputBinding{ParentOutput, childIndex(Child), ChildOutput});
}

void Node::addDependency(const Node &From, const Node &To) {
  Edge E;
  E.Kind = EdgeKind::Dependency;
  E.Src = childIndex(From);
  E.Dst = childIndex(To);
  Edges.push_back(E);
}

void Node::addValueEdge(const Node &From, unsigned Output, const Node &To,
                        unsigned Param) {
  Edge E;
  E.Kind = EdgeKind::Value;
  E.Src = childIndex(From);
  E.SrcOutput = Output;
  E.Dst = childIndex(To);
  E.DstParam = Param;
  Edges.push_back(E);
}

void Node::addStreamingEdge(const Node &From, unsigned Output, const Node &To,
                            unsigned Param, unsigned Capacity) {
  Edge E;
  E.Kind = EdgeKind::Streaming;
  E.Src = childIndex(From);
  E.SrcOutput = Output;
  E.Dst = childIndex(To);
  E.DstParam = Param;
  E.Capacity = Capacity;
  Edges.push_back(E);
}

unsigned Node::childIndex(const Node &Child) const {
  // From the last: bindings and edges are mostly added for the children
  // just added, and a graph of thousands of children would otherwise pay
  // for each.
  for (size_t I = Children.size(); I-- > 0;)
    if (Children[I].get() == &Child)
      return static_cast<unsigned>(I);
  throw GraphError("node '" + Child.path() + "' is not a child of '" + path() +
                   "'");
}

unsigned Node::paramIndex(std::string_view ParamName) const {
  for (size_t I = 0, E = Params.size(); I != E; ++I)
    if (Params[I].Name == ParamName)
      return static_cast<unsigned>(I);
  throw GraphError("node '" + path() + "' has no parameter '" +
                   std::string(ParamName) + "'");
}

Node *Node::findChild(std::string_view ChildName) const {
  for (const auto &C : Children)
    if (C->Name == ChildName)
      return C.get();
  return nullptr;
}

bool Node::equals(const Node &O) const {
  if (NodeKind != O.NodeKind || Name != O.Name || Dims != O.Dims ||
      Group != O.Group || Sequential != O.Sequential || Params != O.Params ||
      Outputs != O.Outputs || Targets != O.Targets || Function != O.Function ||
      Edges != O.Edges || Bindings != O.Bindings ||
      OutputBindings != O.OutputBindings ||
      Children.size() != O.Children.size())
    return false;
  for (size_t I = 0, E = Children.size(); I != E; ++I)
    if (!Children[I]->equals(*O.Children[I]))
      return false;
  return true;
}
