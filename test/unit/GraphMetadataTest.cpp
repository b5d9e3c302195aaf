//===- GraphMetadataTest.cpp - Graph form in LLVM modules -----------------===//
//
// Round trips of the !hpvm.graphs encoding through textual IR, the reader's
// handling of malformed metadata, and the module-level rules of
// verifyGraphForm.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/GraphFormVerifier.h"

#include "IRTestSupport.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace llvm;
using namespace hpvm;

namespace {

using hpvm::test::parseIR;
using hpvm::test::printModule;

/// Defines a leaf function with the node's signature and a trivial body.
void defineLeaf(Module &M, const Node &N) {
  LLVMContext &Ctx = M.getContext();
  Function *F = Function::Create(getLeafFunctionType(N, Ctx),
                                 GlobalValue::InternalLinkage, N.Function, M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  if (F->getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Constant::getNullValue(F->getReturnType()));
}

void defineLeaves(Module &M, const Graph &G) {
  forEachNode(G.root(), [&](const Node &N) {
    if (N.isLeaf())
      defineLeaf(M, N);
  });
}

/// Writes Graphs into a fresh module with their leaf functions, prints it,
/// parses the text back and returns what readGraphs finds there.
std::vector<Graph> roundTrip(const std::vector<const Graph *> &Graphs,
                             std::string *Text = nullptr) {
  LLVMContext Ctx;
  Module M("roundtrip", Ctx);
  for (const Graph *G : Graphs)
    defineLeaves(M, *G);
  writeGraphs(M, Graphs);
  std::string IR = printModule(M);
  if (Text)
    *Text = IR;

  LLVMContext Ctx2;
  std::unique_ptr<Module> Back = parseIR(Ctx2, IR);
  if (!Back)
    return {};
  Expected<std::vector<Graph>> Read = readGraphs(*Back);
  if (!Read) {
    ADD_FAILURE() << toString(Read.takeError());
    return {};
  }
  return std::move(*Read);
}

/// The vadd leaf of docs/ir.md §3.2: the root itself is the leaf.
Graph makeVAdd() {
  Graph G("vadd", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "hpvm.node.vadd";
  R.addBuffer("a", Access::In, Extent::param(4));
  R.addBuffer("b", Access::In, Extent::param(4));
  R.Params[R.addBuffer("c", Access::Out, Extent::param(4))].WritesAll = true;
  R.addValue("n", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::param(3)});
  return G;
}

/// Three levels with every kind of edge, binding and extent.
Graph makePipeline() {
  Graph G("pipeline");
  Node &R = G.root();
  unsigned In = R.addBuffer("in", Access::In, Extent::param(2));
  unsigned Out = R.addBuffer("out", Access::Out, Extent::constant(4096));
  unsigned N = R.addValue("n", ScalarType::I64);
  unsigned Scale = R.addValue("scale", ScalarType::F32);
  R.addOutput("total", ScalarType::F64);

  Node &Stage = R.addInternal("stage");
  Stage.addBuffer("src", Access::In, Extent::param(2));
  Stage.addBuffer("dst", Access::Out, Extent::param(2));
  Stage.addValue("n", ScalarType::I64);
  Stage.addValue("alpha", ScalarType::F32);
  Stage.addOutput("result", ScalarType::F64);
  Stage.setDims({Extent::param(2)}).setTargets(TargetCPU | TargetNVPTX);

  Node &Mul = Stage.addLeaf("scale", "hpvm.node.pipeline.stage.scale");
  Mul.addBuffer("src", Access::In, Extent::param(2));
  // Each instance of the stage writes its own section of dst.
  Param &Dst = Mul.Params[Mul.addBuffer("dst", Access::Out, Extent::param(2))];
  Dst.Offset = {OffsetTerm{Extent::param(2), 1, 0},
                OffsetTerm{Extent::constant(8)}};
  Dst.Written = WrittenRows{DerivedExtent{Extent::param(2), 4, 4},
                            DerivedExtent{Extent::constant(0), 1, -8},
                            DerivedExtent{Extent::param(2), 1, 0},
                            DerivedExtent{Extent::constant(3), 1, 0}};
  Mul.addValue("n", ScalarType::I64);
  Mul.addValue("alpha", ScalarType::F32);
  Mul.addOutput("partial", ScalarType::F64);
  Mul.setDims({Extent::param(2), Extent::constant(4)}).setTargets(TargetCPU);
  for (const char *P : {"src", "dst", "n", "alpha"})
    Stage.bind(Mul, P, P);

  Node &Reduce = Stage.addLeaf("reduce", "hpvm.node.pipeline.stage.reduce");
  unsigned X = Reduce.addValue("x", ScalarType::F64);
  Reduce.addOutput("r", ScalarType::F64);
  Stage.addValueEdge(Mul, 0, Reduce, X);
  Stage.bindOutput(0, Reduce, 0);

  Node &Producer = R.addLeaf("producer", "hpvm.node.pipeline.producer");
  unsigned Count = Producer.addValue("count", ScalarType::I32);
  unsigned Bias = Producer.addValue("bias", ScalarType::F64);
  Producer.addOutput("token", ScalarType::I32);

  Node &Consumer = R.addLeaf("consumer", "hpvm.node.pipeline.consumer");
  unsigned Token = Consumer.addValue("token", ScalarType::I32);
  unsigned K = Consumer.addValue("k", ScalarType::I64);
  unsigned Mix = Consumer.addValue("mix", ScalarType::F16);
  Consumer.addOutput("a", ScalarType::F64);
  Consumer.addOutput("b", ScalarType::I1);

  R.bind(Stage, 0, In);
  R.bind(Stage, 1, Out);
  R.bind(Stage, 2, N);
  R.bind(Stage, 3, Scale);
  R.bindConstant(Producer, Count, int64_t(7));
  R.bindConstant(Producer, Bias, 2.5);
  R.bindConstant(Consumer, K, int64_t(-3));
  R.bindConstant(Consumer, Mix, 0.5);
  R.addDependency(Stage, Producer);
  R.addStreamingEdge(Producer, 0, Consumer, Token, 4);
  R.bindOutput(0, Stage, 0);
  return G;
}

/// Collects the HPVM diagnostics a context reports.
struct Collected {
  std::vector<std::string> Rules;
  std::vector<std::string> Texts;

  bool has(StringRef Rule, StringRef Fragment = "") const {
    for (size_t I = 0; I < Rules.size(); ++I)
      if (Rules[I] == Rule && StringRef(Texts[I]).contains(Fragment))
        return true;
    return false;
  }
  std::string dump() const {
    std::string S;
    for (const std::string &T : Texts)
      S += T + "\n";
    return S;
  }
};

void collect(const DiagnosticInfo &DI, void *Context) {
  auto *C = static_cast<Collected *>(Context);
  if (const auto *D = dyn_cast<DiagnosticInfoHPVM>(&DI)) {
    std::string Text;
    raw_string_ostream OS(Text);
    DiagnosticPrinterRawOStream DP(OS);
    D->print(DP);
    C->Rules.push_back(D->rule());
    C->Texts.push_back(OS.str());
  }
}

/// Runs verifyGraphForm on IR text, after writing Graphs into it if there
/// are any; Errors gets its return value.
Collected verifyText(StringRef Text, unsigned &Errors,
                     const std::vector<const Graph *> &Graphs = {}) {
  Collected C;
  LLVMContext Ctx;
  Ctx.setDiagnosticHandlerCallBack(
      [](const DiagnosticInfo *DI, void *Context) { collect(*DI, Context); },
      &C);
  Errors = ~0u;
  if (std::unique_ptr<Module> M = parseIR(Ctx, Text)) {
    if (!Graphs.empty())
      writeGraphs(*M, Graphs);
    Errors = verifyGraphForm(*M);
  }
  return C;
}

} // namespace

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(GraphMetadata, LeafOnlyGraphRoundTrips) {
  Graph G = makeVAdd();
  std::string Text;
  std::vector<Graph> Back = roundTrip({&G}, &Text);
  ASSERT_EQ(Back.size(), 1u);
  EXPECT_TRUE(Back[0].equals(G)) << Text;
  EXPECT_TRUE(Back[0].root().isLeaf());

  // The spelling of docs/ir.md §3.2.
  EXPECT_NE(Text.find("!{!\"hpvm.graph\", !\"vadd\", !"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("!\"function\", ptr @hpvm.node.vadd"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("!{!\"buffer\", !\"a\", !\"in\", !"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("!{!\"buffer\", !\"c\", !\"out\", !"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find(", !\"writes-all\"}"), std::string::npos) << Text;
  EXPECT_NE(Text.find("!{!\"param\", i32 4}"), std::string::npos) << Text;
  EXPECT_NE(Text.find("!{!\"value\", !\"n\", !\"i64\"}"), std::string::npos)
      << Text;
  // Empty fields and the default targets are left out.
  for (const char *Omitted : {"targets", "outputs", "children", "edges",
                              "bindings", "output-bindings"})
    EXPECT_EQ(Text.find(std::string("!\"") + Omitted + "\""), std::string::npos)
        << Omitted << "\n"
        << Text;
}

TEST(GraphMetadata, ThreeLevelGraphRoundTrips) {
  Graph G = makePipeline();
  std::string Text;
  std::vector<Graph> Back = roundTrip({&G}, &Text);
  ASSERT_EQ(Back.size(), 1u);
  EXPECT_TRUE(Back[0].equals(G)) << Text;

  const Node &R = Back[0].root();
  ASSERT_EQ(R.Children.size(), 3u);
  EXPECT_EQ(R.Children[0]->Targets, TargetCPU | TargetNVPTX);
  EXPECT_EQ(R.Children[0]->Children[0]->Targets, TargetMask(TargetCPU));
  EXPECT_EQ(R.Children[0]->Children[0]->Function,
            "hpvm.node.pipeline.stage.scale");
  ASSERT_EQ(R.Bindings.size(), 8u);
  EXPECT_TRUE(R.Bindings[5].IsFloat);
  EXPECT_EQ(R.Bindings[5].FloatValue, 2.5);
  EXPECT_EQ(R.Bindings[6].IntValue, -3);

  EXPECT_NE(Text.find("!\"const\", double 2.500000e+00}"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("!\"const\", i64 -3}"), std::string::npos) << Text;
  EXPECT_NE(Text.find("!{!\"stream\", i32 1, i32 0, i32 2, i32 0, i32 4}"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("!{!\"dep\", i32 0, i32 1}"), std::string::npos) << Text;
  EXPECT_NE(Text.find("!\"targets\", !\"cpu,nvptx\""), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("i64 4096"), std::string::npos) << Text;
}

TEST(GraphMetadata, SequentialNodeRoundTrips) {
  Graph G = makePipeline();
  Node &Stage = *G.root().Children[0];
  Stage.setDims({Extent::param(2)});
  Stage.Sequential = true;
  std::string Text;
  std::vector<Graph> Back = roundTrip({&G}, &Text);
  ASSERT_EQ(Back.size(), 1u);
  EXPECT_TRUE(Back[0].equals(G)) << Text;
  EXPECT_TRUE(Back[0].root().Children[0]->Sequential);
  EXPECT_FALSE(Back[0].root().Sequential);
  EXPECT_NE(Text.find("!\"sequential\", !\"true\""), std::string::npos) << Text;
}

TEST(GraphMetadata, WorkGroupLeafRoundTrips) {
  Graph G = makePipeline();
  Node *Leaf = G.root().Children[0].get();
  while (!Leaf->isLeaf())
    Leaf = Leaf->Children[0].get();
  Leaf->Group = {Extent::constant(16)};
  std::string Text;
  std::vector<Graph> Back = roundTrip({&G}, &Text);
  ASSERT_EQ(Back.size(), 1u);
  EXPECT_TRUE(Back[0].equals(G)) << Text;
  EXPECT_NE(Text.find("!\"group\", !"), std::string::npos) << Text;
}

TEST(GraphMetadata, SeveralGraphsKeepTheirOrder) {
  Graph A = makeVAdd();
  Graph B = makePipeline();
  std::vector<Graph> Back = roundTrip({&B, &A});
  ASSERT_EQ(Back.size(), 2u);
  EXPECT_TRUE(Back[0].equals(B));
  EXPECT_TRUE(Back[1].equals(A));
}

TEST(GraphMetadata, WriteReplacesExistingGraphs) {
  LLVMContext Ctx;
  Module M("m", Ctx);
  Graph A = makeVAdd();
  Graph B = makePipeline();
  defineLeaves(M, A);
  defineLeaves(M, B);
  writeGraphs(M, {&A, &B});
  writeGraphs(M, {&B});
  Expected<std::vector<Graph>> Read = readGraphs(M);
  ASSERT_TRUE(bool(Read)) << toString(Read.takeError());
  ASSERT_EQ(Read->size(), 1u);
  EXPECT_TRUE((*Read)[0].equals(B));
  EXPECT_TRUE(hasGraphs(M));
  writeGraphs(M, {});
  EXPECT_FALSE(hasGraphs(M));
  EXPECT_EQ(M.getNamedMetadata(GraphsMetadataName), nullptr);
}

TEST(GraphMetadata, MissingLeafFunctionIsDeclared) {
  LLVMContext Ctx;
  Module M("m", Ctx);
  Graph G = makeVAdd();
  writeGraphs(M, {&G});
  Function *F = M.getFunction("hpvm.node.vadd");
  ASSERT_NE(F, nullptr);
  EXPECT_TRUE(F->isDeclaration());
  EXPECT_EQ(F->getFunctionType(), getLeafFunctionType(G.root(), Ctx));
  Expected<std::vector<Graph>> Read = readGraphs(M);
  ASSERT_TRUE(bool(Read)) << toString(Read.takeError());
  EXPECT_TRUE((*Read)[0].equals(G));
}

TEST(GraphMetadata, NoMetadataMeansNoGraphs) {
  LLVMContext Ctx;
  Module M("m", Ctx);
  EXPECT_FALSE(hasGraphs(M));
  Expected<std::vector<Graph>> Read = readGraphs(M);
  ASSERT_TRUE(bool(Read)) << toString(Read.takeError());
  EXPECT_TRUE(Read->empty());
}

//===----------------------------------------------------------------------===//
// Types and declarations
//===----------------------------------------------------------------------===//

TEST(GraphMetadata, ScalarTypesMapToLLVMAndBack) {
  LLVMContext Ctx;
  for (ScalarType T : {ScalarType::I1, ScalarType::I8, ScalarType::I16,
                       ScalarType::I32, ScalarType::I64, ScalarType::F16,
                       ScalarType::F32, ScalarType::F64, ScalarType::Ptr})
    EXPECT_EQ(fromLLVMType(toLLVMType(T, Ctx)), T) << toString(T);
  EXPECT_TRUE(toLLVMType(ScalarType::F16, Ctx)->isHalfTy());
  EXPECT_EQ(toLLVMType(ScalarType::Ptr, Ctx), PointerType::get(Ctx, 0));
  EXPECT_EQ(fromLLVMType(Type::getIntNTy(Ctx, 7)), std::nullopt);
  EXPECT_EQ(fromLLVMType(PointerType::get(Ctx, 1)), std::nullopt);
  EXPECT_EQ(fromLLVMType(Type::getBFloatTy(Ctx)), std::nullopt);
  EXPECT_EQ(fromLLVMType(Type::getVoidTy(Ctx)), std::nullopt);
  EXPECT_EQ(fromLLVMType(nullptr), std::nullopt);
}

TEST(GraphMetadata, RuntimeDeclarations) {
  LLVMContext Ctx;
  Module M("m", Ctx);
  Function *Launch = getLaunchFunction(M);
  ASSERT_NE(Launch, nullptr);
  EXPECT_EQ(Launch->getName(), LaunchFunctionName);
  EXPECT_TRUE(Launch->isVarArg());
  EXPECT_TRUE(Launch->getReturnType()->isVoidTy());
  ASSERT_EQ(Launch->arg_size(), 1u);
  EXPECT_TRUE(Launch->getArg(0)->getType()->isPointerTy());
  EXPECT_EQ(getLaunchFunction(M), Launch);

  Function *Id = getInstanceIdFunction(M);
  ASSERT_NE(Id, nullptr);
  EXPECT_EQ(Id->getName(), InstanceIdFunctionName);
  EXPECT_TRUE(Id->getReturnType()->isIntegerTy(64));
  ASSERT_EQ(Id->arg_size(), 2u);
  EXPECT_TRUE(Id->getArg(1)->getType()->isIntegerTy(32));
  EXPECT_TRUE(Id->doesNotAccessMemory());
  EXPECT_TRUE(Id->doesNotThrow());
  EXPECT_TRUE(Id->willReturn());
  EXPECT_TRUE(Id->isSpeculatable());
  EXPECT_EQ(getInstanceIdFunction(M), Id);
}

TEST(GraphMetadata, LaunchedGraphName) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, R"(
@hpvm.graph.vadd = private constant [5 x i8] c"vadd\00"
@not.a.string = private constant [4 x i8] c"abcd"
@no.init = external constant [5 x i8]
declare void @hpvm.launch(ptr, ...)
declare void @other(ptr)
define void @host(ptr %p) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, i64 1)
  call void (ptr, ...) @hpvm.launch(ptr @not.a.string)
  call void (ptr, ...) @hpvm.launch(ptr @no.init)
  call void (ptr, ...) @hpvm.launch(ptr %p)
  call void @other(ptr @hpvm.graph.vadd)
  ret void
}
)");
  ASSERT_TRUE(M);
  std::vector<std::string> Names;
  for (Instruction &I : M->getFunction("host")->getEntryBlock())
    if (auto *CI = dyn_cast<CallInst>(&I))
      Names.push_back(launchedGraphName(*CI));
  EXPECT_EQ(Names, (std::vector<std::string>{"vadd", "", "", "", ""}));
}

//===----------------------------------------------------------------------===//
// Malformed metadata
//===----------------------------------------------------------------------===//

namespace {
struct MalformedCase {
  const char *Name;
  /// Metadata definitions; !hpvm.graphs = !{!0} is prepended.
  const char *Metadata;
  /// Fragments the error must contain.
  std::vector<const char *> Expected;
};

// A valid leaf to build the broken variants from:
//   !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"function", ptr @f}
const MalformedCase MalformedCases[] = {
    {"GraphTag",
     R"(!0 = !{!"hpvm.grph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf"})",
     {"graph '#0'", "field 'hpvm.graph'"}},
    {"GraphArity",
     R"(!0 = !{!"hpvm.graph", !"g"})",
     {"graph '#0'", "field 'hpvm.graph'"}},
    {"GraphName",
     R"(!0 = !{!"hpvm.graph", i32 1, !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf"})",
     {"field 'name'"}},
    {"RootNotATuple",
     R"(!0 = !{!"hpvm.graph", !"g", !"root"})",
     {"graph 'g'", "node 'g'", "field 'hpvm.node'"}},
    {"NodeTag",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.nod", !"name", !"g", !"kind", !"leaf"})",
     {"node 'g'", "field 'hpvm.node'"}},
    {"DanglingKey",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"dims"})",
     {"node 'g'", "odd number"}},
    {"MissingName",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"kind", !"leaf"})",
     {"node 'g'", "field 'name': missing"}},
    {"NullName",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", null, !"kind", !"leaf"})",
     {"field 'name'"}},
    {"MissingKind",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g"})",
     {"node 'g'", "field 'kind': missing"}},
    {"UnknownKind",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"branch"})",
     {"field 'kind'", "branch"}},
    {"UnknownKey",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"colour", !"red"})",
     {"node 'g'", "field 'colour'", "unknown field"}},
    {"KeyNotAString",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", i32 3, !"red"})",
     {"node 'g'", "key string"}},
    {"RepeatedKey",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"kind", !"leaf"})",
     {"field 'kind'", "more than once"}},
    {"RootNameDiffers",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"h", !"kind", !"leaf"})",
     {"graph 'g'", "field 'name'"}},
    {"FunctionNotAFunction",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"function", ptr @gv})",
     {"node 'g'", "field 'function'"}},
    {"FunctionAsString",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"function", !"f"})",
     {"node 'g'", "field 'function'"}},
    {"DimsNotATuple",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"dims", i64 4})",
     {"node 'g'", "field 'dims'"}},
    {"ExtentWrongWidth",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"dims", !{i32 4}})",
     {"node 'g'", "field 'dims[0]'", "i64"}},
    {"ExtentBadParamRef",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"dims", !{i64 2, !2}}
