//===- GraphTextTest.cpp - The line-based text form of graphs -------------===//

#include "hpvm/ir/GraphText.h"
#include "hpvm/ir/GraphVerifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace hpvm;

namespace {

double fromBits(uint64_t Bits) {
  double D;
  std::memcpy(&D, &Bits, sizeof(D));
  return D;
}

uint64_t toBits(double D) {
  uint64_t Bits;
  std::memcpy(&Bits, &D, sizeof(Bits));
  return Bits;
}

// Everything the model has, in one graph: every parameter type, both extent
// forms, nested internal nodes, all edge kinds, constants that only survive
// bit-exact printing, and names that need quoting.
Graph richGraph() {
  Graph G("rich graph \"1\"");
  Node &R = G.root();
  unsigned A = R.addBuffer("a", Access::In, Extent::param(3));
  unsigned B =
      R.addBuffer("b\\weird\tname\n#", Access::InOut, Extent::constant(4096));
  unsigned Out = R.addBuffer("out", Access::Out, Extent::param(3));
  unsigned N = R.addValue("n", ScalarType::I64);
  for (ScalarType T :
       {ScalarType::I1, ScalarType::I8, ScalarType::I16, ScalarType::I32,
        ScalarType::F16, ScalarType::F32, ScalarType::F64, ScalarType::Ptr})
    R.addValue(std::string("v_") + toString(T), T);
  R.addOutput("result", ScalarType::F32);
  R.setDims({Extent::constant(2), Extent::param(3)});
  R.setTargets(TargetCPU | TargetSPIRV);

  Node &Producer = R.addLeaf("producer", "hpvm.node.producer");
  Producer.addBuffer("x", Access::In, Extent::param(1));
  Producer.addValue("bytes", ScalarType::I64);
  Producer.addOutput("sum", ScalarType::F32);
  Producer.addOutput("count", ScalarType::I32);
  Producer.setTargets(TargetNVPTX);

  Node &Stage = R.addInternal("stage \xc3\xa9");
  Stage.addValue("s", ScalarType::F32);
  Stage.addBuffer("y", Access::InOut, Extent::constant(4096));
  Stage.addValue("k", ScalarType::I32);
  Stage.addValue("h", ScalarType::F16);
  Stage.addValue("d", ScalarType::F64);
  Stage.addOutput("o", ScalarType::F32);
  Stage.setDims({Extent::param(2), Extent::constant(3), Extent::constant(1)});
  Stage.Sequential = true;
  Stage.setTargets(0);
  Node &Inner = Stage.addLeaf("inner", "inner_fn");
  Inner.addValue("s", ScalarType::F32);
  Inner.Params[Inner.addBuffer("y", Access::Out, Extent::constant(4096))]
      .Offset = {OffsetTerm{Extent::constant(64), 0, 0},
                 OffsetTerm{Extent::constant(4096), 1, 2}};
  Inner.addOutput("o", ScalarType::F32);
  Inner.setTargets(0x10 | TargetCPU); // an unknown bit must survive too
  Stage.bind(Inner, 0, 0);
  Stage.bind(Inner, 1, 1);
  Stage.bindOutput(0, Inner, 0);

  Node &Consumer = R.addLeaf("consumer", "consumer_fn");
  Consumer.addValue("count", ScalarType::I32);
  Consumer.Params[Consumer.addBuffer("out", Access::Out, Extent::param(2))]
      .WritesAll = true;
  // Rows of every form: a constant, a negative one, a scaled parameter
  // with and without an offset.
  Inner.Params[1].Written =
      WrittenRows{DerivedExtent{Extent::param(0), 4, 4},
                  DerivedExtent{Extent::constant(0), 1, -8},
                  DerivedExtent{Extent::param(2), -2, 0},
                  DerivedExtent{Extent::constant(7), 1, 0}};
  Consumer.addValue("bytes", ScalarType::I64);
  Consumer.setDims({Extent::param(2)});

  R.bind(Producer, 0, A);
  R.bind(Producer, 1, N);
  R.bind(Stage, 1, B);
  R.bindConstant(Stage, 2, int64_t(std::numeric_limits<int64_t>::min()));
  R.bindConstant(Stage, 3, fromBits(0x7ff8dead0000beefull)); // NaN payload
  R.bindConstant(Stage, 4, -0.0);
  R.bind(Consumer, 1, Out);
  R.bindConstant(Consumer, 2, int64_t(-7));
  R.addValueEdge(Producer, 0, Stage, 0);
  R.addStreamingEdge(Producer, 1, Consumer, 0, 16);
  R.addDependency(Stage, Consumer);
  R.bindOutput(0, Stage, 0);
  return G;
}

std::vector<Graph> roundTrip(const std::vector<const Graph *> &Gs) {
  return readGraphText(writeGraphText(Gs));
}

TEST(GraphText, RichGraphRoundTrips) {
  Graph G = richGraph();
  std::vector<Graph> Back = roundTrip({&G});
  ASSERT_EQ(Back.size(), 1u);
  EXPECT_TRUE(Back[0].equals(G)) << writeGraphText({&G}) << "---\n"
                                 << writeGraphText({&Back[0]});
}

TEST(GraphText, SequentialIsWrittenAndCompared) {
  Graph G = richGraph();
  std::string Text = writeGraphText({&G});
  EXPECT_NE(Text.find("\n    sequential\n"), std::string::npos) << Text;
  Graph Other = richGraph();
  Other.root().Children[1]->Sequential = false;
  EXPECT_FALSE(Other.equals(G));
  EXPECT_EQ(writeGraphText({&Other}).find("sequential"), std::string::npos);
}

TEST(GraphText, WorkGroupsAreWrittenAndCompared) {
  Graph G = richGraph();
  Node &Leaf = *G.root().Children[0];
  ASSERT_TRUE(Leaf.isLeaf());
  Leaf.Group = {Extent::constant(16), Extent::constant(8)};
  std::string Text = writeGraphText({&G});
  EXPECT_NE(Text.find("\n    group 16 8\n"), std::string::npos) << Text;
  std::vector<Graph> Back = roundTrip({&G});
  ASSERT_EQ(Back.size(), 1u);
  EXPECT_TRUE(Back[0].equals(G)) << Text;
  Graph Other = richGraph();
  EXPECT_FALSE(Other.equals(G));
}

TEST(GraphText, NestingDeeperThanTheLimitIsAnError) {
  auto Nested = [](unsigned Depth) {
    std::string T = "hpvm-graphs 1\ngraph internal \"g\"\n";
    for (unsigned D = 1; D < Depth; ++D)
      T += "node internal \"n" + std::to_string(D) + "\"\n";
    for (unsigned D = 0; D < Depth; ++D)
      T += "end\n";
    return T;
  };
  EXPECT_EQ(readGraphText(Nested(MaxNodeDepth)).size(), 1u);
  try {
    readGraphText(Nested(3000));
    ADD_FAILURE() << "a graph 3000 levels deep was read";
  } catch (const GraphError &E) {
    EXPECT_NE(std::string(E.what()).find("nested more than 256 levels deep"),
              std::string::npos)
        << E.what();
  }
}

TEST(GraphText, FloatConstantsAreBitExact) {
  const uint64_t Patterns[] = {
      0x0000000000000000ull, 0x8000000000000000ull, // +0, -0
      0x3fb999999999999aull,                        // 0.1
      0x0000000000000001ull,                        // smallest subnormal
      0x7fefffffffffffffull,                        // largest finite
      0x7ff0000000000000ull, 0xfff0000000000000ull, // +-inf
      0x7ff8000000000000ull, 0xfff4000000000123ull, // quiet, signalling NaN
  };
  for (uint64_t Bits : Patterns) {
    Graph G("g");
    Node &L = G.root().addLeaf("l", "f");
    L.addValue("x", ScalarType::F64);
    G.root().bindConstant(L, 0, fromBits(Bits));
    std::vector<Graph> Back = roundTrip({&G});
    ASSERT_EQ(Back.size(), 1u);
    ASSERT_EQ(Back[0].root().Bindings.size(), 1u);
    const Binding &B = Back[0].root().Bindings[0];
    EXPECT_TRUE(B.IsFloat);
    EXPECT_EQ(toBits(B.FloatValue), Bits) << std::hex << Bits;
  }
}

TEST(GraphText, SeveralGraphsKeepTheirOrderAndRootKinds) {
  Graph A("a", Node::Kind::Leaf);
  A.root().Function = "fa";
  A.root().addValue("n", ScalarType::I32);
  Graph B("b");
  B.root().addLeaf("x", "fx");
  Graph C("c");
  std::vector<Graph> Back = roundTrip({&A, &B, &C});
  ASSERT_EQ(Back.size(), 3u);
  EXPECT_TRUE(Back[0].equals(A));
  EXPECT_TRUE(Back[1].equals(B));
  EXPECT_TRUE(Back[2].equals(C));
  EXPECT_TRUE(Back[0].root().isLeaf());
}

TEST(GraphText, NoGraphsIsJustTheHeader) {
  EXPECT_EQ(writeGraphText({}), "hpvm-graphs 1\n");
  EXPECT_TRUE(readGraphText("hpvm-graphs 1\n").empty());
}

TEST(GraphText, WritingIsStable) {
  Graph G = richGraph();
  std::string Text = writeGraphText({&G});
  std::vector<Graph> Back = readGraphText(Text);
  EXPECT_EQ(writeGraphText({&Back[0]}), Text);
}

TEST(GraphText, TheWriterSpellsTheDocumentedForm) {
  Graph G("vadd", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "vadd_fn";
  R.addBuffer("a", Access::In, Extent::param(1));
  R.Params[R.addBuffer("c", Access::Out, Extent::param(1))].WritesAll = true;
  R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::param(2)});
  R.addValue("n", ScalarType::I64);
  EXPECT_EQ(writeGraphText({&G}), "hpvm-graphs 1\n"
                                  "graph leaf \"vadd\"\n"
                                  "  function \"vadd_fn\"\n"
                                  "  dims p2\n"
                                  "  targets cpu,nvptx,spirv\n"
                                  "  param buffer \"a\" in p1\n"
                                  "  param buffer \"c\" out p1 writes-all\n"
                                  "  param value \"bytes\" i64\n"
                                  "  param value \"n\" i64\n"
                                  "end\n");
}

