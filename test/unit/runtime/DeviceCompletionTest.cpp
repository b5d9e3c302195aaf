//===- DeviceCompletionTest.cpp - Device launches that end on their own ---===//
//
// A device that reports the end of its launches (Device::whenDone) leaves
// the launching thread free: with one thread in the pool, every
// independent leaf of a graph is in flight at once, and what depends on
// them runs when they end, on every policy, with data moved between memory
// spaces as for any launch. A kernel that fails that way fails the launch
// and nothing hangs.
//
//     fork
//     |-- a (fake device)  -> x     } independent
//     |-- b (fake device)  -> y     }
//     |-- c (fake device)  -> w     }
//     `-- sum (cpu or fake) x, y, w -> z      after all three
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/RuntimeConfig.h"

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

constexpr uint64_t N = 1000;

void fill(void *const *Args, float Scale, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] = Scale * static_cast<float>(I);
}

void fillA(void *const *Args, void *const *, const uint64_t *, const uint64_t *,
           uint64_t Begin, uint64_t End) {
  fill(Args, 1, Begin, End);
}
void fillB(void *const *Args, void *const *, const uint64_t *, const uint64_t *,
           uint64_t Begin, uint64_t End) {
  fill(Args, 2, Begin, End);
}
void fillC(void *const *Args, void *const *, const uint64_t *, const uint64_t *,
           uint64_t Begin, uint64_t End) {
  fill(Args, 4, Begin, End);
}
void sum(void *const *Args, void *const *, const uint64_t *, const uint64_t *,
         uint64_t Begin, uint64_t End) {
  const float *X = buffer<float>(Args, 0), *Y = buffer<float>(Args, 1),
              *W = buffer<float>(Args, 2);
  float *Z = buffer<float>(Args, 3);
  for (uint64_t I = Begin; I != End; ++I)
    Z[I] = X[I] + Y[I] + W[I];
}

/// The graph above; sum runs where SumTargets allow.
Graph forkGraph(TargetMask SumTargets) {
  Graph G("fork");
  Node &Root = G.root();
  for (const char *Name : {"x", "y", "w", "z"})
    Root.addBuffer(Name, Access::InOut, Extent::constant(N * 4));
  const char *Fills[] = {"a", "b", "c"};
  Node &S = Root.addLeaf("sum", "sum");
  for (unsigned K = 0; K != 3; ++K) {
    Node &F = Root.addLeaf(Fills[K], Fills[K]);
    F.addBuffer("out", Access::Out, Extent::constant(N * 4));
    F.setDims({Extent::constant(N)});
    F.setTargets(TargetNVPTX);
    Root.bind(F, 0, K);
    Root.addDependency(F, S);
  }
  for (const char *Name : {"x", "y", "w"})
    S.addBuffer(Name, Access::In, Extent::constant(N * 4));
  S.addBuffer("z", Access::Out, Extent::constant(N * 4));
  S.setDims({Extent::constant(N)});
  S.setTargets(SumTargets);
  for (unsigned K = 0; K != 4; ++K)
    Root.bind(S, K, K);
  return G;
}

std::vector<ArtifactSpec> forkArtifacts(TargetMask SumTargets) {
  std::vector<ArtifactSpec> Specs = {{"fork/a", HPVM_TARGET_NVPTX, fillA},
                                     {"fork/b", HPVM_TARGET_NVPTX, fillB},
                                     {"fork/c", HPVM_TARGET_NVPTX, fillC}};
  if (SumTargets & TargetNVPTX)
    Specs.push_back({"fork/sum", HPVM_TARGET_NVPTX, sum});
  if (SumTargets & TargetCPU)
    Specs.push_back({"fork/sum", HPVM_TARGET_CPU, sum});
  return Specs;
}

/// Launches fork on a one-thread runtime with a fake device that reports
/// its launches' ends and holds them until HoldUntil are in flight;
/// returns the launch's status and checks z when it succeeds. With
/// TraceJson, the launch is traced and the trace left there.
int runFork(const char *Policy, TargetMask SumTargets, size_t HoldUntil,
            bool FailWaits, std::string *TraceJson = nullptr) {
  rt::RuntimeConfig Config;
  Config.Threads = 1;
  Config.Devices = "cpu";
  Config.Scheduler = Policy;
  rt::Runtime RT(Config);
  CurrentRuntime Scope(RT);
  auto Owned = std::make_unique<FakeDevice>("fake-queue", HPVM_TARGET_NVPTX);
  FakeDevice &Dev = *Owned;
  Dev.ReportsDone = true;
  Dev.HoldUntil = HoldUntil;
  Dev.FailWaits = FailWaits;
  RT.addDevice(std::move(Owned));
  if (TraceJson)
    RT.trace().enable(tempPath("device-completion"));

  Graph G = forkGraph(SumTargets);
  int Status;
  {
    TestProgram P({&G}, forkArtifacts(SumTargets));
    std::vector<float> X(N, -1), Y(N, -1), W(N, -1), Z(N, -1);
    float *PX = X.data(), *PY = Y.data(), *PW = W.data(), *PZ = Z.data();
    Status = P.launch("fork", {&PX, &PY, &PW, &PZ});
    if (Status == HPVM_OK) {
      uint64_t Wrong = 0;
      for (uint64_t I = 0; I != N; ++I)
        Wrong += Z[I] != 7.0f * static_cast<float>(I);
      EXPECT_EQ(Wrong, 0u) << Policy;
    }
    EXPECT_TRUE(RT.coherence().idle());
  }
  EXPECT_FALSE(Dev.HeldTooLong.load()) << Policy;
  if (TraceJson) {
    *TraceJson = RT.trace().json();
    RT.trace().disable(); // no file
  }
  EXPECT_EQ(Dev.Launches.load(), SumTargets == TargetNVPTX ? 4u : 3u);
  EXPECT_EQ(Dev.MaxInFlight.load(), HoldUntil) << Policy;
  RT.removeDevice(Dev);
  return Status;
}

