//===- LazyDiscoveryTest.cpp - GPU drivers load only when a program needs them
//
// With HPVM_DEVICES unset, only the CPU is discovered at start-up; a kind
// such as vulkan is discovered when the first program with an artifact it
// can run is loaded (docs/runtime.md §4). These tests point
// HPVM_VULKAN_LOADER at FakeVulkanLoader.cpp, which records being opened and
// counts discoveries, so they see what the runtime does with the loader on
// any machine. They start a runtime afresh under the environment they set
// (death tests re-execute the binary), so the runtime must not be touched
// before EXPECT_EXIT.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Cuda.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/OpenCL.h"
#include "hpvm/rt/Vulkan.h"

#include <cstdio>
#include <dlfcn.h>

using namespace hpvm;
using namespace hpvm::rttest;
using rt::Runtime;

namespace {

// Whether this build's vulkan kind opens a loader at all: without the
// Vulkan headers it reports itself absent without one (VulkanApi.h decides
// the same way).
#if __has_include(<vulkan/vulkan_core.h>)
constexpr bool OpensLoader = true;
#else
constexpr bool OpensLoader = false;
#endif

const char *const FakeLoader = HPVM_TEST_FAKE_VULKAN_LOADER;
const char *const OpenedMark = "HPVM_TEST_FAKE_VULKAN_LOADER_OPENED";

void fillKernel(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  int32_t *Out = buffer<int32_t>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    Out[I] = static_cast<int32_t>(I) + 1;
}

// fill(out, n), dims [n]: out[i] = i + 1, as a root leaf.
Graph fillGraph(const std::string &Name) {
  Graph G(Name, Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "fill";
  R.addBuffer("out", Access::Out, Extent::param(2));
  R.addValue("n", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::param(1)});
  return G;
}

/// Launches Graph over 64 elements; returns the status, having checked the
/// results when it succeeded.
int runFill(TestProgram &P, const char *Graph) {
  std::vector<int32_t> Out(64, 0);
  int32_t *PO = Out.data();
  int64_t N = 64, Bytes = 64 * sizeof(int32_t);
  int Code = P.launch(Graph, {&PO, &N, &Bytes});
  if (Code == HPVM_OK)
    for (size_t I = 0; I != Out.size(); ++I)
      if (Out[I] != static_cast<int32_t>(I) + 1)
        return -1;
  return Code;
}

const char *loaderOpened() { return std::getenv(OpenedMark) ? "yes" : "no"; }

std::string pendingKinds() {
  std::string Text;
  for (const std::string &K : Runtime::get().pendingDeviceKinds())
    Text += (Text.empty() ? "" : ",") + K;
  return Text.empty() ? "none" : Text;
}

/// How many times the fake loader was asked to discover devices; 0 when it
/// was never opened (RTLD_NOLOAD does not open it).
unsigned fakeDiscoveries() {
  void *H = dlopen(FakeLoader, RTLD_NOW | RTLD_NOLOAD);
  if (!H)
    return 0;
  auto *Count = reinterpret_cast<unsigned (*)()>(
      dlsym(H, "hpvmFakeVulkanLoaderDiscoveries"));
  unsigned N = Count ? Count() : 0;
  dlclose(H);
  return N;
}

void useFakeLoader() {
  setenv("HPVM_VULKAN_LOADER", FakeLoader, 1);
  unsetenv(OpenedMark);
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

TEST(LazyDiscovery, KindsSayWhatTheyRunAndWhetherTheyAreEager) {
  const std::vector<rt::DeviceKind> &Kinds = rt::deviceKinds();
  ASSERT_EQ(Kinds.size(), 4u);
  EXPECT_STREQ(Kinds[0].Name, "cpu");
  EXPECT_EQ(Kinds[0].Targets, uint32_t(HPVM_TARGET_CPU));
  EXPECT_TRUE(Kinds[0].Eager);
  EXPECT_STREQ(Kinds[1].Name, "cuda");
  EXPECT_EQ(Kinds[1].Targets, uint32_t(HPVM_TARGET_NVPTX));
  EXPECT_FALSE(Kinds[1].Eager);
  EXPECT_STREQ(Kinds[2].Name, "vulkan");
  EXPECT_EQ(Kinds[2].Targets, uint32_t(HPVM_TARGET_SPIRV));
  EXPECT_FALSE(Kinds[2].Eager);
  // OpenCL-flavour SPIR-V is an artifact target of its own.
  EXPECT_STREQ(Kinds[3].Name, "opencl");
  EXPECT_EQ(Kinds[3].Targets, uint32_t(HPVM_TARGET_OPENCL));
  EXPECT_FALSE(Kinds[3].Eager);
}

TEST(LazyDiscovery, OnlyUnnamedKindsAreDeferred) {
  rt::ThreadPool Pool(1);
  // The settings come from the context, not the environment: a kind
  // discovered late uses what the runtime read when it started.
  rt::VulkanOptions Missing;
  Missing.Loader = "/nonexistent/hpvm-lazy/libvulkan.so.1";
  rt::CudaOptions NoDriver;
  NoDriver.Driver = "/nonexistent/hpvm-lazy/libcuda.so.1";
  rt::DiscoveryContext Ctx{Pool, [](void *) { return rt::MemorySpace(1); },
                           nullptr};
  Ctx.Vulkan = &Missing;
  rt::OpenCLOptions MissingCL;
  MissingCL.Loader = "/nonexistent/hpvm-lazy/libOpenCL.so.1";
  Ctx.OpenCL = &MissingCL;
  Ctx.Cuda = &NoDriver;

  rt::Discovery Lazy = rt::discoverDevices(Ctx, "", false, /*Lazy=*/true);
  ASSERT_EQ(Lazy.Devices.size(), 1u);
  EXPECT_EQ(Lazy.Devices[0]->name(), "cpu");
  ASSERT_EQ(Lazy.Deferred.size(), 3u);
  EXPECT_STREQ(Lazy.Deferred[0]->Name, "cuda");
  EXPECT_STREQ(Lazy.Deferred[1]->Name, "vulkan");
  EXPECT_STREQ(Lazy.Deferred[2]->Name, "opencl");
  EXPECT_TRUE(Lazy.Notes.empty());

  // Named kinds are discovered now, lazy or not, and report themselves.
  rt::Discovery Named =
      rt::discoverDevices(Ctx, "cpu,vulkan", false, /*Lazy=*/true);
  EXPECT_EQ(Named.Devices.size(), 1u);
  EXPECT_TRUE(Named.Deferred.empty());
  ASSERT_EQ(Named.Notes.size(), 1u);
  EXPECT_NE(Named.Notes[0].find("HPVM_DEVICES: 'vulkan' has no device"),
            std::string::npos)
      << Named.Notes[0];
  if (OpensLoader) {
    EXPECT_NE(Named.Notes[0].find("/nonexistent/hpvm-lazy/libvulkan.so.1"),
              std::string::npos)
        << Named.Notes[0];
  }
  rt::Discovery CpuOnly = rt::discoverDevices(Ctx, "cpu", false, true);
  EXPECT_TRUE(CpuOnly.Deferred.empty());

  // A deferred kind found later without devices is silent: nobody asked.
  for (const rt::DeviceKind *K : Lazy.Deferred) {
    rt::Discovery Late = rt::discoverKind(Ctx, *K);
    EXPECT_TRUE(Late.Devices.empty());
    EXPECT_TRUE(Late.Notes.empty());
    EXPECT_TRUE(Late.Error.empty());
  }

  // The OpenCL settings come from the context too.
  rt::Discovery NamedCL = rt::discoverDevices(Ctx, "opencl", false, true);
  ASSERT_EQ(NamedCL.Notes.size(), 1u);
  EXPECT_NE(NamedCL.Notes[0].find("HPVM_DEVICES: 'opencl' has no device: "
                                  "cannot load the OpenCL ICD loader "
                                  "'/nonexistent/hpvm-lazy/libOpenCL.so.1'"),
            std::string::npos)
      << NamedCL.Notes[0];
  // The settings come from the context for CUDA too.
  rt::Discovery Cuda = rt::discoverDevices(Ctx, "cuda", false, true);
  ASSERT_EQ(Cuda.Notes.size(), 1u);
  EXPECT_NE(Cuda.Notes[0].find("HPVM_DEVICES: 'cuda' has no device: "
                               "/nonexistent/hpvm-lazy/libcuda.so.1 not found"),
            std::string::npos)
      << Cuda.Notes[0];
}

//===----------------------------------------------------------------------===//
// In a fresh runtime
//===----------------------------------------------------------------------===//

void cpuProgramThenSpirvProgram() {
  useFakeLoader();
  Graph G = fillGraph("lazy_cpu");
  TestProgram Cpu({&G}, {{"lazy_cpu", HPVM_TARGET_CPU, fillKernel}});
  int Code = runFill(Cpu, "lazy_cpu");
  std::fprintf(stderr, "cpu: code %d opened %s pending %s devices %zu\n", Code,
               loaderOpened(), pendingKinds().c_str(),
               Runtime::get().numDevices());

  // A program that fails to load is never launched: it needs no device.
  Graph B = fillGraph("lazy_bad");
  TestProgram Bad({&B}, {{"lazy_bad", HPVM_TARGET_CPU, fillKernel},
                         {"lazy_bad/nowhere", HPVM_TARGET_SPIRV, nullptr}});
  Code = runFill(Bad, "lazy_bad");
  std::fprintf(stderr, "bad: code %d opened %s pending %s\n", Code,
               loaderOpened(), pendingKinds().c_str());

  // A SPIR-V artifact makes the runtime look for Vulkan; the fake loader
  // has no device, so the CPU artifact runs and a SPIR-V-only leaf cannot.
  Graph S = fillGraph("lazy_spirv"), O = fillGraph("lazy_spirv_only");
  TestProgram Spirv({&S, &O},
                    {{"lazy_spirv", HPVM_TARGET_SPIRV, nullptr},
                     {"lazy_spirv", HPVM_TARGET_CPU, fillKernel},
                     {"lazy_spirv_only", HPVM_TARGET_SPIRV, nullptr}});
  Code = runFill(Spirv, "lazy_spirv");
  std::fprintf(stderr, "spirv: code %d opened %s pending %s discoveries %u\n",
               Code, loaderOpened(), pendingKinds().c_str(), fakeDiscoveries());
  Code = runFill(Spirv, "lazy_spirv_only");
  std::fprintf(stderr, "spirv only: code %d: %s\n", Code, hpvm_error_message());

  // Once is enough: later programs do not look again.
  Graph T = fillGraph("lazy_spirv2");
  TestProgram Again({&T}, {{"lazy_spirv2", HPVM_TARGET_SPIRV, nullptr},
                           {"lazy_spirv2", HPVM_TARGET_CPU, fillKernel}});
  Code = runFill(Again, "lazy_spirv2");
  std::fprintf(stderr, "again: code %d discoveries %u\n", Code,
               fakeDiscoveries());
  std::exit(0);
}

TEST(LazyDiscoveryDeathTest, CpuProgramDoesNotOpenTheVulkanLoader) {
  // CUDA stays pending throughout: no program has a PTX artifact.
  std::string Expected =
      "cpu: code 0 opened no pending cuda,vulkan,opencl devices 1\n"
      "bad: code 2 opened no pending cuda,vulkan,opencl\n"
      "spirv: code 0 opened " +
      std::string(OpensLoader ? "yes" : "no") +
      " pending cuda,opencl discoveries " + (OpensLoader ? "1" : "0") +
      "\n"
      "spirv only: code 4: no device can run node 'lazy_spirv_only': it has "
      "artifacts for spirv; available devices: cpu\n"
      "again: code 0 discoveries " +
      (OpensLoader ? "1" : "0") + "\n";
  // The expected text has no regex metacharacters.
  EXPECT_EXIT(cpuProgramThenSpirvProgram(), testing::ExitedWithCode(0),
              Expected);
}

void spirvProgramWithOnlyTheCpuNamed() {
  useFakeLoader();
  setenv("HPVM_DEVICES", "cpu", 1);
  Graph S = fillGraph("named_cpu");
  TestProgram P({&S}, {{"named_cpu", HPVM_TARGET_SPIRV, nullptr},
                       {"named_cpu", HPVM_TARGET_CPU, fillKernel}});
  int Code = runFill(P, "named_cpu");
  std::fprintf(stderr, "code %d opened %s pending %s\n", Code, loaderOpened(),
               pendingKinds().c_str());
  std::exit(0);
}

void namedVulkanIsDiscoveredAtStartUp() {
  useFakeLoader();
  setenv("HPVM_DEVICES", "cpu,vulkan", 1);
  setenv("HPVM_DEVICES_STRICT", "1", 1);
  Runtime::get();
  std::fprintf(stderr, "started: opened %s pending %s\n", loaderOpened(),
               pendingKinds().c_str());
  Graph G = fillGraph("named_strict");
  TestProgram P({&G}, {{"named_strict", HPVM_TARGET_CPU, fillKernel}});
  int Code = runFill(P, "named_strict");
  std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
  std::exit(0);
}

TEST(LazyDiscoveryDeathTest, HpvmDevicesStillDecidesAtStartUp) {
  // Not named: never looked for, whatever the programs have.
  EXPECT_EXIT(spirvProgramWithOnlyTheCpuNamed(), testing::ExitedWithCode(0),
              "code 0 opened no pending none\n");
  // Named: looked for before any program, so strict mode fails the very
  // first launch, of a CPU-only program, naming the missing kind.
  EXPECT_EXIT(namedVulkanIsDiscoveredAtStartUp(), testing::ExitedWithCode(0),
              std::string("started: opened ") + (OpensLoader ? "yes" : "no") +
                  " pending none\n"
                  "code 4: HPVM_DEVICES_STRICT: requested devices are "
                  "missing: 'vulkan' has no device");
}

void concurrentLoadsDuringLaunches() {
  useFakeLoader();
  // A CPU-only program keeps launching while others, loaded from several
  // threads at once, make the runtime discover Vulkan: the discovery runs
  // once, every loader waits for it, and the running launches are not
  // disturbed by the devices it adds.
  Graph C = fillGraph("busy_cpu");
  TestProgram Busy({&C}, {{"busy_cpu", HPVM_TARGET_CPU, fillKernel}});
  std::atomic<bool> Stop{false};
  std::atomic<int> BusyFailures{0}, BusyLaunches{0};
  std::thread Runner([&] {
    while (!Stop.load() || BusyLaunches.load() < 10) {
      if (runFill(Busy, "busy_cpu") != HPVM_OK)
        ++BusyFailures;
      ++BusyLaunches;
    }
  });

  constexpr int Threads = 6;
  std::vector<Graph> Graphs;
  for (int I = 0; I != Threads; ++I)
    Graphs.push_back(fillGraph("racing" + std::to_string(I)));
  std::vector<std::unique_ptr<TestProgram>> Programs;
  for (int I = 0; I != Threads; ++I)
    Programs.push_back(std::make_unique<TestProgram>(
        std::vector<const Graph *>{&Graphs[I]},
        std::vector<ArtifactSpec>{
            {Graphs[I].name(), HPVM_TARGET_SPIRV, nullptr},
            {Graphs[I].name(), HPVM_TARGET_CPU, fillKernel}}));
  std::atomic<int> Ready{0}, Failures{0};
  std::vector<std::thread> Loaders;
  for (int I = 0; I != Threads; ++I)
    Loaders.emplace_back([&, I] {
      ++Ready;
      while (Ready.load() != Threads)
        std::this_thread::yield();
      if (runFill(*Programs[I], Graphs[I].name().c_str()) != HPVM_OK)
        ++Failures;
    });
  for (std::thread &T : Loaders)
    T.join();
  Stop = true;
  Runner.join();
  std::fprintf(stderr,
               "failures %d busy failures %d discoveries %u pending %s\n",
               Failures.load(), BusyFailures.load(), fakeDiscoveries(),
               pendingKinds().c_str());
  std::exit(0);
}

TEST(LazyDiscoveryDeathTest, ConcurrentLoadersDiscoverOnce) {
  EXPECT_EXIT(concurrentLoadsDuringLaunches(), testing::ExitedWithCode(0),
              std::string("failures 0 busy failures 0 discoveries ") +
                  (OpensLoader ? "1" : "0") + " pending cuda,opencl\n");
}

} // namespace
