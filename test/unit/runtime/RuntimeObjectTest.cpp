//===- RuntimeObjectTest.cpp - Runtimes made from a RuntimeConfig ---------===//
//
// Several runtimes in one process, each set up by its configuration alone:
// own threads, policy and statistics; the C ABI acting on the thread's
// current one; a program released from all of them.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

#include "hpvm/rt/RuntimeConfig.h"

#include <cstdlib>
#include <optional>

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

uint64_t launchesOf(rt::Runtime &RT, const std::string &Path) {
  uint64_t N = 0;
  for (const rt::Stats::Row &Row : RT.stats().rows())
    if (Row.Path == Path)
      N += Row.Launches;
  return N;
}

int launchAddOne(TestProgram &P, const char *Graph, std::vector<float> &X) {
  float *PX = X.data();
  int64_t N = static_cast<int64_t>(X.size()), Bytes = N * 4;
  return P.launch(Graph, {&PX, &Bytes, &N});
}

} // namespace

TEST(RuntimeObject, TwoRuntimesKeepTheirOwnConfigurationAndStatistics) {
  rt::RuntimeConfig One;
  One.Threads = 1;
  One.Scheduler = "round-robin";
  rt::RuntimeConfig Three;
  Three.Threads = 3;
  Three.Scheduler = "heft";
  rt::Runtime A(One), B(Three);
  EXPECT_EQ(A.configError(), "");
  EXPECT_EQ(A.pool().size(), 1u);
  EXPECT_EQ(B.pool().size(), 3u);
  EXPECT_STREQ(A.scheduler().name(), "round-robin");
  EXPECT_STREQ(B.scheduler().name(), "heft");

  Graph G = inOutLeafGraph("two_runtimes", "add_one");
  TestProgram P({&G}, {{"two_runtimes", HPVM_TARGET_CPU, addOneKernel}});
  std::vector<float> X(1000, 1.0f);
  {
    CurrentRuntime Scope(A);
    ASSERT_EQ(launchAddOne(P, "two_runtimes", X), HPVM_OK)
        << hpvm_error_message();
  }
  {
    CurrentRuntime Scope(B);
    ASSERT_EQ(launchAddOne(P, "two_runtimes", X), HPVM_OK)
        << hpvm_error_message();
    ASSERT_EQ(launchAddOne(P, "two_runtimes", X), HPVM_OK)
        << hpvm_error_message();
  }
  for (float V : X)
    ASSERT_EQ(V, 4.0f);
  EXPECT_EQ(launchesOf(A, "two_runtimes"), 1u);
  EXPECT_EQ(launchesOf(B, "two_runtimes"), 2u);
  EXPECT_EQ(launchesOf(rt::Runtime::get(), "two_runtimes"), 0u);
  // Out of the scopes, the C ABI is the process's runtime's again.
  EXPECT_EQ(&rt::Runtime::current(), &rt::Runtime::get());
}

void addTwo(void *const *Args, void *const *, const uint64_t *,
            const uint64_t *, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] += 2.0f;
}

TEST(RuntimeObject, ProgramsAreReleasedFromEveryRuntime) {
  rt::Runtime A(rt::RuntimeConfig{});
  std::vector<float> X(10, 0.0f);
  Graph G = inOutLeafGraph("released", "add_one");
  // The runtime knows programs by the descriptor's address: a second
  // program in the same storage runs its own kernel only if releasing the
  // first reached A too, not just the process's runtime.
  std::optional<TestProgram> Slot;
  Slot.emplace(
      std::vector<const Graph *>{&G},
      std::vector<ArtifactSpec>{{"released", HPVM_TARGET_CPU, addOneKernel}});
  CurrentRuntime Scope(A);
  ASSERT_EQ(launchAddOne(*Slot, "released", X), HPVM_OK);
  const hpvm_program_desc *First = &Slot->Desc;
  Slot.reset();
  Slot.emplace(
      std::vector<const Graph *>{&G},
      std::vector<ArtifactSpec>{{"released", HPVM_TARGET_CPU, addTwo}});
  ASSERT_EQ(&Slot->Desc, First);
  ASSERT_EQ(launchAddOne(*Slot, "released", X), HPVM_OK);
  for (float V : X)
    ASSERT_EQ(V, 3.0f);
}

TEST(RuntimeObject, BadConfigurationFailsEveryLaunch) {
  rt::RuntimeConfig C;
  C.Scheduler = "fastest";
  rt::Runtime RT(C);
  EXPECT_NE(RT.configError().find("scheduler 'fastest' is not a scheduling "
                                  "policy"),
            std::string::npos)
      << RT.configError();
  Graph G = inOutLeafGraph("bad_config", "add_one");
  TestProgram P({&G}, {{"bad_config", HPVM_TARGET_CPU, addOneKernel}});
  std::vector<float> X(4, 0.0f);
  CurrentRuntime Scope(RT);
  expectError(launchAddOne(P, "bad_config", X), HPVM_ERR_CONFIG,
              "scheduler 'fastest'");
  EXPECT_EQ(X[0], 0.0f);

  rt::RuntimeConfig TooMany;
  TooMany.Threads = 5000;
  EXPECT_NE(rt::Runtime(TooMany).configError().find("Threads = 5000"),
            std::string::npos);
}

TEST(RuntimeObject, TheEnvironmentIsOnlyTheDefault) {
  ::setenv("HPVM_SCHEDULER", "heft", 1);
  ::setenv("HPVM_NUM_THREADS", "2", 1);
  rt::RuntimeConfig FromEnv = rt::RuntimeConfig::fromEnvironment();
  ::unsetenv("HPVM_SCHEDULER");
  ::unsetenv("HPVM_NUM_THREADS");
  EXPECT_EQ(FromEnv.Scheduler, "heft");
  EXPECT_EQ(FromEnv.Threads, 2u);
  EXPECT_EQ(FromEnv.Error, "");

  ::setenv("HPVM_SCHEDULER", "heft", 1);
  rt::Runtime Explicit(rt::RuntimeConfig{});
  ::unsetenv("HPVM_SCHEDULER");
  EXPECT_STREQ(Explicit.scheduler().name(), "auto"); // the default

  ::setenv("HPVM_NUM_THREADS", "many", 1);
  rt::RuntimeConfig Bad = rt::RuntimeConfig::fromEnvironment();
  ::unsetenv("HPVM_NUM_THREADS");
  EXPECT_NE(Bad.Error.find("HPVM_NUM_THREADS='many'"), std::string::npos);
}
