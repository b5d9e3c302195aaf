//===- AsyncLaunchTest.cpp - hpvm_launch_async, hpvm_wait, hpvm_test ------===//
//
// Asynchronous launches are ordered by the root buffers they name and
// otherwise run at the same time: launches on one buffer give the
// sequential result whatever their kernels' speeds, launches on different
// buffers overlap, synchronous launches and data-region calls wait for the
// asynchronous writers before them, a failure stops what follows it on a
// buffer, and bad handles are errors. With a fake device of its own memory
// space beside the CPU, under every policy, chains of launches keep their
// order across devices.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include <random>

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

/// x[i] = 3 x[i] + k: the order of launches shows in the result.
void affineKernel(void *const *Args, void *const *, const uint64_t *,
                  const uint64_t *, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  float K = static_cast<float>(value<int64_t>(Args, 3));
  // Some launches take longer, so that a broken order would show.
  if (static_cast<int64_t>(K) % 3 == 0)
    std::this_thread::sleep_for(std::chrono::microseconds(300));
  for (uint64_t I = Begin; I != End; ++I)
    X[I] = 3.0f * X[I] + K;
}

Graph affineGraph(const char *Name, const char *Function) {
  Graph G = inOutLeafGraph(Name, Function);
  G.root().addValue("k", ScalarType::I64);
  return G;
}

/// Launches graph Name over X Times times asynchronously with k = 0, 1, ...
/// from one argument array whose values change after each call (the
/// launches must have copied them); returns the handles.
std::vector<hpvm_handle> affineChain(TestProgram &P, const char *Name,
                                     std::vector<float> &X, int Times) {
  std::vector<hpvm_handle> Handles;
  float *PX = X.data();
  int64_t N = static_cast<int64_t>(X.size()), Bytes = N * 4, K = 0;
  std::vector<void *> Args{&PX, &Bytes, &N, &K};
  for (K = 0; K != Times; ++K) {
    hpvm_handle H = 0;
    EXPECT_EQ(hpvm_launch_async(&P.Desc, Name, Args.data(), &H), HPVM_OK)
        << hpvm_error_message();
    Handles.push_back(H);
  }
  K = -1000; // a launch still reading Args would see this
  return Handles;
}

/// What affineChain computes, sequentially.
float affineReference(float X, int Times) {
  for (int K = 0; K != Times; ++K)
    X = 3.0f * X + static_cast<float>(K);
  return X;
}

TEST(AsyncLaunch, LaunchesOnOneBufferRunInProgramOrder) {
  Graph G = affineGraph("async_chain", "async_chain");
  TestProgram P({&G}, {{"async_chain", HPVM_TARGET_CPU, affineKernel}});
  std::vector<float> X(1000, 0.5f);
  std::vector<hpvm_handle> Handles = affineChain(P, "async_chain", X, 12);
  std::set<hpvm_handle> Distinct(Handles.begin(), Handles.end());
  EXPECT_EQ(Distinct.size(), Handles.size());
  // Waited for out of order: each wait is for its own launch.
  for (auto It = Handles.rbegin(); It != Handles.rend(); ++It)
    EXPECT_EQ(hpvm_wait(*It), HPVM_OK) << hpvm_error_message();
  for (float V : X)
    ASSERT_EQ(V, affineReference(0.5f, 12));
}

/// Two kernels that each finish only once the other has started: both
/// finish in time only if their launches run at the same time.
std::atomic<int> Arrived{0};
void meetKernel(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *, uint64_t, uint64_t) {
  float *X = buffer<float>(Args, 0);
  Arrived.fetch_add(1);
  auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Arrived.load() < 2 && std::chrono::steady_clock::now() < Until)
    std::this_thread::yield();
  X[0] = Arrived.load() >= 2 ? 1.0f : -1.0f;
}

TEST(AsyncLaunch, LaunchesOnDifferentBuffersOverlap) {
  Arrived = 0;
  Graph G = inOutLeafGraph("async_meet", "async_meet");
  TestProgram P({&G}, {{"async_meet", HPVM_TARGET_CPU, meetKernel}});
  float A = 0, B = 0, *PA = &A, *PB = &B;
  int64_t N = 1, Bytes = 4;
  hpvm_handle HA, HB;
  std::vector<void *> ArgsA{&PA, &Bytes, &N}, ArgsB{&PB, &Bytes, &N};
  ASSERT_EQ(hpvm_launch_async(&P.Desc, "async_meet", ArgsA.data(), &HA),
            HPVM_OK);
  ASSERT_EQ(hpvm_launch_async(&P.Desc, "async_meet", ArgsB.data(), &HB),
            HPVM_OK);
  EXPECT_EQ(hpvm_wait(HA), HPVM_OK);
  EXPECT_EQ(hpvm_wait(HB), HPVM_OK);
  EXPECT_EQ(A, 1.0f);
  EXPECT_EQ(B, 1.0f);
}

