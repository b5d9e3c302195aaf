//===- HeftTest.cpp - Placing a frame's children as a graph ---------------===//
//
// heft and dmda place the children of a graph together (upward ranks,
// Scheduler::planFrame) once every leaf has a prediction on every device.
// Two independent leaves, on two devices with their own memory:
//
//              fast    slow
//   long (a)   10 ms   40 ms
//   short (b)   2 ms    3 ms
//
// With one thread, b is the first child to run. Placing one leaf at a
// time puts b on the fast device (2 < 3 ms), and then a too (busy until
// 2 ms, 12 < 40): both run one after the other there, 12 ms. By rank, a
// (mean 25 ms) is placed first, on the fast device, and b then finishes
// first on the slow one (3 < 12 ms): 10 ms.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Stats.h"

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

void nothing(void *const *, void *const *, const uint64_t *, const uint64_t *,
             uint64_t, uint64_t) {}

class HeftGraph : public testing::TestWithParam<const char *> {};

TEST_P(HeftGraph, TheLongerLeafIsPlacedFirst) {
  rt::RuntimeConfig Config;
  Config.Threads = 1; // b runs first: the greedy order
  Config.Devices = "cpu";
  Config.Scheduler = GetParam();
  rt::Runtime RT(Config);
  CurrentRuntime Scope(RT);
  auto FastDev = std::make_unique<FakeDevice>("fake-fast", HPVM_TARGET_NVPTX);
  auto SlowDev = std::make_unique<FakeDevice>("fake-slow", HPVM_TARGET_NVPTX);
  FakeDevice &Fast = *FastDev, &Slow = *SlowDev;
  RT.addDevice(std::move(FastDev));
  RT.addDevice(std::move(SlowDev));

  Graph G("rank_fork");
  Node &R = G.root();
  Node &B = R.addLeaf("b", "b");
  Node &A = R.addLeaf("a", "a");
  B.setTargets(TargetNVPTX);
  A.setTargets(TargetNVPTX);
  TestProgram P({&G}, {{"rank_fork/a", HPVM_TARGET_NVPTX, nothing},
                       {"rank_fork/b", HPVM_TARGET_NVPTX, nothing}});
  // What earlier runs measured (one instance each; as a model file would
  // give dmda, and as launches give heft).
  auto Seed = [&](const char *Path, const char *Dev, double Ms) {
    rt::NodeStats &E = RT.stats().entry(Path, Dev);
    for (int I = 0; I != 4; ++I) {
      E.Model.learn(1, static_cast<uint64_t>(Ms * 1e6));
      E.record(1, static_cast<uint64_t>(Ms * 1e6));
    }
  };
  Seed("rank_fork/a", "fake-fast", 10);
  Seed("rank_fork/a", "fake-slow", 40);
  Seed("rank_fork/b", "fake-fast", 2);
  Seed("rank_fork/b", "fake-slow", 3);

  ASSERT_EQ(P.launch("rank_fork", {}), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(Fast.Launches.load(), 1u); // a
  EXPECT_EQ(Slow.Launches.load(), 1u); // b
  std::string Stats = RT.statsText();
  EXPECT_NE(Stats.find("rank_fork/a  fake-fast"), std::string::npos) << Stats;
  EXPECT_NE(Stats.find("rank_fork/b  fake-slow"), std::string::npos) << Stats;
  RT.removeDevice(Fast);
  RT.removeDevice(Slow);
}

INSTANTIATE_TEST_SUITE_P(Policies, HeftGraph, testing::Values("heft", "dmda"));

} // namespace
