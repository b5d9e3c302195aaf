//===- OpenCLDeviceTest.cpp - The OpenCL device on a real platform --------===//
//
// Kernels are hand-written OpenCL-flavour SPIR-V assembly following the
// kernel ABI (SPIRVABI.h; docs/runtime.md, "OpenCL device"), assembled at
// test time with SPIRV-Tools and launched through hpvm_launch in programs
// whose leaves have HPVM_TARGET_OPENCL artifacts, as hpvm-clang's output
// does. Tests that need a device skip, saying why, where no OpenCL device
// ingests SPIR-V (Debian's PoCL 3.1 does not; Intel's CPU runtime does,
// scripts/install-deps.sh installs it). Discovery, the device choice and
// program loading are tested everywhere.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"
#include "SpirvTestSupport.h"

#include "hpvm/rt/Devices.h"
#include "hpvm/rt/OpenCL.h"

#include <cstdio>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace hpvm;
using namespace hpvm::rttest;
using rt::OpenCLDevice;
using rt::OpenCLDeviceInfo;
using rt::OpenCLOptions;
using rt::Runtime;

namespace {

//===----------------------------------------------------------------------===//
// SPIR-V kernels
//===----------------------------------------------------------------------===//

/// An OpenCL kernel following the ABI: one OpFunctionParameter per slot,
/// %a0, %a1, ... of the given types (%gptr for a buffer, %uint, %ulong,
/// %float, %double); the global id is in %gx, %gy, %gz. Body continues the
/// entry block and ends by branching to %exit.
std::string clKernelText(const std::vector<std::string> &ArgTypes,
                         const char *LocalSize, const std::string &Body,
                         bool Doubles = false) {
  std::string T = R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Int8
)";
  if (Doubles)
    T += "OpCapability Float64\n";
  T += R"(
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main" %gid
               OpExecutionMode %main LocalSize )" +
       std::string(LocalSize) + R"(
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
       %void = OpTypeVoid
       %bool = OpTypeBool
      %uchar = OpTypeInt 8 0
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
)";
  if (Doubles)
    T += "%double = OpTypeFloat 64\n";
  T += R"(
    %v3ulong = OpTypeVector %ulong 3
  %ptr_in_v3 = OpTypePointer Input %v3ulong
       %gptr = OpTypePointer CrossWorkgroup %uchar
      %ptr_f = OpTypePointer CrossWorkgroup %float
      %ptr_l = OpTypePointer CrossWorkgroup %ulong
        %gid = OpVariable %ptr_in_v3 Input
         %l4 = OpConstant %ulong 4
         %l8 = OpConstant %ulong 8
      %l1000 = OpConstant %ulong 1000
   %l1000000 = OpConstant %ulong 1000000
)";
  T += "%fn = OpTypeFunction %void";
  for (const std::string &A : ArgTypes)
    T += " " + A;
  T += R"(
       %main = OpFunction %void None %fn
)";
  for (size_t K = 0; K != ArgTypes.size(); ++K)
    T += "%a" + std::to_string(K) + " = OpFunctionParameter " + ArgTypes[K] +
         "\n";
  T += R"(
      %entry = OpLabel
          %g = OpLoad %v3ulong %gid
         %gx = OpCompositeExtract %ulong %g 0
         %gy = OpCompositeExtract %ulong %g 1
         %gz = OpCompositeExtract %ulong %g 2
)";
  T += Body;
  T += R"(
       %exit = OpLabel
               OpReturn
               OpFunctionEnd
)";
  return T;
}

std::vector<uint32_t> assembleCL(const std::string &Text) {
  return assemble(Text, SPV_ENV_OPENCL_2_1);
}