/// x[i] = 1, noting the thread that ran it and that it has.
std::atomic<std::thread::id> RanOn;
std::atomic<bool> Ran;
void noteThreadKernel(void *const *Args, void *const *, const uint64_t *,
                      const uint64_t *, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] = 1.0f;
  RanOn = std::this_thread::get_id();
  Ran = true;
}

/// The same, taking 20 ms.
void slowNoteThreadKernel(void *const *Args, void *const *Outs,
                          const uint64_t *Ids, const uint64_t *OuterIds,
                          uint64_t Begin, uint64_t End) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  noteThreadKernel(Args, Outs, Ids, OuterIds, Begin, End);
}

TEST(AsyncLaunch, TinyReadyLaunchesRunOnTheSubmittingThread) {
  // Handing a launch known to take well under a microsecond or two to a
  // pool thread would cost more than running it; a longer one still runs
  // beside its caller.
  Graph Tiny = inOutLeafGraph("async_tiny", "async_tiny");
  Graph Slow = inOutLeafGraph("async_slow", "async_slow");
  TestProgram P({&Tiny, &Slow},
                {{"async_tiny", HPVM_TARGET_CPU, noteThreadKernel},
                 {"async_slow", HPVM_TARGET_CPU, slowNoteThreadKernel}});
  std::vector<float> X(4, 0.0f);
  float *PX = X.data();
  int64_t N = 4, Bytes = 16;
  std::vector<void *> Args{&PX, &Bytes, &N};
  for (const char *Name : {"async_tiny", "async_slow"}) {
    bool Tiny = std::string(Name) == "async_tiny";
    // The tiny leaf's cost is learnt from timed launches, which a loaded
    // machine (a sanitizer build beside other work) can make look dearer
    // than 2 us: a few tries, one of which must run in place.
    bool RanInPlace = false;
    for (int Try = 0; Try != (Tiny ? 5 : 1) && !RanInPlace; ++Try) {
      // Synchronous launches teach the runtime what the leaf costs (the
      // first is slower than the rest).
      for (int K = 0; K != 5; ++K)
        ASSERT_EQ(hpvm_launch(&P.Desc, Name, Args.data()), HPVM_OK)
            << hpvm_error_message();
      std::fill(X.begin(), X.end(), 0.0f);
      RanOn = std::thread::id();
      Ran = false;
      hpvm_handle H = 0;
      ASSERT_EQ(hpvm_launch_async(&P.Desc, Name, Args.data(), &H), HPVM_OK)
          << hpvm_error_message();
      // Done by the time the call returns, on this thread; or not yet.
      RanInPlace = Ran.load() && RanOn.load() == std::this_thread::get_id();
      EXPECT_EQ(hpvm_wait(H), HPVM_OK) << hpvm_error_message();
      EXPECT_EQ(hpvm_wait(H), HPVM_ERR_INVALID_ARGUMENT) << "a double wait";
      for (float V : X)
        EXPECT_EQ(V, 1.0f) << Name;
    }
    EXPECT_EQ(RanInPlace, Tiny) << Name;
  }
}

