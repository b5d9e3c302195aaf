//===- SPIRVBackendTest.cpp - SPIR-V kernels built, validated and run -----===//
//
// Every kernel of the lit corpus (test/lit/spirv/Inputs: control flow,
// integer and float types, math, private arrays and constant tables,
// reductions, 1-3 dims) is compiled in both flavours and validated in
// process; the push-constant layout, capabilities, determinism and the
// diagnostics for unsupported IR are checked; and where a Vulkan 1.2 device
// with buffer device addresses exists (Mesa's lavapipe in CI), the Vulkan
// kernels are run on random data and compared with C++ references, with
// extents that are no multiple of the work-group size.
//
//===----------------------------------------------------------------------===//
#include "hpvm/backends/SPIRVBackend.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"

#include "IRTestSupport.h"
#include "SPIRVTestInputs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#ifdef HPVM_HAVE_VULKAN
#include "VulkanTestRunner.h"
#endif

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <variant>
#include <vector>

using namespace llvm;
using namespace hpvm;
using test::cfNestedReference;
using test::readInput;

namespace {

constexpr uint32_t CapShader = 1, CapInt64 = 11,
                   CapPhysicalStorageBufferAddresses = 5347, CapInt8 = 39,
                   CapInt16 = 22, CapFloat64 = 10, CapInt64Atomics = 12,
                   CapStorageBuffer8BitAccess = 4448,
                   CapStorageBuffer16BitAccess = 4433,
                   CapSignedZeroInfNanPreserve = 4466;

/// A module, its graphs and its kernels for one flavour.
struct Built {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::vector<Graph> Graphs;
  std::vector<SPIRVKernel> Kernels;
  /// buildSPIRVKernels' error, if it failed.
  std::string Error;

