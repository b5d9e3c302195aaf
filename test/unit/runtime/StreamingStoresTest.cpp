//===- StreamingStoresTest.cpp - Choosing a leaf's streaming-store variant ===//
//
// A CPU leaf may come with a second artifact, its streaming-store variant
// (hpvm_rt.h, HPVM_CPU_STREAMING_ENTRY): the CPU device runs it when the
// launch's buffers are larger than the last-level cache, or always, or
// never (HPVM_STREAMING_STORES). These tests check the settings, the cache
// size read from sysfs, the choice, and what a program may contain.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Devices.h"
#include "hpvm/rt/ThreadPool.h"

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

using namespace hpvm;
using namespace hpvm::rttest;
using Streaming = rt::CpuOptions::Streaming;

namespace {

/// Sets (or with null, unsets) HPVM_STREAMING_STORES for one scope.
class ScopedSetting {
public:
  explicit ScopedSetting(const char *Value) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      setenv(Name, Value, 1);
    else
      unsetenv(Name);
  }
  ~ScopedSetting() {
    if (Saved.empty())
      unsetenv(Name);
    else
      setenv(Name, Saved.c_str(), 1);
  }

private:
  static constexpr const char *Name = "HPVM_STREAMING_STORES";
  std::string Saved;
};

TEST(StreamingStores, SettingIsAutoAlwaysOrNever) {
  struct Case {
    const char *Value;
    Streaming Mode;
  } Cases[] = {{nullptr, Streaming::Auto},    {"", Streaming::Auto},
               {"auto", Streaming::Auto},     {"AUTO", Streaming::Auto},
               {"always", Streaming::Always}, {"1", Streaming::Always},
               {"never", Streaming::Never},   {"0", Streaming::Never},
               {"Never", Streaming::Never}};
  for (const Case &C : Cases) {
    ScopedSetting S(C.Value);
    rt::CpuOptions O = rt::CpuOptions::fromEnvironment();
    EXPECT_EQ(O.Error, "") << (C.Value ? C.Value : "(unset)");
    EXPECT_EQ(O.StreamingStores, C.Mode) << (C.Value ? C.Value : "(unset)");
    EXPECT_GT(O.LastLevelCacheBytes, 0u);
  }
  for (const char *Bad : {"yes", "streaming", "2", "auto "}) {
    ScopedSetting S(Bad);
    EXPECT_EQ(rt::CpuOptions::fromEnvironment().Error,
              std::string("HPVM_STREAMING_STORES='") + Bad +
                  "' is not auto, always or never");
  }
}

TEST(StreamingStores, AutoStreamsWhatDoesNotFitInTheCache) {
  rt::CpuOptions O;
  O.LastLevelCacheBytes = 1 << 20;
  EXPECT_FALSE(O.useStreamingStores(0));
  EXPECT_FALSE(O.useStreamingStores(1 << 20));
  EXPECT_TRUE(O.useStreamingStores((1 << 20) + 1));
  EXPECT_TRUE(O.useStreamingStores(UINT64_MAX));
  O.StreamingStores = Streaming::Always;
  EXPECT_TRUE(O.useStreamingStores(0));
  O.StreamingStores = Streaming::Never;
  EXPECT_FALSE(O.useStreamingStores(UINT64_MAX));

  // The CPU device asks its options, with the launch's footprint.
  rt::ThreadPool Pool(1, 0);
  O.StreamingStores = Streaming::Auto;
  std::unique_ptr<rt::Device> Cpu = rt::makeCpuDevice(Pool, O);
  rt::KernelLaunch L;
  L.FootprintBytes = 1 << 20;
  EXPECT_FALSE(Cpu->useStreamingVariant(L));
  L.FootprintBytes = 3 << 20;
  EXPECT_TRUE(Cpu->useStreamingVariant(L));
}

/// A directory laid out like /sys/devices/system/cpu/cpu0/cache.
std::string
fakeCacheDir(const std::string &Name,
             std::vector<std::pair<std::string, std::string>> LevelsAndSizes) {
  std::string Dir = testing::TempDir() + Name;
  mkdir(Dir.c_str(), 0755);
  for (size_t I = 0; I != LevelsAndSizes.size(); ++I) {
    std::string Index = Dir + "/index" + std::to_string(I);
    mkdir(Index.c_str(), 0755);
    std::ofstream(Index + "/level") << LevelsAndSizes[I].first << "\n";
    std::ofstream(Index + "/size") << LevelsAndSizes[I].second << "\n";
  }
  return Dir;
}