!2 = !{!"param", i64 0})",
     {"field 'dims[1]'"}},
    {"ParamUnknownKind",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"params", !{!2}}
!2 = !{!"scalar", !"n", !"i64"})",
     {"field 'params[0]'", "scalar"}},
    {"ParamUnknownType",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"params", !{!2, !3}}
!2 = !{!"value", !"n", !"i64"}
!3 = !{!"value", !"m", !"i7"})",
     {"node 'g'", "field 'params[1]'", "unknown type 'i7'"}},
    {"ParamUnknownAccess",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"params", !{!2}}
!2 = !{!"buffer", !"a", !"readonly", i64 16})",
     {"field 'params[0]'", "unknown access mode 'readonly'"}},
    {"BufferFlag",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"params", !{!2}}
!2 = !{!"buffer", !"a", !"out", i64 16, !"whole"})",
     {"field 'params[0]'", "writes-all"}},
    {"RowsWritten",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"params", !{!2}}
!2 = !{!"buffer", !"a", !"out", i64 16, !{!"writes-rows", i64 0, i64 4, i64 8, i64 1}})",
     {"field 'params[0]'", "!{extent, i64 scale, i64 add}"}},
    {"SectionTerm",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"params", !{!2}}
!2 = !{!"buffer", !"a", !"out", i64 16, !{!"at", !{i64 4, i32 1}}})",
     {"field 'params[0]'", "!{extent, i32 level, i32 dim}"}},
    {"BufferArity",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"params", !{!2}}
