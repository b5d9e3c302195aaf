//===- VulkanDeviceTest.cpp - The Vulkan device on a real driver ----------===//
//
// Kernels are hand-written SPIR-V assembly following the Vulkan kernel ABI
// (docs/runtime.md, "Vulkan device"), assembled at test time with
// SPIRV-Tools, and launched through hpvm_launch in programs whose leaves
// have SPIR-V artifacts, exactly as the SPIR-V backend's output will be.
// Every test that needs a device skips when the machine has none (lavapipe
// is enough). Each launch test runs twice: with the memory the device
// prefers, and with staging forced, so that the staging path is exercised
// on unified-memory devices too.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"
#include "SpirvTestSupport.h"

#include "hpvm/abi/SPIRVABI.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Vulkan.h"

#include <spirv-tools/libspirv.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace hpvm;
using namespace hpvm::rttest;
using rt::Runtime;
using rt::VulkanDevice;
using rt::VulkanOptions;
using rt::VulkanPhysicalInfo;

namespace {

//===----------------------------------------------------------------------===//
// SPIR-V kernels
//===----------------------------------------------------------------------===//

/// A GLCompute kernel following the ABI: the push-constant block has Slots
/// 8-byte slots, loaded into %s0, %s1, ... at entry; the global id is in
/// %gx, %gy, %gz as 64-bit integers. Globals adds declarations, Body
/// continues the entry block and ends by branching to %exit.
std::string kernelText(unsigned Slots, const char *LocalSize,
                       const std::string &Body,
                       const std::string &Globals = "") {
  std::string T = R"(
               OpCapability Shader
               OpCapability Int64
               OpCapability PhysicalStorageBufferAddresses
               OpMemoryModel PhysicalStorageBuffer64 GLSL450
               OpEntryPoint GLCompute %main "main" %gid %pc
               OpExecutionMode %main LocalSize )" +
                  std::string(LocalSize) + R"(
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %PC Block
)";
  for (unsigned K = 0; K != Slots; ++K)
    T += "OpMemberDecorate %PC " + std::to_string(K) + " Offset " +
         std::to_string(8 * K) + "\n";
  T += R"(
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
     %v3uint = OpTypeVector %uint 3
  %ptr_in_v3 = OpTypePointer Input %v3uint
)";
  T += "%PC = OpTypeStruct";
  for (unsigned K = 0; K != Slots; ++K)
    T += " %ulong";
  T += R"(
     %ptr_pc = OpTypePointer PushConstant %PC
  %ptr_pc_ul = OpTypePointer PushConstant %ulong
      %ptr_f = OpTypePointer PhysicalStorageBuffer %float
      %ptr_u = OpTypePointer PhysicalStorageBuffer %uint
      %ptr_l = OpTypePointer PhysicalStorageBuffer %ulong
        %gid = OpVariable %ptr_in_v3 Input
         %pc = OpVariable %ptr_pc PushConstant
         %l4 = OpConstant %ulong 4
         %l8 = OpConstant %ulong 8
      %l1000 = OpConstant %ulong 1000
   %l1000000 = OpConstant %ulong 1000000
  %l100000000 = OpConstant %ulong 100000000
)";
  for (unsigned K = 0; K != Slots; ++K)
    T += "%i" + std::to_string(K) + " = OpConstant %uint " + std::to_string(K) +
         "\n";
  T += Globals;
  T += R"(
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
       %gx32 = OpCompositeExtract %uint %g 0
       %gy32 = OpCompositeExtract %uint %g 1
       %gz32 = OpCompositeExtract %uint %g 2
         %gx = OpUConvert %ulong %gx32
         %gy = OpUConvert %ulong %gy32
         %gz = OpUConvert %ulong %gz32
)";
  for (unsigned K = 0; K != Slots; ++K) {
    std::string N = std::to_string(K);
    T += "%p" + N + " = OpAccessChain %ptr_pc_ul %pc %i" + N + "\n";
    T += "%s" + N + " = OpLoad %ulong %p" + N + "\n";
  }
  T += Body;
  T += R"(
       %exit = OpLabel
               OpReturn
               OpFunctionEnd
)";
  return T;
}

