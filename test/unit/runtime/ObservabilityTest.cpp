//===- ObservabilityTest.cpp - Traces and statistics ----------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Error.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace hpvm;
using namespace hpvm::rttest;
using rt::Runtime;

namespace {

void fillKernel(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  int32_t *Out = buffer<int32_t>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    Out[I] = static_cast<int32_t>(I);
}

// "obs": an internal root with two leaves, so that the trace has both kinds
// of event.
Graph observedGraph(const char *Name) {
  Graph G(Name);
  Node &R = G.root();
  R.addBuffer("out", Access::Out, Extent::constant(4 * 256));
  for (const char *Leaf : {"first", "second \"quoted\""}) {
    Node &L = R.addLeaf(Leaf, "fill");
    L.addBuffer("out", Access::Out, Extent::constant(4 * 256));
    L.setDims({Extent::constant(256)});
    R.bind(L, 0, 0);
  }
  R.addDependency(*R.Children[0], *R.Children[1]);
  return G;
}

/// Checks the structure Chrome and Perfetto expect and returns the "X"
/// events.
std::vector<const Json *> traceEvents(const Json &Trace) {
  std::vector<const Json *> Events;
  EXPECT_EQ(Trace.K, Json::Object);
  const Json *List = Trace.get("traceEvents");
  if (!List || List->K != Json::Array) {
    ADD_FAILURE() << "no traceEvents array";
    return Events;
  }
  for (const Json &E : List->Items) {
    EXPECT_EQ(E.K, Json::Object);
    const Json *Ph = E.get("ph");
    if (!Ph || Ph->K != Json::String) {
      ADD_FAILURE() << "event without ph";
      continue;
    }
    for (const char *Key : {"name", "pid", "tid"})
      EXPECT_NE(E.get(Key), nullptr) << "event without " << Key;
    if (Ph->Str != "X")
      continue;
    for (const char *Key : {"cat", "ts", "dur", "args"})
      EXPECT_NE(E.get(Key), nullptr) << "X event without " << Key;
    EXPECT_EQ(E.get("ts")->K, Json::Number);
    EXPECT_GE(E.get("dur")->Num, 0);
    const Json *Args = E.get("args");
    const std::string &Cat = E.get("cat")->Str;
    // Node executions count instances; copies and compilations name the
    // node they were for.
    bool NodeEvent = Cat != "copy" && Cat != "compile";
    EXPECT_NE(Args->get(NodeEvent ? "instances" : "node"), nullptr);
    EXPECT_NE(Args->get("device"), nullptr);
    Events.push_back(&E);
  }
  return Events;
}

TEST(Trace, FlushWritesWellFormedChromeTraceJson) {
  std::string Path = tempPath("hpvm-rt-trace");
  Runtime::get().trace().enable(Path);
  Runtime::get().trace().clear();
  Graph G = observedGraph("traced");
  TestProgram P({&G},
                {{"traced/first", HPVM_TARGET_CPU, fillKernel},
                 {"traced/second \"quoted\"", HPVM_TARGET_CPU, fillKernel}});
  std::vector<int32_t> Out(256);
  int32_t *PO = Out.data();
  for (int I = 0; I != 3; ++I)
    ASSERT_EQ(P.launch("traced", {&PO}), HPVM_OK) << hpvm_error_message();
  ASSERT_EQ(hpvm_flush_trace(), HPVM_OK) << hpvm_error_message();
  Runtime::get().trace().disable();
  Runtime::get().trace().clear();
  EXPECT_EQ(hpvm_flush_trace(), HPVM_OK); // off: writes nothing

  std::string Text = readFile(Path);
  std::remove(Path.c_str());
  Json Trace;
  std::string Error;
  ASSERT_TRUE(parseJson(Text, Trace, Error)) << Error << "\n" << Text;
  std::map<std::string, int> Seen;
  for (const Json *E : traceEvents(Trace)) {
    const std::string &Name = E->get("name")->Str;
    if (Name.rfind("traced", 0) != 0)
      continue;
    ++Seen[Name];
    const std::string &Cat = E->get("cat")->Str;
    EXPECT_EQ(E->get("args")->get("device")->Str, Cat);
    double Instances = E->get("args")->get("instances")->Num;
    if (Name == "traced") {
      EXPECT_EQ(Cat, "host");
      EXPECT_EQ(Instances, 1);
    } else {
      EXPECT_EQ(Cat, "cpu");
      EXPECT_EQ(Instances, 256);
    }
  }
  EXPECT_EQ(Seen,
            (std::map<std::string, int>{{"traced", 3},
                                        {"traced/first", 3},
                                        {"traced/second \"quoted\"", 3}}));
}

TEST(Trace, UnwritablePathIsAnErrorNotACrash) {
  rt::Trace T;
  T.enable("/nonexistent-dir/for/sure/trace.json");
  EXPECT_THROW(T.flush(), rt::RtError);
  rt::Trace Off;
  EXPECT_NO_THROW(Off.flush()); // tracing off: nothing to write
}

void plusOneKernel(void *const *Args, void *const *, const uint64_t *,
                   const uint64_t *, uint64_t Begin, uint64_t End) {
  const int32_t *X = buffer<int32_t>(Args, 0);
  int32_t *Y = buffer<int32_t>(Args, 1);
  for (uint64_t I = Begin; I != End; ++I)
    Y[I] = X[I] + 1;
}

TEST(Trace, CopiesAndCompilationsAreEventsAndCountedApartFromRunTime) {
  constexpr int N = 256;
  constexpr int64_t Bytes = N * 4;
  auto Dev = std::make_unique<FakeDevice>("fake-obs", HPVM_TARGET_NVPTX);
  Dev->CompileDelay = std::chrono::milliseconds(60);
  ScopedDevice Gpu(std::move(Dev));
  // up (device): y = x + 1, writing y whole; down (cpu): z = y + 1.
  Graph G("moved");
  Node &R = G.root();
  for (const char *Name : {"x", "y", "z"})
    R.addBuffer(Name, Access::InOut, Extent::constant(Bytes));
  auto Leaf = [&](const char *Name, unsigned From, unsigned To,
                  TargetMask Targets) -> Node & {
    Node &L = R.addLeaf(Name, Name);
    L.addBuffer("from", Access::In, Extent::constant(Bytes));
    L.addBuffer("to", Access::Out, Extent::constant(Bytes));
    L.Params[1].WritesAll = true;
    L.setDims({Extent::constant(N)});
    L.setTargets(Targets);
    R.bind(L, 0, From);
    R.bind(L, 1, To);
    return L;
  };
  Node &Up = Leaf("up", 0, 1, TargetNVPTX);
  Node &Down = Leaf("down", 1, 2, TargetCPU);
  R.addDependency(Up, Down);
  TestProgram P({&G}, {{"moved/up", HPVM_TARGET_NVPTX, plusOneKernel},
                       {"moved/down", HPVM_TARGET_CPU, plusOneKernel}});

  std::string Path = tempPath("hpvm-rt-copies");
  Runtime::get().trace().enable(Path);
  Runtime::get().trace().clear();
  Runtime::get().stats().reset();
  std::vector<int32_t> X(N, 3), Y(N), Z(N);
  int32_t *PX = X.data(), *PY = Y.data(), *PZ = Z.data();
  for (int I = 0; I != 2; ++I)
    ASSERT_EQ(P.launch("moved", {&PX, &PY, &PZ}), HPVM_OK)
        << hpvm_error_message();
  EXPECT_EQ(Z[N - 1], 5);
  ASSERT_EQ(hpvm_flush_trace(), HPVM_OK) << hpvm_error_message();
  Runtime::get().trace().disable();
  Runtime::get().trace().clear();
  std::string Text = readFile(Path);
  std::remove(Path.c_str());
  Json Trace;
  std::string Error;
  ASSERT_TRUE(parseJson(Text, Trace, Error)) << Error << "\n" << Text;

  // Each launch: x up for 'up' (y is written whole: not copied up), y down
  // for 'down'; the artifact is compiled once, before the first launch.
  std::map<std::string, int> Copies;
  int Compiles = 0;
  for (const Json *E : traceEvents(Trace)) {
    const Json &Args = *E->get("args");
    const std::string &Cat = E->get("cat")->Str;
    if (Cat == "compile") {
      ++Compiles;
      EXPECT_EQ(Args.get("node")->Str, "moved/up");
      EXPECT_EQ(Args.get("device")->Str, "fake-obs");
      EXPECT_GE(E->get("dur")->Num, 60e3 * 0.9);
    } else if (Cat == "copy") {
      EXPECT_EQ(Args.get("device")->Str, "fake-obs");
      EXPECT_EQ(Args.get("bytes")->Num, Bytes);
      ++Copies[E->get("name")->Str + " " + Args.get("buffer")->Str + " for " +
               Args.get("node")->Str];
    }
  }
  EXPECT_EQ(Compiles, 1);
  EXPECT_EQ(Copies, (std::map<std::string, int>{
                        {"upload moved:x for moved/up", 2},
                        {"download moved:y for moved/down", 2}}));

  // The same in the statistics, and the compile time is not run time, so
  // heft's history of the device is not charged for it.
  bool SawUp = false, SawDown = false;
  for (const rt::Stats::Row &Row : Runtime::get().stats().rows()) {
    if (Row.Path == "moved/up") {
      SawUp = true;
      EXPECT_EQ(Row.BytesIn, uint64_t(2 * Bytes));
      EXPECT_GE(Row.CompileNanos, 54'000'000u);
      EXPECT_LT(Row.Nanos, 50'000'000u);
    } else if (Row.Path == "moved/down") {
      SawDown = true;
      EXPECT_EQ(Row.BytesIn, uint64_t(2 * Bytes));
      EXPECT_EQ(Row.CompileNanos, 0u);
    }
  }
  EXPECT_TRUE(SawUp && SawDown);
  std::map<std::string, std::pair<uint64_t, uint64_t>> Buffers;
  for (const rt::Stats::BufferRow &B : Runtime::get().stats().bufferRows())
    if (B.Name.rfind("moved:", 0) == 0)
      Buffers[B.Name] = {B.ToDevices, B.ToHost};
  using Moved = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(Buffers,
            (std::map<std::string, Moved>{{"moved:x", Moved(2 * Bytes, 0)},
                                          {"moved:y", Moved(0, 2 * Bytes)}}));
  testing::internal::CaptureStderr();
  hpvm_print_stats();
  std::string Summary = testing::internal::GetCapturedStderr();
  for (const char *Column : {"MB in", "compile ms", "buffer", "MB to devices",
                             "MB to host", "moved:x"})
    EXPECT_NE(Summary.find(Column), std::string::npos) << Column << Summary;
}

TEST(Stats, SummaryListsNodesDevicesAndCoherence) {
  Graph G = observedGraph("counted");
  TestProgram P({&G},
                {{"counted/first", HPVM_TARGET_CPU, fillKernel},
                 {"counted/second \"quoted\"", HPVM_TARGET_CPU, fillKernel}});
  std::vector<int32_t> Out(256);
  int32_t *PO = Out.data();
  Runtime::get().stats().reset();
  for (int I = 0; I != 4; ++I)
    ASSERT_EQ(P.launch("counted", {&PO}), HPVM_OK) << hpvm_error_message();

  bool Found = false;
  for (const rt::Stats::Row &R : Runtime::get().stats().rows()) {
    if (R.Path != "counted/first")
      continue;
    Found = true;
    EXPECT_EQ(R.Device, "cpu");
    EXPECT_EQ(R.Launches, 4u);
    EXPECT_EQ(R.Instances, 4u * 256);
  }
  EXPECT_TRUE(Found);

  testing::internal::CaptureStderr();
  hpvm_print_stats();
  std::string Text = testing::internal::GetCapturedStderr();
  EXPECT_NE(Text.find("hpvm-rt stats: scheduler auto; devices: cpu ("),
            std::string::npos)
      << Text;
  for (const char *Column :
       {"node", "device", "launches", "instances", "total ms", "avg us"})
    EXPECT_NE(Text.find(Column), std::string::npos) << Column;
  // The row of counted/first: path, device, 4 launches, 1024 instances.
  std::istringstream Lines(Text);
  std::string Line;
  bool RowFound = false;
  while (std::getline(Lines, Line)) {
    std::istringstream Words(Line);
    std::string Path, Device, Launches, Instances;
    Words >> Path >> Device >> Launches >> Instances;
    if (Path == "counted/first") {
      RowFound = true;
      EXPECT_EQ(Device, "cpu");
      EXPECT_EQ(Launches, "4");
      EXPECT_EQ(Instances, "1024");
    }
  }
  EXPECT_TRUE(RowFound) << Text;
  EXPECT_NE(Text.find("coherence: "), std::string::npos);
  EXPECT_NE(Text.find(" bytes moved, "), std::string::npos);
  EXPECT_NE(Text.find(" copies avoided"), std::string::npos);
}

// The environment is read when the runtime starts, so these run in a fresh
// process (the threadsafe death-test style re-executes the test binary).
TEST(EnvironmentDeathTest, TraceAndStatsAreWrittenAtExit) {
  // The death-test child runs this body again in a new process; it must
  // use the parent's file, so the name travels in the environment.
  const char *Inherited = std::getenv("HPVM_TEST_EXIT_TRACE");
  std::string Path = Inherited ? Inherited : tempPath("hpvm-rt-exit-trace");
  if (!Inherited) {
    setenv("HPVM_TEST_EXIT_TRACE", Path.c_str(), 1);
    std::remove(Path.c_str());
  }
  EXPECT_EXIT(
      {
        setenv("HPVM_TRACE", Path.c_str(), 1);
        setenv("HPVM_STATS", "1", 1);
        Graph G = observedGraph("atexit");
        TestProgram P(
            {&G}, {{"atexit/first", HPVM_TARGET_CPU, fillKernel},
                   {"atexit/second \"quoted\"", HPVM_TARGET_CPU, fillKernel}});
        std::vector<int32_t> Out(256);
        int32_t *PO = Out.data();
        if (P.launch("atexit", {&PO}) != HPVM_OK)
          std::_Exit(3);
        std::exit(0);
      },
      testing::ExitedWithCode(0), "hpvm-rt stats: .*atexit/first +cpu +1 +256");
  unsetenv("HPVM_TEST_EXIT_TRACE");
  std::string Text = readFile(Path);
  std::remove(Path.c_str());
  Json Trace;
  std::string Error;
  ASSERT_TRUE(parseJson(Text, Trace, Error)) << Error << "\n" << Text;
  EXPECT_EQ(traceEvents(Trace).size(), 3u);
}

TEST(EnvironmentDeathTest, BadSettingsFailLaunchesWithAMessage) {
  EXPECT_EXIT(
      {
        setenv("HPVM_SCHEDULER", "fastest", 1);
        Graph G = observedGraph("badenv");
        TestProgram P({&G}, {});
        int Code = P.launch("badenv", {});
        std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
        std::exit(0);
      },
      testing::ExitedWithCode(0),
      "code 8: HPVM_SCHEDULER='fastest' is not a scheduling policy \\(known: "
      "hint, round-robin, heft, dmda, auto\\)");
  EXPECT_EXIT(
      {
        setenv("HPVM_NUM_THREADS", "many", 1);
        Graph G = observedGraph("badenv");
        TestProgram P({&G}, {});
        int Code = P.launch("badenv", {});
        std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
        std::exit(0);
      },
      testing::ExitedWithCode(0), "code 8: HPVM_NUM_THREADS='many'");
}

TEST(EnvironmentDeathTest, StrictDevicesNameWhatIsMissing) {
  // Vulkan is made absent whatever the machine has.
  EXPECT_EXIT(
      {
        setenv("HPVM_VULKAN_LOADER", "libhpvm-no-vulkan-loader.so.1", 1);
        setenv("HPVM_DEVICES", "cpu,vulkan", 1);
        setenv("HPVM_DEVICES_STRICT", "1", 1);
        Graph G = observedGraph("strict");
        TestProgram P({&G}, {});
        int Code = P.launch("strict", {});
        std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
        std::exit(0);
      },
      testing::ExitedWithCode(0), "code 4: HPVM_DEVICES_STRICT: .*'vulkan'");
  EXPECT_EXIT(
      {
        // Not strict: the missing kind is a note, the CPU still runs.
        setenv("HPVM_VULKAN_LOADER", "libhpvm-no-vulkan-loader.so.1", 1);
        setenv("HPVM_DEVICES", "vulkan,cpu", 1);
        Graph G = observedGraph("lenient");
        TestProgram P(
            {&G}, {{"lenient/first", HPVM_TARGET_CPU, fillKernel},
                   {"lenient/second \"quoted\"", HPVM_TARGET_CPU, fillKernel}});
        std::vector<int32_t> Out(256);
        int32_t *PO = Out.data();
        std::fprintf(stderr, "code %d\n", P.launch("lenient", {&PO}));
        hpvm_print_stats();
        std::exit(0);
      },
      testing::ExitedWithCode(0), "code 0.*note: HPVM_DEVICES: 'vulkan'");
  EXPECT_EXIT(
      {
        // Only a kind this build lacks: no devices at all, and each launch
        // says which node cannot run and what is available.
        setenv("HPVM_DEVICES", "cuda", 1);
        Graph G = observedGraph("nodev");
        TestProgram P(
            {&G}, {{"nodev/first", HPVM_TARGET_CPU, fillKernel},
                   {"nodev/second \"quoted\"", HPVM_TARGET_CPU, fillKernel}});
        std::vector<int32_t> Out(256);
        int32_t *PO = Out.data();
        int Code = P.launch("nodev", {&PO});
        std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
        std::exit(0);
      },
      testing::ExitedWithCode(0),
      "code 4: no device can run node 'nodev/first': it has artifacts for "
      "cpu; available devices: none");
}

} // namespace