  const Node *node(StringRef Path) const {
    const Node *Found = nullptr;
    for (const Graph &G : Graphs)
      forEachNode(G.root(), [&](const Node &N) {
        if (N.path() == Path)
          Found = &N;
      });
    return Found;
  }
  const SPIRVKernel *kernel(StringRef Path) const {
    for (const SPIRVKernel &K : Kernels)
      if (K.NodePath == Path)
        return &K;
    return nullptr;
  }
};

/// Parses IR (region form, extracted here, unless GraphForm) and builds its
/// kernels. Parse or extraction failures fail the test.
std::unique_ptr<Built> build(StringRef IR, SPIRVFlavour Flavour,
                             bool GraphForm = false) {
  auto B = std::make_unique<Built>();
  std::string Diags;
  B->Ctx.setDiagnosticHandlerCallBack(
      [](const DiagnosticInfo *DI, void *Out) {
        std::string Msg;
        raw_string_ostream OS(Msg);
        DiagnosticPrinterRawOStream DP(OS);
        DI->print(DP);
        *static_cast<std::string *>(Out) += OS.str() + "\n";
      },
      &Diags);
  if (!test::parseGraphModule(B->Ctx, IR, "SPIRVBackendTest", GraphForm, B->M,
                              B->Graphs, &Diags))
    return B;
  SPIRVOptions Opts;
  Opts.Flavour = Flavour;
  auto K = buildSPIRVKernels(*B->M, Opts);
  if (!K)
    B->Error = toString(K.takeError());
  else
    B->Kernels = std::move(*K);
  return B;
}

const char *const Corpus[] = {
    "cf-nested.ll",      "cf-early.ll",    "cf-switch.ll", "cf-multiexit.ll",
    "cf-irreducible.ll", "closed-form.ll", "types.ll",     "math.ll",
    "tables.ll",         "reduce.ll",      "grid.ll"};

//===--------------------------------------------------------------------===//
// The ABI
//===--------------------------------------------------------------------===//

TEST(SPIRVABI, PushConstantLayout) {
  Graph G("g");
  Node &Root = G.root();
  Root.setDims({Extent::constant(3), Extent::constant(5)});
  Node &Mid = Root.addInternal("mid");
  Node &Leaf = Mid.addLeaf("k", "hpvm.node.g.mid.k");
  Leaf.addBuffer("a", Access::In, Extent::constant(16));
  Leaf.addValue("flag", ScalarType::I1);
  Leaf.addValue("x", ScalarType::F64);
  SPIRVPushConstantLayout L = spirvPushConstantLayout(Leaf);
  EXPECT_EQ(L.ParamOffsets, (std::vector<uint32_t>{0, 8, 16}));
  // Two ancestor levels: mid (level 1), then the root (level 2).
  EXPECT_EQ(L.OuterIdsOffsets, (std::vector<uint32_t>{24, 48}));
  EXPECT_EQ(L.Size, 72u);
  EXPECT_EQ(L.numSlots(), 9u);

  Graph Single("s", Node::Kind::Leaf);
  SPIRVPushConstantLayout LS = spirvPushConstantLayout(Single.root());
  EXPECT_TRUE(LS.ParamOffsets.empty());
  EXPECT_TRUE(LS.OuterIdsOffsets.empty());
  EXPECT_EQ(LS.Size, 0u);
}

TEST(SPIRVABI, LocalSizeAndIdComponents) {
  EXPECT_EQ(spirvLocalSize(0), (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(spirvLocalSize(1), (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(spirvLocalSize(2), (std::array<uint32_t, 3>{8, 8, 1}));
  EXPECT_EQ(spirvLocalSize(3), (std::array<uint32_t, 3>{4, 4, 4}));
  // The last (fastest) dim is x.
  EXPECT_EQ(spirvIdComponent(1, 0), 0u);
  EXPECT_EQ(spirvIdComponent(2, 1), 0u);
  EXPECT_EQ(spirvIdComponent(2, 0), 1u);
  EXPECT_EQ(spirvIdComponent(3, 0), 2u);
  EXPECT_EQ(getSPIRVEntryName("hpvm.node.g.a.b"), "hpvm.spirv.g.a.b");
  EXPECT_EQ(getSPIRVEntryName("other"), "hpvm.spirv.other");
}

//===--------------------------------------------------------------------===//
// Building and validating
//===--------------------------------------------------------------------===//

TEST(SPIRVBackend, CorpusValidatesInBothFlavours) {
  for (const char *Name : Corpus)
    for (SPIRVFlavour F : {SPIRVFlavour::Vulkan, SPIRVFlavour::OpenCL}) {
      SCOPED_TRACE(std::string(Name) + " " + toString(F));
      std::string IR = readInput(Name);
      auto B = build(IR, F);
      if (F == SPIRVFlavour::OpenCL && StringRef(Name) == "reduce.ll") {
        // `long` reductions need 64-bit atomics, which no OpenCL
        // environment of SPIRV-Tools allows.
        EXPECT_NE(B->Error.find("a 64-bit atomic access in the OpenCL "
                                "environment"),
                  std::string::npos)
            << B->Error;
        continue;
      }
      ASSERT_EQ(B->Error, "");
      ASSERT_FALSE(B->Kernels.empty());
      for (const SPIRVKernel &K : B->Kernels) {
        const Node *N = B->node(K.NodePath);
        ASSERT_NE(N, nullptr) << K.NodePath;
        EXPECT_EQ(K.Flavour, F);
        EXPECT_EQ(K.EntryName, getSPIRVEntryName(N->Function));
        EXPECT_EQ(K.LocalSize, spirvLocalSize(N->Dims.size()));
        EXPECT_EQ(K.Words.at(0), 0x07230203u);
        EXPECT_EQ(K.Words.at(1),
                  F == SPIRVFlavour::Vulkan ? 0x00010500u : 0x00010000u);
        if (Error E = validateSPIRV(K.Words, F))
          ADD_FAILURE() << K.NodePath << ": " << toString(std::move(E));
        auto Text = disassembleSPIRV(K.Words);
        ASSERT_TRUE(static_cast<bool>(Text)) << toString(Text.takeError());
        EXPECT_NE(Text->find("\"" + K.EntryName + "\""), std::string::npos);
        if (F == SPIRVFlavour::Vulkan) {
          EXPECT_NE(Text->find("OpEntryPoint GLCompute"), std::string::npos);
          EXPECT_NE(Text->find("PhysicalStorageBuffer64 GLSL450"),
                    std::string::npos);
        } else {
          EXPECT_NE(Text->find("OpEntryPoint Kernel"), std::string::npos);
          EXPECT_NE(Text->find("Physical64 OpenCL"), std::string::npos);
          EXPECT_EQ(Text->find("OpLoopMerge"), std::string::npos);
        }
      }
    }
}

TEST(SPIRVBackend, LeavesAFlavourCannotExpressCanBeLeftOut) {
  // Programs carry the OpenCL flavour besides the Vulkan one; a leaf only
  // Vulkan can express (64-bit atomics) is listed, not fatal (that others
  // beside it still compile, test/lit/c-frontend/opencl-target.test shows).
  auto B = build(readInput("reduce.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  std::vector<SkippedLeaf> Skipped;
  SPIRVOptions Opts;
  Opts.Flavour = SPIRVFlavour::OpenCL;
  Opts.Skipped = &Skipped;
  auto Kernels = buildSPIRVKernels(*B->M, Opts);
  ASSERT_TRUE(static_cast<bool>(Kernels)) << toString(Kernels.takeError());
  ASSERT_FALSE(Skipped.empty());
  for (const SkippedLeaf &S : Skipped) {
    EXPECT_NE(S.Why.find("a 64-bit atomic access in the OpenCL environment"),
              std::string::npos)
        << S.Why;
    // One line, for hpvm-rt's message; the leaf is named apart.
    EXPECT_EQ(S.Why.find('\n'), std::string::npos) << S.Why;
    EXPECT_FALSE(S.NodePath.empty());
  }
  EXPECT_EQ(Kernels->size() + Skipped.size(), B->Kernels.size());
  for (const SPIRVKernel &K : *Kernels)
    if (Error E = validateSPIRV(K.Words, SPIRVFlavour::OpenCL))
      ADD_FAILURE() << K.NodePath << ": " << toString(std::move(E));
  // Without the list the same leaf fails the build.
  Opts.Skipped = nullptr;
  auto Fails = buildSPIRVKernels(*B->M, Opts);
  EXPECT_FALSE(static_cast<bool>(Fails));
  if (!Fails)
    consumeError(Fails.takeError());
}

TEST(SPIRVBackend, ValidatorRejectsBrokenModules) {
  auto B = build(readInput("grid.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  std::vector<uint32_t> Words = B->Kernels.front().Words;
  Words.resize(Words.size() - 1); // drop OpFunctionEnd
  Error E = validateSPIRV(Words, SPIRVFlavour::Vulkan);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(toString(std::move(E)).find("not valid for Vulkan 1.2"),
            std::string::npos);
  // A Vulkan module is no OpenCL module.
  Error E2 = validateSPIRV(B->Kernels.front().Words, SPIRVFlavour::OpenCL);
  EXPECT_TRUE(static_cast<bool>(E2));
  consumeError(std::move(E2));
}

TEST(SPIRVBackend, Deterministic) {
  for (SPIRVFlavour F : {SPIRVFlavour::Vulkan, SPIRVFlavour::OpenCL}) {
    auto A = build(readInput("cf-nested.ll"), F);
    auto B = build(readInput("cf-nested.ll"), F);
    ASSERT_EQ(A->Error, "");
    ASSERT_EQ(A->Kernels.size(), B->Kernels.size());
    for (size_t K = 0; K < A->Kernels.size(); ++K)
      EXPECT_EQ(A->Kernels[K].Words, B->Kernels[K].Words);
  }
}

bool has(const std::vector<uint32_t> &Caps, uint32_t C) {
  return std::find(Caps.begin(), Caps.end(), C) != Caps.end();
}

TEST(SPIRVBackend, CapabilitiesFollowTheTypesUsed) {
  auto Grid = build(readInput("grid.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(Grid->Error, "");
  // Floats and 32-bit ints only: nothing beyond what addresses need, and
  // C's IEEE semantics for the floats.
  EXPECT_EQ(
      Grid->kernel("grid")->Capabilities,
      (std::vector<uint32_t>{CapShader, CapInt64, CapSignedZeroInfNanPreserve,
                             CapPhysicalStorageBufferAddresses}));

  auto Types = build(readInput("types.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(Types->Error, "");
  const std::vector<uint32_t> &C = Types->kernel("narrow")->Capabilities;
  for (uint32_t Want : {CapInt8, CapInt16, CapStorageBuffer8BitAccess,
                        CapStorageBuffer16BitAccess})
    EXPECT_TRUE(has(C, Want)) << Want;
  EXPECT_FALSE(has(C, CapFloat64));
  EXPECT_FALSE(has(C, CapInt64Atomics));
  EXPECT_TRUE(has(Types->kernel("wide")->Capabilities, CapFloat64));

  auto Reduce = build(readInput("reduce.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(Reduce->Error, "");
  EXPECT_TRUE(has(Reduce->kernel("reduce")->Capabilities, CapInt64Atomics));
}

//===--------------------------------------------------------------------===//
// Diagnostics
//===--------------------------------------------------------------------===//

/// A graph-form module with one 1-D leaf @hpvm.node.k(ptr %a, i64 %n) over
/// n whose body (after %i, the id) is Body; Decls go before it.
std::string leafModule(StringRef Body, StringRef Decls = "") {
  return (Twine(Decls) + R"(
declare i64 @hpvm.instance.id(i32, i32) memory(none)
define internal void @hpvm.node.k(ptr %a, i64 %n) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %p = getelementptr inbounds float, ptr %a, i64 %i
)" + Body +
          R"(
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 1}
!4 = !{!5, !6}
!5 = !{!"buffer", !"a", !"inout", i64 4096}
!6 = !{!"value", !"n", !"i64"}
)")
      .str();
}

std::string errorOf(StringRef IR, SPIRVFlavour F = SPIRVFlavour::Vulkan) {
  auto B = build(IR, F, /*GraphForm=*/true);
  return B->Error;
}

TEST(SPIRVBackend, UnsupportedIRIsDiagnosed) {
  struct Case {
    const char *Decls, *Body, *Expect;
  } Cases[] = {
      {"declare i32 @printf(ptr, ...)\n@.s = private constant [3 x i8] "
       "c\"x\\0A\\00\"\n",
       "  %r = call i32 (ptr, ...) @printf(ptr @.s)",
       "cannot compile a call to the external function '@printf'"},
      {"declare double @sinh(double)\n",
       "  %v = load float, ptr %p\n  %d = fpext float %v to double\n"
       "  %e = call double @sinh(double %d)\n  %f = fptrunc double %e to "
       "float\n  store float %f, ptr %p",
       "sinh on double: GLSL.std.450 has it for 16- and 32-bit floats only"},
      {"",
       "  %v = load i64, ptr %p\n  %w = zext i64 %v to i128\n"
       "  %m = mul i128 %w, %w\n  %h = lshr i128 %m, 64\n"
       "  %t = trunc i128 %h to i64\n  store i64 %t, ptr %p",
       "the type i128"},
      {"@g = global float 1.0\n",
       "  %v = load float, ptr @g\n  store float %v, ptr %p",
       "the mutable global @g"},
      {"", "  %x = alloca i32\n  store ptr %x, ptr %p",
       "storing the address of a private variable"},
      {"", "  call void @llvm.trap()", "a trap"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Expect);
    std::string E = errorOf(leafModule(C.Body, C.Decls));
    EXPECT_NE(E.find(C.Expect), std::string::npos) << E;
    // The node and the leaf function are named, and the instruction.
    EXPECT_NE(E.find("node 'k' (leaf function '@hpvm.node.k')"),
              std::string::npos)
        << E;
    EXPECT_NE(E.find("\n  at:"), std::string::npos) << E;
  }
  // The OpenCL environment has exp on doubles.
  EXPECT_EQ(errorOf(leafModule("  %v = load float, ptr %p\n  %d = fpext "
                               "float %v to double\n  %e = call double "
                               "@exp(double %d)\n  %f = fptrunc double %e "
                               "to float\n  store float %f, ptr %p",
                               "declare double @exp(double)\n"),
                    SPIRVFlavour::OpenCL),
            "");
}

TEST(SPIRVBackend, RecursionIsDiagnosed) {
  std::string IR = leafModule("  %v = load float, ptr %p\n  %r = call float "
                              "@f(float %v)\n  store float %r, ptr %p",
                              R"(
define internal float @f(float %x) {
  %c = fcmp olt float %x, 1.0
  br i1 %c, label %done, label %again
again:
  %h = fmul float %x, 0.5
  %r = call float @f(float %h)
  ret float %r
done:
  ret float %x
}
)");
  std::string E = errorOf(IR);
  EXPECT_NE(E.find("a recursive call to '@f'"), std::string::npos) << E;
}

TEST(SPIRVBackend, LeafWithOutputsIsDiagnosed) {
  std::string IR = R"(
define internal i32 @hpvm.node.one(ptr %a) {
  %v = load i32, ptr %a
  ret i32 %v
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"one", !1}
!1 = !{!"hpvm.node", !"name", !"one", !"kind", !"leaf", !"function", ptr @hpvm.node.one, !"params", !2, !"outputs", !4}
!2 = !{!3}
!3 = !{!"buffer", !"a", !"in", i64 4}
!4 = !{!5}
!5 = !{!"r", !"i32"}
)";
  std::string E = errorOf(IR);
  EXPECT_NE(E.find("node 'one': a leaf with outputs is not supported by the "
                   "spirv backend"),
            std::string::npos)
      << E;
}

TEST(SPIRVBackend, OnlySpirvLeavesAreCompiled) {
  std::string IR = leafModule("  %v = load float, ptr %p\n  store float %v, "
                              "ptr %p");
  std::string CPUOnly = IR;
  size_t At = CPUOnly.find("!\"params\", !4}");
  ASSERT_NE(At, std::string::npos);
  CPUOnly.insert(At + strlen("!\"params\", !4"), ", !\"targets\", !\"cpu\"");
  auto B = build(CPUOnly, SPIRVFlavour::Vulkan, /*GraphForm=*/true);
  EXPECT_EQ(B->Error, "");
  EXPECT_TRUE(B->Kernels.empty());
}

//===--------------------------------------------------------------------===//
// Running on a Vulkan device
//===--------------------------------------------------------------------===//

#ifdef HPVM_HAVE_VULKAN

using test::VulkanTestRunner;
using Arg = std::variant<VulkanTestRunner::Buffer *, int64_t, double>;

/// Fills the push-constant slots of K's node from named arguments; a value
/// parameter "x.bytes" defaults to the size of buffer "x".
std::vector<uint8_t> slots(const Node &N,
                           const std::map<std::string, Arg> &Args,
                           std::array<uint64_t, 3> Extents,
                           const std::vector<uint64_t> &OuterIds = {}) {
  SPIRVPushConstantLayout L = spirvPushConstantLayout(N);
  std::vector<uint8_t> S(L.Size, 0);
  for (auto [I, P] : enumerate(N.Params)) {
    uint8_t *At = &S[L.ParamOffsets[I]];
    auto It = Args.find(P.Name);
    if (It == Args.end()) {
      StringRef Name(P.Name);
      auto Buf = Args.find(Name.drop_back(6).str());
      if (Name.ends_with(".bytes") && Buf != Args.end() &&
          std::holds_alternative<VulkanTestRunner::Buffer *>(Buf->second)) {
        uint64_t Bytes =
            std::get<VulkanTestRunner::Buffer *>(Buf->second)->Bytes;
        std::memcpy(At, &Bytes, 8);
        continue;
      }
      ADD_FAILURE() << "no argument for parameter " << P.Name;
      continue;
    }
    if (P.isBuffer()) {
      uint64_t Address =
          std::get<VulkanTestRunner::Buffer *>(It->second)->Address;
      std::memcpy(At, &Address, 8);
      continue;
    }
    switch (P.Type) {
    case ScalarType::F32: {
      float V = static_cast<float>(std::get<double>(It->second));
      std::memcpy(At, &V, 4);
      break;
    }
    case ScalarType::F64: {
      double V = std::get<double>(It->second);
      std::memcpy(At, &V, 8);
      break;
    }
    case ScalarType::I1: {
      uint32_t V = std::get<int64_t>(It->second) != 0;
      std::memcpy(At, &V, 4);
      break;
    }
    default: {
      // Little-endian: the low bytes of the 64-bit value are the value.
      int64_t V = std::get<int64_t>(It->second);
      std::memcpy(At, &V, 8);
      break;
    }
    }
  }
  for (size_t K = 0; K < OuterIds.size() && !L.OuterIdsOffsets.empty(); ++K)
    std::memcpy(&S[L.OuterIdsOffsets[0] + 8 * K], &OuterIds[K], 8);
  return S;
}

class SPIRVRun : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Reason;
    R = VulkanTestRunner::get(Reason);
    if (!R)
      GTEST_SKIP() << "no usable Vulkan device: " << Reason;
  }

  /// Builds Input's Vulkan kernel for Node, runs it over Extents with Args.
  void run(const Built &B, StringRef Node,
           const std::map<std::string, Arg> &Args,
           std::array<uint64_t, 3> Extents,
           const std::vector<uint64_t> &OuterIds = {}) {
    const SPIRVKernel *K = B.kernel(Node);
    ASSERT_NE(K, nullptr) << Node.str();
    if (!R->supportsCapabilities(K->Capabilities))
      GTEST_SKIP() << R->deviceName() << " lacks a capability of "
                   << Node.str();
    const hpvm::Node *N = B.node(Node);
    if (spirvPushConstantLayout(*N).Size > R->maxPushConstantsSize())
      GTEST_SKIP() << Node.str() << " needs more push constants than "
                   << R->deviceName() << " has";
    std::string Err =
        R->run(*K, slots(*N, Args, Extents, OuterIds), Extents, N->Dims.size());
    ASSERT_EQ(Err, "");
  }

  template <typename T>
  VulkanTestRunner::Buffer &upload(const std::vector<T> &V) {
    VulkanTestRunner::Buffer &Buf = R->buffer(V.size() * sizeof(T));
    if (!V.empty())
      std::memcpy(Buf.Data, V.data(), V.size() * sizeof(T));
    return Buf;
  }
  template <typename T>
  std::vector<T> download(VulkanTestRunner::Buffer &Buf, size_t N) {
    std::vector<T> V(N);
    if (N)
      std::memcpy(V.data(), Buf.Data, N * sizeof(T));
    return V;
  }

  VulkanTestRunner *R = nullptr;
  std::mt19937 Rng{1234};
};

TEST_F(SPIRVRun, VectorAddAtOddSizes) {
  std::string IR =
      leafModule(R"(  %pb = getelementptr inbounds float, ptr %p, i64 1024
  %x = load float, ptr %p, align 4
  %y = load float, ptr %pb, align 4
  %s = fadd float %x, %y
  %pc = getelementptr inbounds float, ptr %p, i64 2048
  store float %s, ptr %pc, align 4)");
  auto B = build(IR, SPIRVFlavour::Vulkan, /*GraphForm=*/true);
  ASSERT_EQ(B->Error, "");
  for (uint64_t N : {0, 1, 63, 64, 65, 1000}) {
    std::vector<float> Data(3072, -1.0f);
    for (uint64_t I = 0; I < 2048; ++I)
      Data[I] = static_cast<float>(I % 97) * 0.5f;
    auto &Buf = upload(Data);
    run(*B, "k", {{"a", &Buf}, {"n", int64_t(N)}}, {N, 1, 1});
    std::vector<float> Out = download<float>(Buf, 3072);
    for (uint64_t I = 0; I < 1024; ++I)
      ASSERT_EQ(Out[2048 + I], I < N ? Data[I] + Data[1024 + I] : -1.0f)
          << "n = " << N << ", i = " << I;
  }
}

TEST_F(SPIRVRun, NestedLoopsWithBreakAndContinue) {
  auto B = build(readInput("cf-nested.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 777, M = 9;
  std::uniform_int_distribution<int> D(-2, 40);
  std::vector<int> A(N * M), Bv(64), Out(N, 12345);
  for (int &V : A)
    V = D(Rng) < 0 && D(Rng) < 5 ? -1 : D(Rng);
  for (int &V : Bv)
    V = D(Rng) % 9 - 1;
  auto &BA = upload(A), &BB = upload(Bv), &BO = upload(Out);
  run(*B, "nested",
      {{"a", &BA},
       {"b", &BB},
       {"out", &BO},
       {"n", int64_t(N)},
       {"m", int64_t(M)}},
      {uint64_t(N), 1, 1});
  std::vector<int> Got = download<int>(BO, N);
  for (int I = 0; I < N; I++)
    ASSERT_EQ(Got[I], cfNestedReference(A.data(), Bv.data(), M, I))
        << "i = " << I;
}

float settle(float X, const float *Lim) {
  for (int K = 0; K < 100; K++) {
    if (X > Lim[0])
      return static_cast<float>(K);
    if (X == Lim[1])
      return -X;
    X = X * 2 + 1;
  }
  return X;
}

TEST_F(SPIRVRun, EarlyReturns) {
  auto B = build(readInput("cf-early.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 300;
  std::vector<float> A(N), Lim{500.0f, 15.0f}, Out(N, 0);
  for (int I = 0; I < N; I++)
    A[I] = static_cast<float>(I % 41 - 10);
  auto &BA = upload(A), &BL = upload(Lim), &BO = upload(Out);
  run(*B, "early", {{"a", &BA}, {"lim", &BL}, {"out", &BO}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  std::vector<float> Got = download<float>(BO, N);
  for (int I = 0; I < N; I++)
    ASSERT_EQ(Got[I], A[I] < 0 ? -1.0f : settle(A[I], Lim.data()))
        << "i = " << I;
}

TEST_F(SPIRVRun, Switch) {
  auto B = build(readInput("cf-switch.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 500;
  std::vector<int> A(N), Out(N);
  std::uniform_int_distribution<int> D(-1000, 1000);
  for (int &V : A)
    V = D(Rng);
  auto &BA = upload(A), &BO = upload(Out);
  run(*B, "sw", {{"a", &BA}, {"out", &BO}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  std::vector<int> Got = download<int>(BO, N);
  for (int I = 0; I < N; I++) {
    int V = A[I], R;
    switch (V & 15) {
    case 0:
      R = 10;
      break;
    case 1:
      R = V * 3;
      break;
    case 2:
    case 3:
      R = V - 7;
      break;
    case 5:
      V = -V;
      [[fallthrough]];
    case 6:
      R = V ^ 0x55;
      break;
    case 9:
      R = A[(I + 1) % N];
      break;
    default:
      R = 0;
    }
    ASSERT_EQ(Got[I], R) << "i = " << I;
  }
}

TEST_F(SPIRVRun, MultiExitLoop) {
  auto B = build(readInput("cf-multiexit.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 333, M = 13;
  std::vector<int> A(N * M), Out(N);
  std::uniform_int_distribution<int> D(-3, 60);
  for (int &V : A)
    V = D(Rng);
  auto &BA = upload(A), &BO = upload(Out);
  run(*B, "multiexit",
      {{"a", &BA}, {"out", &BO}, {"n", int64_t(N)}, {"m", int64_t(M)}},
      {uint64_t(N), 1, 1});
  std::vector<int> Got = download<int>(BO, N);
  for (int I = 0; I < N; I++) {
    int Found = -1;
    for (int J = 0; J < M; J++) {
      int V = A[I * M + J];
      if (V == 42) {
        Found = J;
        break;
      }
      if (V == 7) {
        Found = -2 - J;
        break;
      }
      if (V < 0) {
        Found = V;
        break;
      }
    }
    ASSERT_EQ(Got[I], Found) << "i = " << I;
  }
}

TEST_F(SPIRVRun, IrreducibleCycle) {
  auto B = build(readInput("cf-irreducible.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 400;
  std::vector<int> A(N), Out(N);
  for (int I = 0; I < N; I++)
    A[I] = I * 37 % 2000 - 100;
  auto &BA = upload(A), &BO = upload(Out);
  run(*B, "irreducible",
      {{"a", &BA}, {"out", &BO}, {"n", int64_t(N)}, {"bytes", int64_t(4 * N)}},
      {uint64_t(N), 1, 1});
  std::vector<int> Got = download<int>(BO, N);
  for (int I = 0; I < N; I++) {
    int X = A[I], C = 0;
    bool InA = X & 1;
    while (true) {
      ++C;
      if (InA) {
        X = X * 3 + 1;
        if (X > 1000 || C > 50)
          break;
        InA = false;
      } else {
        X /= 2;
        if (X < 10 || C > 50)
          break;
        InA = X & 4;
      }
    }
    ASSERT_EQ(Got[I], 100 * X + C) << "i = " << I;
  }
}

TEST_F(SPIRVRun, OddIntegerWidths) {
  auto B = build(readInput("closed-form.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 100;
  std::vector<int> A(N), Out(N);
  for (int I = 0; I < N; I++)
    A[I] = I < 90 ? I * 1000 - 5 : 65536 + I;
  auto &BA = upload(A), &BO = upload(Out);
  run(*B, "tri", {{"a", &BA}, {"out", &BO}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  std::vector<int> Got = download<int>(BO, N);
  for (int I = 0; I < N; I++) {
    uint32_t Acc = 0; // wraps like the kernel's int
    for (int K = 0; K < A[I]; K++)
      Acc += K;
    ASSERT_EQ(Got[I], static_cast<int>(Acc)) << "i = " << I;
  }
}

TEST_F(SPIRVRun, SmallAndWideTypes) {
  auto B = build(readInput("types.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 257;
  std::vector<int8_t> A(N);
  std::vector<int16_t> Bv(N), O2(N);
  std::vector<int64_t> C(N), O(N);
  std::vector<uint8_t> U(N), O3(N);
  std::vector<double> Dv(N), OD(N);
  std::uniform_int_distribution<int64_t> D(-(int64_t(1) << 40), int64_t(1)
                                                                    << 40);
  for (int I = 0; I < N; I++) {
    A[I] = static_cast<int8_t>(D(Rng));
    Bv[I] = static_cast<int16_t>(D(Rng));
    C[I] = D(Rng);
    U[I] = static_cast<uint8_t>(D(Rng));
    Dv[I] = static_cast<double>(D(Rng)) / 7.0;
  }
  auto &BA = upload(A), &BB = upload(Bv), &BU = upload(U), &BO2 = upload(O2),
       &BO3 = upload(O3);
  int16_t S = -3;
  run(*B, "narrow",
      {{"a", &BA},
       {"b", &BB},
       {"u", &BU},
       {"o2", &BO2},
       {"o3", &BO3},
       {"n", int64_t(N)},
       {"s", int64_t(S)}},
      {uint64_t(N), 1, 1});
  auto GO2 = download<int16_t>(BO2, N);
  auto GO3 = download<uint8_t>(BO3, N);
  for (int I = 0; I < N; I++) {
    ASSERT_EQ(GO2[I], (int16_t)(Bv[I] * S + (Bv[I] >> 2))) << "i = " << I;
    ASSERT_EQ(GO3[I], (uint8_t)(A[I] ^ U[I]) / 3) << "i = " << I;
  }

  for (int Flag : {0, 1}) {
    auto &BC = upload(C), &BD = upload(Dv), &BO = upload(O), &BOD = upload(OD);
    run(*B, "wide",
        {{"a", &BA},
         {"c", &BC},
         {"u", &BU},
         {"d", &BD},
         {"o", &BO},
         {"od", &BOD},
         {"n", int64_t(N)},
         {"flag", int64_t(Flag)}},
        {uint64_t(N), 1, 1});
    auto GO = download<int64_t>(BO, N);
    auto GOD = download<double>(BOD, N);
    for (int I = 0; I < N; I++) {
      int64_t X = A[I] * C[I] + C[I] / (U[I] + 1) - C[I] % 7 + (C[I] >> 3) +
                  (int64_t)((uint64_t)C[I] >> 5);
      if (Flag)
        X = -X;
      ASSERT_EQ(GO[I], X < 0 ? -X : X) << "i = " << I;
      ASSERT_EQ(GOD[I], Dv[I] * 0.5 + (double)X - (double)(U[I] % 5))
          << "i = " << I;
    }
  }
}

TEST_F(SPIRVRun, MathFunctions) {
  auto B = build(readInput("math.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 200;
  std::vector<float> A(N), O(N);
  std::vector<double> Dv(N), OD(N);
  for (int I = 0; I < N; I++) {
    A[I] = (I - 100) * 0.173f;
    Dv[I] = (I - 100) * 0.371;
  }
  // Halves, where C's round and round-to-even differ.
  A[0] = 2.5f;
  A[1] = -2.5f;
  Dv[0] = 0.5;
  Dv[1] = -3.5;
  auto &BA = upload(A), &BD = upload(Dv), &BO = upload(O), &BOD = upload(OD);
  run(*B, "math",
      {{"a", &BA}, {"d", &BD}, {"o", &BO}, {"od", &BOD}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  auto GO = download<float>(BO, N);
  auto GOD = download<double>(BOD, N);
  for (int I = 0; I < N; I++) {
    float X = A[I];
    float Want = sqrtf(fabsf(X)) + expf(X * 0.1f) + logf(fabsf(X) + 2.0f) +
                 powf(fabsf(X), 1.5f) + fminf(X, 0.5f) + fmaxf(X, -0.5f) +
                 floorf(X) + ceilf(X) + roundf(X) + truncf(X) + sinf(X) +
                 cosf(X) + tanhf(X) + log10f(fabsf(X) + 3) + exp2f(X * 0.1f) +
                 log2f(fabsf(X) + 4) + fmodf(X, 0.7f) + copysignf(1.0f, X) +
                 atan2f(X, 2.0f);
    EXPECT_NEAR(GO[I], Want, 1e-3 * std::max(1.0f, fabsf(Want))) << "x = " << X;
    double Y = Dv[I];
    double WantD = sqrt(fabs(Y)) + floor(Y) + ceil(Y) + fmin(Y, 1.0) +
                   fmax(Y, 2.0) + fma(Y, Y, 1.0) + trunc(Y) + round(Y);
    EXPECT_NEAR(GOD[I], WantD, 1e-12 * std::max(1.0, fabs(WantD)))
        << "y = " << Y;
  }
}

TEST_F(SPIRVRun, ConstantTableAndPrivateArray) {
  auto B = build(readInput("tables.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 150;
  std::vector<float> In(N), Out(N);
  for (int I = 0; I < N; I++)
    In[I] = static_cast<float>((I * 7) % 13);
  auto &BI = upload(In), &BO = upload(Out);
  run(*B, "blur", {{"in", &BI}, {"out", &BO}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  const float W[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
  auto Got = download<float>(BO, N);
  for (int I = 0; I < N; I++) {
    float Acc = 0;
    for (int K = -2; K <= 2; K++)
      if (I + K >= 0 && I + K < N)
        Acc += W[K + 2] * In[I + K];
    ASSERT_NEAR(Got[I], Acc, 1e-5f) << "i = " << I;
  }

  std::vector<int> Data(N), Diffs(N);
  for (int I = 0; I < N; I++)
    Data[I] = I * 37 + 5;
  auto &BD = upload(Data), &BF = upload(Diffs);
  run(*B, "lut", {{"in", &BD}, {"out", &BF}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  auto GotF = download<int>(BF, N);
  for (int I = 0; I < N; I++) {
    int Lo = Data[I] & 15, Hi = (Data[I] >> 4) & 15;
    ASSERT_EQ(GotF[I], Lo * Lo - Hi * Hi) << "i = " << I;
  }

  std::vector<int> Vals(N), Modes(N);
  for (int I = 0; I < N; I++)
    Vals[I] = static_cast<int>((I * 2654435761u) >> 7);
  auto &BV = upload(Vals), &BM = upload(Modes);
  run(*B, "mode", {{"in", &BV}, {"out", &BM}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  auto GotM = download<int>(BM, N);
  for (int I = 0; I < N; I++) {
    int Hist[8] = {0};
    for (int K = 0; K < 16; K++)
      Hist[(Vals[I] >> K) & 7]++;
    int Best = 0;
    for (int K = 1; K < 8; K++)
      if (Hist[K] > Hist[Best])
        Best = K;
    ASSERT_EQ(GotM[I], Best) << "i = " << I;
  }
}

TEST_F(SPIRVRun, ReductionsThroughAtomics) {
  auto B = build(readInput("reduce.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 1000;
  std::vector<float> F(N);
  std::vector<int> V(N);
  for (int I = 0; I < N; I++) {
    F[I] = static_cast<float>(I % 10) * 0.25f; // exact sums in any order
    V[I] = (I * 7919) % 1000 - 500;
  }
  auto &BF = upload(F), &BV = upload(V);
  auto &Sum = upload(std::vector<int64_t>{0});
  auto &FSum = upload(std::vector<float>{0.0f});
  auto &Prod = upload(std::vector<double>{1.0});
  auto &Lo = upload(std::vector<int>{1 << 30});
  auto &FMax = upload(std::vector<float>{-1e30f});
  run(*B, "reduce",
      {{"f", &BF},
       {"v", &BV},
       {"n", int64_t(N)},
       {"sum", &Sum},
       {"fsum", &FSum},
       {"prod", &Prod},
       {"lo", &Lo},
       {"fmx", &FMax}},
      {uint64_t(N), 1, 1});
  int64_t WantSum = 0;
  float WantF = 0, WantMax = -1e30f;
  int WantLo = 1 << 30;
  double WantProd = 1;
  for (int I = 0; I < N; I++) {
    WantSum += V[I];
    WantF += F[I];
    WantLo = std::min(WantLo, V[I]);
    WantMax = std::max(WantMax, F[I]);
    WantProd *= 1.0001;
  }
  EXPECT_EQ(download<int64_t>(Sum, 1)[0], WantSum);
  EXPECT_EQ(download<float>(FSum, 1)[0], WantF);
  EXPECT_EQ(download<int>(Lo, 1)[0], WantLo);
  EXPECT_EQ(download<float>(FMax, 1)[0], WantMax);
  EXPECT_NEAR(download<double>(Prod, 1)[0], WantProd, 1e-9);
}

TEST_F(SPIRVRun, TwoAndThreeDims) {
  auto B = build(readInput("grid.ll"), SPIRVFlavour::Vulkan);
  ASSERT_EQ(B->Error, "");
  int N = 13, M = 21;
  std::vector<float> A(N * M), C(N * M, -1);
  for (int I = 0; I < N * M; I++)
    A[I] = static_cast<float>(I % 17);
  auto &BA = upload(A), &BC = upload(C);
  run(*B, "grid",
      {{"a", &BA}, {"c", &BC}, {"n", int64_t(N)}, {"m", int64_t(M)}},
      {uint64_t(N), uint64_t(M), 1});
  auto Got = download<float>(BC, N * M);
  for (int I = 0; I < N; I++)
    for (int J = 0; J < M; J++)
      ASSERT_EQ(Got[I * M + J], A[I * M + J] * 2 + I - J)
          << "i = " << I << ", j = " << J;

  int P = 7, Q = 5, S = 9;
  auto &Cube = upload(std::vector<int>(P * Q * S, -1));
  run(*B, "cube",
      {{"c", &Cube}, {"n", int64_t(P)}, {"m", int64_t(Q)}, {"p", int64_t(S)}},
      {uint64_t(P), uint64_t(Q), uint64_t(S)});
  auto GotC = download<int>(Cube, P * Q * S);
  for (int I = 0; I < P; I++)
    for (int J = 0; J < Q; J++)
      for (int K = 0; K < S; K++)
        ASSERT_EQ(GotC[(I * Q + J) * S + K], I * 10000 + J * 100 + K);
}

TEST_F(SPIRVRun, VectorsHalvesAndStructCopies) {
  // The legalise.ll kernel: a[i] (a <4 x float>) = v + reverse(v) with
  // element 0 replaced by element i & 3; h[i] *= 2 (half); s[i] = s[0] (a
  // 24-byte struct, by memcpy).
  auto B = build(readInput("../legalise.ll"), SPIRVFlavour::Vulkan,
                 /*GraphForm=*/true);
  ASSERT_EQ(B->Error, "");
  int N = 70;
  std::vector<float> A(4 * N);
  std::vector<uint16_t> H(N);
  std::vector<uint64_t> S(3 * N);
  for (int I = 0; I < 4 * N; I++)
    A[I] = static_cast<float>(I % 23);
  for (int I = 0; I < N; I++)
    H[I] = static_cast<uint16_t>(0x3c00 + (I % 8) * 0x100); // 1.0, 2.0, ...
  for (int I = 0; I < 3 * N; I++)
    S[I] = I * 0x0101010101ull;
  auto &BA = upload(A), &BH = upload(H), &BS = upload(S);
  run(*B, "k", {{"a", &BA}, {"h", &BH}, {"s", &BS}, {"n", int64_t(N)}},
      {uint64_t(N), 1, 1});
  auto GA = download<float>(BA, 4 * N);
  auto GH = download<uint16_t>(BH, N);
  auto GS = download<uint64_t>(BS, 3 * N);
  for (int I = 0; I < N; I++) {
    float V[4], Sum[4];
    for (int K = 0; K < 4; K++)
      V[K] = A[4 * I + K];
    for (int K = 0; K < 4; K++)
      Sum[K] = V[K] + V[3 - K];
    Sum[0] = Sum[I & 3];
    for (int K = 0; K < 4; K++)
      ASSERT_EQ(GA[4 * I + K], Sum[K]) << "i = " << I << ", k = " << K;
    // Doubling a half adds one to its exponent.
    ASSERT_EQ(GH[I], H[I] + 0x400) << "i = " << I;
    for (int K = 0; K < 3; K++)
      ASSERT_EQ(GS[3 * I + K], S[K]) << "i = " << I;
  }
}

TEST_F(SPIRVRun, AncestorIdsAndZeroDims) {
  // blocks (over nb) contains threads (over T), which reads its parent's id
  // from the push constants; a one-instance leaf beside it.
  std::string IR = R"(
declare i64 @hpvm.instance.id(i32, i32) memory(none)
define internal void @hpvm.node.g.blocks.threads(ptr %y, i64 %T) {
  %t = call i64 @hpvm.instance.id(i32 0, i32 0)
  %b = call i64 @hpvm.instance.id(i32 1, i32 0)
  %base = mul i64 %b, %T
  %idx = add i64 %base, %t
  %p = getelementptr inbounds i64, ptr %y, i64 %idx
  %v = mul i64 %b, 1000
  %w = add i64 %v, %t
  store i64 %w, ptr %p, align 8
  ret void
}
define internal void @hpvm.node.g.once(ptr %y) {
  store i64 42, ptr %y, align 8
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"params", !10, !"children", !20, !"bindings", !50}
!10 = !{!11, !12, !13}
!11 = !{!"buffer", !"y", !"out", i64 8192}
!12 = !{!"value", !"nb", !"i64"}
!13 = !{!"value", !"T", !"i64"}
!20 = !{!21, !30}
!21 = !{!"hpvm.node", !"name", !"blocks", !"kind", !"internal", !"dims", !22, !"params", !10, !"children", !24, !"bindings", !40}
!22 = !{!23}
!23 = !{!"param", i32 1}
!24 = !{!25}
!25 = !{!"hpvm.node", !"name", !"threads", !"kind", !"leaf", !"function", ptr @hpvm.node.g.blocks.threads, !"dims", !26, !"params", !28}
!26 = !{!27}
!27 = !{!"param", i32 1}
!28 = !{!11, !13}
!30 = !{!"hpvm.node", !"name", !"once", !"kind", !"leaf", !"function", ptr @hpvm.node.g.once, !"params", !31}
!31 = !{!11}
!40 = !{!41, !42}
!41 = !{i32 0, i32 0, !"param", i32 0}
!42 = !{i32 0, i32 1, !"param", i32 2}
!50 = !{!51, !52, !53, !54}
!51 = !{i32 0, i32 0, !"param", i32 0}
!52 = !{i32 0, i32 1, !"param", i32 1}
!53 = !{i32 0, i32 2, !"param", i32 2}
!54 = !{i32 1, i32 0, !"param", i32 0}
)";
  auto B = build(IR, SPIRVFlavour::Vulkan, /*GraphForm=*/true);
  ASSERT_EQ(B->Error, "");
  uint64_t NB = 3, T = 70;
  auto &Y = upload(std::vector<int64_t>(NB * T + 1, -1));
  for (uint64_t Block = 0; Block < NB; ++Block)
    run(*B, "g/blocks/threads", {{"y", &Y}, {"T", int64_t(T)}}, {T, 1, 1},
        {Block, 0, 0});
  auto Got = download<int64_t>(Y, NB * T + 1);
  for (uint64_t Block = 0; Block < NB; ++Block)
    for (uint64_t Thread = 0; Thread < T; ++Thread)
      ASSERT_EQ(Got[Block * T + Thread], int64_t(Block * 1000 + Thread));
  EXPECT_EQ(Got[NB * T], -1);

  auto &One = upload(std::vector<int64_t>{0});
  run(*B, "g/once", {{"y", &One}}, {1, 1, 1});
  EXPECT_EQ(download<int64_t>(One, 1)[0], 42);
}

#endif // HPVM_HAVE_VULKAN

} // namespace
