//===- SerialLaunchTest.cpp - Small launches run on the calling thread ----===//
//
// A CPU launch whose work, learned from the leaf's earlier launches, is
// below HPVM_SERIAL_BELOW_NS runs on the calling thread alone: waking the
// pool and moving the data between cores would cost more than sharing the
// work saves. These tests check the setting, the learned estimate, and
// which launches are shared out and which are not.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Devices.h"
#include "hpvm/rt/RuntimeConfig.h"

#include <cstdlib>

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

TEST(SerialLaunch, SettingIsANumberOfNanoseconds) {
  const char *Name = "HPVM_SERIAL_BELOW_NS";
  unsetenv(Name);
  EXPECT_EQ(rt::CpuOptions::fromEnvironment().SerialBelowNanos, 5000u);
  for (auto [Value, Expected] :
       {std::pair<const char *, uint64_t>{"0", 0}, {"12345", 12345}}) {
    setenv(Name, Value, 1);
    rt::CpuOptions O = rt::CpuOptions::fromEnvironment();
    EXPECT_EQ(O.Error, "") << Value;
    EXPECT_EQ(O.SerialBelowNanos, Expected) << Value;
  }
  for (const char *Bad : {"-1", "many", "5us", "99999999999999999999"}) {
    setenv(Name, Bad, 1);
    EXPECT_EQ(rt::CpuOptions::fromEnvironment().Error,
              std::string("HPVM_SERIAL_BELOW_NS='") + Bad +
                  "' is not a number of nanoseconds from 0 to 1099511627776")
        << Bad;
  }
  unsetenv(Name);

  rt::CpuOptions O;
  O.SerialBelowNanos = 100;
  EXPECT_FALSE(O.runSerially(0)); // not known yet: shared out
  EXPECT_TRUE(O.runSerially(99));
  EXPECT_FALSE(O.runSerially(100));
  O.SerialBelowNanos = 0;
  EXPECT_FALSE(O.runSerially(1));
}

TEST(SerialLaunch, CostPerInstanceIsLearnedAndOutliersAreDamped) {
  rt::NodeStats E("leaf", "cpu");
  EXPECT_EQ(E.serialNanos(1000), 0u);
  // Devices that are not host threads teach nothing.
  E.learnSerialCost(1000, 5000, 0);
  EXPECT_EQ(E.serialNanos(1000), 0u);
  // One thread: 2 ns an instance.
  E.learnSerialCost(1000, 2000, 1);
  EXPECT_EQ(E.serialNanos(1000), 2000u);
  EXPECT_EQ(E.serialNanos(4000), 8000u);
  // A launch the system preempted counts as at most four times the
  // estimate, a quarter of the way: 2 + (8 - 2) / 4.
  E.learnSerialCost(1000, 10000000, 1);
  EXPECT_EQ(E.serialNanos(1000), 3500u);
  // Cheaper launches are believed at once: shared among 4 threads whose
  // pieces took 1000 ns in all, 1 ns an instance.
  E.learnSerialCost(1000, 250, 4, 1000);
  EXPECT_EQ(E.serialNanos(1000), 1000u);
  // Untimed pieces: at most the time times the threads.
  E.learnSerialCost(1000, 100, 4);
  EXPECT_EQ(E.serialNanos(1000), 400u);
  // Tiny estimates still count as known.
  rt::NodeStats Tiny("tiny", "cpu");
  Tiny.learnSerialCost(1000000, 1, 1);
  EXPECT_EQ(Tiny.serialNanos(1), 1u);
  EXPECT_EQ(Tiny.serialNanos(UINT64_MAX), 18446744073709u);
}

/// Every chunk call of the kernels below, and the threads that made them.
struct Calls {
  std::mutex M;
  unsigned Chunks = 0;
  std::set<std::thread::id> Threads;
  void add() {
    std::lock_guard<std::mutex> L(M);
    ++Chunks;
    Threads.insert(std::this_thread::get_id());
  }
  void clear() {
    std::lock_guard<std::mutex> L(M);
    Chunks = 0;
    Threads.clear();
  }
} Seen;

void cheapKernel(void *const *Args, void *const *, const uint64_t *,
                 const uint64_t *, uint64_t Begin, uint64_t End) {
  Seen.add();
  float *X = buffer<float>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] += 1.0f;
}

/// About 20 us an instance.
void costlyKernel(void *const *Args, void *const *, const uint64_t *,
                  const uint64_t *, uint64_t Begin, uint64_t End) {
  Seen.add();
  float *X = buffer<float>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I) {
    auto Until =
        std::chrono::steady_clock::now() + std::chrono::microseconds(20);
    while (std::chrono::steady_clock::now() < Until)
      ;
    X[I] += 1.0f;
  }
}