// vadd(a, b, c, bytes, n), dims [n]: c[i] = a[i] + b[i] (floats). Slots:
// 0-4 parameters (the bound is n, slot 4).
std::vector<uint32_t> vaddSpirv(const char *LocalSize = "64 1 1") {
  return assemble(kernelText(5, LocalSize, R"(
         %in = OpULessThan %bool %gx %s4
               OpSelectionMerge %exit None
               OpBranchConditional %in %body %exit
       %body = OpLabel
        %off = OpIMul %ulong %gx %l4
         %aa = OpIAdd %ulong %s0 %off
         %ap = OpConvertUToPtr %ptr_f %aa
         %av = OpLoad %float %ap Aligned 4
         %ba = OpIAdd %ulong %s1 %off
         %bp = OpConvertUToPtr %ptr_f %ba
         %bv = OpLoad %float %bp Aligned 4
        %sum = OpFAdd %float %av %bv
         %ca = OpIAdd %ulong %s2 %off
         %cp = OpConvertUToPtr %ptr_f %ca
               OpStore %cp %sum Aligned 4
               OpBranch %exit
)"));
}

// grid(in, out, rows, cols, bytes), dims [rows, cols]: out[r][c] = in[r][c]
// + r * 1000 + c (uint32). x is the column (innermost), y the row. Slots:
// 0-4 parameters (rows in 2, cols in 3).
std::vector<uint32_t> gridSpirv() {
  return assemble(kernelText(5, "8 8 1", R"(
        %okx = OpULessThan %bool %gx %s3
        %oky = OpULessThan %bool %gy %s2
         %ok = OpLogicalAnd %bool %okx %oky
               OpSelectionMerge %exit None
               OpBranchConditional %ok %body %exit
       %body = OpLabel
     %rowoff = OpIMul %ulong %gy %s3
        %idx = OpIAdd %ulong %rowoff %gx
        %off = OpIMul %ulong %idx %l4
         %ia = OpIAdd %ulong %s0 %off
         %ip = OpConvertUToPtr %ptr_u %ia
         %iv = OpLoad %uint %ip Aligned 4
      %r1000 = OpIMul %ulong %gy %l1000
        %tag = OpIAdd %ulong %r1000 %gx
      %tag32 = OpUConvert %uint %tag
        %val = OpIAdd %uint %iv %tag32
         %oa = OpIAdd %ulong %s1 %off
         %op = OpConvertUToPtr %ptr_u %oa
               OpStore %op %val Aligned 4
               OpBranch %exit
)"));
}

// row(out, cols, bytes, rows), dims [cols], two ancestor levels (a
// replicated "each" of rows instances inside a replicated root of 2):
// out[g][row][j] = g * 1000000 + row * 1000 + j, plus 100000000 times the
// sum of the ancestors' unused ids (which must be 0). Slots: 0-3
// parameters (the bound is cols, slot 1), 4-6 the parent's ids, 7-9 the
// grandparent's.
std::vector<uint32_t> rowSpirv() {
  return assemble(kernelText(10, "64 1 1", R"(
         %ok = OpULessThan %bool %gx %s1
               OpSelectionMerge %exit None
               OpBranchConditional %ok %body %exit
       %body = OpLabel
         %gm = OpIMul %ulong %s7 %l1000000
         %rk = OpIMul %ulong %s4 %l1000
         %v0 = OpIAdd %ulong %gm %rk
         %v1 = OpIAdd %ulong %v0 %gx
         %z1 = OpIAdd %ulong %s5 %s6
         %z2 = OpIAdd %ulong %z1 %s8
         %z3 = OpIAdd %ulong %z2 %s9
         %zz = OpIMul %ulong %z3 %l100000000
        %val = OpIAdd %ulong %v1 %zz
      %plane = OpIMul %ulong %s7 %s3
       %line = OpIAdd %ulong %plane %s4
     %rowoff = OpIMul %ulong %line %s1
        %idx = OpIAdd %ulong %rowoff %gx
        %off = OpIMul %ulong %idx %l8
         %oa = OpIAdd %ulong %s0 %off
         %op = OpConvertUToPtr %ptr_l %oa
               OpStore %op %val Aligned 8
               OpBranch %exit
)"));
}

// slots(out, 7 values), no dims: out[k] = slot k + 1 for the 7 values, so
// the test sees exactly what was pushed.
std::vector<uint32_t> slotsSpirv() {
  std::string Body = "%a1 = OpCopyObject %ulong %s0\n";
  for (unsigned K = 1; K <= 7; ++K) {
    std::string N = std::to_string(K), Next = std::to_string(K + 1);
    Body += "%q" + N + " = OpConvertUToPtr %ptr_l %a" + N + "\n";
    Body += "OpStore %q" + N + " %s" + N + " Aligned 8\n";
    Body += "%a" + Next + " = OpIAdd %ulong %a" + N + " %l8\n";
  }
  Body += "OpBranch %exit\n";
  return assemble(kernelText(8, "1 1 1", Body));
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Finding a device
//===----------------------------------------------------------------------===//

/// Whether this machine has a usable Vulkan device, and why not. Probes
/// without the runtime, so that death tests can still set the environment
/// their child runtime starts with.
bool vulkanAvailable(std::string &Why) {
  static const std::pair<bool, std::string> Result = [] {
    rt::ThreadPool Pool(1);
    rt::DiscoveryContext Ctx{Pool, [](void *) { return rt::MemorySpace(1); },
                             nullptr};
    std::vector<std::unique_ptr<rt::Device>> Found;
    std::string Reason = rt::discoverVulkanDevices(Ctx, VulkanOptions(), Found);
    return std::make_pair(!Found.empty(), Reason);
  }();
  Why = Result.second;
  return Result.first;
}

#define SKIP_WITHOUT_VULKAN()                                                  \
  do {                                                                         \
    std::string Why;                                                           \
    if (!vulkanAvailable(Why))                                                 \
      GTEST_SKIP() << "no Vulkan device: " << Why;                             \
  } while (0)

/// A Vulkan device of its own for each test (OwnDevice), with the staging
/// mode of the parameter.
class VulkanTest : public testing::TestWithParam<VulkanOptions::Staging> {
protected:
  void SetUp() override {
    SKIP_WITHOUT_VULKAN();
    VulkanOptions O;
    O.StagingMode = GetParam();
    ASSERT_NO_FATAL_FAILURE(
        Own.install(HPVM_TARGET_SPIRV,
                    [&](rt::DiscoveryContext &Ctx,
                        std::vector<std::unique_ptr<rt::Device>> &Found) {
                      return rt::discoverVulkanDevices(Ctx, O, Found);
                    }));
    Dev = static_cast<VulkanDevice *>(Own.Dev);
    if (GetParam() == VulkanOptions::Staging::Always) {
      EXPECT_TRUE(Dev->usesStaging());
    } else if (GetParam() == VulkanOptions::Staging::Never) {
      EXPECT_FALSE(Dev->usesStaging());
    }
  }

  OwnDevice Own;
  VulkanDevice *Dev = nullptr;
};

std::string
stagingName(const testing::TestParamInfo<VulkanOptions::Staging> &Info) {
  return Info.param == VulkanOptions::Staging::Always ? "ForcedStaging"
                                                      : "Preferred";
}

INSTANTIATE_TEST_SUITE_P(Memory, VulkanTest,
                         testing::Values(VulkanOptions::Staging::Auto,
                                         VulkanOptions::Staging::Always),
                         stagingName);

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

TEST_P(VulkanTest, VectorAddOnlySpirv) {
  Graph G = vaddGraph("vk_vadd");
  Program P({&G}, {{"vk_vadd", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  // Stats outlive devices: count from here.
  uint64_t Before = launchesByDevice("vk_vadd")[Dev->name()];
  for (uint64_t N : {1ull, 63ull, 64ull, 65ull, 100003ull})
    runVadd(P, "vk_vadd", N);
  EXPECT_EQ(launchesByDevice("vk_vadd")[Dev->name()] - Before, 5u);
  // No instances: nothing is launched, and nothing fails.
  runVadd(P, "vk_vadd", 0);
  EXPECT_EQ(Dev->counters().Dispatches, 5u);
}

TEST_P(VulkanTest, WorkGroupSizeComesFromTheModule) {
  // Were the ABI's 64 assumed, a 16-wide kernel would cover a quarter of
  // the elements.
  Graph G = vaddGraph("vk_vadd16");
  Program P({&G},
            {{"vk_vadd16", HPVM_TARGET_SPIRV, nullptr, vaddSpirv("16 1 1")}});
  runVadd(P, "vk_vadd16", 1000);
}

TEST_P(VulkanTest, GridsBeyondTheGroupCountLimitAreSplit) {
  uint32_t Limit = Dev->maxWorkGroups(0);
  uint64_t N = uint64_t(Limit) * 64 + 100;
  if (N > (uint64_t(1) << 25))
    GTEST_SKIP() << "maxComputeWorkGroupCount[0] = " << Limit
                 << " needs too large a test";
  Graph G = vaddGraph("vk_vadd_big");
  Program P({&G}, {{"vk_vadd_big", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  runVadd(P, "vk_vadd_big", N);
  EXPECT_EQ(Dev->counters().Dispatches, 2u);
}

TEST_P(VulkanTest, TwoDimensionalKernel) {
  Graph G("vk_grid", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "grid";
  R.addBuffer("in", Access::In, Extent::param(4));
  R.addBuffer("out", Access::Out, Extent::param(4));
  R.addValue("rows", ScalarType::I64);
  R.addValue("cols", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::param(2), Extent::param(3)});
  Program P({&G}, {{"vk_grid", HPVM_TARGET_SPIRV, nullptr, gridSpirv()}});
  for (auto [Rows, Cols] :
       {std::pair<int64_t, int64_t>{37, 29}, {8, 8}, {1, 100}, {100, 1}}) {
    std::vector<uint32_t> In(Rows * Cols), Out(Rows * Cols, 0xffffffffu);
    for (size_t I = 0; I != In.size(); ++I)
      In[I] = static_cast<uint32_t>(I * 7);
    uint32_t *PI = In.data(), *PO = Out.data();
    int64_t Bytes = static_cast<int64_t>(In.size() * 4);
    ASSERT_EQ(P.launch("vk_grid", {&PI, &PO, &Rows, &Cols, &Bytes}), HPVM_OK)
        << hpvm_error_message();
    for (int64_t Y = 0; Y != Rows; ++Y)
      for (int64_t X = 0; X != Cols; ++X)
        ASSERT_EQ(Out[Y * Cols + X], In[Y * Cols + X] + Y * 1000 + X)
            << Rows << "x" << Cols << " at " << Y << "," << X;
  }
}

TEST_P(VulkanTest, AncestorIdsAndConcurrentLaunches) {
  Graph G = ancestorRowsGraph("vk_rows");
  Program P({&G},
            {{"vk_rows/each/row", HPVM_TARGET_SPIRV, nullptr, rowSpirv()}});
  runAncestorRows(P, "vk_rows");
  EXPECT_EQ(Dev->counters().PipelinesCreated, 1u);
}

TEST_P(VulkanTest, ValuesSitInTheLowBytesOfTheirSlots) {
  // Seven slots for the values and one that must stay as it was. The
  // declared size comes from the host memory, which ends at a guard page:
  // a larger one would have the runtime's write-back overwrite whatever
  // follows (with a std::vector, the next heap chunk's header, and glibc
  // would abort at some later free, in one run out of ten or so).
  GuardedArray<uint64_t> Out(8, SlotValues::Untouched);
  Graph G = slotsGraph("vk_slots", Out.bytes());
  Program P({&G}, {{"vk_slots", HPVM_TARGET_SPIRV, nullptr, slotsSpirv()}});
  SlotValues V;
  ASSERT_EQ(V.launch(P, "vk_slots", Out.data()), HPVM_OK)
      << hpvm_error_message();
  // Nothing follows the values: a root leaf has no ancestors' ids.
  V.expectIn(Out);
}

//===----------------------------------------------------------------------===//
// Coherence, pipelines, pooling
//===----------------------------------------------------------------------===//

TEST_P(VulkanTest, CpuAndVulkanLeavesShareBuffers) {
  Graph G = mixedGraph("vk_mixed");
  Program P({&G}, mixedArts("vk_mixed", HPVM_TARGET_SPIRV, vaddSpirv()));
  const uint64_t N = 1000;
  for (int Launch = 0; Launch != 2; ++Launch) {
    VulkanDevice::Counters Before = Dev->counters();
    ASSERT_NO_FATAL_FAILURE(launchMixed(P, "vk_mixed", N));
    VulkanDevice::Counters After = Dev->counters();
    if (Dev->usesStaging()) {
      // Uploads ride with their launch, and so do the downloads of the
      // small results c and d: two submissions in all.
      EXPECT_EQ(After.StagingBytes - Before.StagingBytes,
                4 * N * sizeof(float));
      EXPECT_EQ(After.EagerDownloadBytes - Before.EagerDownloadBytes,
                2 * N * sizeof(float));
    } else {
      EXPECT_EQ(After.StagingBytes, 0u);
      EXPECT_EQ(After.EagerDownloadBytes, 0u);
    }
    EXPECT_EQ(After.Submits - Before.Submits, 2u);
    if (Launch == 1)
      expectBuffersReused(Before, After);
  }
  // Both adds share one module: one pipeline for four launches.
  EXPECT_EQ(Dev->counters().PipelinesCreated, 1u);
  EXPECT_EQ(Dev->counters().PipelineCacheHits, 3u);
}

TEST_P(VulkanTest, PipelineCacheHitOnTheSecondLaunch) {
  Graph G = vaddGraph("vk_cache");
  Program P({&G}, {{"vk_cache", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  runVadd(P, "vk_cache", 100);
  EXPECT_EQ(Dev->counters().PipelinesCreated, 1u);
  EXPECT_EQ(Dev->counters().PipelineCacheHits, 0u);
  runVadd(P, "vk_cache", 100);
  EXPECT_EQ(Dev->counters().PipelinesCreated, 1u);
  EXPECT_EQ(Dev->counters().PipelineCacheHits, 1u);

  // Another program with the same words (a new descriptor, a copy of the
  // code) still hits: the key is the module's content, not its address.
  Program Q({&G}, {{"vk_cache", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  runVadd(Q, "vk_cache", 100);
  EXPECT_EQ(Dev->counters().PipelinesCreated, 1u);
  EXPECT_EQ(Dev->counters().PipelineCacheHits, 2u);
}

//===----------------------------------------------------------------------===//
// Trace
//===----------------------------------------------------------------------===//

TEST_P(VulkanTest, TimestampsBecomeDeviceEventsInTheTrace) {
  if (!Dev->hasTimestamps())
    GTEST_SKIP() << Dev->name() << "'s queue has no timestamps";
  const uint64_t N = 100003;
  DeviceTrace Tr;
  ASSERT_NO_FATAL_FAILURE(traceDevice(
      "hpvm-rt-vk-trace", Dev->name(), "vk_traced",
      [&] {
        Graph G = vaddGraph("vk_traced");
        Program P({&G},
                  {{"vk_traced", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
        runVadd(P, "vk_traced", N);
      },
      Tr));
  EXPECT_TRUE(Tr.TrackNamed) << Tr.Text;
  ASSERT_FALSE(Tr.Hosts.empty()) << Tr.Text;
  ASSERT_FALSE(Tr.Kernels.empty()) << Tr.Text;
  const Json *Host = Tr.Hosts.back(), *Kernel = Tr.Kernels.back();
  EXPECT_EQ(Kernel->get("args")->get("instances")->Num, double(N));
  EXPECT_NE(Kernel->get("tid")->Num, Host->get("tid")->Num);
  expectInsideHostSpan(*Host, *Kernel, Tr.Text);
  if (Dev->usesStaging()) {
    ASSERT_FALSE(Tr.Uploads.empty()) << Tr.Text;
    EXPECT_EQ(Tr.Uploads.back()->get("args")->get("bytes")->Num, 3.0 * N * 4);
    ASSERT_FALSE(Tr.Downloads.empty()) << Tr.Text;
    EXPECT_EQ(Tr.Downloads.back()->get("args")->get("bytes")->Num, 1.0 * N * 4);
  } else {
    EXPECT_TRUE(Tr.Uploads.empty());
    EXPECT_TRUE(Tr.Downloads.empty());
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_P(VulkanTest, ParameterOverflowIsNotOfferedToTheDevice) {
  // One slot more than a parameter block may hold (SPIRVABI.h): the device
  // says it cannot run the leaf (Device::cannotRun), so no policy picks it
  // and, with no other device, the launch fails saying why. (Fewer than that
  // but more than the push constants go through memory: e2e wide-params.)
  unsigned Values = SPIRVMaxParamBlockBytes / 8 + 1;
  Graph G("vk_wide", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "wide";
  for (unsigned I = 0; I != Values; ++I)
    R.addValue("v" + std::to_string(I), ScalarType::I64);
  R.setDims({Extent::constant(4)});
  Program P({&G}, {{"vk_wide", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  std::vector<int64_t> V(Values, 1);
  std::vector<void *> Args;
  for (int64_t &X : V)
    Args.push_back(&X);
  expectError(P.launch("vk_wide", Args), HPVM_ERR_NO_DEVICE,
              Dev->name() + " cannot run it: needs " +
                  std::to_string(Values * 8) + " bytes of parameters (" +
                  std::to_string(Values) +
                  " parameters and 0 ancestor levels of 3 ids, 8 "
                  "bytes each), more than the 4096 a Vulkan kernel may "
                  "take");
  // The device is still fine.
  Graph H = vaddGraph("vk_after_overflow");
  Program Q({&H},
            {{"vk_after_overflow", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  runVadd(Q, "vk_after_overflow", 65);
}

TEST_P(VulkanTest, BadModulesAreReportedNotRun) {
  Graph G = vaddGraph("vk_bad");
  float A = 1, B = 2, C = 0;
  float *PA = &A, *PB = &B, *PC = &C;
  int64_t Bytes = 4, Count = 1;
  std::vector<void *> Args = {&PA, &PB, &PC, &Bytes, &Count};

  Program Garbage(
      {&G},
      {{"vk_bad", HPVM_TARGET_SPIRV, nullptr, {0xdeadbeef, 1, 2, 3, 4, 5}}});
  expectError(Garbage.launch("vk_bad", Args), HPVM_ERR_BAD_PROGRAM,
              "node 'vk_bad': the code is not a SPIR-V module (bad magic "
              "number)");

  std::vector<uint32_t> Cut = vaddSpirv();
  Cut.back() = 0xffff0000; // an instruction longer than the module
  Program Truncated({&G}, {{"vk_bad", HPVM_TARGET_SPIRV, nullptr, Cut}});
  expectError(Truncated.launch("vk_bad", Args), HPVM_ERR_BAD_PROGRAM,
              "the SPIR-V module is malformed");

  // What the SPIR-V backend's OpenCL flavour emits is not for Vulkan.
  std::vector<uint32_t> Kernel = assemble(R"(
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
)",
                                          SPV_ENV_OPENCL_2_1);
  Program OpenCL({&G}, {{"vk_bad", HPVM_TARGET_SPIRV, nullptr, Kernel}});
  expectError(OpenCL.launch("vk_bad", Args), HPVM_ERR_BAD_PROGRAM,
              "the module is OpenCL SPIR-V (capability Kernel); Vulkan runs "
              "Shader modules");

  Program NoEntry(
      {&G}, {{"vk_bad", HPVM_TARGET_SPIRV, nullptr, vaddSpirv(), "nope"}});
  expectError(NoEntry.launch("vk_bad", Args), HPVM_ERR_BAD_PROGRAM,
              "the SPIR-V module has no GLCompute entry point 'nope' (it has "
              "'main')");
  EXPECT_EQ(Dev->counters().PipelinesCreated, 0u);
}

TEST_P(VulkanTest, LeafOutputsAreUnsupported) {
  expectLeafOutputsRefused("vk_out", HPVM_TARGET_SPIRV, vaddSpirv(),
                           "leaves with outputs cannot run on Vulkan");
}

//===----------------------------------------------------------------------===//
// Discovery
//===----------------------------------------------------------------------===//

TEST(VulkanDiscovery, ChoiceOrderAndUnusableDevices) {
  auto Info = [](unsigned I, const char *Name, const char *Type,
                 const char *Unusable = "") {
    VulkanPhysicalInfo D;
    D.Index = I;
    D.Name = Name;
    D.Type = Type;
    D.Unusable = Unusable;
    return D;
  };
  std::vector<VulkanPhysicalInfo> All = {
      Info(0, "llvmpipe (LLVM 15)", "cpu"),
      Info(1, "Virtio GPU", "virtual"),
      Info(2, "Intel UHD 770", "integrated"),
      Info(3, "Old Discrete", "discrete", "no shaderInt64"),
      Info(4, "NVIDIA H100", "discrete"),
  };
  std::string Why;
  EXPECT_EQ(rt::chooseVulkanDevice(All, "", Why), 4);
  All[4].Unusable = "no bufferDeviceAddress";
  EXPECT_EQ(rt::chooseVulkanDevice(All, "", Why), 2);
  All[2].Unusable = "Vulkan 1.1, hpvm-rt needs 1.2";
  EXPECT_EQ(rt::chooseVulkanDevice(All, "", Why), 1);
  All[1].Unusable = "no compute queue";
  EXPECT_EQ(rt::chooseVulkanDevice(All, "", Why), 0);

  // By index or by name, case-insensitively.
  EXPECT_EQ(rt::chooseVulkanDevice(All, "0", Why), 0);
  EXPECT_EQ(rt::chooseVulkanDevice(All, "LLVMpipe", Why), 0);
  EXPECT_EQ(rt::chooseVulkanDevice(All, "h100", Why), -1);
  EXPECT_NE(Why.find("HPVM_VULKAN_DEVICE='h100' selects no usable device"),
            std::string::npos)
      << Why;
  EXPECT_NE(Why.find("4 'NVIDIA H100' (discrete): no bufferDeviceAddress"),
            std::string::npos)
      << Why;
  EXPECT_EQ(rt::chooseVulkanDevice(All, "7", Why), -1);
  EXPECT_NE(Why.find("HPVM_VULKAN_DEVICE='7' matches no device"),
            std::string::npos)
      << Why;

  All[0].Unusable = "no shaderInt64";
  EXPECT_EQ(rt::chooseVulkanDevice(All, "", Why), -1);
  EXPECT_NE(Why.find("no usable Vulkan device (0 'llvmpipe (LLVM 15)' (cpu): "
                     "no shaderInt64; 1 'Virtio GPU'"),
            std::string::npos)
      << Why;
  EXPECT_EQ(rt::chooseVulkanDevice({}, "", Why), -1);
  EXPECT_EQ(Why, "the Vulkan driver reports no physical devices");
}

rt::DiscoveryContext standaloneContext(rt::ThreadPool &Pool) {
  return rt::DiscoveryContext{Pool, [](void *) { return rt::MemorySpace(7); },
                              nullptr};
}

TEST(VulkanDiscovery, MissingLoaderMeansNoDevice) {
  rt::ThreadPool Pool(1);
  std::vector<std::unique_ptr<rt::Device>> Found;
  VulkanOptions O;
  O.Loader = "libhpvm-no-such-vulkan-loader.so.1";
  std::string Why =
      rt::discoverVulkanDevices(standaloneContext(Pool), O, Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_NE(Why.find("cannot load the Vulkan loader "
                     "'libhpvm-no-such-vulkan-loader.so.1'"),
            std::string::npos)
      << Why;

  // A library that is not a loader.
  O.Loader = "libc.so.6";
  Why = rt::discoverVulkanDevices(standaloneContext(Pool), O, Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_NE(Why.find("'libc.so.6' has no vkGetInstanceProcAddr"),
            std::string::npos)
      << Why;
}

TEST(VulkanDiscovery, SelectionByEnvironmentSettings) {
  SKIP_WITHOUT_VULKAN();
  rt::ThreadPool Pool(1);
  std::vector<std::unique_ptr<rt::Device>> Found;
  VulkanOptions O;
  O.Select = "hpvm-no-such-gpu";
  std::string Why =
      rt::discoverVulkanDevices(standaloneContext(Pool), O, Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_NE(Why.find("HPVM_VULKAN_DEVICE='hpvm-no-such-gpu' matches no device "
                     "(0 '"),
            std::string::npos)
      << Why;

  O = VulkanOptions();
  std::string Default =
      rt::discoverVulkanDevices(standaloneContext(Pool), O, Found);
  ASSERT_EQ(Found.size(), 1u) << Default;
  auto &First = static_cast<VulkanDevice &>(*Found[0]);
  EXPECT_EQ(First.name(),
            "vulkan:" + std::to_string(First.physicalDevice().Index));
  EXPECT_EQ(First.target(), HPVM_TARGET_SPIRV);
  EXPECT_EQ(First.memorySpace(), 7u);
  EXPECT_NE(First.description().find(First.physicalDevice().Name),
            std::string::npos);
  EXPECT_GE(First.maxPushConstantsSize(), 128u);

  // The same device by index and by a piece of its name.
  O.Select = std::to_string(First.physicalDevice().Index);
  std::vector<std::unique_ptr<rt::Device>> ByIndex, ByName;
  rt::discoverVulkanDevices(standaloneContext(Pool), O, ByIndex);
  ASSERT_EQ(ByIndex.size(), 1u);
  EXPECT_EQ(ByIndex[0]->name(), First.name());
  O.Select = First.physicalDevice().Name.substr(0, 4);
  rt::discoverVulkanDevices(standaloneContext(Pool), O, ByName);
  ASSERT_EQ(ByName.size(), 1u);

  O = VulkanOptions();
  O.Error = "HPVM_VULKAN_STAGING='sometimes' is not auto, always or never";
  std::vector<std::unique_ptr<rt::Device>> None;
  EXPECT_EQ(rt::discoverVulkanDevices(standaloneContext(Pool), O, None),
            O.Error);
  EXPECT_TRUE(None.empty());
}

TEST(VulkanOptions, FenceSpinFromTheEnvironment) {
  unsetenv("HPVM_VULKAN_SPIN_US");
  EXPECT_EQ(VulkanOptions::fromEnvironment().SpinMicros, -1);
  setenv("HPVM_VULKAN_SPIN_US", "0", 1);
  EXPECT_EQ(VulkanOptions::fromEnvironment().SpinMicros, 0);
  setenv("HPVM_VULKAN_SPIN_US", "250", 1);
  EXPECT_EQ(VulkanOptions::fromEnvironment().SpinMicros, 250);
  setenv("HPVM_VULKAN_SPIN_US", "-3", 1);
  EXPECT_EQ(VulkanOptions::fromEnvironment().Error,
            "HPVM_VULKAN_SPIN_US='-3' is not a number of microseconds from 0 "
            "to 1000000");
  unsetenv("HPVM_VULKAN_SPIN_US");
}

TEST(VulkanOptions, PollingTheFenceGivesTheSameResults) {
  SKIP_WITHOUT_VULKAN();
  // lavapipe blocks by default; polling first (the GPU default) must change
  // nothing but the wait, for kernels shorter and longer than the spin.
  for (int Spin : {1, 100000}) {
    OwnDevice Own;
    VulkanOptions O;
    O.SpinMicros = Spin;
    ASSERT_NO_FATAL_FAILURE(
        Own.install(HPVM_TARGET_SPIRV,
                    [&](rt::DiscoveryContext &Ctx,
                        std::vector<std::unique_ptr<rt::Device>> &Found) {
                      return rt::discoverVulkanDevices(Ctx, O, Found);
                    }));
    std::string Name = "vk_spin" + std::to_string(Spin);
    Graph G = vaddGraph(Name.c_str());
    Program P({&G}, {{Name.c_str(), HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
    for (uint64_t N : {1ull, 1000ull, 1000003ull})
      runVadd(P, Name.c_str(), N);
  }
}

// These start a runtime afresh under the environment they set (the
// threadsafe death-test style re-executes the binary), so they must not
// touch the runtime before EXPECT_EXIT. The children's bodies are functions
// because a macro argument cannot hold a declaration list's commas.

void runVaddOnVulkanOnly() {
  setenv("HPVM_DEVICES", "vulkan", 1);
  setenv("HPVM_DEVICES_STRICT", "1", 1);
  Graph G = vaddGraph("env_vadd");
  Program P({&G}, {{"env_vadd", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  runVadd(P, "env_vadd", 1000);
  hpvm_print_stats();
  std::exit(testing::Test::HasFailure() ? 3 : 0);
}

void runMixedOnCpuAndVulkan() {
  // Both kinds: the leaves with only a CPU artifact run on the CPU.
  setenv("HPVM_DEVICES", "cpu,vulkan", 1);
  setenv("HPVM_DEVICES_STRICT", "1", 1);
  Graph G = mixedGraph("env_mixed");
  Program P({&G}, mixedArts("env_mixed", HPVM_TARGET_SPIRV, vaddSpirv()));
  std::vector<float> A(10), B(10), C(10), D(10), E(10);
  float *PA = A.data(), *PB = B.data(), *PC = C.data(), *PD = D.data(),
        *PE = E.data();
  int64_t Count = 10, Bytes = 40;
  int Code = P.launch("env_mixed", {&PA, &PB, &PC, &PD, &PE, &Count, &Bytes});
  std::fprintf(stderr, "code %d e[9] %g\n", Code, E[9]);
  hpvm_print_stats();
  std::exit(0);
}

TEST(VulkanEnvironmentDeathTest, SelectedByHpvmDevices) {
  SKIP_WITHOUT_VULKAN();
  EXPECT_EXIT(runVaddOnVulkanOnly(), testing::ExitedWithCode(0),
              "devices: vulkan:[0-9]+ \\(.*env_vadd +vulkan:[0-9]+ +1 +1000");
  EXPECT_EXIT(runMixedOnCpuAndVulkan(), testing::ExitedWithCode(0),
              "code 0 e\\[9\\] 72\n.*devices: cpu .* vulkan:[0-9]+ ");
}

void discoverVulkanWhenASpirvProgramLoads() {
  // HPVM_DEVICES unset: a CPU-only program leaves Vulkan undiscovered; the
  // first SPIR-V programs, loaded from several threads at once, find it,
  // and every one of them runs on it (none launches before the device is
  // there), while the CPU-only program keeps launching as the device is
  // added.
  Graph C = vaddGraph("lazy_cpu_vadd");
  Program Cpu({&C}, {{"lazy_cpu_vadd", HPVM_TARGET_CPU, vaddCpuKernel}});
  runVadd(Cpu, "lazy_cpu_vadd", 100);
  Runtime &RT = Runtime::get();
  std::vector<std::string> Pending = RT.pendingDeviceKinds();
  std::string PendingText;
  for (const std::string &K : Pending)
    PendingText += (PendingText.empty() ? "" : ",") + K;
  std::fprintf(stderr, "before: devices %zu pending %s\n", RT.numDevices(),
               PendingText.c_str());

  constexpr int Threads = 4;
  std::vector<Graph> Graphs;
  std::vector<std::unique_ptr<Program>> Programs;
  std::vector<uint32_t> Words = vaddSpirv();
  for (int I = 0; I != Threads; ++I)
    Graphs.push_back(vaddGraph(("lazy_vadd" + std::to_string(I)).c_str()));
  for (int I = 0; I != Threads; ++I)
    Programs.push_back(std::make_unique<Program>(
        std::vector<const Graph *>{&Graphs[I]},
        std::vector<Art>{
            {Graphs[I].name(), HPVM_TARGET_SPIRV, nullptr, Words}}));
  // Two runners, so that one may recompute the graph's candidates while
  // the other's launch reads them.
  std::atomic<bool> Stop{false};
  std::vector<std::thread> Runners;
  for (int I = 0; I != 2; ++I)
    Runners.emplace_back([&] {
      while (!Stop.load())
        runVadd(Cpu, "lazy_cpu_vadd", 100);
    });
  std::atomic<int> Ready{0};
  std::vector<std::thread> Loaders;
  for (int I = 0; I != Threads; ++I)
    Loaders.emplace_back([&, I] {
      ++Ready;
      while (Ready.load() != Threads)
        std::this_thread::yield();
      runVadd(*Programs[I], Graphs[I].name().c_str(), 1000);
    });
  for (std::thread &T : Loaders)
    T.join();
  Stop = true;
  for (std::thread &T : Runners)
    T.join();
  std::fprintf(stderr, "after: %s devices %zu pending %zu\n",
               testing::Test::HasFailure() ? "failed" : "ok", RT.numDevices(),
               RT.pendingDeviceKinds().size());
  hpvm_print_stats();
  std::exit(0);
}

TEST(VulkanEnvironmentDeathTest, LazilyDiscoveredForSpirvPrograms) {
  SKIP_WITHOUT_VULKAN();
  EXPECT_EXIT(
      discoverVulkanWhenASpirvProgramLoads(), testing::ExitedWithCode(0),
      // CUDA stays pending: no program has a PTX artifact.
      "before: devices 1 pending cuda,vulkan,opencl\nafter: ok devices 2 "
      "pending 2\n.*devices: cpu .* vulkan:[0-9]+ .*lazy_vadd0 "
      "+vulkan:[0-9]+ +1 +1000");
}

void hideVulkanDrivers() {
  // The loader reads only these files, which do not exist: no driver.
  setenv("VK_ICD_FILENAMES", "/nonexistent/hpvm-no-icd.json", 1);
  setenv("VK_DRIVER_FILES", "/nonexistent/hpvm-no-icd.json", 1);
}

void launchWithoutDriversStrictly() {
  hideVulkanDrivers();
  setenv("HPVM_DEVICES", "cpu,vulkan", 1);
  setenv("HPVM_DEVICES_STRICT", "1", 1);
  Graph G = vaddGraph("nodrv");
  Program P({&G}, {{"nodrv", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  int Code = P.launch("nodrv", {});
  std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
  std::exit(0);
}

void launchWithoutDrivers() {
  // Not strict: a leaf with a CPU artifact too runs on the CPU, one with
  // only SPIR-V cannot run and says so.
  hideVulkanDrivers();
  Graph G = vaddGraph("nodrv"), H = vaddGraph("nodrv_spirv");
  Program P({&G, &H},
            {{"nodrv", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()},
             {"nodrv", HPVM_TARGET_CPU, vaddCpuKernel},
             {"nodrv_spirv", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  runVadd(P, "nodrv", 100);
  std::vector<float> A(4), B(4), C(4);
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  int64_t Bytes = 16, Count = 4;
  int Code = P.launch("nodrv_spirv", {&PA, &PB, &PC, &Bytes, &Count});
  std::fprintf(stderr, "%s code %d: %s\n",
               testing::Test::HasFailure() ? "failed" : "ok", Code,
               hpvm_error_message());
  std::exit(0);
}

void launchWithoutLoader() {
  setenv("HPVM_VULKAN_LOADER", "/nonexistent/libvulkan.so.1", 1);
  setenv("HPVM_DEVICES", "vulkan", 1);
  Graph G = vaddGraph("noloader");
  Program P({&G}, {{"noloader", HPVM_TARGET_SPIRV, nullptr, vaddSpirv()}});
  std::vector<float> A(4), B(4), C(4);
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  int64_t Bytes = 16, Count = 4;
  int Code = P.launch("noloader", {&PA, &PB, &PC, &Bytes, &Count});
  std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
  hpvm_print_stats();
  std::exit(0);
}

void launchWithBadStagingSetting() {
  setenv("HPVM_VULKAN_STAGING", "sometimes", 1);
  setenv("HPVM_DEVICES", "cpu", 1);
  Graph G = vaddGraph("badstaging");
  Program P({&G}, {{"badstaging", HPVM_TARGET_CPU, vaddCpuKernel}});
  int Code = P.launch("badstaging", {});
  std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
  std::exit(0);
}

TEST(VulkanEnvironmentDeathTest, BadSettingFailsLaunches) {
  // Like every HPVM_* setting, whether or not the kind is in use.
  EXPECT_EXIT(launchWithBadStagingSetting(), testing::ExitedWithCode(0),
              "code 8: HPVM_VULKAN_STAGING='sometimes' is not auto, always or "
              "never");
}

TEST(VulkanEnvironmentDeathTest, NoDriverMeansNoDevice) {
  EXPECT_EXIT(launchWithoutDriversStrictly(), testing::ExitedWithCode(0),
              "code 4: HPVM_DEVICES_STRICT: requested devices are missing: "
              "'vulkan' has no device: ");
  EXPECT_EXIT(launchWithoutDrivers(), testing::ExitedWithCode(0),
              "ok code 4: no device can run node 'nodrv_spirv': it has "
              "artifacts for spirv; available devices: cpu\n");
  EXPECT_EXIT(launchWithoutLoader(), testing::ExitedWithCode(0),
              "code 4: no device can run node 'noloader': it has artifacts "
              "for spirv; available devices: none; discovery: HPVM_DEVICES: "
              "'vulkan' has no device: cannot load the Vulkan loader "
              "'/nonexistent/libvulkan.so.1'");
}

} // namespace
