//===- GraphVerifierTest.cpp - Rules of docs/ir.md §1.1 -------------------===//

#include "hpvm/ir/GraphVerifier.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace hpvm;

namespace {

// A well-formed three-level graph that uses every feature: dims of every
// arity and both kinds of extent, all edge kinds, bindings from parameters
// and from integer and floating-point constants, and output bindings.
//
//   pipe(src in, dst out, n, bytes, scale, scratch inout) -> total
//     stage [n] (cpu,nvptx)        -- internal
//       mul [2, 3, len] @mul_fn    -- value edge part -> acc.x, dep mul -> acc
//       acc @acc_fn
//     reduce [count] @reduce_fn    -- streaming stage.sum -> reduce.s
struct Pipeline {
  std::unique_ptr<Graph> G = std::make_unique<Graph>("pipe");
  Node *Root, *Stage, *Mul, *Acc, *Reduce;

  Pipeline() {
    Node &R = G->root();
    Root = &R;
    R.addBuffer("src", Access::In, Extent::param(3));
    R.addBuffer("dst", Access::Out, Extent::param(3));
    R.addValue("n", ScalarType::I64);
    R.addValue("bytes", ScalarType::I64);
    R.addValue("scale", ScalarType::F32);
    R.addBuffer("scratch", Access::InOut, Extent::param(3));
    R.addOutput("total", ScalarType::F32);

    Node &S = R.addInternal("stage");
    Stage = &S;
    S.addBuffer("in", Access::In, Extent::param(3));
    S.addBuffer("tmp", Access::InOut, Extent::param(3));
    S.addValue("n", ScalarType::I64);
    S.addValue("bytes", ScalarType::I64);
    S.addValue("k", ScalarType::F32);
    S.addOutput("sum", ScalarType::F32);
    S.setDims({Extent::param(2)}).setTargets(TargetCPU | TargetNVPTX);

    Node &M = S.addLeaf("mul", "mul_fn");
    Mul = &M;
    M.addBuffer("in", Access::In, Extent::param(1));
    M.addValue("nbytes", ScalarType::I64);
    M.addValue("len", ScalarType::I32);
    M.addBuffer("tmp", Access::Out, Extent::param(1));
    M.addValue("k", ScalarType::F32);
    M.addOutput("part", ScalarType::F32);
    M.setDims({Extent::constant(2), Extent::constant(3), Extent::param(2)});

    Node &A = S.addLeaf("acc", "acc_fn");
    Acc = &A;
    A.addBuffer("tmp", Access::In, Extent::constant(64));
    A.addValue("x", ScalarType::F32);
    A.addOutput("sum", ScalarType::F32);

    S.addDependency(M, A);
    S.addValueEdge(M, 0, A, 1);
    S.bind(M, "in", "in");
    S.bind(M, "nbytes", "bytes");
    S.bindConstant(M, 2, int64_t(16));
    S.bind(M, "tmp", "tmp");
    S.bind(M, "k", "k");
    S.bind(A, "tmp", "tmp");
    S.bindOutput(0, A, 0);

    Node &D = R.addLeaf("reduce", "reduce_fn");
    Reduce = &D;
    D.addValue("s", ScalarType::F32);
    D.addValue("count", ScalarType::I64);
    D.addBuffer("dst", Access::InOut, Extent::param(3));
    D.addValue("nbytes", ScalarType::I64);
    D.addValue("alpha", ScalarType::F64);
    D.addOutput("total", ScalarType::F32);
    D.setDims({Extent::param(1)});

    R.addStreamingEdge(S, 0, D, 0, 2);
    R.addDependency(S, D);
    R.bind(S, "in", "src");
    R.bind(S, "tmp", "scratch");
    R.bind(S, "n", "n");
    R.bind(S, "bytes", "bytes");
    R.bind(S, "k", "scale");
    R.bind(D, "count", "n");
    R.bind(D, "dst", "dst");
    R.bind(D, "nbytes", "bytes");
    R.bindConstant(D, 4, 0.25);
    R.bindOutput(0, D, 0);
  }