!2 = !{!"buffer", !"a", !"in"})",
     {"field 'params[0]'"}},
    {"OutputUnknownType",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"outputs", !{!2}}
!2 = !{!"r", !"f128"})",
     {"field 'outputs[0]'", "unknown type 'f128'"}},
    {"UnknownTargets",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"leaf", !"targets", !"cpu,fpga"})",
     {"field 'targets'", "cpu,fpga"}},
    {"ChildBroken",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"children", !{!2, !3}}
!2 = !{!"hpvm.node", !"name", !"a", !"kind", !"leaf"}
!3 = !{!"hpvm.node", !"name", !"b", !"kind", !"internal", !"children", !{!4}}
!4 = !{!"hpvm.node", !"name", !"c", !"kind", !"leaf", !"params", !{!"x"}})",
     {"node 'g/b/c'", "field 'params[0]'"}},
    {"ChildWithoutName",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"children", !{!2}}
!2 = !{!"hpvm.node", !"kind", !"leaf"})",
     {"node 'g/#0'", "field 'name'"}},
    {"CyclicChildren",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = distinct !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"children", !{!1}})",
     {"node 'g/#0'", "field 'children'"}},
    {"EdgeUnknownKind",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"edges", !{!2}}
!2 = !{!"flow", i32 0, i32 1})",
     {"field 'edges[0]'", "unknown edge kind 'flow'"}},
    {"EdgeArity",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"edges", !{!2}}