/// Launches Graph over X Times times; for each launch, its chunk calls and
/// whether they all ran on this thread.
std::vector<std::pair<unsigned, bool>> chunksPerLaunch(TestProgram &P,
                                                       const char *Graph,
                                                       std::vector<float> &X,
                                                       int Times) {
  std::vector<std::pair<unsigned, bool>> Result;
  float *PX = X.data();
  int64_t N = static_cast<int64_t>(X.size()), Bytes = N * 4;
  for (int I = 0; I != Times; ++I) {
    Seen.clear();
    EXPECT_EQ(P.launch(Graph, {&PX, &Bytes, &N}), HPVM_OK)
        << hpvm_error_message();
    std::lock_guard<std::mutex> L(Seen.M);
    Result.push_back(
        {Seen.Chunks, Seen.Threads == std::set{std::this_thread::get_id()}});
  }
  for (float V : X)
    EXPECT_EQ(V, float(Times));
  return Result;
}

/// The launches after the first few, which learn what the leaf costs.
std::vector<std::pair<unsigned, bool>>
learned(std::vector<std::pair<unsigned, bool>> PerLaunch) {
  return {PerLaunch.begin() + 4, PerLaunch.end()};
}

/// A threshold no small launch here can reach, even one whose chunks the
/// system preempted while the test machine is busy (four threads on two
/// cores, a lock in every chunk): the tests check the decision, not how
/// fast this machine is. The default's effect is measured by bench/run.sh's
/// sweeps row.
constexpr uint64_t Generous = 100'000'000; // 100 ms

rt::RuntimeConfig fourThreads(uint64_t SerialBelowNanos) {
  rt::RuntimeConfig C;
  C.Threads = 4;
  C.Devices = "cpu";
  C.Cpu.SerialBelowNanos = SerialBelowNanos;
  return C;
}

/// Launches a one-leaf graph called Name, whose kernel is Kernel, Times
/// times over Size floats, on a runtime of four threads that runs launches
/// below SerialBelowNanos serially; per launch, as chunksPerLaunch.
std::vector<std::pair<unsigned, bool>> leafLaunches(uint64_t SerialBelowNanos,
                                                    const char *Name,
                                                    hpvm_cpu_kernel_fn Kernel,
                                                    size_t Size, int Times) {
  rt::Runtime RT(fourThreads(SerialBelowNanos));
  CurrentRuntime Scope(RT);
  Graph G = inOutLeafGraph(Name, Name);
  TestProgram P({&G}, {{Name, HPVM_TARGET_CPU, Kernel}});
  std::vector<float> X(Size, 0.0f);
  return chunksPerLaunch(P, Name, X, Times);
}

TEST(SerialLaunch, SmallLaunchesRunOnTheCallingThread) {
  // 1000 additions.
  for (auto [Chunks, CallingThread] :
       learned(leafLaunches(Generous, "serial_small", cheapKernel, 1000, 10))) {
    EXPECT_EQ(Chunks, 1u);
    EXPECT_TRUE(CallingThread);
  }
}

TEST(SerialLaunch, LaunchesWithMoreWorkAreSharedOut) {
  // 64 instances of 20 us: 1.3 ms on one thread.
  for (auto [Chunks, CallingThread] :
       learned(leafLaunches(5000, "serial_large", costlyKernel, 64, 8)))
    EXPECT_EQ(Chunks, 16u); // 4 threads x 4 chunks
}

TEST(SerialLaunch, ZeroSharesOutEveryLaunch) {
  // In 4 chunks per thread, or one per thread where the launch is known
  // to be short (the next test): never on one thread.
  for (auto [Chunks, CallingThread] :
       leafLaunches(0, "serial_off", cheapKernel, 1000, 8))
    EXPECT_TRUE(Chunks == 16u || Chunks == 4u) << Chunks;
}

TEST(SerialLaunch, ShortLaunchesGetOneChunkPerThread) {
  // The estimate is set before the one launch: under 20 us per thread
  // gives one chunk per thread, more gives four.
  for (auto [NanosPerInstance, Expected] :
       {std::pair<uint64_t, unsigned>{1, 4}, {1000000, 16}}) {
    rt::Runtime RT(fourThreads(0));
    CurrentRuntime Scope(RT);
    Graph G = inOutLeafGraph("serial_short", "serial_short");
    TestProgram P({&G}, {{"serial_short", HPVM_TARGET_CPU, cheapKernel}});
    RT.stats()
        .entry("serial_short", "cpu")
        .learnSerialCost(1000, 1000 * NanosPerInstance, 1);
    std::vector<float> X(1000, 0.0f);
    std::vector<std::pair<unsigned, bool>> Launches =
        chunksPerLaunch(P, "serial_short", X, 1);
    ASSERT_EQ(Launches.size(), 1u);
    EXPECT_EQ(Launches[0].first, Expected) << NanosPerInstance << " ns";
  }
}