TEST(GraphText, HandWrittenTextWithCommentsBlanksAndCRLF) {
  const char *Text = "# a program\r\n"
                     "\r\n"
                     "hpvm-graphs 1\r\n"
                     "graph internal \"g\"\r\n"
                     "\tparam value \"x\" f32   \r\n"
                     "  node leaf \"l\"\r\n"
                     "    # the leaf\r\n"
                     "    function \"f\"\r\n"
                     "    param value \"y\" f32\r\n"
                     "    param value \"z\" f64\r\n"
                     "  end\r\n"
                     "  bind 0 0 param 0\r\n"
                     "  bind 0 1 float -2.5e-3\r\n"
                     "end";
  std::vector<Graph> Gs = readGraphText(Text);
  ASSERT_EQ(Gs.size(), 1u);
  const Node &R = Gs[0].root();
  EXPECT_EQ(R.Targets, AllTargets); // the default when not written
  ASSERT_EQ(R.Children.size(), 1u);
  EXPECT_EQ(R.Children[0]->Function, "f");
  ASSERT_EQ(R.Bindings.size(), 2u);
  EXPECT_TRUE(R.Bindings[1].IsFloat);
  EXPECT_EQ(R.Bindings[1].FloatValue, -2.5e-3);
  EXPECT_TRUE(verifyGraph(Gs[0]).empty());
}

