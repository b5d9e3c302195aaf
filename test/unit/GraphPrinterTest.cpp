//===- GraphPrinterTest.cpp - Text and Graphviz views of a graph ----------===//

#include "hpvm/ir/GraphPrinter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace hpvm;

namespace {

// Two levels with every kind of edge and binding, and a child whose name
// needs escaping in DOT.
std::unique_ptr<Graph> makeSample() {
  auto G = std::make_unique<Graph>("app");
  Node &R = G->root();
  R.addValue("n", ScalarType::I64);
  R.addBuffer("data", Access::In, Extent::param(0));
  R.addBuffer("out", Access::Out, Extent::constant(128));
  R.addOutput("result", ScalarType::F32);
  R.setDims({Extent::param(0), Extent::constant(4)});

  Node &S = R.addInternal("stage \"one\"");
  S.addValue("n", ScalarType::I64);
  S.addBuffer("in", Access::In, Extent::param(0));
  S.addOutput("sum", ScalarType::F32);
  Node &L = S.addLeaf("kernel", "kernel_fn");
  L.addValue("n", ScalarType::I64);
  L.addBuffer("in", Access::In, Extent::param(0));
  L.addOutput("sum", ScalarType::F32);
  L.setDims({Extent::constant(2), Extent::constant(3), Extent::param(0)})
      .setTargets(TargetCPU | TargetNVPTX);
  S.bind(L, "n", "n");
  S.bind(L, "in", "in");
  S.bindOutput(0, L, 0);

  Node &T = R.addLeaf("tail", "tail_fn");
  T.addValue("x", ScalarType::F32);
  T.addValue("alpha", ScalarType::F64);
  T.addValue("count", ScalarType::I32);
  T.addBuffer("dst", Access::InOut, Extent::constant(128));
  T.addOutput("y", ScalarType::F32);

  Node &U = R.addLeaf("sink", "sink_fn");
  U.addValue("v", ScalarType::F32);

  R.bind(S, "n", "n");
  R.bind(S, "in", "data");
  R.addStreamingEdge(S, 0, T, 0, 4);
  R.addDependency(S, T);
  R.addValueEdge(T, 0, U, 0);
  R.bindConstant(T, 1, 1.5);
  R.bindConstant(T, 2, int64_t(3));
  R.bind(T, "dst", "out");
  R.bindOutput(0, S, 0);
  return G;
}

std::string text(const Graph &G) {
  std::ostringstream OS;
  printGraph(G, OS);
  return OS.str();
}

std::string dot(const Graph &G) {
  std::ostringstream OS;
  printDot(G, OS);
  return OS.str();
}

bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

TEST(GraphPrinter, TextDump) {
  auto G = makeSample();
  const char *Expected = R"(graph app
internal app dims [n, 4] targets cpu,nvptx,spirv
  param n: i64
  param data: buffer in bytes n
  param out: buffer out bytes 128
  output result: f32
  internal stage "one" dims [] targets cpu,nvptx,spirv
    param n: i64
    param in: buffer in bytes n
    output sum: f32
    leaf kernel dims [2, 3, n] targets cpu,nvptx function @kernel_fn
      param n: i64
      param in: buffer in bytes n
      output sum: f32
    bind kernel.n <- n
    bind kernel.in <- in
    output sum <- kernel.sum
  leaf tail dims [] targets cpu,nvptx,spirv function @tail_fn
    param x: f32
    param alpha: f64
    param count: i32
    param dst: buffer inout bytes 128
    output y: f32
  leaf sink dims [] targets cpu,nvptx,spirv function @sink_fn
    param v: f32
  edge stream stage "one".sum -> tail.x capacity 4
  edge dep stage "one" -> tail
  edge value tail.y -> sink.v
  bind stage "one".n <- n
  bind stage "one".in <- data
  bind tail.alpha <- 1.5
  bind tail.count <- 3
  bind tail.dst <- out
  output result <- stage "one".sum
)";
  EXPECT_EQ(text(*G), Expected);
}

TEST(GraphPrinter, TextDumpDistinguishesFloatConstants) {
  Graph G("g");
  Node &L = G.root().addLeaf("l", "f");
  L.addValue("a", ScalarType::F32);
  L.addValue("b", ScalarType::F64);
  L.addValue("c", ScalarType::I8);
  G.root().bindConstant(L, 0, 2.0);
  G.root().bindConstant(L, 1, 0.1);
  G.root().bindConstant(L, 2, int64_t(-7));
  std::string Out = text(G);
  EXPECT_TRUE(contains(Out, "bind l.a <- 2.0\n")) << Out;
  EXPECT_TRUE(contains(Out, "bind l.b <- 0.1\n")) << Out;
  EXPECT_TRUE(contains(Out, "bind l.c <- -7\n")) << Out;
}

TEST(GraphPrinter, TextDumpOfALeafGraphAndEmptyTargets) {
  Graph G("solo", Node::Kind::Leaf);
  G.root().Function = "solo_fn";
  G.root().setTargets(0);
  EXPECT_EQ(text(G), "graph solo\nleaf solo dims [] targets none function "
                     "@solo_fn\n");
}