TEST(SerialLaunch, AGridLaunchDecidesTheSameWay) {
  // A replicated parent whose only child is the leaf: one grid launch over
  // parent instances x leaf instances.
  Graph G("serial_grid");
  Node &R = G.root();
  R.addBuffer("x", Access::InOut, Extent::param(1));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  Node &Rows = R.addInternal("rows");
  Rows.addBuffer("x", Access::InOut, Extent::param(1));
  Rows.addValue("bytes", ScalarType::I64);
  Rows.addValue("n", ScalarType::I64);
  Rows.setDims({Extent::constant(10)});
  Node &Leaf = Rows.addLeaf("leaf", "grid_leaf");
  Leaf.addBuffer("x", Access::InOut, Extent::param(1));
  Leaf.addValue("bytes", ScalarType::I64);
  Leaf.addValue("n", ScalarType::I64);
  Leaf.setDims({Extent::constant(10)});
  for (unsigned K = 0; K != 3; ++K) {
    R.bind(Rows, K, K);
    Rows.bind(Leaf, K, K);
  }
  rt::Runtime RT(fourThreads(Generous));
  CurrentRuntime Scope(RT);
  TestProgram P({&G}, {{"serial_grid/rows/leaf", HPVM_TARGET_CPU,
                        [](void *const *Args, void *const *, const uint64_t *,
                           const uint64_t *Ids, uint64_t Begin, uint64_t End) {
                          Seen.add();
                          float *X = buffer<float>(Args, 0);
                          for (uint64_t I = Begin; I != End; ++I)
                            X[Ids[0] * 10 + I] += 1.0f;
                        }}});
  std::vector<float> X(100, 0.0f);
  for (auto [Chunks, CallingThread] :
       learned(chunksPerLaunch(P, "serial_grid", X, 10))) {
    // The ten parent instances' rows, one call each, all on this thread.
    EXPECT_EQ(Chunks, 10u);
    EXPECT_TRUE(CallingThread);
  }
}

/// The stats row of Path on RT: (all launches, those run untimed).
std::pair<uint64_t, uint64_t> launchCounts(rt::Runtime &RT,
                                           const std::string &Path) {
  for (const rt::Stats::Row &R : RT.stats().rows())
    if (R.Path == Path)
      return {R.Launches, R.DirectLaunches};
  return {0, 0};
}

TEST(SerialLaunch, SettledSmallLaunchesRunUntimed) {
  // Once a small leaf's cost has settled, most of its launches skip the
  // clock and the learning (NodeStats::UntimedLeft), every so often one
  // is timed again; all are counted, and larger ones are always timed.
  rt::Runtime RT(fourThreads(Generous));
  CurrentRuntime Scope(RT);
  Graph G = inOutLeafGraph("untimed", "untimed");
  TestProgram P({&G}, {{"untimed", HPVM_TARGET_CPU, cheapKernel}});
  std::vector<float> X(1000, 0.0f);
  chunksPerLaunch(P, "untimed", X, 40);
  auto [Launches, Untimed] = launchCounts(RT, "untimed");
  EXPECT_EQ(Launches, 40u);
  EXPECT_GE(Untimed, 20u);
  EXPECT_LT(Untimed, 40u); // the first ones, at least, are timed
  std::string Text = RT.statsText();
  EXPECT_NE(Text.find("direct: node 'untimed' on cpu: " +
                      std::to_string(Untimed) + " of its launches"),
            std::string::npos)
      << Text;
}

TEST(SerialLaunch, ATraceTimesEveryLaunch) {
  rt::RuntimeConfig C = fourThreads(Generous);
  C.TracePath = tempPath("untimed-trace");
  rt::Runtime RT(C);
  CurrentRuntime Scope(RT);
  Graph G = inOutLeafGraph("traced", "traced");
  TestProgram P({&G}, {{"traced", HPVM_TARGET_CPU, cheapKernel}});
  std::vector<float> X(1000, 0.0f);
  chunksPerLaunch(P, "traced", X, 40);
  EXPECT_EQ(launchCounts(RT, "traced"), (std::pair<uint64_t, uint64_t>{40, 0}));
}

} // namespace