!2 = !{!"stream", i32 0, i32 0, i32 1, i32 0})",
     {"field 'edges[0]'", "5 i32 operands"}},
    {"EdgeOperandType",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"edges", !{!2}}
!2 = !{!"dep", i64 0, i32 1})",
     {"field 'edges[0]'"}},
    {"BindingSource",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"bindings", !{!2}}
!2 = !{i32 0, i32 0, !"global", i32 1})",
     {"field 'bindings[0]'", "global"}},
    {"BindingFloatConstant",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"bindings", !{!2}}
!2 = !{i32 0, i32 0, !"const", float 1.0})",
     {"field 'bindings[0]'", "i64 or double"}},
    {"BindingParamType",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"bindings", !{!2}}
!2 = !{i32 0, i32 0, !"param", !"x"})",
     {"field 'bindings[0]'"}},
    {"OutputBindingArity",
     R"(!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"output-bindings", !{!2}}
!2 = !{i32 0, i32 0})",
     {"field 'output-bindings[0]'"}},
};

class MalformedMetadata : public testing::TestWithParam<MalformedCase> {};
} // namespace

TEST_P(MalformedMetadata, IsAnErrorNamingTheField) {
  const MalformedCase &C = GetParam();
  std::string Text = R"(
@gv = global i32 0
define void @f() {
  ret void
}
!hpvm.graphs = !{!0}
)";
  Text += C.Metadata;
  Text += "\n";
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, Text);
  ASSERT_TRUE(M);
  Expected<std::vector<Graph>> Read = readGraphs(*M);
  ASSERT_FALSE(bool(Read)) << "accepted:\n" << Text;
  std::string Msg = toString(Read.takeError());
  for (const char *Fragment : C.Expected)
    EXPECT_NE(Msg.find(Fragment), std::string::npos)
        << "'" << Fragment << "' not in: " << Msg;
}