TEST(StreamingStores, LastLevelCacheFromSysfs) {
  // This machine's kind of listing: L1d, L1i, L2, L3.
  std::string Dir = fakeCacheDir(
      "llc-four",
      {{"1", "48K"}, {"1", "32K"}, {"2", "2048K"}, {"3", "266240K"}});
  EXPECT_EQ(rt::lastLevelCacheBytes(Dir, 7), 266240ull << 10);
  EXPECT_EQ(rt::lastLevelCacheBytes(
                fakeCacheDir("llc-mega", {{"1", "32K"}, {"2", "16M"}}), 7),
            16ull << 20);
  // Nothing there, or nothing readable: the fallback.
  EXPECT_EQ(rt::lastLevelCacheBytes(testing::TempDir() + "no-such-dir", 7), 7u);
  EXPECT_EQ(
      rt::lastLevelCacheBytes(fakeCacheDir("llc-bad", {{"one", "lots"}}), 7),
      7u);
  // The real one, where there is one, is at least a few kilobytes.
  EXPECT_GE(rt::lastLevelCacheBytes(), 4096u);
}

// Two kernels that say which of them ran, over out[0..n).
std::atomic<unsigned> NormalCalls{0}, StreamingCalls{0};
void normalKernel(void *const *Args, void *const *, const uint64_t *,
                  const uint64_t *, uint64_t Begin, uint64_t End) {
  NormalCalls.fetch_add(1);
  for (uint64_t I = Begin; I != End; ++I)
    buffer<float>(Args, 0)[I] = 1.0f;
}
void streamingKernel(void *const *Args, void *const *, const uint64_t *,
                     const uint64_t *, uint64_t Begin, uint64_t End) {
  StreamingCalls.fetch_add(1);
  for (uint64_t I = Begin; I != End; ++I)
    buffer<float>(Args, 0)[I] = 2.0f;
}

/// fill(out, bytes, n): a leaf over n instances whose buffer is declared
/// `bytes` long: the footprint the device compares with its cache is what
/// the graph declares, which lets a test claim more than it allocates.
Graph fillGraph(const char *Name) {
  Graph G(Name);
  Node &R = G.root();
  R.addBuffer("out", Access::Out, Extent::param(1));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  Node &Leaf = R.addLeaf("leaf", "fill");
  Leaf.addBuffer("out", Access::Out, Extent::param(1));
  Leaf.addValue("bytes", ScalarType::I64);
  Leaf.addValue("n", ScalarType::I64);
  Leaf.setDims({Extent::param(2)});
  for (unsigned K = 0; K != 3; ++K)
    R.bind(Leaf, K, K);
  return G;
}

std::vector<ArtifactSpec> withVariant(const std::string &Node) {
  return {
      {Node, HPVM_TARGET_CPU, normalKernel, "", ""},
      {Node, HPVM_TARGET_CPU, streamingKernel, "", HPVM_CPU_STREAMING_ENTRY}};
}

TEST(StreamingStores, TheExecutorRunsTheVariantForLargeLaunches) {
  if (std::getenv("HPVM_STREAMING_STORES"))
    GTEST_SKIP() << "HPVM_STREAMING_STORES is set; this test needs auto";
  Graph G = fillGraph("stream_auto");
  TestProgram P({&G}, withVariant("stream_auto/leaf"));
  uint64_t Cache = rt::lastLevelCacheBytes();
  std::vector<float> Out(100, 0.0f);
  float *Ptr = Out.data();
  int64_t N = 100;

  rt::Trace &T = rt::Runtime::get().trace();
  T.clear();
  T.enable(testing::TempDir() + "stream-trace.json");
  for (int64_t Bytes : {int64_t(400), int64_t(Cache) + 1}) {
    NormalCalls = StreamingCalls = 0;
    ASSERT_EQ(P.launch("stream_auto", {&Ptr, &Bytes, &N}), HPVM_OK)
        << hpvm_error_message();
    bool Large = uint64_t(Bytes) > Cache;
    EXPECT_EQ(NormalCalls.load() != 0, !Large) << Bytes;
    EXPECT_EQ(StreamingCalls.load() != 0, Large) << Bytes;
    EXPECT_EQ(Out[99], Large ? 2.0f : 1.0f);
  }
  std::string Text = T.json();
  T.disable();
  T.clear();
  Json J;
  std::string Error;
  ASSERT_TRUE(parseJson(Text, J, Error)) << Error;
  std::vector<std::string> Variants;
  for (const Json &E : J.get("traceEvents")->Items)
    if (const Json *Name = E.get("name");
        Name && Name->Str == "stream_auto/leaf")
      Variants.push_back(E.get("args")->get("variant")->Str);
  EXPECT_EQ(Variants, (std::vector<std::string>{"normal", "streaming-stores"}));
}

