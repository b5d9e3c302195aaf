//===- LinkTest.cpp - Measured host<->device bandwidths -------------------===//
//
// A device that does not state its bandwidth is measured once, by copies
// there and back, and the figure is kept with the performance models, so
// that a runtime reading the model file measures nothing; a device in host
// memory needs no copies; the heft policy's transfer estimates use the
// measured links, so that with equal run times it picks the device that
// is faster to reach.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Link.h"
#include "hpvm/rt/Stats.h"

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;

TEST(Link, AnUnstatedLinkIsMeasuredOnceAndKeptWithTheModels) {
  FakeDevice Dev("fake-link", HPVM_TARGET_NVPTX);
  Dev.StatedBytesPerSecond = 0;
  Dev.DelayPerMiB = std::chrono::microseconds(2000); // about 0.5 GB/s
  rt::Stats S;
  rt::Link L(Dev, S);
  double Up = L.up(), Down = L.down();
  EXPECT_TRUE(L.measured());
  // Three round trips: a MiB up and a byte back, then a MiB back.
  EXPECT_EQ(Dev.BytesIn.load(), 3 * MiB);
  EXPECT_EQ(Dev.BytesOut.load(), 3 * MiB + 3);
  EXPECT_EQ(Dev.Allocations.load(), Dev.Frees.load());
  // The delay bounds both figures from above.
  EXPECT_GT(Up, 0);
  EXPECT_LT(Up, 1.0 * MiB / 2e-3);
  EXPECT_LT(Down, 1.0 * MiB / 2e-3);
  EXPECT_EQ(L.up(), Up); // measured once
  EXPECT_EQ(Dev.BytesIn.load(), 3 * MiB);

  // Kept with the models: another runtime's statistics read it back.
  std::string Path = testing::TempDir() + "hpvm-link-models.txt";
  ASSERT_EQ(S.saveModels(Path), "");
  {
    std::ifstream In(Path);
    std::string Text((std::istreambuf_iterator<char>(In)), {});
    EXPECT_NE(Text.find(" fake-link\n"), std::string::npos) << Text;
  }
  rt::Stats Again;
  ASSERT_EQ(Again.loadModels(Path), "");
  FakeDevice Same("fake-link", HPVM_TARGET_NVPTX);
  Same.StatedBytesPerSecond = 0;
  rt::Link Loaded(Same, Again);
  EXPECT_DOUBLE_EQ(Loaded.up(), Up);
  EXPECT_DOUBLE_EQ(Loaded.down(), Down);
  EXPECT_FALSE(Loaded.measured());
  EXPECT_EQ(Same.BytesIn.load(), 0u);
  std::remove(Path.c_str());
}

TEST(Link, ALineThatMeansNothingIsSkipped) {
  std::string Path = testing::TempDir() + "hpvm-link-bad.txt";
  {
    std::ofstream Out(Path);
    Out << "hpvm-perf-models 1\nlink -1 5 dev\nlink 7 8\nlink 1e9 2e9 good "
           "dev\n";
  }
  rt::Stats S;
  EXPECT_NE(S.loadModels(Path).find("2 line(s)"), std::string::npos);
  double Up = 0, Down = 0;
  EXPECT_TRUE(S.link("good dev", Up, Down));
  EXPECT_EQ(Up, 1e9);
  EXPECT_EQ(Down, 2e9);
  EXPECT_FALSE(S.link("dev", Up, Down));
  std::remove(Path.c_str());
}

TEST(Link, AStatedLinkOrHostMemoryNeedsNoCopies) {
  FakeDevice Dev("fake-stated", HPVM_TARGET_NVPTX);
  Dev.StatedBytesPerSecond = 3e9;
  rt::Stats S;
  rt::Link L(Dev, S);
  EXPECT_EQ(L.up(), 3e9);
  EXPECT_EQ(Dev.BytesIn.load(), 0u);
  EXPECT_FALSE(L.measured());

  rt::Runtime &RT = rt::Runtime::get();
  for (size_t I = 0; I != RT.numDevices(); ++I) {
    rt::Device &D = RT.device(I);
    if (D.memorySpace() != rt::HostSpace)
      continue;
    rt::Link Host(D, S);
    EXPECT_TRUE(std::isinf(Host.up())) << D.name();
  }
}

/// y = x, for heft to place.
void copyKernel(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  const float *X = buffer<float>(Args, 0);
  float *Y = buffer<float>(Args, 1);
  for (uint64_t I = Begin; I != End; ++I)
    Y[I] = X[I];
}

TEST(Link, HeftPrefersTheDeviceThatIsFasterToReach) {
  // One device runs the leaf 5 ms faster, but takes 4 ms per MiB copied.
  // Every launch copies 16 MiB in (host memory is the truth between
  // launches): after trying each once, heft keeps to the fast link. Without
  // the measured links (transfers estimated at nothing) it would keep to
  // the faster runner instead.
  auto SlowDev =
      std::make_unique<FakeDevice>("fake-slow-link", HPVM_TARGET_NVPTX);
  SlowDev->StatedBytesPerSecond = 0;
  SlowDev->DelayPerMiB = std::chrono::microseconds(4000);
  auto FastDev = std::make_unique<FakeDevice>(
      "fake-fast-link", HPVM_TARGET_NVPTX, std::chrono::milliseconds(5));
  FastDev->StatedBytesPerSecond = 0;
  ScopedDevice Slow(std::move(SlowDev)), Fast(std::move(FastDev));
  ScopedScheduler Heft("heft");

  Graph G("link_copy", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "link_copy";
  R.addBuffer("x", Access::In, Extent::param(2));
  R.addBuffer("y", Access::Out, Extent::param(2));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  R.setDims({Extent::param(3)});
  R.setTargets(TargetNVPTX);
  TestProgram P({&G}, {{"link_copy", HPVM_TARGET_NVPTX, copyKernel}});
  int64_t N = 2 * int64_t(MiB), Bytes = N * 4;
  std::vector<float> X(N, 1.5f), Y(N, 0.0f);
  float *PX = X.data(), *PY = Y.data();
  for (int K = 0; K != 8; ++K)
    ASSERT_EQ(P.launch("link_copy", {&PX, &PY, &Bytes, &N}), HPVM_OK)
        << hpvm_error_message();
  EXPECT_EQ(Y[N - 1], 1.5f);
  // One launch each to measure run times, the rest on the fast link.
  EXPECT_EQ(Slow->Launches.load(), 1u);
  EXPECT_EQ(Fast->Launches.load(), 7u);
}

} // namespace