INSTANTIATE_TEST_SUITE_P(GraphMetadata, MalformedMetadata,
                         testing::ValuesIn(MalformedCases),
                         [](const testing::TestParamInfo<MalformedCase> &I) {
                           return std::string(I.param.Name);
                         });

TEST(GraphMetadata, DeletedLeafFunctionIsAnError) {
  LLVMContext Ctx;
  Module M("m", Ctx);
  Graph G = makeVAdd();
  defineLeaves(M, G);
  writeGraphs(M, {&G});
  M.getFunction("hpvm.node.vadd")->eraseFromParent();
  Expected<std::vector<Graph>> Read = readGraphs(M);
  ASSERT_FALSE(bool(Read));
  EXPECT_NE(toString(Read.takeError()).find("field 'function'"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// verifyGraphForm
//===----------------------------------------------------------------------===//

namespace {
// The vadd graph of docs/ir.md with a correct leaf and launch; the tests
// below break one thing at a time.
const char *VAddMetadata = R"(
@hpvm.graph.vadd = private constant [5 x i8] c"vadd\00"
declare void @hpvm.launch(ptr, ...)
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"vadd", !1}
!1 = !{!"hpvm.node", !"name", !"vadd", !"kind", !"leaf", !"function", ptr @hpvm.node.vadd,
       !"dims", !{!2}, !"params", !{!3, !4, !5, !6, !7}}
!2 = !{!"param", i32 3}
!3 = !{!"buffer", !"a", !"in", !8}
!4 = !{!"buffer", !"b", !"in", !8}
!5 = !{!"buffer", !"c", !"out", !8}
!6 = !{!"value", !"n", !"i64"}
!7 = !{!"value", !"bytes", !"i64"}
!8 = !{!"param", i32 4}
)";

const char *VAddLeaf = R"(
define internal void @hpvm.node.vadd(ptr %a, ptr %b, ptr %c, i64 %n, i64 %bytes) {
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr float, ptr %a, i64 %i
  %pb = getelementptr float, ptr %b, i64 %i
  %pc = getelementptr float, ptr %c, i64 %i
  %x = load float, ptr %pa
  %y = load float, ptr %pb
  %s = fadd float %x, %y
  store float %s, ptr %pc
  ret void
}
declare i64 @hpvm.instance.id(i32, i32)
)";

const char *VAddHost = R"(
define void @host(ptr %a, ptr %b, ptr %c, i64 %n) {
  %bytes = shl i64 %n, 2
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c, i64 %n, i64 %bytes)
  ret void
}
)";