TEST(GraphText, StructuralMistakesAreTheVerifiersJob) {
  const char *Text = "hpvm-graphs 1\n"
                     "graph internal \"g\"\n"
                     "  node leaf \"l\"\n"
                     "    function \"f\"\n"
                     "  end\n"
                     "  edge dep 0 7\n"
                     "end\n";
  std::vector<Graph> Gs = readGraphText(Text);
  ASSERT_EQ(Gs.size(), 1u);
  std::vector<GraphDiagnostic> Diags = verifyGraph(Gs[0]);
  ASSERT_FALSE(Diags.empty());
  EXPECT_EQ(Diags[0].Rule, "edge");
}

struct Malformed {
  const char *Text;
  const char *Fragment;
};

TEST(GraphText, MalformedTextNamesTheLineAndTheProblem) {
  const Malformed Cases[] = {
      {"", "line 1: missing the header"},
      {"graph leaf \"g\"\nend\n", "line 1: expected the header"},
      {"hpvm-graphs 2\n", "line 1: unsupported format version 2"},
      {"hpvm-graphs\n", "line 1: expected the format version"},
      {"hpvm-graphs 1 extra\n", "line 1: unexpected 'extra'"},
      {"hpvm-graphs 1\nnode leaf \"x\"\n", "line 2: 'node' outside a graph"},
      {"hpvm-graphs 1\nend\n", "line 2: 'end' outside a graph"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n", "node 'g' is not closed by 'end'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  node leaf \"l\"\nend\n",
       "node 'g' is not closed"},
      {"hpvm-graphs 1\ngraph tree \"g\"\nend\n",
       "line 2: expected the node kind"},
      {"hpvm-graphs 1\ngraph leaf g\nend\n",
       "line 2: expected the graph name as a quoted string"},
      {"hpvm-graphs 1\ngraph leaf \"g\nend\n", "line 2: unterminated string"},
      {"hpvm-graphs 1\ngraph leaf \"g\\q\"\nend\n",
       "line 2: unknown escape '\\q'"},
      {"hpvm-graphs 1\ngraph leaf \"g\\x4\"\nend\n",
       "line 2: '\\x' needs two hex digits"},
      {"hpvm-graphs 1\ngraph leaf \"g\"x\nend\n",
       "line 2: expected a blank after the closing quote"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  frobnicate\nend\n",
       "line 3: unknown statement 'frobnicate'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  function \"f\"\n  function "
       "\"h\"\nend\n",
       "line 4: a second 'function'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  dims 1\n  dims 2\nend\n",
       "line 4: a second 'dims'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  dims -1\nend\n",
       "line 3: expected a dim as an unsigned decimal number, got '-1'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  dims pq\nend\n",
       "line 3: expected a dim parameter index"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  dims 99999999999999999999\nend\n",
       "line 3: a dim '99999999999999999999' is out of range"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  targets cpu,tpu\nend\n",
       "line 3: unknown targets 'cpu,tpu'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  targets 0xzz\nend\n",
       "line 3: bad target mask"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" rw 8\nend\n",
       "line 3: unknown access mode 'rw'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" out 8 all\nend\n",
       "line 3: unexpected 'all' after a buffer; expected writes-all, "
       "writes-rows <start>:<bytes>:<stride>:<rows> or at <offset>, each at "
       "most once"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" out 8 "
       "writes-rows 0:4:8\nend\n",
       "line 3: expected <start>:<bytes>:<stride>:<rows> after writes-rows"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" out 8 "
       "writes-rows 0:4:8:x*p1\nend\n",
       "line 3: bad number 'x' in 'x*p1'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" out 8 at "
       "p1*id\nend\n",
       "line 3: expected <level>.<dim> after 'id' in offset term 'p1*id'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" out 8 at "
       "p1*id0.0\nend\n",
       "line 3: offset term 'p1*id0.0': id levels start at 1"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" out 8 at "
       "4+\nend\n",
       "line 3: expected an offset coefficient as an unsigned decimal number, "
       "got ''"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" out 8 writes-all "
       "x\nend\n",
       "line 3: unexpected 'x'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param buffer \"a\" in\nend\n",
       "line 3: expected the byte size at the end of the line"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param value \"n\" i128\nend\n",
       "line 3: unknown type 'i128'"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  param array \"n\"\nend\n",
       "line 3: expected the parameter kind"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  output \"o\"\nend\n",
       "line 3: expected a type at the end of the line"},
      {"hpvm-graphs 1\ngraph leaf \"g\"\n  node leaf \"c\"\n  end\nend\n",
       "line 3: node 'c' inside leaf 'g'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  edge data 0 1\nend\n",
       "line 3: unknown edge kind 'data'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  edge value 0 1 2\nend\n",
       "line 3: expected the destination parameter"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  edge dep 0 4294967296\nend\n",
       "line 3: the destination child '4294967296' is out of range"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  edge dep 0 1 2\nend\n",
       "line 3: unexpected '2'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  bind 0 0 global 1\nend\n",
       "line 3: unknown binding source 'global'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  bind 0 0 int 1.5\nend\n",
       "line 3: bad integer constant '1.5'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  bind 0 0 float abc\nend\n",
       "line 3: bad floating-point constant 'abc'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  bind 0 0 floatbits 12\nend\n",
       "line 3: bad float bits '12'"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  bind 0 0 floatbits "
       "0x10000000000000000\nend\n",
       "line 3: bad float bits"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  outbind 0 1\nend\n",
       "line 3: expected the child output"},
      {"hpvm-graphs 1\ngraph internal \"g\"\n  graph leaf \"h\"\nend\n",
       "line 3: 'graph' inside node 'g'"},
  };
  for (const Malformed &M : Cases) {
    try {
      readGraphText(M.Text);
      ADD_FAILURE() << "no error for:\n" << M.Text;
    } catch (const GraphError &E) {
      std::string Message = E.what();
      EXPECT_EQ(Message.rfind("graph text line ", 0), 0u) << Message;
      EXPECT_NE(Message.find(M.Fragment), std::string::npos)
          << "message '" << Message << "' lacks '" << M.Fragment << "' for:\n"
          << M.Text;
    }
  }
}

} // namespace
