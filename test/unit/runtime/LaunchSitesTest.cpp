//===- LaunchSitesTest.cpp - Launches the program runs itself -------------===//
//
// A launch site (hpvm_rt.h, hpvm_launch_site) lets the program run a small
// launch of a one-leaf CPU graph itself, once the process's runtime has
// armed it. These tests play the generated code's part (atSite below) and
// check when the runtime arms a site, what disarms it, the budget that
// sends launches back to the runtime, and what the statistics say.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "LaunchSites.h"

#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Runtime.h"

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

/// A one-leaf CPU graph "sites" over x[0:n] that adds 1 to each element.
struct SiteProgram {
  // First, so that it outlives the program, whose release disarms it.
  hpvm_launch_site Site{};
  Graph G = inOutLeafGraph("sites", "sites_fn");
  TestProgram P{{&G}, {{"sites", HPVM_TARGET_CPU, addOneKernel}}};
  std::vector<float> X = std::vector<float>(100000, 0.0f);
  /// Whether the site is a `nowait` launch's.
  bool NoWait = false;

  /// What hpvm-clang's code does at the launch of n instances: run them
  /// itself if the site allows, else call the runtime. True if it ran them.
  bool atSite(int64_t N) {
    float *PX = X.data();
    int64_t Bytes = int64_t(X.size() * sizeof(float));
    void *Args[] = {&PX, &Bytes, &N};
    int64_t Limit = __atomic_load_n(&Site.limit, __ATOMIC_ACQUIRE);
    if (N >= 1 && N <= Limit && Site.launches < Site.until) {
      ++Site.launches;
      uint64_t Dims[3] = {uint64_t(N), 1, 1};
      Site.fn(Args, nullptr, Dims, nullptr, 0, uint64_t(N));
      Site.instances += uint64_t(N);
      return true;
    }
    if (NoWait)
      hpvm_launch_nowait_site_or_exit(&P.Desc, "sites", Args, &Site);
    else
      hpvm_launch_site_or_exit(&P.Desc, "sites", Args, &Site);
    return false;
  }
  /// Launches through the site until it is armed (the runtime arms it once
  /// the leaf's cost per instance has settled); false if it never is.
  /// `nowait` launches are waited for in between: one still in flight, or
  /// the next one waiting for it, keeps the site disarmed.
  bool armed(int64_t N = 100) {
    for (int I = 0; I != 20 && !Site.limit; ++I) {
      atSite(N);
      if (NoWait)
        EXPECT_EQ(hpvm_wait_all(), HPVM_OK) << hpvm_error_message();
    }
    return Site.limit > 0;
  }
  // Nothing may run on X once it is gone.
  ~SiteProgram() { hpvm_wait_all(); }
};

TEST(LaunchSites, ArmedOnceTheCostIsKnownAndDirectLaunchesAreCounted) {
  SiteProgram S;
  EXPECT_FALSE(S.atSite(100)); // nothing known about the leaf yet
  EXPECT_EQ(S.Site.limit, 0);
  ASSERT_TRUE(S.armed());
  EXPECT_EQ(S.Site.fn, &addOneKernel);
  EXPECT_GE(S.Site.limit, 100);
  EXPECT_LE(uint64_t(S.Site.limit), rt::LaunchSites::MaxLimit);
  EXPECT_GE(S.Site.until, S.Site.launches + 16);

  // (Launches through the runtime may have run untimed too: counted from
  // here on, the site's alone.)
  rt::Runtime::get().stats().reset();
  float Before = S.X[0];
  for (int I = 0; I != 10; ++I)
    EXPECT_TRUE(S.atSite(100));
  EXPECT_EQ(S.X[0], Before + 10);
  EXPECT_EQ(S.X[100], 0.0f);

  std::string Stats = rt::Runtime::get().statsText();
  EXPECT_NE(Stats.find("direct: node 'sites' on cpu: 10 of its launches "
                       "(1000 instances) ran in place, untimed"),
            std::string::npos)
      << Stats;
  // Counted once: the statistics took the counts back, disarming the site.
  EXPECT_EQ(S.Site.limit, 0);
  Stats = rt::Runtime::get().statsText();
  EXPECT_NE(Stats.find("direct: node 'sites' on cpu: 10 of its launches"),
            std::string::npos)
      << Stats;
}

TEST(LaunchSites, TheBudgetSendsALaunchBackToTheRuntime) {
  SiteProgram S;
  ASSERT_TRUE(S.armed());
  uint64_t Budget = S.Site.until - S.Site.launches;
  for (uint64_t I = 0; I != Budget; ++I)
    ASSERT_TRUE(S.atSite(100)) << I;
  EXPECT_FALSE(S.atSite(100));
  // ... which arms the site again (now, unless that launch looked dearer).
  ASSERT_TRUE(S.armed());
  EXPECT_TRUE(S.atSite(100));
  for (float V : std::vector<float>(S.X.begin(), S.X.begin() + 100))
    ASSERT_EQ(V, S.X[0]);
}

TEST(LaunchSites, LaunchesBeyondTheLimitGoThroughTheRuntime) {
  SiteProgram S;
  ASSERT_TRUE(S.armed());
  int64_t Beyond = S.Site.limit + 1;
  ASSERT_LE(size_t(Beyond), S.X.size());
  EXPECT_FALSE(S.atSite(Beyond));
  EXPECT_FALSE(S.atSite(0));
  EXPECT_FALSE(S.atSite(-3));
}