std::string module(const char *Leaf, const char *Host) {
  return std::string(VAddMetadata) + Leaf + Host;
}
} // namespace

TEST(GraphFormVerifier, AcceptsWellFormedModule) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, VAddHost), Errors);
  EXPECT_EQ(Errors, 0u) << C.dump();
  EXPECT_TRUE(C.Rules.empty()) << C.dump();
}

TEST(GraphFormVerifier, AcceptsBuiltGraphWithLeaves) {
  LLVMContext Ctx;
  Collected C;
  Ctx.setDiagnosticHandlerCallBack(
      [](const DiagnosticInfo *DI, void *Context) { collect(*DI, Context); },
      &C);
  Module M("m", Ctx);
  Graph G = makePipeline();
  defineLeaves(M, G);
  writeGraphs(M, {&G});
  EXPECT_EQ(verifyGraphForm(M), 0u) << C.dump();
}

TEST(GraphFormVerifier, LeafParameterTypeMismatch) {
  unsigned Errors;
  Collected C = verifyText(module(R"(
define internal void @hpvm.node.vadd(ptr %a, ptr %b, ptr %c, i32 %n, i64 %bytes) {
  ret void
}
)",
                                  VAddHost),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("leaf-function", "parameter 3 ('n') is i32")) << C.dump();
  EXPECT_TRUE(C.has("leaf-function", "node 'vadd'")) << C.dump();
}

