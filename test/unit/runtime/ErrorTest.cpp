//===- ErrorTest.cpp - Failures are codes and messages, never crashes -----===//

#include "RuntimeTestSupport.h"

#include <new>
#include <system_error>

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

void nopKernel(void *const *, void *const *, const uint64_t *, const uint64_t *,
               uint64_t, uint64_t) {}

std::atomic<int> Ran{0};
// Counts instances, whichever way the launch was split into chunks.
void countKernel(void *const *, void *const *, const uint64_t *,
                 const uint64_t *, uint64_t Begin, uint64_t End) {
  Ran += static_cast<int>(End - Begin);
}

// A graph with one leaf "leaf" taking n (i64) as its extent.
Graph oneLeaf(const char *Name) {
  Graph G(Name);
  Node &R = G.root();
  R.addValue("n", ScalarType::I64);
  Node &L = R.addLeaf("leaf", "leaf");
  L.addValue("n", ScalarType::I64);
  L.setDims({Extent::param(0)});
  R.bind(L, 0, 0);
  return G;
}

TEST(Errors, NullArguments) {
  Graph G = oneLeaf("nulls");
  TestProgram P({&G}, {{"nulls/leaf", HPVM_TARGET_CPU, nopKernel}});
  int64_t N = 1;
  void *Args[] = {&N};
  expectError(hpvm_launch(nullptr, "nulls", Args), HPVM_ERR_INVALID_ARGUMENT,
              "program is NULL");
  expectError(hpvm_launch(&P.Desc, nullptr, Args), HPVM_ERR_INVALID_ARGUMENT,
              "graph is NULL");
  expectError(hpvm_launch(&P.Desc, "nulls", nullptr), HPVM_ERR_INVALID_ARGUMENT,
              "graph 'nulls' takes 1 arguments, but args is NULL");
  void *NullArg[] = {nullptr};
  expectError(hpvm_launch(&P.Desc, "nulls", NullArg), HPVM_ERR_INVALID_ARGUMENT,
              "node 'nulls/leaf': the argument for parameter 'n' is NULL");
}

TEST(Errors, WrongAbiVersion) {
  Graph G = oneLeaf("abi");
  TestProgram P({&G}, {{"abi/leaf", HPVM_TARGET_CPU, nopKernel}});
  P.Desc.abi_version = HPVM_RT_ABI_VERSION + 1;
  int64_t N = 1;
  expectError(P.launch("abi", {&N}), HPVM_ERR_BAD_PROGRAM,
              "bad program: ABI version 2, but this hpvm-rt implements "
              "version 1");
  // The descriptor changed at the same address: it is loaded again.
  P.Desc.abi_version = HPVM_RT_ABI_VERSION;
  EXPECT_EQ(P.launch("abi", {&N}), HPVM_OK) << hpvm_error_message();
}

TEST(Errors, UnknownGraphListsTheGraphs) {
  Graph A = oneLeaf("alpha"), B = oneLeaf("beta");
  TestProgram P({&A, &B}, {{"alpha/leaf", HPVM_TARGET_CPU, nopKernel},
                           {"beta/leaf", HPVM_TARGET_CPU, nopKernel}});
  int64_t N = 1;
  expectError(P.launch("gamma", {&N}), HPVM_ERR_UNKNOWN_GRAPH,
              "unknown graph 'gamma'; the program has: alpha, beta");
}

