//===- DataRegionTest.cpp - Buffers kept on devices across launches -------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Coherence.h"

using namespace hpvm;
using namespace hpvm::rttest;
using rt::Runtime;

namespace {

constexpr int N = 1000;
constexpr int64_t Bytes = N * sizeof(int32_t);

// step(x): x += 1, in place.
void stepKernel(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  int32_t *X = buffer<int32_t>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] += 1;
}

// total(x, sum): sum[0] = x[0] + ... + x[N-1] (one instance).
void totalKernel(void *const *Args, void *const *, const uint64_t *,
                 const uint64_t *, uint64_t, uint64_t) {
  const int32_t *X = buffer<int32_t>(Args, 0);
  int64_t *Sum = buffer<int64_t>(Args, 1);
  int64_t S = 0;
  for (int I = 0; I != N; ++I)
    S += X[I];
  Sum[0] = S;
}

/// "step": one leaf over N on Targets that increments x.
Graph stepGraph(TargetMask Targets) {
  Graph G("step", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "step";
  R.addBuffer("x", Access::InOut, Extent::constant(Bytes));
  R.setDims({Extent::constant(N)});
  R.setTargets(Targets);
  return G;
}

/// "total": a CPU leaf that sums x into sum.
Graph totalGraph() {
  Graph G("total", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "total";
  R.addBuffer("x", Access::In, Extent::constant(Bytes));
  R.addBuffer("sum", Access::Out, Extent::constant(8));
  R.setTargets(TargetCPU);
  return G;
}

struct Fixture {
  ScopedDevice Gpu{
      std::make_unique<FakeDevice>("fake-data", HPVM_TARGET_NVPTX)};
  Graph Step = stepGraph(TargetNVPTX), Total = totalGraph();
  TestProgram P{{&Step, &Total},
                {{"step", HPVM_TARGET_NVPTX, stepKernel},
                 {"total", HPVM_TARGET_CPU, totalKernel}}};
  std::vector<int32_t> X = std::vector<int32_t>(N, 0);
  int32_t *PX = X.data();
  int64_t Sum = 0;
  int64_t *PSum = &Sum;

  void step(int Times) {
    for (int I = 0; I != Times; ++I)
      ASSERT_EQ(P.launch("step", {&PX}), HPVM_OK) << hpvm_error_message();
  }
};

} // namespace

TEST(DataRegion, IteratedLaunchesMoveTheBufferUpOnceAndDownOnce) {
  Fixture F;
  ASSERT_EQ(hpvm_data_enter(F.PX, Bytes), HPVM_OK) << hpvm_error_message();
  F.step(100);
  // Host memory is not kept up to date inside the region.
  EXPECT_EQ(F.X[7], 0);
  EXPECT_EQ(F.Gpu->BytesIn.load(), uint64_t(Bytes));
  EXPECT_EQ(F.Gpu->BytesOut.load(), 0u);
  ASSERT_EQ(hpvm_data_exit(F.PX), HPVM_OK) << hpvm_error_message();
  for (int I = 0; I != N; ++I)
    ASSERT_EQ(F.X[I], 100) << I;
  EXPECT_EQ(F.Gpu->BytesIn.load(), uint64_t(Bytes));
  EXPECT_EQ(F.Gpu->BytesOut.load(), uint64_t(Bytes));
  EXPECT_EQ(F.Gpu->Allocations.load(), F.Gpu->Frees.load());
  EXPECT_TRUE(Runtime::get().coherence().idle());
}

TEST(DataRegion, RequestBringsDataHomeAndUpdateSendsHostWritesBack) {
  Fixture F;
  ASSERT_EQ(hpvm_data_enter(F.PX, Bytes), HPVM_OK) << hpvm_error_message();
  F.step(3);
  // Part of the buffer: only that part comes home.
  ASSERT_EQ(hpvm_data_request(F.PX + 10, 20 * sizeof(int32_t)), HPVM_OK);
  EXPECT_EQ(F.X[10], 3);
  EXPECT_EQ(F.X[29], 3);
  EXPECT_EQ(F.X[30], 0);
  EXPECT_EQ(F.Gpu->BytesOut.load(), 20u * sizeof(int32_t));
  // The host writes some elements and says so: the next launch sees them.
  for (int I = 0; I != 5; ++I)
    F.X[I] = 1000;
  ASSERT_EQ(hpvm_data_update(F.PX, 5 * sizeof(int32_t)), HPVM_OK);
  F.step(1);
  ASSERT_EQ(hpvm_data_exit(F.PX), HPVM_OK) << hpvm_error_message();
  for (int I = 0; I != N; ++I)
    ASSERT_EQ(F.X[I], I < 5 ? 1001 : 4) << I;
}

TEST(DataRegion, HostLaunchesInsideARegionSeeWhatDevicesWrote) {
  Fixture F;
  ASSERT_EQ(hpvm_data_enter(F.PX, Bytes), HPVM_OK) << hpvm_error_message();
  F.step(2);
  // A CPU leaf reads x: coherence brings it home for that launch, no
  // request needed; it stays valid on the device too.
  ASSERT_EQ(F.P.launch("total", {&F.PX, &F.PSum}), HPVM_OK)
      << hpvm_error_message();
  EXPECT_EQ(F.Sum, 2 * N);
  F.step(1);
  ASSERT_EQ(hpvm_data_exit(F.PX), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(F.X[N - 1], 3);
}

TEST(DataRegion, RegionsNestAndTheLastExitBringsDataHome) {
  Fixture F;
  ASSERT_EQ(hpvm_data_enter(F.PX, Bytes), HPVM_OK);
  ASSERT_EQ(hpvm_data_enter(F.PX, Bytes), HPVM_OK);
  EXPECT_EQ(Runtime::get().coherence().regions(F.PX), 2u);
  F.step(1);
  ASSERT_EQ(hpvm_data_exit(F.PX), HPVM_OK);
  EXPECT_EQ(F.X[0], 0); // still on the device
  F.step(1);
  ASSERT_EQ(hpvm_data_exit(F.PX), HPVM_OK);
  EXPECT_EQ(F.X[0], 2);
  EXPECT_EQ(Runtime::get().coherence().regions(F.PX), 0u);
  EXPECT_EQ(F.Gpu->BytesIn.load(), uint64_t(Bytes));
}

TEST(DataRegion, MisuseIsAnErrorNotACrash) {
  int32_t Stray[4] = {};
  expectError(hpvm_data_exit(Stray), HPVM_ERR_INVALID_ARGUMENT,
              "is in no data region");
  expectError(hpvm_data_enter(nullptr, 8), HPVM_ERR_INVALID_ARGUMENT,
              "ptr is NULL");
  // Requests and updates of buffers no region or launch holds: host memory
  // is the truth, nothing to do.
  EXPECT_EQ(hpvm_data_request(Stray, sizeof(Stray)), HPVM_OK);
  EXPECT_EQ(hpvm_data_update(Stray, sizeof(Stray)), HPVM_OK);
  EXPECT_EQ(hpvm_data_enter(Stray, 0), HPVM_OK); // nothing to keep
  // ...but the region exists until its exit, as any other.
  EXPECT_EQ(hpvm_data_exit(Stray), HPVM_OK);
  expectError(hpvm_data_exit(Stray), HPVM_ERR_INVALID_ARGUMENT,
              "is in no data region");
}