TEST(StreamingStores, AProgramMayLeaveTheVariantOut) {
  Graph G = fillGraph("stream_none");
  TestProgram P({&G},
                {{"stream_none/leaf", HPVM_TARGET_CPU, normalKernel, "", ""}});
  std::vector<float> Out(10, 0.0f);
  float *Ptr = Out.data();
  int64_t Bytes = INT64_MAX, N = 10;
  NormalCalls = 0;
  ASSERT_EQ(P.launch("stream_none", {&Ptr, &Bytes, &N}), HPVM_OK)
      << hpvm_error_message();
  EXPECT_NE(NormalCalls.load(), 0u);
  EXPECT_EQ(Out[9], 1.0f);
}

TEST(StreamingStores, AVariantNeedsANormalArtifactAndIsUnique) {
  Graph G = fillGraph("stream_bad");
  int64_t Bytes = 4, N = 1;
  float X = 0;
  float *Ptr = &X;
  TestProgram Alone({&G}, {{"stream_bad/leaf", HPVM_TARGET_CPU, streamingKernel,
                            "", HPVM_CPU_STREAMING_ENTRY}});
  EXPECT_EQ(Alone.launch("stream_bad", {&Ptr, &Bytes, &N}),
            HPVM_ERR_BAD_PROGRAM);
  EXPECT_STREQ(hpvm_error_message(),
               "bad program: artifact #0 (node 'stream_bad/leaf') is a "
               "streaming-store variant (entry \"hpvm.streaming_stores\"), "
               "but the node has no other cpu artifact");

  std::vector<ArtifactSpec> Twice = withVariant("stream_bad/leaf");
  Twice.push_back(Twice[1]);
  TestProgram Two({&G}, Twice);
  EXPECT_EQ(Two.launch("stream_bad", {&Ptr, &Bytes, &N}), HPVM_ERR_BAD_PROGRAM);
  EXPECT_STREQ(hpvm_error_message(),
               "bad program: artifact #2 (node 'stream_bad/leaf') is a second "
               "streaming-store variant for the node (the first is #1)");
}

/// In a process of its own (a death test's child): one launch under
/// HPVM_STREAMING_STORES=Mode, reported on stderr.
void launchUnder(const char *Mode) {
  setenv("HPVM_STREAMING_STORES", Mode, 1);
  Graph G = fillGraph("stream_env");
  TestProgram P({&G}, withVariant("stream_env/leaf"));
  std::vector<float> Out(64, 0.0f);
  float *Ptr = Out.data();
  int64_t Bytes = 256, N = 64;
  int Code = P.launch("stream_env", {&Ptr, &Bytes, &N});
  std::fprintf(stderr, "code %d normal %u streaming %u out %g: %s\n", Code,
               NormalCalls.load(), StreamingCalls.load(), Out[63],
               hpvm_error_message());
  std::exit(0);
}

// Settings are read once per process: each case starts a fresh one.
TEST(StreamingStoresDeathTest, SettingsChooseTheVariant) {
  EXPECT_EXIT(launchUnder("always"), testing::ExitedWithCode(0),
              "code 0 normal 0 streaming [1-9][0-9]* out 2");
  EXPECT_EXIT(launchUnder("never"), testing::ExitedWithCode(0),
              "code 0 normal [1-9][0-9]* streaming 0 out 1");
  EXPECT_EXIT(launchUnder("sometimes"), testing::ExitedWithCode(0),
              "code 8 .*HPVM_STREAMING_STORES='sometimes' is not auto, always "
              "or never");
}

} // namespace