TEST(Errors, MissingArtifactForEveryAvailableDevice) {
  Graph G = oneLeaf("gpuonly");
  TestProgram P({&G}, {{"gpuonly/leaf", HPVM_TARGET_NVPTX, nopKernel}});
  int64_t N = 4;
  expectError(P.launch("gpuonly", {&N}), HPVM_ERR_NO_DEVICE,
              "no device can run node 'gpuonly/leaf': it has artifacts for "
              "nvptx; available devices: cpu");

  Graph H = oneLeaf("noartifact");
  TestProgram Q({&H}, {});
  expectError(Q.launch("noartifact", {&N}), HPVM_ERR_NO_DEVICE,
              "no device can run node 'noartifact/leaf': the program has no "
              "artifact for it");

  // Once a device for the target appears, the same program runs.
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-late", HPVM_TARGET_NVPTX));
  EXPECT_EQ(P.launch("gpuonly", {&N}), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(Gpu->Launches.load(), 1u);
}

TEST(Errors, MalformedGraphText) {
  TestProgram P("hpvm-graphs 1\ngraph leaf \"g\"\n  bogus 1\nend\n", {});
  expectError(P.launch("g", {}), HPVM_ERR_BAD_PROGRAM,
              "bad program: graph text line 3: unknown statement 'bogus'");
  // Loading failed once; the failure is remembered, not re-parsed.
  expectError(P.launch("g", {}), HPVM_ERR_BAD_PROGRAM, "line 3");

  TestProgram Null("", {});
  Null.Desc.graphs = nullptr;
  expectError(Null.launch("g", {}), HPVM_ERR_BAD_PROGRAM,
              "bad program: the graph text is NULL");
}

TEST(Errors, GraphsMustVerify) {
  Graph G("unbound");
  Node &R = G.root();
  R.addValue("n", ScalarType::I64);
  R.addLeaf("leaf", "leaf").addValue("n", ScalarType::I64);
  TestProgram P({&G}, {{"unbound/leaf", HPVM_TARGET_CPU, nopKernel}});
  int64_t N = 1;
  expectError(P.launch("unbound", {&N}), HPVM_ERR_BAD_PROGRAM,
              "graph 'unbound' is not well formed:\n  graph 'unbound', node "
              "'unbound': [binding] value parameter 'n' of child 'leaf' is "
              "not bound");

  Graph A = oneLeaf("twice"), B = oneLeaf("twice");
  TestProgram Q({&A, &B}, {});
  expectError(Q.launch("twice", {&N}), HPVM_ERR_BAD_PROGRAM,
              "two graphs are named 'twice'");
}

TEST(Errors, ArtifactsMustMatchLeaves) {
  Graph G = oneLeaf("arts");
  G.root().Children[0]->setTargets(TargetCPU | TargetSPIRV);
  struct Case {
    ArtifactSpec Spec;
    const char *Fragment;
  } Cases[] = {
      {{"arts/nope", HPVM_TARGET_CPU, nopKernel},
       "artifact #0 (node 'arts/nope') is for a node that no graph has"},
      {{"arts", HPVM_TARGET_CPU, nopKernel},
       "artifact #0 (node 'arts') is for an internal node"},
      {{"arts/leaf", HPVM_TARGET_CPU | HPVM_TARGET_SPIRV, nopKernel},
       "has target 0x5; it must be exactly one of cpu,nvptx,spirv"},
      {{"arts/leaf", 0x40, nopKernel}, "has target 0x40"},
      {{"arts/leaf", HPVM_TARGET_NVPTX, nopKernel},
       "is for target nvptx, which the node does not allow (it allows "
       "cpu,spirv)"},
      {{"arts/leaf", HPVM_TARGET_CPU, nullptr},
       "is for the CPU but has no cpu_fn"},
  };
  int64_t N = 1;
  for (const Case &C : Cases) {
    TestProgram P({&G}, {C.Spec});
    expectError(P.launch("arts", {&N}), HPVM_ERR_BAD_PROGRAM, C.Fragment);
  }
  TestProgram Dup({&G}, {{"arts/leaf", HPVM_TARGET_CPU, nopKernel},
                         {"arts/leaf", HPVM_TARGET_CPU, nopKernel}});
  expectError(Dup.launch("arts", {&N}), HPVM_ERR_BAD_PROGRAM,
              "artifact #1 (node 'arts/leaf') is a second cpu artifact for "
              "the node (the first is #0)");
}

// hpvm-clang --hpvm-target=cpu,nvptx embeds PTX text with a NUL after it
// (hpvm_rt.h). Such a program runs where no device takes PTX (here: the
// CPU alone); PTX without its NUL, or without code or entry, is a bad
// program rather than a read past the end in some CUDA driver.
TEST(Errors, NVPTXArtifactsAreTextEndingInANul) {
  static const char PTX[] = ".version 7.8\n.target sm_80\n";
  auto WithPTX = [](TestProgram &P, std::vector<hpvm_artifact> &Arts,
                    size_t Size, const char *Entry) {
    Arts = {P.Desc.artifacts[0], hpvm_artifact{}};
    Arts[1].node = "ptx/leaf";
    Arts[1].target = HPVM_TARGET_NVPTX;
    Arts[1].code = PTX;
    Arts[1].code_size = Size;
    Arts[1].entry = Entry;
    P.Desc.artifacts = Arts.data();
    P.Desc.num_artifacts = 2;
  };
  Graph G = oneLeaf("ptx");
  int64_t N = 7;
  Ran = 0;
  TestProgram Good({&G}, {{"ptx/leaf", HPVM_TARGET_CPU, countKernel}});
  std::vector<hpvm_artifact> GoodArts;
  WithPTX(Good, GoodArts, sizeof(PTX) - 1, "hpvm_nvptx_leaf");
  EXPECT_EQ(Good.launch("ptx", {&N}), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(Ran.load(), 7);

  TestProgram NoNul({&G}, {{"ptx/leaf", HPVM_TARGET_CPU, countKernel}});
  std::vector<hpvm_artifact> NoNulArts;
  WithPTX(NoNul, NoNulArts, sizeof(PTX) - 2, "hpvm_nvptx_leaf");
  expectError(NoNul.launch("ptx", {&N}), HPVM_ERR_BAD_PROGRAM,
              "artifact #1 (node 'ptx/leaf') is PTX but has no code, no "
              "entry, or no NUL after its 26 bytes of text");

  TestProgram NoEntry({&G}, {{"ptx/leaf", HPVM_TARGET_CPU, countKernel}});
  std::vector<hpvm_artifact> NoEntryArts;
  WithPTX(NoEntry, NoEntryArts, sizeof(PTX) - 1, nullptr);
  expectError(NoEntry.launch("ptx", {&N}), HPVM_ERR_BAD_PROGRAM,
              "is PTX but has no code, no entry");
}

// A leaf the compiler could not compile for a target has an artifact of it
// without code whose entry says why (hpvm_rt.h): never a candidate, and
// the reason is in the error when nothing else can run the leaf.
TEST(Errors, LeftOutArtifactsSayWhyNoDeviceCanRunALeaf) {
  Graph G = oneLeaf("out");
  int64_t N = 3;
  auto WithLeftOut = [](TestProgram &P, std::vector<hpvm_artifact> &Arts,
                        size_t Size) {
    Arts = {hpvm_artifact{}};
    Arts[0].node = "out/leaf";
    Arts[0].target = HPVM_TARGET_OPENCL;
    Arts[0].code_size = Size;
    Arts[0].entry = "a 64-bit atomic access in the OpenCL environment";
    P.Desc.artifacts = Arts.data();
    P.Desc.num_artifacts = 1;
  };
  TestProgram Only({&G}, {{"out/leaf", HPVM_TARGET_CPU, countKernel}});
  std::vector<hpvm_artifact> OnlyArts;
  WithLeftOut(Only, OnlyArts, 0);
  expectError(Only.launch("out", {&N}), HPVM_ERR_NO_DEVICE,
              "no device can run node 'out/leaf': the program has no "
              "artifact for it; the compiler left its opencl kernel out: a "
              "64-bit atomic access in the OpenCL environment");

  TestProgram Sized({&G}, {{"out/leaf", HPVM_TARGET_CPU, countKernel}});
  std::vector<hpvm_artifact> SizedArts;
  WithLeftOut(Sized, SizedArts, 8);
  expectError(Sized.launch("out", {&N}), HPVM_ERR_BAD_PROGRAM,
              "artifact #0 (node 'out/leaf') has no code but a code_size of "
              "8");
}

TEST(Errors, ACycleOfStreamingEdgesIsReportedNotRun) {
  // a -> b and b -> a: each needs the other's value first.
  Graph G("cycle");
  Node &R = G.root();
  Node &A = R.addLeaf("a", "a");
  A.addOutput("v", ScalarType::I32);
  A.addValue("w", ScalarType::I32);
  Node &B = R.addLeaf("b", "b");
  B.addValue("v", ScalarType::I32);
  B.addOutput("w", ScalarType::I32);
  R.addStreamingEdge(A, 0, B, 0, 4);
  R.addStreamingEdge(B, 0, A, 0, 1);
  Graph Fine = oneLeaf("fine");
  TestProgram P({&G, &Fine}, {{"cycle/a", HPVM_TARGET_CPU, countKernel},
                              {"cycle/b", HPVM_TARGET_CPU, countKernel},
                              {"fine/leaf", HPVM_TARGET_CPU, countKernel}});
  Ran = 0;
  expectError(P.launch("cycle", {}), HPVM_ERR_UNSUPPORTED,
              "graph 'cycle': the streaming edges in node 'cycle' close a "
              "cycle, which would need initial values on its edges");
  hpvm_stream *S = nullptr;
  EXPECT_EQ(hpvm_stream_open(&P.Desc, "cycle", 2, &S), HPVM_ERR_UNSUPPORTED);
  EXPECT_EQ(Ran.load(), 0);
  // The rest of the program is unaffected.
  int64_t N = 3;
  EXPECT_EQ(P.launch("fine", {&N}), HPVM_OK) << hpvm_error_message();
  EXPECT_GT(Ran.load(), 0);
}

TEST(Errors, ValuesFromReplicatedNodesAreUnsupported) {
  Graph G("repval");
  Node &R = G.root();
  Node &A = R.addLeaf("a", "a");
  A.addOutput("v", ScalarType::I32);
  A.setDims({Extent::constant(4)});
  Node &B = R.addLeaf("b", "b");
  B.addValue("v", ScalarType::I32);
  R.addValueEdge(A, 0, B, 0);
  TestProgram P({&G}, {{"repval/a", HPVM_TARGET_CPU, nopKernel},
                       {"repval/b", HPVM_TARGET_CPU, nopKernel}});
  expectError(P.launch("repval", {}), HPVM_ERR_UNSUPPORTED,
              "output 'v' of 'repval/a' feeds a value edge, but the node is "
              "replicated");
}

TEST(Errors, NegativeExtentRunsNoInstances) {
  // first (n = -3) -> second: as a C loop whose bound is below its start,
  // first runs no instance, and second still runs.
  Graph G("negative");
  Node &R = G.root();
  R.addValue("n", ScalarType::I32);
  Node &First = R.addLeaf("first", "first");
  First.addValue("n", ScalarType::I32);
  First.setDims({Extent::param(0)});
  Node &Second = R.addLeaf("second", "second");
  R.bind(First, 0, 0);
  R.addDependency(First, Second);
  TestProgram P({&G}, {{"negative/first", HPVM_TARGET_CPU, countKernel},
                       {"negative/second", HPVM_TARGET_CPU, countKernel}});
  Ran = 0;
  int32_t N = -3;
  EXPECT_EQ(P.launch("negative", {&N}), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(Ran.load(), 1); // second only
  N = 2;
  EXPECT_EQ(P.launch("negative", {&N}), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(Ran.load(), 4); // two instances of first, one of second
}

TEST(Errors, MessagesArePerThreadAndClearedBySuccess) {
  Graph G = oneLeaf("perthread");
  TestProgram P({&G}, {{"perthread/leaf", HPVM_TARGET_CPU, nopKernel}});
  int64_t N = 1;
  EXPECT_NE(P.launch("missing", {&N}), HPVM_OK);
  EXPECT_STRNE(hpvm_error_message(), "");
  std::string Other = "unset";
  std::thread([&] { Other = hpvm_error_message(); }).join();
  EXPECT_EQ(Other, "");
  EXPECT_EQ(P.launch("perthread", {&N}), HPVM_OK);
  EXPECT_STREQ(hpvm_error_message(), "");
}

// What the system refuses (memory, threads) surfaces as HPVM_ERR_DEVICE
// with a message saying what ran out, once prefixed when printed.
void outOfMemoryKernel(void *const *, void *const *, const uint64_t *,
                       const uint64_t *, uint64_t, uint64_t) {
  throw std::bad_alloc();
}
void noThreadKernel(void *const *, void *const *, const uint64_t *,
                    const uint64_t *, uint64_t, uint64_t) {
  throw std::system_error(
      std::make_error_code(std::errc::resource_unavailable_try_again));
}

TEST(Errors, SystemFailuresSayWhatRanOut) {
  Graph G = oneLeaf("oom");
  Graph T = oneLeaf("nothreads");
  TestProgram P({&G, &T},
                {{"oom/leaf", HPVM_TARGET_CPU, outOfMemoryKernel},
                 {"nothreads/leaf", HPVM_TARGET_CPU, noThreadKernel}});
  int64_t N = 1;
  EXPECT_EQ(P.launch("oom", {&N}), HPVM_ERR_DEVICE);
  EXPECT_EQ(std::string(hpvm_error_message()).rfind("out of memory", 0), 0u)
      << hpvm_error_message();
  EXPECT_EQ(P.launch("nothreads", {&N}), HPVM_ERR_DEVICE);
  std::string M = hpvm_error_message();
  EXPECT_NE(M.find("the system refused a resource"), std::string::npos) << M;
  EXPECT_NE(M.find("threads or memory"), std::string::npos) << M;
  EXPECT_EQ(M.find("hpvm-rt:"), std::string::npos) << M;
}

TEST(ErrorsDeathTest, SystemFailureIsPrefixedOnce) {
  Graph G = oneLeaf("oomexit");
  TestProgram P({&G}, {{"oomexit/leaf", HPVM_TARGET_CPU, outOfMemoryKernel}});
  int64_t N = 1;
  void *Args[] = {&N};
  EXPECT_EXIT(hpvm_launch_or_exit(&P.Desc, "oomexit", Args),
              testing::ExitedWithCode(1), "^hpvm-rt: error: out of memory");
}

TEST(ErrorsDeathTest, LaunchOrExitPrintsAndExits) {
  Graph G = oneLeaf("orexit");
  TestProgram P({&G}, {{"orexit/leaf", HPVM_TARGET_CPU, nopKernel}});
  int64_t N = 1;
  void *Args[] = {&N};
  EXPECT_EXIT(hpvm_launch_or_exit(&P.Desc, "nothere", Args),
              testing::ExitedWithCode(1),
              "hpvm-rt: error: unknown graph 'nothere'; the program has: "
              "orexit");
  hpvm_launch_or_exit(&P.Desc, "orexit", Args); // returns on success
}

} // namespace
