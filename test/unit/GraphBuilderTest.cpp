//===- GraphBuilderTest.cpp - The graph model and its builder -------------===//

#include "hpvm/ir/Graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

using namespace hpvm;

namespace {

// Expects Fn to throw GraphError whose message contains every fragment.
template <typename Fn>
void expectGraphError(Fn &&F, std::initializer_list<const char *> Fragments) {
  try {
    F();
    ADD_FAILURE() << "expected GraphError";
  } catch (const GraphError &E) {
    std::string Message = E.what();
    for (const char *Fragment : Fragments)
      EXPECT_NE(Message.find(Fragment), std::string::npos)
          << "message '" << Message << "' lacks '" << Fragment << "'";
  }
}

TEST(GraphBuilder, RootIsInternalByDefault) {
  Graph G("g");
  EXPECT_EQ(G.name(), "g");
  EXPECT_TRUE(G.root().isInternal());
  EXPECT_EQ(G.root().name(), "g");
  EXPECT_EQ(G.root().parent(), nullptr);
  EXPECT_EQ(G.root().path(), "g");
  EXPECT_EQ(G.root().Targets, AllTargets);
  EXPECT_TRUE(G.root().Dims.empty());
}

TEST(GraphBuilder, RootCanBeALeaf) {
  Graph G("single", Node::Kind::Leaf);
  EXPECT_TRUE(G.root().isLeaf());
  EXPECT_EQ(G.root().kind(), Node::Kind::Leaf);
}

TEST(GraphBuilder, ScalarTypeSpellingsRoundTrip) {
  const std::pair<ScalarType, const char *> All[] = {
      {ScalarType::I1, "i1"},   {ScalarType::I8, "i8"},
      {ScalarType::I16, "i16"}, {ScalarType::I32, "i32"},
      {ScalarType::I64, "i64"}, {ScalarType::F16, "f16"},
      {ScalarType::F32, "f32"}, {ScalarType::F64, "f64"},
      {ScalarType::Ptr, "ptr"}};
  for (const auto &[Type, Spelling] : All) {
    EXPECT_STREQ(toString(Type), Spelling);
    EXPECT_EQ(parseScalarType(Spelling), Type);
  }
  EXPECT_EQ(parseScalarType("i128"), std::nullopt);
  EXPECT_EQ(parseScalarType("I32"), std::nullopt);
  EXPECT_EQ(parseScalarType(""), std::nullopt);
}

TEST(GraphBuilder, IntegerTypes) {
  for (ScalarType T : {ScalarType::I1, ScalarType::I8, ScalarType::I16,
                       ScalarType::I32, ScalarType::I64})
    EXPECT_TRUE(isInteger(T)) << toString(T);
  for (ScalarType T :
       {ScalarType::F16, ScalarType::F32, ScalarType::F64, ScalarType::Ptr})
    EXPECT_FALSE(isInteger(T)) << toString(T);
}

TEST(GraphBuilder, AccessSpellingsAndDirections) {
  EXPECT_STREQ(toString(Access::In), "in");
  EXPECT_STREQ(toString(Access::Out), "out");
  EXPECT_STREQ(toString(Access::InOut), "inout");
  EXPECT_EQ(parseAccess("in"), Access::In);
  EXPECT_EQ(parseAccess("out"), Access::Out);
  EXPECT_EQ(parseAccess("inout"), Access::InOut);
  EXPECT_EQ(parseAccess("readwrite"), std::nullopt);
  EXPECT_TRUE(reads(Access::In) && !writes(Access::In));
  EXPECT_TRUE(!reads(Access::Out) && writes(Access::Out));
  EXPECT_TRUE(reads(Access::InOut) && writes(Access::InOut));
}

TEST(GraphBuilder, EdgeKindSpellings) {
  EXPECT_STREQ(toString(EdgeKind::Dependency), "dep");
  EXPECT_STREQ(toString(EdgeKind::Value), "value");
  EXPECT_STREQ(toString(EdgeKind::Streaming), "stream");
  EXPECT_EQ(parseEdgeKind("dep"), EdgeKind::Dependency);
  EXPECT_EQ(parseEdgeKind("value"), EdgeKind::Value);
  EXPECT_EQ(parseEdgeKind("stream"), EdgeKind::Streaming);
  EXPECT_EQ(parseEdgeKind("dependency"), std::nullopt);
}

TEST(GraphBuilder, TargetSpellings) {
  EXPECT_EQ(targetsToString(AllTargets), "cpu,nvptx,spirv");
  EXPECT_EQ(targetsToString(TargetCPU), "cpu");
  EXPECT_EQ(targetsToString(TargetNVPTX | TargetSPIRV), "nvptx,spirv");
  EXPECT_EQ(targetsToString(0), "");

  EXPECT_EQ(parseTargets("cpu,nvptx,spirv"), AllTargets);
  EXPECT_EQ(parseTargets("spirv,cpu"), TargetMask(TargetCPU | TargetSPIRV));
  EXPECT_EQ(parseTargets("nvptx"), TargetMask(TargetNVPTX));
  EXPECT_EQ(parseTargets(""), TargetMask(0));
  EXPECT_EQ(parseTargets("gpu"), std::nullopt);
  EXPECT_EQ(parseTargets("cpu,gpu"), std::nullopt);
  EXPECT_EQ(parseTargets("cpu,,nvptx"), std::nullopt);
  for (TargetMask M = 0; M <= AllTargets; ++M)
    EXPECT_EQ(parseTargets(targetsToString(M)), M);
}

TEST(GraphBuilder, ParamsAndOutputs) {
  Graph G("g");
  Node &R = G.root();
  unsigned N = R.addValue("n", ScalarType::I64);
  unsigned A = R.addBuffer("a", Access::In, Extent::param(N));
  unsigned C = R.addBuffer("c", Access::InOut, Extent::constant(256));
  unsigned S = R.addValue("scale", ScalarType::F32);
  EXPECT_EQ(N, 0u);
  EXPECT_EQ(A, 1u);
  EXPECT_EQ(C, 2u);
  EXPECT_EQ(S, 3u);
  ASSERT_EQ(R.Params.size(), 4u);

  const Param &PA = R.Params[A];
  EXPECT_EQ(PA.Name, "a");
  EXPECT_TRUE(PA.isBuffer());
  EXPECT_EQ(PA.Type, ScalarType::Ptr);
  EXPECT_EQ(PA.Mode, Access::In);
  EXPECT_TRUE(PA.Bytes.isParam());
  EXPECT_EQ(PA.Bytes.paramIndex(), N);

  const Param &PC = R.Params[C];
  EXPECT_EQ(PC.Mode, Access::InOut);
  EXPECT_TRUE(PC.Bytes.isConstant());
  EXPECT_EQ(PC.Bytes.value(), 256u);

  EXPECT_FALSE(R.Params[S].isBuffer());
  EXPECT_EQ(R.Params[S].Type, ScalarType::F32);

  EXPECT_EQ(R.paramIndex("scale"), S);
  EXPECT_EQ(R.paramIndex("a"), A);

  EXPECT_EQ(R.addOutput("sum", ScalarType::F64), 0u);
  EXPECT_EQ(R.addOutput("count", ScalarType::I32), 1u);
  ASSERT_EQ(R.Outputs.size(), 2u);
  EXPECT_EQ(R.Outputs[1].Name, "count");
  EXPECT_EQ(R.Outputs[1].Type, ScalarType::I32);
}

TEST(GraphBuilder, DimsFromZeroToThree) {
  Graph G("g");
  Node &R = G.root();
  unsigned N = R.addValue("n", ScalarType::I64);
  unsigned M = R.addValue("m", ScalarType::I32);

  EXPECT_TRUE(R.Dims.empty());
  R.setDims({Extent::constant(8)});
  ASSERT_EQ(R.Dims.size(), 1u);
  EXPECT_EQ(R.Dims[0], Extent::constant(8));

  R.setDims({Extent::param(N), Extent::constant(4)});
  ASSERT_EQ(R.Dims.size(), 2u);
  EXPECT_TRUE(R.Dims[0].isParam());
  EXPECT_EQ(R.Dims[0].paramIndex(), N);
  EXPECT_EQ(R.Dims[1].value(), 4u);

  Node &Same =
      R.setDims({Extent::param(N), Extent::param(M), Extent::constant(2)});
  EXPECT_EQ(&Same, &R);
  ASSERT_EQ(R.Dims.size(), 3u);
  EXPECT_EQ(R.Dims[1], Extent::param(M));
  EXPECT_NE(R.Dims[1], Extent::constant(M));

  R.setDims({});
  EXPECT_TRUE(R.Dims.empty());
}

TEST(GraphBuilder, TargetsAreChainable) {
  Graph G("g");
  Node &R = G.root().setTargets(TargetCPU | TargetNVPTX);
  EXPECT_EQ(&R, &G.root());
  EXPECT_EQ(G.root().Targets, TargetMask(TargetCPU | TargetNVPTX));
}

TEST(GraphBuilder, ChildrenKnowTheirParentAndPath) {
  Graph G("app");
  Node &Stage = G.root().addInternal("stage");
  Node &Leaf = Stage.addLeaf("kernel", "kernel_fn");
  Node &Other = G.root().addLeaf("other", "other_fn");

  EXPECT_TRUE(Stage.isInternal());
  EXPECT_TRUE(Leaf.isLeaf());
  EXPECT_EQ(Stage.parent(), &G.root());
  EXPECT_EQ(Leaf.parent(), &Stage);
  EXPECT_EQ(Leaf.Function, "kernel_fn");
  EXPECT_TRUE(Stage.Function.empty());
  EXPECT_EQ(Leaf.path(), "app/stage/kernel");
  EXPECT_EQ(Other.path(), "app/other");

  ASSERT_EQ(G.root().Children.size(), 2u);
  EXPECT_EQ(G.root().Children[0].get(), &Stage);
  EXPECT_EQ(G.root().childIndex(Stage), 0u);
  EXPECT_EQ(G.root().childIndex(Other), 1u);
  EXPECT_EQ(G.root().findChild("other"), &Other);
  EXPECT_EQ(G.root().findChild("kernel"), nullptr);
  EXPECT_EQ(Stage.findChild("kernel"), &Leaf);
}

TEST(GraphBuilder, AllEdgeKinds) {
  Graph G("g");
  Node &A = G.root().addLeaf("a", "fa");
  Node &B = G.root().addLeaf("b", "fb");
  A.addOutput("x", ScalarType::F32);
  A.addOutput("y", ScalarType::I32);
  B.addBuffer("buf", Access::In, Extent::constant(4));
  B.addValue("p", ScalarType::I32);

  G.root().addDependency(A, B);
  G.root().addValueEdge(A, 1, B, 1);
  G.root().addStreamingEdge(A, 0, B, 1, 16);

  const auto &Edges = G.root().Edges;
  ASSERT_EQ(Edges.size(), 3u);
  EXPECT_EQ(Edges[0].Kind, EdgeKind::Dependency);
  EXPECT_EQ(Edges[0].Src, 0u);
  EXPECT_EQ(Edges[0].Dst, 1u);

  EXPECT_EQ(Edges[1].Kind, EdgeKind::Value);
  EXPECT_EQ(Edges[1].Src, 0u);
  EXPECT_EQ(Edges[1].SrcOutput, 1u);
  EXPECT_EQ(Edges[1].Dst, 1u);
  EXPECT_EQ(Edges[1].DstParam, 1u);

  EXPECT_EQ(Edges[2].Kind, EdgeKind::Streaming);
  EXPECT_EQ(Edges[2].SrcOutput, 0u);
  EXPECT_EQ(Edges[2].Capacity, 16u);
}

TEST(GraphBuilder, Bindings) {
  Graph G("g");
  Node &R = G.root();
  R.addBuffer("a", Access::InOut, Extent::constant(64));
  R.addValue("n", ScalarType::I64);
  Node &L = R.addLeaf("l", "f");
  L.addValue("count", ScalarType::I64);
  L.addBuffer("data", Access::In, Extent::param(0));
  L.addValue("k", ScalarType::I32);
  L.addValue("alpha", ScalarType::F64);

  R.bind(L, "data", "a");
  R.bind(L, 0, 1);
  R.bindConstant(L, 2, int64_t(-3));
  R.bindConstant(L, 3, 0.5);

  const auto &Bs = R.Bindings;
  ASSERT_EQ(Bs.size(), 4u);
  EXPECT_EQ(Bs[0].Child, 0u);
  EXPECT_EQ(Bs[0].ChildParam, 1u);
  EXPECT_EQ(Bs[0].From, Binding::Source::ParentParam);
  EXPECT_EQ(Bs[0].ParentParam, 0u);

  EXPECT_EQ(Bs[1].ChildParam, 0u);
  EXPECT_EQ(Bs[1].ParentParam, 1u);

  EXPECT_EQ(Bs[2].From, Binding::Source::Constant);
  EXPECT_FALSE(Bs[2].IsFloat);
  EXPECT_EQ(Bs[2].IntValue, -3);

  EXPECT_EQ(Bs[3].From, Binding::Source::Constant);
  EXPECT_TRUE(Bs[3].IsFloat);
  EXPECT_DOUBLE_EQ(Bs[3].FloatValue, 0.5);
}

TEST(GraphBuilder, OutputBindings) {
  Graph G("g");
  Node &R = G.root();
  R.addOutput("first", ScalarType::I32);
  R.addOutput("second", ScalarType::F32);
  Node &A = R.addLeaf("a", "fa");
  Node &B = R.addLeaf("b", "fb");
  B.addOutput("u", ScalarType::I8);
  B.addOutput("v", ScalarType::F32);
  R.bindOutput(1, B, 1);
  R.bindOutput(0, A, 0);
  ASSERT_EQ(R.OutputBindings.size(), 2u);
  EXPECT_EQ(R.OutputBindings[0], (OutputBinding{1, 1, 1}));
  EXPECT_EQ(R.OutputBindings[1], (OutputBinding{0, 0, 0}));
}

TEST(GraphBuilderErrors, UnknownParameterName) {
  Graph G("g");
  Node &R = G.root();
  R.addValue("n", ScalarType::I64);
  Node &L = R.addLeaf("leaf", "f");
  L.addValue("m", ScalarType::I64);
  expectGraphError([&] { R.paramIndex("missing"); }, {"'g'", "'missing'"});
  expectGraphError([&] { R.bind(L, "nope", "n"); }, {"'g/leaf'", "'nope'"});
  expectGraphError([&] { R.bind(L, "m", "nope"); }, {"'g'", "'nope'"});
  EXPECT_TRUE(R.Bindings.empty());
}

TEST(GraphBuilderErrors, NodeThatIsNotADirectChild) {
  Graph G("g");
  Node &Stage = G.root().addInternal("stage");
  Node &Inner = Stage.addLeaf("inner", "f");
  Node &Sibling = G.root().addLeaf("sib", "f");
  Graph Other("other");
  Node &Foreign = Other.root().addLeaf("foreign", "f");
  Node &R = G.root();

  expectGraphError([&] { R.childIndex(Inner); }, {"'g/stage/inner'", "'g'"});
  expectGraphError([&] { R.childIndex(R); }, {"not a child"});
  expectGraphError([&] { R.addDependency(Sibling, Inner); },
                   {"'g/stage/inner'"});
  expectGraphError([&] { R.addValueEdge(Foreign, 0, Sibling, 0); },
                   {"'other/foreign'"});
  expectGraphError([&] { R.addStreamingEdge(Sibling, 0, Inner, 0, 1); },
                   {"'g/stage/inner'"});
  expectGraphError([&] { R.bind(Inner, 0, 0); }, {"'g/stage/inner'"});
  expectGraphError([&] { R.bind(Inner, "x", "y"); }, {"not a child"});
  expectGraphError([&] { R.bindConstant(Foreign, 0, int64_t(1)); },
                   {"'other/foreign'"});
  expectGraphError([&] { R.bindConstant(Foreign, 0, 1.0); },
                   {"'other/foreign'"});
  expectGraphError([&] { R.bindOutput(0, Inner, 0); }, {"'g/stage/inner'"});
  expectGraphError([&] { Stage.addDependency(Inner, Sibling); },
                   {"'g/sib'", "'g/stage'"});
  EXPECT_TRUE(R.Edges.empty());
  EXPECT_TRUE(R.Bindings.empty());
  EXPECT_TRUE(R.OutputBindings.empty());
  EXPECT_TRUE(Stage.Edges.empty());
}

TEST(GraphBuilderErrors, ChildrenUnderALeaf) {
  Graph G("g");
  Node &Leaf = G.root().addLeaf("leaf", "f");
  expectGraphError([&] { Leaf.addLeaf("x", "fx"); }, {"'x'", "'g/leaf'"});
  expectGraphError([&] { Leaf.addInternal("y"); }, {"'y'", "'g/leaf'"});
  EXPECT_TRUE(Leaf.Children.empty());

  Graph Single("s", Node::Kind::Leaf);
  expectGraphError([&] { Single.root().addInternal("z"); }, {"leaf"});
}

// Builds the same small two-level graph every time, for equality tests.
std::unique_ptr<Graph> makeSample() {
  auto G = std::make_unique<Graph>("sample");
  Node &R = G->root();
  R.addValue("n", ScalarType::I64);
  R.addBuffer("data", Access::InOut, Extent::param(0));
  R.addOutput("res", ScalarType::F32);
  R.setDims({Extent::constant(2)});
  Node &S = R.addInternal("stage");
  S.addValue("n", ScalarType::I64);
  S.addOutput("o", ScalarType::F32);
  Node &L = S.addLeaf("leaf", "leaf_fn");
  L.addValue("n", ScalarType::I64);
  L.addOutput("o", ScalarType::F32);
  L.setDims({Extent::param(0)}).setTargets(TargetCPU);
  S.bind(L, 0, 0);
  S.bindOutput(0, L, 0);
  Node &T = R.addLeaf("tail", "tail_fn");
  T.addValue("x", ScalarType::F32);
  T.addValue("k", ScalarType::F64);
  R.bind(S, 0, 0);
  R.addStreamingEdge(S, 0, T, 0, 4);
  R.addDependency(S, T);
  R.bindConstant(T, 1, 1.5);
  R.bindOutput(0, S, 0);
  return G;
}

TEST(GraphEquality, IdenticalGraphsAreEqual) {
  auto A = makeSample();
  auto B = makeSample();
  EXPECT_TRUE(A->equals(*B));
  EXPECT_TRUE(A->root().equals(B->root()));
  EXPECT_TRUE(A->equals(*A));
}

TEST(GraphEquality, EveryFieldMatters) {
  using Mutation = std::function<void(Graph &)>;
  auto Stage = [](Graph &G) -> Node & { return *G.root().findChild("stage"); };
  auto Leaf = [&](Graph &G) -> Node & { return *Stage(G).findChild("leaf"); };
  const std::pair<const char *, Mutation> Mutations[] = {
      {"root dims", [](Graph &G) { G.root().Dims[0] = Extent::constant(3); }},
      {"root param access",
       [](Graph &G) { G.root().Params[1].Mode = Access::In; }},
      {"root param size",
       [](Graph &G) { G.root().Params[1].Bytes = Extent::constant(8); }},
      {"root param name", [](Graph &G) { G.root().Params[0].Name = "m"; }},
      {"output type",
       [](Graph &G) { G.root().Outputs[0].Type = ScalarType::F64; }},
      {"targets", [](Graph &G) { G.root().setTargets(TargetSPIRV); }},
      {"edge capacity", [](Graph &G) { G.root().Edges[0].Capacity = 5; }},
      {"edge order",
       [](Graph &G) { std::swap(G.root().Edges[0], G.root().Edges[1]); }},
      {"constant binding",
       [](Graph &G) { G.root().Bindings[1].FloatValue = 2.5; }},
      {"constant kind", [](Graph &G) { G.root().Bindings[1].IsFloat = false; }},
      {"output binding", [](Graph &G) { G.root().OutputBindings.clear(); }},
      {"extra child", [](Graph &G) { G.root().addLeaf("more", "f"); }},
      {"grandchild function", [&](Graph &G) { Leaf(G).Function = "other"; }},
      {"grandchild dims", [&](Graph &G) { Leaf(G).Dims.clear(); }},
      {"grandchild targets", [&](Graph &G) { Leaf(G).setTargets(AllTargets); }},
      {"grandchild param type",
       [&](Graph &G) { Leaf(G).Params[0].Type = ScalarType::I32; }},
      {"grandchild binding",
       [&](Graph &G) { Stage(G).Bindings[0].ParentParam = 1; }},
      {"stage output binding",
       [&](Graph &G) { Stage(G).OutputBindings[0].ChildOutput = 1; }},
  };
  for (const auto &[What, Mutate] : Mutations) {
    auto A = makeSample();
    auto B = makeSample();
    Mutate(*B);
    EXPECT_FALSE(A->equals(*B)) << What;
    EXPECT_FALSE(B->equals(*A)) << What;
  }

  // The name of a grandchild is only visible through the recursion.
  Graph X("x"), Y("x");
  X.root().addInternal("s").addLeaf("p", "f");
  Y.root().addInternal("s").addLeaf("q", "f");
  EXPECT_FALSE(X.equals(Y));
  // Same shape, different kinds.
  Graph L("k"), I("k");
  L.root().addLeaf("c", "");
  I.root().addInternal("c");
  EXPECT_FALSE(L.equals(I));
  // Same root, different graph names.
  EXPECT_FALSE(Graph("a").equals(Graph("b")));
}

TEST(GraphEquality, UnusedFieldsAreIgnored) {
  Param V1, V2;
  V1.Name = V2.Name = "v";
  V2.Mode = Access::Out; // meaningless for a value
  V2.Bytes = Extent::constant(9);
  EXPECT_TRUE(V1 == V2);
  V2.Type = ScalarType::F16;
  EXPECT_FALSE(V1 == V2);

  Edge D1, D2;
  D2.SrcOutput = 3; // meaningless for a dependency
  D2.Capacity = 7;
  EXPECT_TRUE(D1 == D2);
  D1.Kind = D2.Kind = EdgeKind::Value;
  EXPECT_FALSE(D1 == D2);
  D2.SrcOutput = 0;
  EXPECT_TRUE(D1 == D2); // capacity is only for streaming edges
  D1.Kind = D2.Kind = EdgeKind::Streaming;
  EXPECT_FALSE(D1 == D2);

  Binding B1, B2;
  B2.IntValue = 5; // meaningless for a parent-parameter binding
  EXPECT_TRUE(B1 == B2);
  B1.From = B2.From = Binding::Source::Constant;
  EXPECT_FALSE(B1 == B2);
  B1.IntValue = 5;
  B2.FloatValue = 1.0; // meaningless for an integer constant
  EXPECT_TRUE(B1 == B2);
  B1.IsFloat = B2.IsFloat = true;
  B1.FloatValue = B2.FloatValue = std::nan("");
  EXPECT_TRUE(B1 == B2);
}

} // namespace