// vadd(a, b, c, bytes, n), dims [n]: c[i] = a[i] + b[i] (floats), for a
// leaf with Ancestors levels above it (3 more slots each, unread).
std::vector<uint32_t> vaddCL(const char *LocalSize = "64 1 1",
                             unsigned Ancestors = 0) {
  std::vector<std::string> Args = {"%gptr", "%gptr", "%gptr", "%ulong",
                                   "%ulong"};
  Args.insert(Args.end(), 3 * Ancestors, "%ulong");
  return assembleCL(clKernelText(Args, LocalSize, R"(
         %in = OpULessThan %bool %gx %a4
               OpBranchConditional %in %body %exit
       %body = OpLabel
        %off = OpIMul %ulong %gx %l4
         %ai = OpConvertPtrToU %ulong %a0
         %bi = OpConvertPtrToU %ulong %a1
         %ci = OpConvertPtrToU %ulong %a2
         %ax = OpIAdd %ulong %ai %off
         %bx = OpIAdd %ulong %bi %off
         %cx = OpIAdd %ulong %ci %off
         %pa = OpConvertUToPtr %ptr_f %ax
         %pb = OpConvertUToPtr %ptr_f %bx
         %pc = OpConvertUToPtr %ptr_f %cx
         %va = OpLoad %float %pa Aligned 4
         %vb = OpLoad %float %pb Aligned 4
          %s = OpFAdd %float %va %vb
               OpStore %pc %s Aligned 4
               OpBranch %exit
)"));
}

// row(out, cols, bytes, rows) under each (dims [rows]) under the root (dims
// [2]): out[(g * rows + i) * cols + j] = g * 1000000 + i * 1000 + j, where j
// is the leaf's id, i its parent's (slot 4) and g the root's (slot 7).
std::vector<uint32_t> rowCL() {
  std::vector<std::string> Args = {"%gptr", "%ulong", "%ulong", "%ulong"};
  for (int I = 0; I != 6; ++I)
    Args.push_back("%ulong");
  return assembleCL(clKernelText(Args, "64 1 1", R"(
         %in = OpULessThan %bool %gx %a1
               OpBranchConditional %in %body %exit
       %body = OpLabel
         %gr = OpIMul %ulong %a7 %a3
        %gri = OpIAdd %ulong %gr %a4
       %gric = OpIMul %ulong %gri %a1
        %idx = OpIAdd %ulong %gric %gx
        %off = OpIMul %ulong %idx %l8
         %oi = OpConvertPtrToU %ulong %a0
         %ox = OpIAdd %ulong %oi %off
         %po = OpConvertUToPtr %ptr_l %ox
         %vg = OpIMul %ulong %a7 %l1000000
         %vi = OpIMul %ulong %a4 %l1000
        %vgi = OpIAdd %ulong %vg %vi
          %v = OpIAdd %ulong %vgi %gx
               OpStore %po %v Aligned 8
               OpBranch %exit
)"));
}

// slots(out, i1, i8, i16, i32, f32, f64, i64), no dims: out[k] = the raw
// bits of argument k + 1, zero-extended.
std::vector<uint32_t> slotsCL() {
  std::string Body = "OpBranch %body\n%body = OpLabel\n"
                     "%o = OpConvertPtrToU %ulong %a0\n";
  auto Store = [&](int K, const std::string &Value) {
    std::string N = std::to_string(K);
    Body += "%off" + N + " = OpIMul %ulong %l8 %k" + N + "\n";
    Body += "%x" + N + " = OpIAdd %ulong %o %off" + N + "\n";
    Body += "%p" + N + " = OpConvertUToPtr %ptr_l %x" + N + "\n";
    Body += "OpStore %p" + N + " " + Value + " Aligned 8\n";
  };
  for (int K = 0; K != 4; ++K) {
    Body += "%w" + std::to_string(K) + " = OpUConvert %ulong %a" +
            std::to_string(K + 1) + "\n";
    Store(K, "%w" + std::to_string(K));
  }
  Body += "%fb = OpBitcast %uint %a5\n%w4 = OpUConvert %ulong %fb\n";
  Store(4, "%w4");
  Body += "%w5 = OpBitcast %ulong %a6\n";
  Store(5, "%w5");
  Store(6, "%a7");
  Body += "OpBranch %exit\n";
  std::string Consts;
  for (int K = 0; K != 7; ++K)
    Consts += "%k" + std::to_string(K) + " = OpConstant %ulong " +
              std::to_string(K) + "\n";
  std::string Text = clKernelText({"%gptr", "%uint", "%uint", "%uint", "%uint",
                                   "%float", "%double", "%ulong"},
                                  "1 1 1", Body, /*Doubles=*/true);
  // The constants go with the others, before the function.
  Text.insert(Text.find("%fn = OpTypeFunction"), Consts);
  return assembleCL(Text);
}

//===----------------------------------------------------------------------===//
// Finding a device
//===----------------------------------------------------------------------===//

rt::DiscoveryContext standaloneContext(rt::ThreadPool &Pool) {
  return rt::DiscoveryContext{Pool, [](void *) { return rt::MemorySpace(7); },
                              nullptr};
}

/// Whether this machine has a usable OpenCL device, and why not. Probes
/// without the runtime, so that death tests can still set the environment
/// their child runtime starts with.
bool openclAvailable(std::string &Why) {
  static const std::pair<bool, std::string> Result = [] {
    rt::ThreadPool Pool(1);
    std::vector<std::unique_ptr<rt::Device>> Found;
    std::string Reason = rt::discoverOpenCLDevices(
        standaloneContext(Pool), OpenCLOptions::fromEnvironment(), Found);
    return std::make_pair(!Found.empty(), Reason);
  }();
  Why = Result.second;
  return Result.first;
}

#define SKIP_WITHOUT_OPENCL()                                                  \
  do {                                                                         \
    std::string Why;                                                           \
    if (!openclAvailable(Why))                                                 \
      GTEST_SKIP() << "opencl: " << Why;                                       \
  } while (0)

/// An OpenCL device of its own for each test (OwnDevice).
class OpenCLTest : public testing::Test {
protected:
  void SetUp() override {
    SKIP_WITHOUT_OPENCL();
    ASSERT_NO_FATAL_FAILURE(
        Own.install(HPVM_TARGET_OPENCL,
                    [](rt::DiscoveryContext &Ctx,
                       std::vector<std::unique_ptr<rt::Device>> &Found) {
                      return rt::discoverOpenCLDevices(
                          Ctx, OpenCLOptions::fromEnvironment(), Found);
                    }));
    Dev = static_cast<OpenCLDevice *>(Own.Dev);
  }

  OwnDevice Own;
  OpenCLDevice *Dev = nullptr;
};

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

TEST_F(OpenCLTest, VectorAddOnlyOpenCL) {
  Graph G = vaddGraph("cl_vadd");
  Program P({&G}, {{"cl_vadd", HPVM_TARGET_OPENCL, nullptr, vaddCL()}});
  // Around the work-group size: the global size is rounded up to it.
  for (uint64_t N : {1, 63, 64, 65, 100003})
    runVadd(P, "cl_vadd", N);
  EXPECT_EQ(Dev->counters().Launches, 5u);
  EXPECT_EQ(launchesByDevice("cl_vadd")[Dev->name()], 5u);
}

TEST_F(OpenCLTest, WorkGroupSizeComesFromTheModule) {
  // 100 is no multiple of 7: the last group has instances past the extent.
  Graph G = vaddGraph("cl_vadd7");
  Program P({&G}, {{"cl_vadd7", HPVM_TARGET_OPENCL, nullptr, vaddCL("7 1 1")}});
  runVadd(P, "cl_vadd7", 100);
}

TEST_F(OpenCLTest, AncestorIdsAndConcurrentLaunches) {
  // All on one cl_kernel too.
  Graph G = ancestorRowsGraph("cl_rows");
  Program P({&G}, {{"cl_rows/each/row", HPVM_TARGET_OPENCL, nullptr, rowCL()}});
  runAncestorRows(P, "cl_rows");
  EXPECT_EQ(Dev->counters().ProgramsBuilt, 1u);
}

TEST_F(OpenCLTest, ValuesArriveInTheirSlotTypes) {
  // The host memory ends at a guard page: a declared size larger than it
  // faults here rather than corrupting the heap (see the Vulkan test).
  GuardedArray<uint64_t> Out(8, SlotValues::Untouched);
  Graph G = slotsGraph("cl_slots", Out.bytes());
  Program P({&G}, {{"cl_slots", HPVM_TARGET_OPENCL, nullptr, slotsCL()}});
  SlotValues V;
  int Code = V.launch(P, "cl_slots", Out.data());
  if (Code != HPVM_OK &&
      std::string(hpvm_error_message()).find("capability Float64") !=
          std::string::npos)
    GTEST_SKIP() << hpvm_error_message();
  ASSERT_EQ(Code, HPVM_OK) << hpvm_error_message();
  V.expectIn(Out);
}

TEST_F(OpenCLTest, CpuAndOpenCLLeavesShareBuffers) {
  Graph G = mixedGraph("cl_mixed");
  // The adds are children of the root: 3 slots of its ids follow theirs.
  Program P({&G}, mixedArts("cl_mixed", HPVM_TARGET_OPENCL,
                            vaddCL("64 1 1", /*Ancestors=*/1)));
  const uint64_t N = 1000;
  for (int Launch = 0; Launch != 2; ++Launch) {
    OpenCLDevice::Counters Before = Dev->counters();
    // As on Vulkan: a, b, c in for add, d in for add2, d and c back.
    ASSERT_NO_FATAL_FAILURE(launchMixed(P, "cl_mixed", N));
    OpenCLDevice::Counters After = Dev->counters();
    EXPECT_EQ(After.Launches - Before.Launches, 2u);
    if (Launch == 1)
      expectBuffersReused(Before, After);
  }
  // Both adds share one module: one build for four launches.
  EXPECT_EQ(Dev->counters().ProgramsBuilt, 1u);
  EXPECT_EQ(Dev->counters().ProgramCacheHits, 3u);
}

TEST_F(OpenCLTest, ProgramCacheIsKeyedByContent) {
  Graph G = vaddGraph("cl_cache");
  Program P({&G}, {{"cl_cache", HPVM_TARGET_OPENCL, nullptr, vaddCL()}});
  runVadd(P, "cl_cache", 100);
  runVadd(P, "cl_cache", 100);
  // Another program with the same words (a new descriptor, a copy of the
  // code) still hits; different words build again.
  Graph H = vaddGraph("cl_cache2");
  Program Q({&H}, {{"cl_cache2", HPVM_TARGET_OPENCL, nullptr, vaddCL()}});
  runVadd(Q, "cl_cache2", 100);
  EXPECT_EQ(Dev->counters().ProgramsBuilt, 1u);
  EXPECT_EQ(Dev->counters().ProgramCacheHits, 2u);
  Program R({&G}, {{"cl_cache", HPVM_TARGET_OPENCL, nullptr, vaddCL("8 1 1")}});
  runVadd(R, "cl_cache", 100);
  EXPECT_EQ(Dev->counters().ProgramsBuilt, 2u);
}

TEST_F(OpenCLTest, ProfilingBecomesDeviceEventsInTheTrace) {
  if (!Dev->hasProfiling())
    GTEST_SKIP() << Dev->name() << "'s queue has no profiling";
  const uint64_t N = 100003;
  DeviceTrace Tr;
  ASSERT_NO_FATAL_FAILURE(traceDevice(
      "hpvm-rt-cl-trace", Dev->name(), "cl_traced",
      [&] {
        Graph G = vaddGraph("cl_traced");
        Program P({&G}, {{"cl_traced", HPVM_TARGET_OPENCL, nullptr, vaddCL()}});
        runVadd(P, "cl_traced", N);
      },
      Tr));
  ASSERT_FALSE(Tr.Hosts.empty()) << Tr.Text;
  ASSERT_FALSE(Tr.Kernels.empty()) << Tr.Text;
  const Json *Host = Tr.Hosts.back(), *Kernel = Tr.Kernels.back();
  EXPECT_EQ(Kernel->get("args")->get("instances")->Num, double(N));
  expectInsideHostSpan(*Host, *Kernel, Tr.Text);
  // a, b and c go in (c whole, since a leaf may write part of it), c back.
  EXPECT_EQ(DeviceTrace::bytes(Tr.Uploads), 3.0 * N * 4);
  EXPECT_EQ(DeviceTrace::bytes(Tr.Downloads), 1.0 * N * 4);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(OpenCLTest, BadModulesAreReportedNotBuilt) {
  Graph G = vaddGraph("cl_bad");
  float A = 1, B = 2, C = 0;
  float *PA = &A, *PB = &B, *PC = &C;
  int64_t Bytes = 4, Count = 1;
  std::vector<void *> Args = {&PA, &PB, &PC, &Bytes, &Count};

  Program Garbage(
      {&G},
      {{"cl_bad", HPVM_TARGET_OPENCL, nullptr, {0xdeadbeef, 1, 2, 3, 4, 5}}});
  expectError(Garbage.launch("cl_bad", Args), HPVM_ERR_BAD_PROGRAM,
              "node 'cl_bad': the code is not a SPIR-V module (bad magic "
              "number)");

  // What the SPIR-V backend's Vulkan flavour emits is not for OpenCL.
  std::vector<uint32_t> Shader = assemble(R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
)");
  Program Vulkan({&G}, {{"cl_bad", HPVM_TARGET_OPENCL, nullptr, Shader}});
  expectError(Vulkan.launch("cl_bad", Args), HPVM_ERR_BAD_PROGRAM,
              "the module is Vulkan SPIR-V (capability Shader); OpenCL runs "
              "Kernel modules");

  Program NoEntry({&G},
                  {{"cl_bad", HPVM_TARGET_OPENCL, nullptr, vaddCL(), "nope"}});
  expectError(NoEntry.launch("cl_bad", Args), HPVM_ERR_BAD_PROGRAM,
              "the SPIR-V module has no Kernel entry point 'nope' (it has "
              "'main')");
  EXPECT_EQ(Dev->counters().ProgramsBuilt, 0u);

  // A kernel for a root leaf where the leaf has an ancestor: its argument
  // count says so before the driver misreads the slots.
  Graph M = mixedGraph("cl_bad_shape");
  Program Shape({&M},
                {{"cl_bad_shape/fill", HPVM_TARGET_CPU, fillKernel},
                 {"cl_bad_shape/add", HPVM_TARGET_OPENCL, nullptr, vaddCL()},
                 {"cl_bad_shape/add2", HPVM_TARGET_CPU, vaddCpuKernel},
                 {"cl_bad_shape/twice", HPVM_TARGET_CPU, twiceKernel}});
  std::vector<float> V(8);
  float *P0 = V.data();
  int64_t N = 2, Size = 8;
  expectError(
      Shape.launch("cl_bad_shape", {&P0, &P0, &P0, &P0, &P0, &N, &Size}),
      HPVM_ERR_BAD_PROGRAM,
      "node 'cl_bad_shape/add': the kernel 'main' takes 5 arguments, "
      "but the node has 8 slots (5 parameters and 1 ancestor levels "
      "of 3 ids)");
}

TEST_F(OpenCLTest, LeafOutputsAreUnsupported) {
  expectLeafOutputsRefused("cl_out", HPVM_TARGET_OPENCL, vaddCL(),
                           "leaves with outputs cannot run on OpenCL");
}

//===----------------------------------------------------------------------===//
// Programs, the device choice, discovery
//===----------------------------------------------------------------------===//

TEST(OpenCLArtifacts, OnlyForLeavesThatAllowSpirv) {
  Graph G = vaddGraph("cl_cpu_only");
  G.root().setTargets(TargetCPU);
  Program P({&G}, {{"cl_cpu_only", HPVM_TARGET_OPENCL, nullptr, {1, 2, 3}}});
  expectError(P.launch("cl_cpu_only", {}), HPVM_ERR_BAD_PROGRAM,
              "artifact #0 (node 'cl_cpu_only') is for target opencl (SPIR-V "
              "for OpenCL), which the node does not allow (it allows cpu)");
  // Two OpenCL artifacts for one leaf are one too many.
  Graph H = vaddGraph("cl_twice");
  Program Q({&H}, {{"cl_twice", HPVM_TARGET_OPENCL, nullptr, {1}},
                   {"cl_twice", HPVM_TARGET_OPENCL, nullptr, {1}}});
  expectError(Q.launch("cl_twice", {}), HPVM_ERR_BAD_PROGRAM,
              "is a second opencl artifact for the node (the first is #0)");
  Program Bad({&H}, {{"cl_twice", 1u << 4, nullptr, {1}}});
  expectError(Bad.launch("cl_twice", {}), HPVM_ERR_BAD_PROGRAM,
              "has target 0x10; it must be exactly one of "
              "cpu,nvptx,spirv,opencl");
}

OpenCLDeviceInfo info(unsigned Index, const char *Name, const char *Platform,
                      const char *Type, const char *Unusable = "") {
  OpenCLDeviceInfo I;
  I.Index = Index;
  I.Name = Name;
  I.Platform = Platform;
  I.Type = Type;
  I.Unusable = Unusable;
  return I;
}

TEST(OpenCLDiscovery, ChoiceOrderAndUnusableDevices) {
  const char *NoIL = "no SPIR-V IL support (CL_DEVICE_IL_VERSION is empty)";
  std::vector<OpenCLDeviceInfo> Devices = {
      info(0, "pthread-cpu", "Portable Computing Language", "cpu", NoIL),
      info(1, "Xeon", "Intel(R) OpenCL", "cpu"),
      info(2, "Big GPU", "Vendor GPU", "gpu"),
      info(3, "Old GPU", "Vendor GPU", "gpu", "32-bit addresses")};
  std::string Why;
  EXPECT_EQ(rt::chooseOpenCLDevice(Devices, "", Why), 2);
  EXPECT_EQ(rt::chooseOpenCLDevice(Devices, "1", Why), 1);
  // A substring of the device's or of the platform's name.
  EXPECT_EQ(rt::chooseOpenCLDevice(Devices, "xeon", Why), 1);
  EXPECT_EQ(rt::chooseOpenCLDevice(Devices, "intel(r) opencl", Why), 1);

  EXPECT_EQ(rt::chooseOpenCLDevice(Devices, "0", Why), -1);
  EXPECT_EQ(Why,
            "HPVM_OPENCL_DEVICE='0' selects no usable device (0 "
            "'pthread-cpu' (Portable Computing Language; cpu): no SPIR-V "
            "IL support (CL_DEVICE_IL_VERSION is empty); 1 'Xeon' (Intel(R) "
            "OpenCL; cpu); 2 'Big GPU' (Vendor GPU; gpu); 3 'Old GPU' "
            "(Vendor GPU; gpu): 32-bit addresses)");
  EXPECT_EQ(rt::chooseOpenCLDevice(Devices, "fpga", Why), -1);
  EXPECT_EQ(Why.rfind("HPVM_OPENCL_DEVICE='fpga' matches no device (", 0), 0u)
      << Why;

  // PoCL without SPIR-V alone: the reason names it.
  EXPECT_EQ(rt::chooseOpenCLDevice({Devices[0]}, "", Why), -1);
  EXPECT_EQ(Why, "no usable OpenCL device (0 'pthread-cpu' (Portable "
                 "Computing Language; cpu): no SPIR-V IL support "
                 "(CL_DEVICE_IL_VERSION is empty))");
  EXPECT_EQ(rt::chooseOpenCLDevice({}, "", Why), -1);
  EXPECT_EQ(Why, "the OpenCL platforms report no devices");
}

TEST(OpenCLDiscovery, MissingLoaderMeansNoDevice) {
  rt::ThreadPool Pool(1);
  std::vector<std::unique_ptr<rt::Device>> Found;
  OpenCLOptions O;
  O.Loader = "/nonexistent/libOpenCL.so.1";
  std::string Why =
      rt::discoverOpenCLDevices(standaloneContext(Pool), O, Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_EQ(Why.rfind("cannot load the OpenCL ICD loader "
                      "'/nonexistent/libOpenCL.so.1': ",
                      0),
            0u)
      << Why;
  // Something that is no ICD loader.
  O.Loader = "libc.so.6";
  Why = rt::discoverOpenCLDevices(standaloneContext(Pool), O, Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_EQ(Why, "'libc.so.6' has no clGetPlatformIDs");
}

TEST(OpenCLDiscovery, SettingsComeFromTheEnvironment) {
  setenv("HPVM_OPENCL_LOADER", "/opt/x/libOpenCL.so", 1);
  setenv("HPVM_OPENCL_DEVICE", "gpu", 1);
  OpenCLOptions O = OpenCLOptions::fromEnvironment();
  unsetenv("HPVM_OPENCL_LOADER");
  unsetenv("HPVM_OPENCL_DEVICE");
  EXPECT_EQ(O.Loader, "/opt/x/libOpenCL.so");
  EXPECT_EQ(O.Select, "gpu");
  O = OpenCLOptions::fromEnvironment();
  EXPECT_EQ(O.Loader, "libOpenCL.so.1");
  EXPECT_EQ(O.Select, "");
}

// These start a runtime afresh under the environment they set (the
// threadsafe death-test style re-executes the binary), so they must not
// touch the runtime before EXPECT_EXIT.

void runVaddOnOpenCLOnly() {
  setenv("HPVM_DEVICES", "opencl", 1);
  setenv("HPVM_DEVICES_STRICT", "1", 1);
  Graph G = vaddGraph("env_cl_vadd");
  Program P({&G}, {{"env_cl_vadd", HPVM_TARGET_OPENCL, nullptr, vaddCL()}});
  runVadd(P, "env_cl_vadd", 1000);
  hpvm_print_stats();
  std::exit(testing::Test::HasFailure() ? 3 : 0);
}

TEST(OpenCLEnvironmentDeathTest, SelectedByHpvmDevices) {
  SKIP_WITHOUT_OPENCL();
  EXPECT_EXIT(runVaddOnOpenCLOnly(), testing::ExitedWithCode(0),
              "devices: opencl:[0-9]+ \\(.*env_cl_vadd +opencl:[0-9]+ +1 "
              "+1000");
}

bool loaderPresent() {
  void *H = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (H)
    dlclose(H);
  return H != nullptr;
}

void launchWithoutPlatforms(bool Strict) {
  // ocl-icd and the Khronos loader read vendor files only from here.
  setenv("OCL_ICD_VENDORS", "/nonexistent/hpvm-no-vendors", 1);
  setenv("OCL_ICD_FILENAMES", "", 1);
  setenv("HPVM_DEVICES", "cpu,opencl", 1);
  if (Strict)
    setenv("HPVM_DEVICES_STRICT", "1", 1);
  Graph G = vaddGraph("noplat");
  Program P({&G}, {{"noplat", HPVM_TARGET_OPENCL, nullptr, vaddCL()},
                   {"noplat", HPVM_TARGET_CPU, vaddCpuKernel}});
  std::vector<float> A(4, 1), B(4, 2), C(4);
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  int64_t Bytes = 16, Count = 4;
  int Code = P.launch("noplat", {&PA, &PB, &PC, &Bytes, &Count});
  std::fprintf(stderr, "code %d c[3] %g: %s\n", Code, C[3],
               hpvm_error_message());
  hpvm_print_stats();
  std::exit(0);
}

TEST(OpenCLEnvironmentDeathTest, NoPlatformMeansNoDevice) {
  if (!loaderPresent())
    GTEST_SKIP() << "no OpenCL ICD loader (libOpenCL.so.1) on this machine";
  EXPECT_EXIT(launchWithoutPlatforms(true), testing::ExitedWithCode(0),
              "code 4 c\\[3\\] 0: HPVM_DEVICES_STRICT: requested devices are "
              "missing: 'opencl' has no device: no OpenCL platform is "
              "installed");
  // Not strict: a note, and the leaf runs on the CPU.
  EXPECT_EXIT(launchWithoutPlatforms(false), testing::ExitedWithCode(0),
              "code 0 c\\[3\\] 3: \n.*note: HPVM_DEVICES: 'opencl' has no "
              "device: no OpenCL platform is installed.*\nnoplat +cpu +1 ");
}

} // namespace