TEST(GraphPrinter, PrintersSurviveBrokenIndices) {
  auto G = makeSample();
  Node &R = G->root();
  R.Edges[2].SrcOutput = 9;
  R.Bindings[0].Child = 8;
  R.Bindings[1].ParentParam = 6;
  R.OutputBindings[0].ParentOutput = 5;
  R.Dims[0] = Extent::param(11);
  Edge Dangling;
  Dangling.Dst = 12;
  R.Edges.push_back(Dangling);
  std::string Out = text(*G);
  EXPECT_TRUE(contains(Out, "dims [#11, 4]")) << Out;
  EXPECT_TRUE(contains(Out, "edge value tail.#9 -> sink.v")) << Out;
  EXPECT_TRUE(contains(Out, "edge dep stage \"one\" -> #12")) << Out;
  EXPECT_TRUE(contains(Out, "bind #8.#0 <- n")) << Out;
  EXPECT_TRUE(contains(Out, "bind stage \"one\".in <- #6")) << Out;
  EXPECT_TRUE(contains(Out, "output #5 <- stage \"one\".sum")) << Out;
  // The dangling edge has nowhere to go in the drawing and is left out.
  std::string Dot = dot(*G);
  EXPECT_EQ(Dot.find("-> #"), std::string::npos) << Dot;
  EXPECT_TRUE(contains(Dot, "label=\"#9 -> v\"")) << Dot;
}

TEST(GraphPrinter, DotStructure) {
  auto G = makeSample();
  std::string Out = dot(*G);
  EXPECT_EQ(Out.rfind("digraph \"app\" {\n", 0), 0u) << Out;
  EXPECT_EQ(Out.substr(Out.size() - 2), "}\n");
  EXPECT_TRUE(contains(Out, "compound=true;")) << Out;

  // Internal nodes are clusters labelled with name and dims, leaves boxes
  // labelled with name, dims and function.
  EXPECT_TRUE(contains(Out, "subgraph cluster_0 {")) << Out;
  EXPECT_TRUE(contains(Out, "label=\"app [n, 4]\";")) << Out;
  EXPECT_TRUE(contains(Out, "subgraph cluster_1 {")) << Out;
  EXPECT_TRUE(contains(Out, "label=\"stage \\\"one\\\"\";")) << Out;
  EXPECT_TRUE(contains(Out, "node [shape=box];")) << Out;
  EXPECT_TRUE(contains(Out, "n2 [label=\"kernel [2, 3, n]\\n@kernel_fn\"];"))
      << Out;
  EXPECT_TRUE(contains(Out, "n3 [label=\"tail\\n@tail_fn\"];")) << Out;
  EXPECT_TRUE(contains(Out, "n4 [label=\"sink\\n@sink_fn\"];")) << Out;

  // The kernel is drawn inside its parent's cluster.
  size_t Cluster = Out.find("subgraph cluster_1");
  size_t Kernel = Out.find("n2 [");
  size_t Tail = Out.find("n3 [");
  ASSERT_NE(Kernel, std::string::npos);
  EXPECT_LT(Cluster, Kernel);
  EXPECT_LT(Out.find("}\n", Kernel), Tail);

  // Edges leaving the cluster start at its anchor and are clipped at its
  // border; each kind has its own style.
  EXPECT_TRUE(contains(Out, "a1 -> n3 [style=bold, label=\"sum -> x\\ncapacity "
                            "4\", ltail=cluster_1];"))
      << Out;
  EXPECT_TRUE(contains(Out, "a1 -> n3 [style=dashed, ltail=cluster_1];"))
      << Out;
  EXPECT_TRUE(contains(Out, "n3 -> n4 [style=solid, label=\"y -> v\"];"))
      << Out;
}

TEST(GraphPrinter, DotEdgeIntoACluster) {
  Graph G("g");
  Node &A = G.root().addLeaf("a", "fa");
  Node &B = G.root().addInternal("b");
  B.addLeaf("c", "fc");
  G.root().addDependency(A, B);
  std::string Out = dot(G);
  EXPECT_TRUE(contains(Out, "n1 -> a2 [style=dashed, lhead=cluster_2];"))
      << Out;
}

TEST(GraphPrinter, DotEscapesLabels) {
  Graph G("quote\"d");
  G.root().addLeaf("back\\slash", "f\"n");
  std::string Out = dot(G);
  EXPECT_TRUE(contains(Out, "digraph \"quote\\\"d\" {")) << Out;
  EXPECT_TRUE(contains(Out, "label=\"back\\\\slash\\n@f\\\"n\"")) << Out;
}

// Renders the sample with Graphviz, which rejects DOT it cannot parse.
TEST(GraphPrinter, DotRendersWithGraphviz) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "Graphviz 'dot' is not on PATH";

  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() /
                 ("hpvm-graph-printer-" + std::to_string(::getpid()));
  fs::create_directories(Dir);
  fs::path DotFile = Dir / "sample.dot";
  fs::path PngFile = Dir / "sample.png";
  fs::path ErrFile = Dir / "stderr.txt";
  {
    std::ofstream OS(DotFile);
    printDot(*makeSample(), OS);
  }
  std::string Command = "dot -Tpng '" + DotFile.string() + "' -o '" +
                        PngFile.string() + "' 2>'" + ErrFile.string() + "'";
  int Status = std::system(Command.c_str());

  std::ifstream Err(ErrFile);
  std::string Warnings((std::istreambuf_iterator<char>(Err)),
                       std::istreambuf_iterator<char>());
  std::ifstream Png(PngFile, std::ios::binary);
  std::string Bytes((std::istreambuf_iterator<char>(Png)),
                    std::istreambuf_iterator<char>());
  fs::remove_all(Dir);

  EXPECT_EQ(Status, 0) << Warnings;
  // Graphviz also warns, without failing, about lhead/ltail it cannot honour.
  EXPECT_EQ(Warnings, "");
  ASSERT_GT(Bytes.size(), 8u);
  EXPECT_EQ(Bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

} // namespace