TEST(LaunchSites, AsynchronousLaunchesDisarm) {
  SiteProgram S;
  ASSERT_TRUE(S.armed());
  float *PX = S.X.data();
  int64_t Bytes = 400, N = 100;
  void *Args[] = {&PX, &Bytes, &N};
  hpvm_handle H;
  ASSERT_EQ(hpvm_launch_async(&S.P.Desc, "sites", Args, &H), HPVM_OK);
  EXPECT_EQ(S.Site.limit, 0);
  ASSERT_EQ(hpvm_wait(H), HPVM_OK);
  EXPECT_TRUE(S.armed()); // nothing in flight any more
}

TEST(LaunchSites, ANowaitSiteRunsLaunchesThatHaveFinishedOnReturnAnyway) {
  SiteProgram S;
  S.NoWait = true;
  // Tiny ready launches run on the submitting thread (AsyncLaunches), so
  // a nowait launch's site is armed once the cost is known.
  ASSERT_TRUE(S.armed());
  float Before = S.X[0];
  EXPECT_TRUE(S.atSite(100));
  EXPECT_EQ(S.X[0], Before + 1); // done on return
  EXPECT_EQ(hpvm_wait_all(), HPVM_OK) << hpvm_error_message();
}

TEST(LaunchSites, AFailedLaunchNobodyWaitedForKeepsSitesDisarmed) {
  SiteProgram S;
  ASSERT_TRUE(S.armed());
  // A launch on the same buffer that fails (no device it may run on).
  rt::LaunchOptions Nowhere;
  Nowhere.Devices = {"no-such-kind"};
  Nowhere.Strict = true;
  rt::setThreadLaunchOptions(&Nowhere);
  float *PX = S.X.data();
  int64_t Bytes = 400, N = 100;
  void *Args[] = {&PX, &Bytes, &N};
  hpvm_handle Bad;
  ASSERT_EQ(hpvm_launch_async(&S.P.Desc, "sites", Args, &Bad), HPVM_OK);
  rt::setThreadLaunchOptions(nullptr);
  int Done = 0;
  while (!Done)
    ASSERT_EQ(hpvm_test(Bad, &Done), HPVM_OK);
  // Finished, failed, not waited for: a nowait launch after it on x must
  // fail too, so no site may run launches itself.
  EXPECT_FALSE(S.armed());
  EXPECT_EQ(hpvm_wait(Bad), HPVM_ERR_NO_DEVICE);
  EXPECT_TRUE(S.armed());
}

TEST(LaunchSites, DataRegionsDisarm) {
  SiteProgram S;
  ASSERT_TRUE(S.armed());
  ASSERT_EQ(hpvm_data_enter(S.X.data(), 400), HPVM_OK);
  EXPECT_EQ(S.Site.limit, 0);
  EXPECT_FALSE(S.armed()); // coherence holds a buffer
  ASSERT_EQ(hpvm_data_exit(S.X.data()), HPVM_OK);
  EXPECT_TRUE(S.armed());
}

TEST(LaunchSites, LaunchOptionsAndOtherRuntimesKeepSitesDisarmed) {
  SiteProgram S;
  ASSERT_TRUE(S.armed());
  rt::LaunchOptions O;
  O.Devices = {"cpu"};
  rt::setThreadLaunchOptions(&O);
  EXPECT_EQ(S.Site.limit, 0);
  EXPECT_FALSE(S.armed());
  rt::setThreadLaunchOptions(nullptr);
  EXPECT_TRUE(S.armed());
  // A policy alone (hpvm_set_thread_policy) changes nothing for a leaf of
  // one candidate: the site stays armed.
  ASSERT_EQ(hpvm_set_thread_policy("round-robin"), HPVM_OK);
  EXPECT_GT(S.Site.limit, 0);
  EXPECT_TRUE(S.atSite(100));
  ASSERT_EQ(hpvm_set_thread_policy(nullptr), HPVM_OK);
  {
    rt::Runtime Other{rt::RuntimeConfig{}};
    EXPECT_EQ(S.Site.limit, 0);
    EXPECT_FALSE(S.armed());
  }
  EXPECT_TRUE(S.armed());
}

TEST(LaunchSites, ABudgetIsAboutAMillisecond) {
  EXPECT_EQ(rt::LaunchSites::budget(0), 65536u);
  EXPECT_EQ(rt::LaunchSites::budget(1000), 1000u);
  EXPECT_EQ(rt::LaunchSites::budget(1000000), 16u);
}

TEST(LaunchSites, TheCpuDeviceRunsLaunchesBelowItsThresholdAlone) {
  rt::RuntimeConfig C;
  C.Cpu.SerialBelowNanos = 5000;
  rt::Runtime RT(C);
  rt::Device &Cpu = RT.device(0);
  ASSERT_EQ(Cpu.memorySpace(), rt::HostSpace);
  EXPECT_EQ(Cpu.callingThreadInstances(0), 0u); // not known
  EXPECT_EQ(Cpu.callingThreadInstances(2.0), 2499u);
  EXPECT_EQ(Cpu.callingThreadInstances(6000.0), 0u);
  C.Cpu.SerialBelowNanos = 0;
  rt::Runtime Never(C);
  EXPECT_EQ(Never.device(0).callingThreadInstances(2.0), 0u);
}

} // namespace