  // The binding of child parameter Param of Child, which must exist.
  Binding &bindingOf(Node &Parent, const Node &Child, const char *Param) {
    unsigned C = Parent.childIndex(Child);
    unsigned P = Child.paramIndex(Param);
    for (Binding &B : Parent.Bindings)
      if (B.Child == C && B.ChildParam == P)
        return B;
    ADD_FAILURE() << "no binding for " << Param;
    return Parent.Bindings.front();
  }
};

std::string dump(const std::vector<GraphDiagnostic> &Diags) {
  std::string S;
  for (const GraphDiagnostic &D : Diags)
    S += "  " + D.str() + "\n";
  return S;
}

// Expects exactly one diagnostic, for Rule at node Where, whose message
// names every fragment.
void expectOnly(const Graph &G, const char *Rule, const char *Where,
                std::initializer_list<const char *> Fragments) {
  std::vector<GraphDiagnostic> Diags = verifyGraph(G);
  ASSERT_EQ(Diags.size(), 1u) << dump(Diags);
  EXPECT_EQ(Diags[0].Rule, Rule) << dump(Diags);
  EXPECT_EQ(Diags[0].Where, Where) << dump(Diags);
  for (const char *Fragment : Fragments)
    EXPECT_NE(Diags[0].Message.find(Fragment), std::string::npos)
        << "message lacks '" << Fragment << "':\n"
        << dump(Diags);
}

// Expects a diagnostic for Rule at node Where whose message names every
// fragment, among possibly others.
void expectHas(const Graph &G, const char *Rule, const char *Where,
               std::initializer_list<const char *> Fragments) {
  std::vector<GraphDiagnostic> Diags = verifyGraph(G);
  for (const GraphDiagnostic &D : Diags) {
    if (D.Rule != Rule || D.Where != Where)
      continue;
    bool All = true;
    for (const char *Fragment : Fragments)
      All &= D.Message.find(Fragment) != std::string::npos;
    if (All)
      return;
  }
  ADD_FAILURE() << "no [" << Rule << "] diagnostic at '" << Where
                << "' naming all expected fragments among:\n"
                << dump(Diags);
}

TEST(GraphVerifier, WellFormedGraphIsClean) {
  Pipeline P;
  std::vector<GraphDiagnostic> Diags = verifyGraph(*P.G);
  EXPECT_TRUE(Diags.empty()) << dump(Diags);
}

TEST(GraphVerifier, SingleLeafGraphIsClean) {
  Graph G("one", Node::Kind::Leaf);
  G.root().Function = "one_fn";
  G.root().addValue("n", ScalarType::I32);
  G.root().setDims({Extent::param(0)});
  EXPECT_TRUE(verifyGraph(G).empty());
}

TEST(GraphVerifier, DiagnosticFormat) {
  GraphDiagnostic D{"edge-cycle", "g/a", "something is wrong"};
  EXPECT_EQ(D.str(), "graph 'g', node 'g/a': [edge-cycle] something is wrong");
  GraphDiagnostic Root{"targets", "g", "no targets"};
  EXPECT_EQ(Root.str(), "graph 'g', node 'g': [targets] no targets");
}

TEST(GraphVerifier, ReportsEveryProblemInEveryNode) {
  Pipeline P;
  P.Mul->Dims.push_back(Extent::constant(1));
  P.Root->setTargets(0);
  P.Stage->Bindings.pop_back(); // acc.tmp
  std::vector<GraphDiagnostic> Diags = verifyGraph(*P.G);
  ASSERT_EQ(Diags.size(), 3u) << dump(Diags);
  // Parents come before their children.
  EXPECT_EQ(Diags[0].Rule, "targets");
  EXPECT_EQ(Diags[0].Where, "pipe");
  EXPECT_EQ(Diags[1].Rule, "binding");
  EXPECT_EQ(Diags[1].Where, "pipe/stage");
  EXPECT_EQ(Diags[2].Rule, "dims");
  EXPECT_EQ(Diags[2].Where, "pipe/stage/mul");
  EXPECT_EQ(
      Diags[2].str().rfind("graph 'pipe', node 'pipe/stage/mul': [dims] ", 0),
      0u);
}

// --- dims ------------------------------------------------------------------

TEST(GraphVerifierDims, AtMostThree) {
  Pipeline P;
  P.Mul->Dims.push_back(Extent::constant(5));
  expectOnly(*P.G, "dims", "pipe/stage/mul", {"4 dims", "at most 3"});
}

TEST(GraphVerifierDims, ExtentParameterOutOfRange) {
  Pipeline P;
  P.Reduce->Dims[0] = Extent::param(9);
  expectOnly(*P.G, "dims", "pipe/reduce", {"dim 0", "parameter #9"});
}

TEST(GraphVerifierDims, ExtentParameterIsABuffer) {
  Pipeline P;
  P.Stage->Dims[0] = Extent::param(1);
  expectOnly(*P.G, "dims", "pipe/stage", {"dim 0", "'tmp'", "buffer"});
}

TEST(GraphVerifierDims, ExtentParameterIsNotAnInteger) {
  Pipeline P;
  P.Mul->Dims[2] = Extent::param(4);
  expectOnly(*P.G, "dims", "pipe/stage/mul", {"dim 2", "'k'", "f32"});
}

// --- buffer-size -----------------------------------------------------------

TEST(GraphVerifierBufferSize, SizeParameterIsNotAnInteger) {
  Pipeline P;
  P.Reduce->Params[2].Bytes = Extent::param(4);
  expectOnly(*P.G, "buffer-size", "pipe/reduce", {"'dst'", "'alpha'", "f64"});
}

TEST(GraphVerifierBufferSize, SizeParameterIsABuffer) {
  Pipeline P;
  P.Root->Params[1].Bytes = Extent::param(0);
  expectOnly(*P.G, "buffer-size", "pipe", {"'dst'", "'src'", "buffer"});
}

TEST(GraphVerifierWritesAll, OnlyOutBuffersOfLeaves) {
  Pipeline P;
  P.Mul->Params[3].WritesAll = true; // out, of a leaf: fine
  EXPECT_TRUE(verifyGraph(*P.G).empty());
  P.Mul->Params[0].WritesAll = true; // in
  expectOnly(*P.G, "writes-all", "pipe/stage/mul", {"'in'", "out buffer"});
  P.Mul->Params[0].WritesAll = false;
  P.Root->Params[1].WritesAll = true; // out, of an internal node
  expectOnly(*P.G, "writes-all", "pipe", {"'dst'", "of a leaf"});
  P.Root->Params[1].WritesAll = false;
  // Rows: the same rule, and their extents must exist.
  DerivedExtent Four{Extent::constant(0), 1, 4};
  P.Mul->Params[3].Written = WrittenRows{Four, Four, Four, Four};
  EXPECT_TRUE(verifyGraph(*P.G).empty());
  P.Mul->Params[3].Written->Rows.Of = Extent::param(9);
  expectOnly(*P.G, "writes-all", "pipe/stage/mul",
             {"rows written of buffer 'tmp'", "#9"});
  P.Mul->Params[3].Written.reset();
  P.Mul->Params[0].Written = WrittenRows{Four, Four, Four, Four};
  expectOnly(*P.G, "writes-all", "pipe/stage/mul", {"'in'", "writes-rows"});
}

TEST(GraphVerifierBufferSection, IdsAndCoefficientsMustExist) {
  Pipeline P;
  // mul's tmp: a section per instance of the stage (1 dim).
  P.Mul->Params[3].Offset = {OffsetTerm{Extent::param(1), 1, 0}};
  EXPECT_TRUE(verifyGraph(*P.G).empty());
  P.Mul->Params[3].Offset = {OffsetTerm{Extent::param(1), 1, 1}};
  expectOnly(*P.G, "buffer-section", "pipe/stage/mul",
             {"'tmp'", "id dim 1 of 'pipe/stage'", "1 dims"});
  P.Mul->Params[3].Offset = {OffsetTerm{Extent::param(1), 3, 0}};
  expectOnly(*P.G, "buffer-section", "pipe/stage/mul",
             {"'tmp'", "ancestor level 3", "above the root"});
  P.Mul->Params[3].Offset = {OffsetTerm{Extent::param(4), 0, 0}};
  expectOnly(*P.G, "buffer-section", "pipe/stage/mul", {"'tmp'", "'k'", "f32"});
  P.Mul->Params[3].Offset.clear();
  P.Mul->Params[1].Offset = {OffsetTerm{Extent::constant(4), 0, 0}};
  expectOnly(*P.G, "buffer-section", "pipe/stage/mul",
             {"value parameter 'nbytes'"});
}

TEST(GraphVerifierBufferSize, SizeParameterOutOfRange) {
  Pipeline P;
  P.Root->Params[0].Bytes = Extent::param(17);
  expectOnly(*P.G, "buffer-size", "pipe", {"'src'", "#17"});
}

// --- leaf-function ---------------------------------------------------------

TEST(GraphVerifierSequential, OnlyInternalNodesWithDims) {
  {
    Pipeline P;
    P.Mul->Sequential = true;
    expectOnly(*P.G, "sequential", "pipe/stage/mul",
               {"a leaf cannot be sequential"});
  }
  {
    Pipeline P;
    P.Stage->Dims.clear();
    P.Stage->Sequential = true;
    expectOnly(*P.G, "sequential", "pipe/stage", {"needs dims"});
  }
}

TEST(GraphVerifierGroup, OnlyLeavesOfAtMostThreeIntegerExtents) {
  {
    Pipeline P;
    P.Mul->Group = {Extent::constant(16), Extent::param(2)};
    EXPECT_TRUE(verifyGraph(*P.G).empty());
  }
  {
    Pipeline P;
    P.Stage->Group = {Extent::constant(16)};
    expectOnly(*P.G, "group", "pipe/stage", {"only a leaf's instances"});
  }
  {
    Pipeline P;
    P.Mul->Group.assign(4, Extent::constant(2));
    expectOnly(*P.G, "group", "pipe/stage/mul", {"4 dims", "at most 3"});
  }
  {
    Pipeline P;
    P.Mul->Group = {Extent::param(0)}; // a buffer
    expectOnly(*P.G, "group", "pipe/stage/mul", {"work-group extent 0"});
  }
}

TEST(GraphVerifierLeafFunction, LeafWithoutFunction) {
  Pipeline P;
  P.Acc->Function.clear();
  expectOnly(*P.G, "leaf-function", "pipe/stage/acc", {"no function"});
}

TEST(GraphVerifierLeafFunction, InternalNodeWithFunction) {
  Pipeline P;
  P.Stage->Function = "stage_fn";
  expectOnly(*P.G, "leaf-function", "pipe/stage", {"'stage_fn'"});
}

TEST(GraphVerifierLeafFunction, LeafWithChildren) {
  Pipeline P;
  // The builder refuses this, but a graph read from metadata may have it.
  P.Acc->Children.push_back(
      std::make_unique<Node>(Node::Kind::Leaf, "stray", P.Acc));
  P.Acc->Children.back()->Function = "stray_fn";
  expectOnly(*P.G, "leaf-function", "pipe/stage/acc", {"1 children"});
}

TEST(GraphVerifierLeafFunction, LeafWithEdgesAndBindings) {
  Pipeline P;
  P.Reduce->Edges.push_back(Edge{});
  P.Reduce->Bindings.push_back(Binding{});
  P.Reduce->OutputBindings.push_back(OutputBinding{});
  std::vector<GraphDiagnostic> Diags = verifyGraph(*P.G);
  ASSERT_EQ(Diags.size(), 3u) << dump(Diags);
  for (const GraphDiagnostic &D : Diags) {
    EXPECT_EQ(D.Rule, "leaf-function");
    EXPECT_EQ(D.Where, "pipe/reduce");
  }
  EXPECT_NE(Diags[0].Message.find("1 edges"), std::string::npos);
  EXPECT_NE(Diags[1].Message.find("1 bindings"), std::string::npos);
  EXPECT_NE(Diags[2].Message.find("1 output bindings"), std::string::npos);
}

// --- child-name ------------------------------------------------------------

TEST(GraphVerifierChildName, DuplicateSiblings) {
  Pipeline P;
  P.Stage->addLeaf("mul", "other_fn");
  expectOnly(*P.G, "child-name", "pipe/stage",
             {"#0", "#2", "both named 'mul'"});
}

TEST(GraphVerifierChildName, SameNameInDifferentParentsIsFine) {
  Pipeline P;
  P.Root->addLeaf("acc", "acc2_fn");
  EXPECT_TRUE(verifyGraph(*P.G).empty());
}

TEST(GraphVerifierChildName, EmptyName) {
  Pipeline P;
  P.Stage->addLeaf("", "anon_fn");
  expectOnly(*P.G, "child-name", "pipe/stage", {"child #2", "no name"});
}

TEST(GraphVerifierChildName, NameWithPathSeparator) {
  Pipeline P;
  P.Root->addLeaf("a/b", "ab_fn");
  expectOnly(*P.G, "child-name", "pipe", {"'a/b'", "'/'"});
}

// --- binding ---------------------------------------------------------------

TEST(GraphVerifierBinding, UnboundParameter) {
  Pipeline P;
  P.Root->Bindings.pop_back(); // reduce.alpha
  expectOnly(*P.G, "binding", "pipe",
             {"parameter 'alpha' of child 'reduce'", "not bound"});
}

TEST(GraphVerifierBinding, BoundByBindingAndByEdge) {
  Pipeline P;
  P.Root->bind(*P.Reduce, "s", "scale");
  expectOnly(*P.G, "binding", "pipe",
             {"'s' of child 'reduce'", "bound 2 times", "parameter 'scale'",
              "streaming edge #0 from 'stage'"});
}

TEST(GraphVerifierBinding, BoundByTwoBindings) {
  Pipeline P;
  P.Stage->bind(*P.Acc, "tmp", "in");
  expectOnly(*P.G, "binding", "pipe/stage",
             {"'tmp' of child 'acc'", "bound 2 times", "'in'"});
}

TEST(GraphVerifierBinding, ValueParameterFromBuffer) {
  Pipeline P;
  P.bindingOf(*P.Root, *P.Stage, "n").ParentParam = 0;
  expectOnly(
      *P.G, "binding", "pipe",
      {"value parameter 'n' of child 'stage'", "buffer parameter 'src'"});
}

TEST(GraphVerifierBinding, BufferParameterFromValue) {
  Pipeline P;
  P.bindingOf(*P.Root, *P.Reduce, "dst").ParentParam = 3;
  expectOnly(
      *P.G, "binding", "pipe",
      {"buffer parameter 'dst' of child 'reduce'", "value parameter 'bytes'"});
}

TEST(GraphVerifierBinding, ValueTypesDiffer) {
  Pipeline P;
  P.bindingOf(*P.Root, *P.Stage, "k").ParentParam = 2;
  expectOnly(*P.G, "binding", "pipe",
             {"'k' of child 'stage' (f32)", "parameter 'n'", "i64"});
}

TEST(GraphVerifierBinding, IntegerConstantForFloatParameter) {
  Pipeline P;
  Binding &B = P.bindingOf(*P.Root, *P.Reduce, "alpha");
  B.IsFloat = false;
  B.IntValue = 1;
  expectOnly(*P.G, "binding", "pipe",
             {"'alpha' of child 'reduce' (f64)", "integer constant 1"});
}

TEST(GraphVerifierBinding, FloatConstantForIntegerParameter) {
  Pipeline P;
  Binding &B = P.bindingOf(*P.Stage, *P.Mul, "len");
  B.IsFloat = true;
  B.FloatValue = 2.5;
  expectOnly(*P.G, "binding", "pipe/stage",
             {"'len' of child 'mul' (i32)", "floating-point constant 2.5"});
}

TEST(GraphVerifierBinding, ConstantForBufferParameter) {
  Pipeline P;
  Binding &B = P.bindingOf(*P.Stage, *P.Acc, "tmp");
  B.From = Binding::Source::Constant;
  B.IntValue = 0;
  expectOnly(*P.G, "binding", "pipe/stage",
             {"buffer parameter 'tmp' of child 'acc'", "integer constant 0"});
}

TEST(GraphVerifierBinding, ConstantForPointerParameter) {
  Pipeline P;
  P.Reduce->addValue("p", ScalarType::Ptr);
  P.Root->bindConstant(*P.Reduce, 5, int64_t(0));
  expectOnly(*P.G, "binding", "pipe", {"'p' of child 'reduce' (ptr)"});
}

TEST(GraphVerifierBinding, IndicesOutOfRange) {
  Pipeline P;
  Binding BadChild;
  BadChild.Child = 7;
  Binding BadChildParam;
  BadChildParam.Child = 1;
  BadChildParam.ChildParam = 9;
  Binding BadParentParam = P.bindingOf(*P.Root, *P.Reduce, "count");
  BadParentParam.ParentParam = 42;
  P.Root->Bindings.push_back(BadChild);
  P.Root->Bindings.push_back(BadChildParam);
  P.Root->Bindings.push_back(BadParentParam);
  std::vector<GraphDiagnostic> Diags = verifyGraph(*P.G);
  ASSERT_EQ(Diags.size(), 3u) << dump(Diags);
  for (const GraphDiagnostic &D : Diags)
    EXPECT_EQ(D.Rule, "binding") << dump(Diags);
  EXPECT_NE(Diags[0].Message.find("child index 7"), std::string::npos);
  EXPECT_NE(Diags[1].Message.find("'reduce' has no parameter #9"),
            std::string::npos);
  EXPECT_NE(Diags[2].Message.find("'count' of child 'reduce'"),
            std::string::npos);
  EXPECT_NE(Diags[2].Message.find("parameter #42"), std::string::npos);
}

// --- write-to-input --------------------------------------------------------

TEST(GraphVerifierWriteToInput, ChildWritesParentInput) {
  Pipeline P;
  P.Stage->Params[0].Mode = Access::InOut; // stage.in, bound to pipe.src (in)
  expectOnly(*P.G, "write-to-input", "pipe",
             {"child 'stage'", "inout", "'in'", "'src'"});
}

TEST(GraphVerifierWriteToInput, LeafWritesParentInput) {
  Pipeline P;
  P.Mul->Params[0].Mode = Access::Out;
  expectOnly(*P.G, "write-to-input", "pipe/stage",
             {"child 'mul'", "(out)", "buffer 'in'"});
}

TEST(GraphVerifierWriteToInput, ReadingAnOutputBufferIsFine) {
  Pipeline P;
  P.Reduce->Params[2].Mode = Access::In; // bound to pipe.dst (out)
  EXPECT_TRUE(verifyGraph(*P.G).empty());
}

// --- edge ------------------------------------------------------------------

TEST(GraphVerifierEdge, SelfEdge) {
  Pipeline P;
  P.Root->addDependency(*P.Reduce, *P.Reduce);
  expectOnly(*P.G, "edge", "pipe",
             {"dependency edge #2", "'reduce' to 'reduce'", "itself"});
}

TEST(GraphVerifierEdge, EndpointOutOfRange) {
  Pipeline P;
  Edge E;
  E.Src = 0;
  E.Dst = 5;
  P.Root->Edges.push_back(E);
  expectOnly(*P.G, "edge", "pipe", {"edge #2", "child index 5", "2 children"});
}

TEST(GraphVerifierEdge, ValueEdgeIntoBuffer) {
  Pipeline P;
  P.Root->addValueEdge(*P.Stage, 0, *P.Reduce, 2);
  expectOnly(*P.G, "edge", "pipe",
             {"value edge #2", "'dst'", "'reduce'", "buffer"});
}

TEST(GraphVerifierEdge, MissingOutput) {
  Pipeline P;
  P.Root->addValueEdge(*P.Stage, 3, *P.Reduce, 4);
  expectOnly(*P.G, "edge", "pipe", {"'stage' has no output #3"});
}

TEST(GraphVerifierEdge, MissingParameter) {
  Pipeline P;
  P.Stage->Edges[1].DstParam = 6;
  expectHas(*P.G, "edge", "pipe/stage",
            {"value edge #1", "'acc' has no parameter #6"});
  // The edge no longer feeds acc.x, which is now bound by nothing.
  expectHas(*P.G, "binding", "pipe/stage", {"'x' of child 'acc'", "not bound"});
  EXPECT_EQ(verifyGraph(*P.G).size(), 2u);
}

TEST(GraphVerifierEdge, StreamingCapacityZero) {
  Pipeline P;
  P.Root->Edges[0].Capacity = 0;
  expectOnly(*P.G, "edge", "pipe",
             {"streaming edge #0 from 'stage' output 'sum' to 'reduce' "
              "parameter 's'",
              "capacity 0"});
}

// --- value-edge-type -------------------------------------------------------

TEST(GraphVerifierValueEdgeType, ValueEdgeTypesDiffer) {
  Pipeline P;
  P.Acc->Params[1].Type = ScalarType::F64;
  expectOnly(*P.G, "value-edge-type", "pipe/stage",
             {"'mul' output 'part'", "'acc' parameter 'x'", "f32", "f64"});
}

TEST(GraphVerifierValueEdgeType, StreamingEdgeTypesDiffer) {
  Pipeline P;
  P.Stage->Outputs[0].Type = ScalarType::I16;
  P.Acc->Outputs[0].Type = ScalarType::I16;
  expectOnly(*P.G, "value-edge-type", "pipe",
             {"streaming edge #0", "'sum'", "'s'", "i16", "f32"});
}

// --- edge-cycle ------------------------------------------------------------

TEST(GraphVerifierEdgeCycle, TwoNodeCycle) {
  Pipeline P;
  P.Stage->addDependency(*P.Acc, *P.Mul);
  expectOnly(*P.G, "edge-cycle", "pipe/stage", {"'mul' -> 'acc' -> 'mul'"});
}

TEST(GraphVerifierEdgeCycle, CycleThroughValueEdge) {
  Graph G("g");
  Node &R = G.root();
  Node &A = R.addLeaf("a", "fa");
  Node &B = R.addLeaf("b", "fb");
  Node &C = R.addLeaf("c", "fc");
  R.addLeaf("d", "fd");
  B.addOutput("o", ScalarType::I32);
  C.addValue("x", ScalarType::I32);
  R.addDependency(A, B);
  R.addValueEdge(B, 0, C, 0);
  R.addDependency(C, A);
  expectOnly(G, "edge-cycle", "g", {"'a' -> 'b' -> 'c' -> 'a'"});
}

TEST(GraphVerifierEdgeCycle, EachCycleReportedOnce) {
  Graph G("g");
  Node &R = G.root();
  Node &A = R.addLeaf("a", "fa");
  Node &B = R.addLeaf("b", "fb");
  Node &C = R.addLeaf("c", "fc");
  Node &D = R.addLeaf("d", "fd");
  R.addDependency(A, B);
  R.addDependency(B, A);
  R.addDependency(C, D);
  R.addDependency(D, C);
  R.addDependency(B, C);
  std::vector<GraphDiagnostic> Diags = verifyGraph(G);
  ASSERT_EQ(Diags.size(), 2u) << dump(Diags);
  EXPECT_EQ(Diags[0].Rule, "edge-cycle");
  EXPECT_NE(Diags[0].Message.find("'a' -> 'b' -> 'a'"), std::string::npos);
  EXPECT_NE(Diags[1].Message.find("'c' -> 'd' -> 'c'"), std::string::npos);
}

TEST(GraphVerifierEdgeCycle, StreamingEdgesMayCloseACycle) {
  Graph G("g");
  Node &R = G.root();
  Node &A = R.addLeaf("a", "fa");
  Node &B = R.addLeaf("b", "fb");
  A.addValue("feedback", ScalarType::F32);
  B.addOutput("o", ScalarType::F32);
  R.addDependency(A, B);
  R.addStreamingEdge(B, 0, A, 0, 1);
  std::vector<GraphDiagnostic> Diags = verifyGraph(G);
  EXPECT_TRUE(Diags.empty()) << dump(Diags);
}

// --- output-binding --------------------------------------------------------

TEST(GraphVerifierOutputBinding, TypesDiffer) {
  Pipeline P;
  P.Root->Outputs[0].Type = ScalarType::F64;
  expectOnly(*P.G, "output-binding", "pipe",
             {"output 'total' (f64)", "child 'reduce'", "f32"});
}

TEST(GraphVerifierOutputBinding, ChildOutputOutOfRange) {
  Pipeline P;
  P.Stage->OutputBindings[0].ChildOutput = 4;
  expectOnly(*P.G, "output-binding", "pipe/stage",
             {"output binding #0", "'acc' has no output #4"});
}

TEST(GraphVerifierOutputBinding, ParentOutputOutOfRange) {
  Pipeline P;
  P.Root->bindOutput(3, *P.Stage, 0);
  expectOnly(*P.G, "output-binding", "pipe",
             {"output binding #1", "no output #3"});
}

TEST(GraphVerifierOutputBinding, UnboundOutput) {
  Pipeline P;
  P.Stage->OutputBindings.clear();
  expectOnly(*P.G, "output-binding", "pipe/stage",
             {"output 'sum'", "not bound"});
}

TEST(GraphVerifierOutputBinding, OutputBoundTwice) {
  Pipeline P;
  P.Stage->bindOutput(0, *P.Mul, 0);
  expectOnly(*P.G, "output-binding", "pipe/stage",
             {"output 'sum'", "bound 2 times"});
}

// --- targets ---------------------------------------------------------------

TEST(GraphVerifierTargets, EmptyTargets) {
  Pipeline P;
  P.Mul->setTargets(0);
  expectOnly(*P.G, "targets", "pipe/stage/mul",
             {"no targets", "cpu,nvptx,spirv"});
}

TEST(GraphVerifierTargets, UnknownTarget) {
  Pipeline P;
  P.Reduce->setTargets(TargetCPU | (1u << 5));
  expectOnly(*P.G, "targets", "pipe/reduce", {"0x21", "unknown", "0x20"});
}

} // namespace