TEST(GraphFormVerifier, LeafParameterCountAndReturnMismatch) {
  unsigned Errors;
  Collected C = verifyText(module(R"(
define internal i32 @hpvm.node.vadd(ptr %a, ptr %b, ptr %c) {
  ret i32 0
}
)",
                                  VAddHost),
                           Errors);
  EXPECT_EQ(Errors, 2u) << C.dump();
  EXPECT_TRUE(C.has("leaf-function", "returns i32")) << C.dump();
  EXPECT_TRUE(C.has("leaf-function", "has 3 parameters")) << C.dump();
}

TEST(GraphFormVerifier, LeafOnlyDeclared) {
  unsigned Errors;
  Collected C = verifyText(module(R"(
declare void @hpvm.node.vadd(ptr, ptr, ptr, i64, i64)
)",
                                  VAddHost),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("leaf-function", "only declared")) << C.dump();
}

TEST(GraphFormVerifier, LeafWritesToInputBuffer) {
  unsigned Errors;
  Collected C = verifyText(module(R"(
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define internal void @hpvm.node.vadd(ptr %a, ptr %b, ptr %c, i64 %n, i64 %bytes) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr float, ptr %a, i64 %i
  store float 0.0, ptr %pa
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %c, i64 4, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %b, i64 4, i1 false)
  br label %loop
loop:
  %p = phi ptr [ %b, %entry ], [ %next, %loop ]
  %old = atomicrmw add ptr %p, i32 1 seq_cst
  %next = getelementptr i32, ptr %p, i64 1
  %done = icmp eq ptr %next, %c
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
declare i64 @hpvm.instance.id(i32, i32)
)",
                                  VAddHost),
                           Errors);
  EXPECT_EQ(Errors, 3u) << C.dump();
  EXPECT_TRUE(C.has("write-to-input", "buffer 'a'")) << C.dump();
  EXPECT_TRUE(C.has("write-to-input", "store float")) << C.dump();
  EXPECT_TRUE(C.has("write-to-input", "memcpy")) << C.dump();
  EXPECT_TRUE(C.has("write-to-input", "atomicrmw")) << C.dump();
  EXPECT_TRUE(C.has("write-to-input", "function 'hpvm.node.vadd'")) << C.dump();
}

TEST(GraphFormVerifier, LaunchOfUnknownGraph) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, R"(
@hpvm.graph.vmul = private constant [5 x i8] c"vmul\00"
define void @host(ptr %a) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vmul, ptr %a)
  ret void
}
)"),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("launch", "unknown graph 'vmul'")) << C.dump();
  EXPECT_TRUE(C.has("launch", "function 'host'")) << C.dump();
}

TEST(GraphFormVerifier, LaunchWithWrongArgumentCount) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, R"(
define void @host(ptr %a, ptr %b, ptr %c, i64 %n) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c, i64 %n)
  ret void
}
)"),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("launch", "passes 4 arguments")) << C.dump();
  EXPECT_TRUE(C.has("launch", "has 5 parameters")) << C.dump();
}

TEST(GraphFormVerifier, LaunchWithWrongArgumentType) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, R"(
define void @host(ptr %a, ptr %b, ptr %c, i32 %n) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c, i32 %n, i64 0)
  ret void
}
)"),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("launch", "argument 3 ('n') is i32")) << C.dump();
}

TEST(GraphFormVerifier, LaunchWithoutGraphName) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, R"(
define void @host(ptr %name) {
  call void (ptr, ...) @hpvm.launch(ptr %name)
  ret void
}
)"),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("launch", "constant C string")) << C.dump();
}

TEST(GraphFormVerifier, UnlaunchedGraphIsFine) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, ""), Errors);
  EXPECT_EQ(Errors, 0u) << C.dump();
}

TEST(GraphFormVerifier, DuplicateGraphNames) {
  std::string Text = module(VAddLeaf, VAddHost);
  Text.replace(Text.find("!hpvm.graphs = !{!0}"),
               std::string("!hpvm.graphs = !{!0}").size(),
               "!hpvm.graphs = !{!0, !0}");
  unsigned Errors;
  Collected C = verifyText(Text, Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("duplicate-graph", "'vadd'")) << C.dump();
}

TEST(GraphFormVerifier, MalformedMetadataIsReported) {
  std::string Text = module(VAddLeaf, VAddHost);
  Text.replace(Text.find("!\"i64\"}"), 7, "!\"int\"}");
  unsigned Errors;
  Collected C = verifyText(Text, Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("metadata", "field 'params[3]'")) << C.dump();
}

TEST(GraphFormVerifier, LaunchUsedOtherThanCalled) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, R"(
define void @host(ptr %p) {
  store ptr @hpvm.launch, ptr %p
  ret void
}
)"),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("launch", "used other than called")) << C.dump();
  EXPECT_TRUE(C.has("launch", "function 'host'")) << C.dump();
}

//===----------------------------------------------------------------------===//
// Rule instance-id
//===----------------------------------------------------------------------===//