/// copy: y = x, slowly.
void slowCopyKernel(void *const *Args, void *const *, const uint64_t *,
                    const uint64_t *, uint64_t Begin, uint64_t End) {
  const float *X = buffer<float>(Args, 0);
  float *Y = buffer<float>(Args, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (uint64_t I = Begin; I != End; ++I)
    Y[I] = X[I];
}

/// fill: x = v, slowly.
void slowFillKernel(void *const *Args, void *const *, const uint64_t *,
                    const uint64_t *, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  float V = static_cast<float>(value<int64_t>(Args, 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (uint64_t I = Begin; I != End; ++I)
    X[I] = V;
}

Graph copyGraph() {
  Graph G("async_copy", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "async_copy";
  R.addBuffer("x", Access::In, Extent::param(2));
  R.addBuffer("y", Access::Out, Extent::param(2));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  R.setDims({Extent::param(3)});
  return G;
}

Graph fillGraph() {
  Graph G("async_fill", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "async_fill";
  R.addBuffer("x", Access::Out, Extent::param(1));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  R.addValue("v", ScalarType::I64);
  R.setDims({Extent::param(2)});
  return G;
}

struct CopyAndFill {
  Graph Copy = copyGraph(), Fill = fillGraph();
  TestProgram P{{&Copy, &Fill},
                {{"async_copy", HPVM_TARGET_CPU, slowCopyKernel},
                 {"async_fill", HPVM_TARGET_CPU, slowFillKernel}}};
  std::vector<float> X = std::vector<float>(256, 0.0f),
                     Y = std::vector<float>(256, 0.0f);
  float *PX = X.data(), *PY = Y.data();
  int64_t N = 256, Bytes = 1024, V = 0;

  hpvm_handle fill(int64_t Value) {
    V = Value;
    hpvm_handle H = 0;
    std::vector<void *> Args{&PX, &Bytes, &N, &V};
    EXPECT_EQ(hpvm_launch_async(&P.Desc, "async_fill", Args.data(), &H),
              HPVM_OK)
        << hpvm_error_message();
    return H;
  }
  /// A fill that can run nowhere (only a device kind that is not there,
  /// strictly): it fails when it runs, not when it is started.
  hpvm_handle failingFill(int64_t Value) {
    rt::LaunchOptions Nowhere;
    Nowhere.Devices = {"no-such-kind"};
    Nowhere.Strict = true;
    rt::setThreadLaunchOptions(&Nowhere);
    hpvm_handle H = fill(Value);
    rt::setThreadLaunchOptions(nullptr);
    return H;
  }
  hpvm_handle copy() {
    hpvm_handle H = 0;
    std::vector<void *> Args{&PX, &PY, &Bytes, &N};
    EXPECT_EQ(hpvm_launch_async(&P.Desc, "async_copy", Args.data(), &H),
              HPVM_OK)
        << hpvm_error_message();
    return H;
  }
};

TEST(AsyncLaunch, ReadersWaitForWritersAndWritersForReaders) {
  CopyAndFill C;
  // fill(7) -> copy reads 7 -> fill(9) must wait for the copy.
  hpvm_handle F1 = C.fill(7), Copy = C.copy(), F2 = C.fill(9);
  EXPECT_EQ(hpvm_wait_all(), HPVM_OK) << hpvm_error_message();
  for (float V : C.Y)
    ASSERT_EQ(V, 7.0f);
  for (float V : C.X)
    ASSERT_EQ(V, 9.0f);
  // hpvm_wait_all forgot them.
  for (hpvm_handle H : {F1, Copy, F2})
    EXPECT_EQ(hpvm_wait(H), HPVM_ERR_INVALID_ARGUMENT);
}

TEST(AsyncLaunch, SynchronousLaunchesAndDataCallsWaitForEarlierWriters) {
  CopyAndFill C;
  hpvm_handle F = C.fill(5);
  // The synchronous copy reads x: it runs after the fill.
  std::vector<void *> Args{&C.PX, &C.PY, &C.Bytes, &C.N};
  ASSERT_EQ(C.P.launch("async_copy", Args), HPVM_OK) << hpvm_error_message();
  for (float V : C.Y)
    ASSERT_EQ(V, 5.0f);
  int Done = 0;
  EXPECT_EQ(hpvm_test(F, &Done), HPVM_OK);
  EXPECT_EQ(Done, 1);
  EXPECT_EQ(hpvm_wait(F), HPVM_OK);

  // hpvm_data_request of x returns once the fill writing it is done.
  F = C.fill(6);
  ASSERT_EQ(hpvm_data_request(C.PX, C.Bytes), HPVM_OK);
  for (float V : C.X)
    ASSERT_EQ(V, 6.0f);
  EXPECT_EQ(hpvm_wait(F), HPVM_OK);
}

TEST(AsyncLaunch, TestSaysWhetherALaunchHasFinished) {
  CopyAndFill C;
  hpvm_handle F = C.fill(1);
  int Done = -1;
  ASSERT_EQ(hpvm_test(F, &Done), HPVM_OK);
  EXPECT_TRUE(Done == 0 || Done == 1);
  auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Done == 0 && std::chrono::steady_clock::now() < Until)
    ASSERT_EQ(hpvm_test(F, &Done), HPVM_OK);
  EXPECT_EQ(Done, 1);
  for (float V : C.X)
    EXPECT_EQ(V, 1.0f); // finished means written
  EXPECT_EQ(hpvm_wait(F), HPVM_OK);
}

TEST(AsyncLaunch, BadHandlesAndArgumentsAreErrors) {
  CopyAndFill C;
  EXPECT_EQ(hpvm_wait(987654321), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hpvm_error_message()).find("unknown handle 987654321"),
            std::string::npos)
      << hpvm_error_message();
  int Done;
  EXPECT_EQ(hpvm_test(987654321, &Done), HPVM_ERR_INVALID_ARGUMENT);
  hpvm_handle F = C.fill(1);
  EXPECT_EQ(hpvm_test(F, nullptr), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_wait(F), HPVM_OK);
  EXPECT_EQ(hpvm_wait(F), HPVM_ERR_INVALID_ARGUMENT); // twice
  EXPECT_STREQ(hpvm_error_message(),
               ("hpvm_wait: unknown handle " + std::to_string(F) +
                " (not returned by hpvm_launch_async of this runtime, or "
                "already waited for)")
                   .c_str());

  std::vector<void *> Args{&C.PX, &C.Bytes, &C.N, &C.V};
  EXPECT_EQ(hpvm_launch_async(&C.P.Desc, "async_fill", Args.data(), nullptr),
            HPVM_ERR_INVALID_ARGUMENT);
  hpvm_handle H = 77;
  EXPECT_EQ(hpvm_launch_async(&C.P.Desc, "no_such_graph", Args.data(), &H),
            HPVM_ERR_UNKNOWN_GRAPH);
  EXPECT_EQ(H, 77u); // no handle made
  EXPECT_EQ(hpvm_launch_async(&C.P.Desc, "async_fill", nullptr, &H),
            HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_launch_async(nullptr, "async_fill", Args.data(), &H),
            HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_wait_all(), HPVM_OK); // nothing left
}

TEST(AsyncLaunch, AFailedLaunchFailsTheLaunchesAfterItOnItsBuffers) {
  CopyAndFill C;
  hpvm_handle Bad = C.failingFill(3);
  hpvm_handle After = C.copy(); // reads x after the failed fill
  std::vector<float> Z(256, 0.0f);
  float *PZ = Z.data();
  hpvm_handle Other; // on other buffers: unaffected
  std::vector<void *> Args{&PZ, &C.Bytes, &C.N, &C.V};
  ASSERT_EQ(hpvm_launch_async(&C.P.Desc, "async_fill", Args.data(), &Other),
            HPVM_OK);
  EXPECT_EQ(hpvm_wait(Bad), HPVM_ERR_NO_DEVICE);
  EXPECT_EQ(hpvm_wait(After), HPVM_ERR_NO_DEVICE);
  EXPECT_NE(std::string(hpvm_error_message())
                .find("not run: launch " + std::to_string(Bad) +
                      " of graph 'async_fill', which it follows on a buffer, "
                      "failed: "),
            std::string::npos)
      << hpvm_error_message();
  EXPECT_EQ(hpvm_wait(Other), HPVM_OK) << hpvm_error_message();
  for (float V : C.Y)
    EXPECT_EQ(V, 0.0f); // the copy never ran
}

TEST(AsyncLaunch, AFailureStopsLaterLaunchesUntilItIsWaitedFor) {
  CopyAndFill C;
  hpvm_handle Bad = C.failingFill(3);
  int Done = 0;
  auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!Done && std::chrono::steady_clock::now() < Until)
    ASSERT_EQ(hpvm_test(Bad, &Done), HPVM_OK);
  ASSERT_EQ(Done, 1);
  // It has failed and finished; a launch on its buffer still follows it.
  hpvm_handle After = C.copy();
  EXPECT_EQ(hpvm_wait(After), HPVM_ERR_NO_DEVICE);
  EXPECT_EQ(hpvm_wait(Bad), HPVM_ERR_NO_DEVICE);
  // Once the failure has been collected, the buffer is usable again.
  hpvm_handle Fill = C.fill(4), Copy = C.copy();
  EXPECT_EQ(hpvm_wait(Fill), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(hpvm_wait(Copy), HPVM_OK) << hpvm_error_message();
  for (float V : C.Y)
    EXPECT_EQ(V, 4.0f);
}

TEST(AsyncLaunch, WaitAllReportsTheFirstFailureAndForgetsEveryLaunch) {
  CopyAndFill C;
  hpvm_handle Good = C.fill(1);
  hpvm_handle Bad = C.failingFill(2);
  EXPECT_EQ(hpvm_wait_all(), HPVM_ERR_NO_DEVICE);
  EXPECT_EQ(hpvm_wait(Good), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_wait(Bad), HPVM_ERR_INVALID_ARGUMENT);
}

TEST(AsyncLaunch, EachThreadWaitsForItsOwnLaunches) {
  Graph G = affineGraph("async_threads", "async_threads");
  TestProgram P({&G}, {{"async_threads", HPVM_TARGET_CPU, affineKernel}});
  std::vector<std::vector<float>> Xs(4, std::vector<float>(300, 1.0f));
  std::vector<std::thread> Threads;
  std::atomic<int> Failures{0};
  for (auto &X : Xs)
    Threads.emplace_back([&] {
      affineChain(P, "async_threads", X, 9);
      if (hpvm_wait_all() != HPVM_OK)
        ++Failures;
      for (float V : X)
        if (V != affineReference(1.0f, 9))
          ++Failures;
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
}

/// The launches of a runtime that goes away are waited for first.
TEST(AsyncLaunch, ARuntimeWaitsForItsLaunchesWhenDestroyed) {
  std::vector<float> X(500, 0.25f);
  Graph G = affineGraph("async_own", "async_own");
  TestProgram P({&G}, {{"async_own", HPVM_TARGET_CPU, affineKernel}});
  std::vector<hpvm_handle> Handles;
  {
    rt::RuntimeConfig Config;
    Config.Threads = 3;
    Config.Devices = "cpu";
    rt::Runtime RT(Config);
    CurrentRuntime Scope(RT);
    Handles = affineChain(P, "async_own", X, 7);
    hpvm_release_program(&P.Desc); // waits too
  }
  for (float V : X)
    ASSERT_EQ(V, affineReference(0.25f, 7));
  for (hpvm_handle H : Handles) // the process runtime never had them
    EXPECT_EQ(hpvm_wait(H), HPVM_ERR_INVALID_ARGUMENT);
}

// Across devices: a two-leaf graph whose first leaf runs on a fake device
// with memory of its own and the second on the CPU, launched as a chain on
// one buffer under every policy: each launch's leaves see the previous
// launch's results, wherever they ran.

void timesThree(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] *= 3.0f;
}

void plusK(void *const *Args, void *const *, const uint64_t *, const uint64_t *,
           uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  float K = static_cast<float>(value<int64_t>(Args, 3));
  for (uint64_t I = Begin; I != End; ++I)
    X[I] += K;
}

class AsyncMixed : public testing::TestWithParam<const char *> {};

TEST_P(AsyncMixed, ChainsKeepTheirOrderAcrossDevices) {
  ScopedDevice Fake(std::make_unique<FakeDevice>("fake-gpu", HPVM_TARGET_NVPTX,
                                                 std::chrono::milliseconds(1)));
  Graph G("async_mixed");
  Node &R = G.root();
  R.addBuffer("x", Access::InOut, Extent::param(1));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  R.addValue("k", ScalarType::I64);
  Node *Prev = nullptr;
  for (const char *Name : {"times3", "plusk"}) {
    Node &L = R.addLeaf(Name, std::string("async_mixed_") + Name);
    L.setTargets(Prev ? TargetCPU | TargetNVPTX : TargetNVPTX);
    L.addBuffer("x", Access::InOut, Extent::param(1));
    L.addValue("bytes", ScalarType::I64);
    L.addValue("n", ScalarType::I64);
    L.addValue("k", ScalarType::I64);
    L.setDims({Extent::param(2)});
    for (unsigned K = 0; K != 4; ++K)
      R.bind(L, K, K);
    if (Prev)
      R.addDependency(*Prev, L);
    Prev = &L;
  }
  // times3 on the fake device only, plusk on either.
  TestProgram P({&G}, {{"async_mixed/times3", HPVM_TARGET_NVPTX, timesThree},
                       {"async_mixed/plusk", HPVM_TARGET_CPU, plusK},
                       {"async_mixed/plusk", HPVM_TARGET_NVPTX, plusK}});
  rt::LaunchOptions Policy;
  Policy.Scheduler = GetParam();
  rt::setThreadLaunchOptions(&Policy);
  std::vector<float> X(2000, 0.5f);
  affineChain(P, "async_mixed", X, 10);
  rt::setThreadLaunchOptions(nullptr);
  EXPECT_EQ(hpvm_wait_all(), HPVM_OK) << hpvm_error_message();
  for (float V : X)
    ASSERT_EQ(V, affineReference(0.5f, 10));
  EXPECT_GE(Fake->Launches.load(), 10u);
}

INSTANTIATE_TEST_SUITE_P(Policies, AsyncMixed,
                         testing::Values("hint", "round-robin", "heft", "dmda",
                                         "auto"));

} // namespace