class DeviceCompletion : public testing::TestWithParam<const char *> {};

TEST_P(DeviceCompletion, OneThreadKeepsEveryIndependentLeafInFlight) {
  // Were the thread to wait for a, b and c would start only after a ended,
  // and a never ends before three are in flight (HeldTooLong).
  EXPECT_EQ(runFork(GetParam(), TargetNVPTX, 3, false), HPVM_OK)
      << hpvm_error_message();
}

TEST_P(DeviceCompletion, ASuccessorOnTheCpuRunsWhenTheyEnd) {
  EXPECT_EQ(runFork(GetParam(), TargetCPU, 3, false), HPVM_OK)
      << hpvm_error_message();
}

TEST_P(DeviceCompletion, AFailingKernelFailsTheLaunchWithoutAHang) {
  int Status = runFork(GetParam(), TargetCPU, 3, true);
  expectError(Status, HPVM_ERR_DEVICE, "fake-queue: the kernel failed");
}

TEST(DeviceCompletionTrace, LaunchesInFlightAtOnceGetALaneEach) {
  std::string Text;
  ASSERT_EQ(runFork("hint", TargetCPU, 3, false, &Text), HPVM_OK)
      << hpvm_error_message();
  Json Root;
  std::string Error;
  ASSERT_TRUE(parseJson(Text, Root, Error)) << Error;
  // a, b and c were in flight together: three lanes of the device's track
  // of launches in flight, one launch in each, and their spans overlap.
  std::map<double, std::string> Lanes; // tid -> name
  for (const Json &E : Root.get("traceEvents")->Items)
    if (E.get("ph")->Str == "M" && E.get("name")->Str == "thread_name")
      Lanes[E.get("tid")->Num] = E.get("args")->get("name")->Str;
  std::map<std::string, std::pair<double, double>> Spans; // lane -> span
  for (const Json &E : Root.get("traceEvents")->Items) {
    if (E.get("ph")->Str != "X" || !Lanes.count(E.get("tid")->Num))
      continue;
    double Start = E.get("ts")->Num;
    Spans[Lanes[E.get("tid")->Num]] = {Start, Start + E.get("dur")->Num};
  }
  const char *Names[] = {"fake-queue launches in flight",
                         "fake-queue launches in flight #2",
                         "fake-queue launches in flight #3"};
  for (const char *Name : Names)
    ASSERT_EQ(Spans.count(Name), 1u) << Name << "\n" << Text;
  EXPECT_EQ(Spans.count("fake-queue launches in flight #4"), 0u) << Text;
  double LastStart = 0, FirstEnd = 1e300;
  for (const char *Name : Names) {
    LastStart = std::max(LastStart, Spans[Name].first);
    FirstEnd = std::min(FirstEnd, Spans[Name].second);
  }
  EXPECT_LE(LastStart, FirstEnd) << Text;
}

INSTANTIATE_TEST_SUITE_P(Policies, DeviceCompletion,
                         testing::Values("hint", "round-robin", "heft", "dmda",
                                         "auto"));

TEST(DeviceCompletion, AChainWaitsInPlace) {
  // A graph whose children form one chain has nothing to do meanwhile: its
  // launches are waited for by the launching thread (no hand-over).
  rt::RuntimeConfig Config;
  Config.Threads = 1;
  Config.Devices = "cpu";
  rt::Runtime RT(Config);
  CurrentRuntime Scope(RT);
  auto Owned = std::make_unique<FakeDevice>("fake-chain", HPVM_TARGET_NVPTX);
  FakeDevice &Dev = *Owned;
  Dev.ReportsDone = true;
  RT.addDevice(std::move(Owned));
  Graph G("chain");
  Node &Root = G.root();
  Root.addBuffer("x", Access::InOut, Extent::constant(N * 4));
  Node &A = Root.addLeaf("a", "a");
  A.addBuffer("out", Access::Out, Extent::constant(N * 4));
  A.setDims({Extent::constant(N)});
  A.setTargets(TargetNVPTX);
  Root.bind(A, 0, 0);
  TestProgram P({&G}, {{"chain/a", HPVM_TARGET_NVPTX, fillB}});
  std::vector<float> X(N, -1);
  float *PX = X.data();
  ASSERT_EQ(P.launch("chain", {&PX}), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(X[10], 20.0f);
  EXPECT_EQ(Dev.MaxInFlight.load(), 0u);
  RT.removeDevice(Dev);
}

} // namespace