namespace {
/// g (dims 2 x 3) / mid (dims 5) / leaf (no dims, function @leaf), with an
/// i32 value k passed down to the leaf for a non-constant operand.
Graph makeThreeLevels() {
  Graph G("g");
  Node &Root = G.root();
  Root.addValue("k", ScalarType::I32);
  Root.setDims({Extent::constant(2), Extent::constant(3)});
  Node &Mid = Root.addInternal("mid");
  Mid.addValue("k", ScalarType::I32);
  Mid.setDims({Extent::constant(5)});
  Root.bind(Mid, "k", "k");
  Node &Leaf = Mid.addLeaf("leaf", "leaf");
  Leaf.addValue("k", ScalarType::I32);
  Mid.bind(Leaf, "k", "k");
  return G;
}

/// Verifies makeThreeLevels with a @leaf(i32 %k) that runs Body.
Collected verifyThreeLevels(StringRef Body, unsigned &Errors) {
  Graph G = makeThreeLevels();
  std::string Text = "declare i64 @hpvm.instance.id(i32, i32)\n"
                     "define internal void @leaf(i32 %k) {\n" +
                     Body.str() + "  ret void\n}\n";
  return verifyText(Text, Errors, {&G});
}
} // namespace

TEST(GraphFormVerifier, InstanceIdsOfAncestorsAreAccepted) {
  unsigned Errors;
  Collected C = verifyThreeLevels(R"(
  %mid = call i64 @hpvm.instance.id(i32 1, i32 0)
  %g0 = call i64 @hpvm.instance.id(i32 2, i32 0)
  %g1 = call i64 @hpvm.instance.id(i32 2, i32 1)
)",
                                  Errors);
  EXPECT_EQ(Errors, 0u) << C.dump();
}

TEST(GraphFormVerifier, InstanceIdLevelAboveTheRoot) {
  unsigned Errors;
  Collected C = verifyThreeLevels(R"(
  %i = call i64 @hpvm.instance.id(i32 3, i32 0)
)",
                                  Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "level 3 is above the root")) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "depth 2")) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "function 'leaf', node 'g/mid/leaf'"))
      << C.dump();
}

TEST(GraphFormVerifier, InstanceIdDimOutOfRange) {
  unsigned Errors;
  Collected C = verifyThreeLevels(R"(
  %g2 = call i64 @hpvm.instance.id(i32 2, i32 2)
  %own = call i64 @hpvm.instance.id(i32 0, i32 0)
)",
                                  Errors);
  EXPECT_EQ(Errors, 2u) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "node 'g' has 2 dims, there is no dim 2"))
      << C.dump();
  // The leaf itself has one instance: not even dim 0.
  EXPECT_TRUE(
      C.has("instance-id", "node 'g/mid/leaf' has 0 dims, there is no dim 0"))
      << C.dump();
}

TEST(GraphFormVerifier, InstanceIdOperandsMustBeConstant) {
  unsigned Errors;
  Collected C = verifyThreeLevels(R"(
  %i = call i64 @hpvm.instance.id(i32 %k, i32 0)
)",
                                  Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "must be constants")) << C.dump();
}

TEST(GraphFormVerifier, InstanceIdOutsideALeafFunction) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, R"(
define void @host(ptr %a, ptr %b, ptr %c, i64 %n) {
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, ptr %a, ptr %b, ptr %c, i64 %n, i64 %i)
  ret void
}
)"),
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "outside a leaf function")) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "function 'host'")) << C.dump();
}

TEST(GraphFormVerifier, InstanceIdUsedOtherThanCalled) {
  unsigned Errors;
  Collected C = verifyText(module(VAddLeaf, R"(
@keep = global ptr @hpvm.instance.id
define void @host(ptr %p) {
  store ptr @hpvm.instance.id, ptr %p
  ret void
}
)"),
                           Errors);
  // The global's initializer and the store.
  EXPECT_EQ(Errors, 2u) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "used other than called")) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "function 'host'")) << C.dump();
}

TEST(GraphFormVerifier, InstanceIdDeclaredWithTheWrongType) {
  unsigned Errors;
  Collected C = verifyText(std::string(VAddMetadata) + R"(
declare i64 @hpvm.instance.id(i32)
define internal void @hpvm.node.vadd(ptr %a, ptr %b, ptr %c, i64 %n, i64 %bytes) {
  %i = call i64 @hpvm.instance.id(i32 0)
  ret void
}
)" + VAddHost,
                           Errors);
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "declared as i64 (i32)")) << C.dump();
}

/// A function that computes two leaves must suit both: dim 0 exists for
/// the replicated one only.
TEST(GraphFormVerifier, InstanceIdMustSuitEveryLeafOfItsFunction) {
  Graph G("g");
  Node &Many = G.root().addLeaf("many", "leaf");
  Many.setDims({Extent::constant(4)});
  G.root().addLeaf("one", "leaf");
  unsigned Errors;
  Collected C = verifyText(R"(
declare i64 @hpvm.instance.id(i32, i32)
define internal void @leaf() {
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  ret void
}
)",
                           Errors, {&G});
  EXPECT_EQ(Errors, 1u) << C.dump();
  EXPECT_TRUE(C.has("instance-id", "node 'g/one'")) << C.dump();
}
