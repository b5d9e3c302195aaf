//===- SPIRVRuntimeTest.cpp - SPIR-V kernels launched through hpvm-rt -----===//
//
// The backend's kernels in a program whose leaves have only SPIR-V
// artifacts, launched with hpvm_launch: the runtime's Vulkan device fills
// the push constants, dispatches and copies the buffers, so these tests
// check that both sides implement the same ABI (SPIRVABI.h) — parameters
// of several types, extents that are no multiple of the work group, two
// dims, atomics, and ancestor ids of a replicated internal node. They skip
// when hpvm-rt finds no Vulkan device.
//
//===----------------------------------------------------------------------===//
#include "hpvm/backends/SPIRVBackend.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/GraphText.h"
#include "hpvm/ir/Passes.h"
#include "hpvm/rt/Device.h"
#include "hpvm/rt/Runtime.h"
#include "hpvm/rt/hpvm_rt.h"

#include "IRTestSupport.h"
#include "SPIRVTestInputs.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace llvm;
using namespace hpvm;
using test::cfNestedReference;
using test::readInput;

namespace {

bool haveVulkan() {
  static bool Found = [] {
    rt::Runtime &RT = rt::Runtime::get();
    RT.discoverDevicesFor(HPVM_TARGET_SPIRV);
    for (size_t I = 0; I < RT.numDevices(); ++I)
      if (RT.device(I).target() == HPVM_TARGET_SPIRV)
        return true;
    return false;
  }();
  return Found;
}

/// A region-form (or graph-form) module compiled to Vulkan SPIR-V and made
/// a program whose only artifacts are those kernels.
class SPIRVProgram {
public:
  explicit SPIRVProgram(StringRef IR, bool GraphForm = false) {
    if (!test::parseGraphModule(Ctx, IR, "SPIRVRuntimeTest", GraphForm, M,
                                Graphs))
      return;
    auto K = buildSPIRVKernels(*M, SPIRVOptions());
    if (!K) {
      ADD_FAILURE() << toString(K.takeError());
      return;
    }
    Kernels = std::move(*K);
    std::vector<const Graph *> Ptrs;
    for (const Graph &Gr : Graphs)
      Ptrs.push_back(&Gr);
    Text = writeGraphText(Ptrs);
    for (const SPIRVKernel &Kn : Kernels) {
      hpvm_artifact A{};
      A.node = Kn.NodePath.c_str();
      A.target = HPVM_TARGET_SPIRV;
      A.code = Kn.Words.data();
      A.code_size = Kn.Words.size() * sizeof(uint32_t);
      A.entry = Kn.EntryName.c_str();
      Artifacts.push_back(A);
    }
    Desc.abi_version = HPVM_RT_ABI_VERSION;
    Desc.graphs = Text.c_str();
    Desc.num_artifacts = static_cast<uint32_t>(Artifacts.size());
    Desc.artifacts = Artifacts.data();
    Ok = true;
  }
  ~SPIRVProgram() {
    if (Ok)
      hpvm_release_program(&Desc);
  }

  /// Launches graph Name with its root's parameters taken by name from
  /// Args: a buffer's entry points to its data, a value's to the value.
  /// Returns hpvm_launch's status, with the message on failure.
  std::string launch(const std::string &Name,
                     const std::map<std::string, void *> &Args) {
    const Graph *G = nullptr;
    for (const Graph &Gr : Graphs)
      if (Gr.name() == Name)
        G = &Gr;
    if (!G)
      return "no graph " + Name;
    std::vector<void *> Slots;
    std::vector<void *> Pointers(G->root().Params.size());
    for (auto [I, P] : enumerate(G->root().Params)) {
      auto It = Args.find(P.Name);
      if (It == Args.end())
        return "no argument for " + P.Name;
      if (P.isBuffer()) {
        Pointers[I] = It->second;
        Slots.push_back(&Pointers[I]);
      } else {
        Slots.push_back(It->second);
      }
    }
    if (hpvm_launch(&Desc, Name.c_str(), Slots.data()) != HPVM_OK)
      return hpvm_error_message();
    return "";
  }

  bool Ok = false;
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::vector<Graph> Graphs;
  std::vector<SPIRVKernel> Kernels;

private:
  std::string Text;
  std::vector<hpvm_artifact> Artifacts;
  hpvm_program_desc Desc{};
};

#define SKIP_WITHOUT_VULKAN()                                                  \
  do {                                                                         \
    if (!haveVulkan())                                                         \
      GTEST_SKIP() << "hpvm-rt finds no Vulkan device";                        \
  } while (0)

TEST(SPIRVThroughRuntime, NestedControlFlowAtOddSizes) {
  SKIP_WITHOUT_VULKAN();
  SPIRVProgram P(readInput("cf-nested.ll"));
  ASSERT_TRUE(P.Ok);
  for (int N : {1, 63, 65, 500}) {
    int M = 7;
    std::vector<int> A(N * M), B(64), Out(N, -1);
    for (int I = 0; I < N * M; I++)
      A[I] = (I * 7919) % 23 - 1;
    for (int K = 0; K < 64; K++)
      B[K] = (K * 31) % 9 - 1;
    int64_t ABytes = 4 * N * M, OutBytes = 4 * N;
    ASSERT_EQ(P.launch("nested", {{"a", A.data()},
                                  {"b", B.data()},
                                  {"out", Out.data()},
                                  {"a.bytes", &ABytes},
                                  {"out.bytes", &OutBytes},
                                  {"n", &N},
                                  {"m", &M}}),
              "");
    for (int I = 0; I < N; I++)
      ASSERT_EQ(Out[I], cfNestedReference(A.data(), B.data(), M, I))
          << "n = " << N << ", i = " << I;
  }
}

TEST(SPIRVThroughRuntime, NarrowValuesAndBools) {
  SKIP_WITHOUT_VULKAN();
  SPIRVProgram P(readInput("types.ll"));
  ASSERT_TRUE(P.Ok);
  int N = 100;
  std::vector<int8_t> A(N);
  std::vector<int16_t> B(N), O2(N);
  std::vector<uint8_t> U(N), O3(N);
  for (int I = 0; I < N; I++) {
    A[I] = static_cast<int8_t>(I * 13);
    B[I] = static_cast<int16_t>(I * 1234 - 20000);
    U[I] = static_cast<uint8_t>(I * 7);
  }
  int64_t ABytes = N, BBytes = 2 * N;
  int16_t S = -5;
  ASSERT_EQ(P.launch("narrow", {{"a", A.data()},
                                {"b", B.data()},
                                {"u", U.data()},
                                {"o2", O2.data()},
                                {"o3", O3.data()},
                                {"a.bytes", &ABytes},
                                {"b.bytes", &BBytes},
                                {"n", &N},
                                {"s", &S}}),
            "");
  for (int I = 0; I < N; I++) {
    ASSERT_EQ(O2[I], (int16_t)(B[I] * S + (B[I] >> 2))) << "i = " << I;
    ASSERT_EQ(O3[I], (uint8_t)(A[I] ^ U[I]) / 3) << "i = " << I;
  }

  // A _Bool parameter (a one-byte C bool in args) and doubles.
  std::vector<int64_t> C(N), O(N);
  std::vector<double> D(N), OD(N);
  for (int I = 0; I < N; I++) {
    C[I] = (int64_t(I) << 33) - 12345 * I;
    D[I] = I * 0.25;
  }
  int64_t CBytes = 8 * N;
  for (bool Flag : {false, true}) {
    std::map<std::string, void *> Args{
        {"a", A.data()},     {"c", C.data()}, {"u", U.data()},
        {"d", D.data()},     {"o", O.data()}, {"od", OD.data()},
        {"n", &N},           {"flag", &Flag}, {"a.bytes", &ABytes},
        {"c.bytes", &CBytes}};
    ASSERT_EQ(P.launch("wide", Args), "");
    for (int I = 0; I < N; I++) {
      int64_t X = A[I] * C[I] + C[I] / (U[I] + 1) - C[I] % 7 + (C[I] >> 3) +
                  (int64_t)((uint64_t)C[I] >> 5);
      if (Flag)
        X = -X;
      ASSERT_EQ(O[I], X < 0 ? -X : X) << "i = " << I;
      ASSERT_EQ(OD[I], D[I] * 0.5 + (double)X - (double)(U[I] % 5))
          << "i = " << I;
    }
  }
}

TEST(SPIRVThroughRuntime, TwoDims) {
  SKIP_WITHOUT_VULKAN();
  SPIRVProgram P(readInput("grid.ll"));
  ASSERT_TRUE(P.Ok);
  int N = 19, M = 37;
  std::vector<float> A(N * M), C(N * M);
  for (int I = 0; I < N * M; I++)
    A[I] = static_cast<float>(I % 11);
  int64_t Bytes = 4 * N * M;
  ASSERT_EQ(P.launch("grid", {{"a", A.data()},
                              {"c", C.data()},
                              {"a.bytes", &Bytes},
                              {"n", &N},
                              {"m", &M}}),
            "");
  for (int I = 0; I < N; I++)
    for (int J = 0; J < M; J++)
      ASSERT_EQ(C[I * M + J], A[I * M + J] * 2 + I - J);
}

TEST(SPIRVThroughRuntime, ReductionsThroughAtomics) {
  SKIP_WITHOUT_VULKAN();
  SPIRVProgram P(readInput("reduce.ll"));
  ASSERT_TRUE(P.Ok);
  int N = 777;
  std::vector<float> F(N);
  std::vector<int> V(N);
  for (int I = 0; I < N; I++) {
    F[I] = static_cast<float>(I % 4) * 0.5f;
    V[I] = (I * 37) % 101 - 50;
  }
  int64_t Sum = 0;
  float FSum = 0, FMax = -1e30f;
  double Prod = 1;
  int Lo = 1 << 30;
  std::map<std::string, void *> Args{
      {"f", F.data()}, {"v", V.data()}, {"n", &N},   {"sum", &Sum},
      {"fsum", &FSum}, {"prod", &Prod}, {"lo", &Lo}, {"fmx", &FMax}};
  // Byte sizes, whatever the frontend called them.
  std::vector<int64_t> Sizes;
  Sizes.reserve(16);
  for (const Graph &G : P.Graphs)
    for (const Param &Pr : G.root().Params)
      if (!Pr.isBuffer() && !Args.count(Pr.Name)) {
        StringRef Buf = StringRef(Pr.Name).drop_back(6);
        int64_t Bytes = Buf == "f" || Buf == "v" ? 4 * N : 8;
        Sizes.push_back(Bytes);
        Args[Pr.Name] = &Sizes.back();
      }
  ASSERT_EQ(P.launch("reduce", Args), "");
  int64_t WantSum = 0;
  float WantF = 0, WantMax = -1e30f;
  int WantLo = 1 << 30;
  for (int I = 0; I < N; I++) {
    WantSum += V[I];
    WantF += F[I];
    WantLo = std::min(WantLo, V[I]);
    WantMax = std::max(WantMax, F[I]);
  }
  EXPECT_EQ(Sum, WantSum);
  EXPECT_EQ(FSum, WantF);
  EXPECT_EQ(Lo, WantLo);
  EXPECT_EQ(FMax, WantMax);
  EXPECT_NEAR(Prod, std::pow(1.0001, N), 1e-9);
}

TEST(SPIRVThroughRuntime, AncestorIds) {
  SKIP_WITHOUT_VULKAN();
  // blocks (over nb) contains threads (over T), which reads its parent's
  // id: the runtime launches threads once per block with the block's id in
  // the push constants.
  SPIRVProgram P(R"(
@.name.blocks = private unnamed_addr constant [7 x i8] c"blocks\00"
@.name.threads = private unnamed_addr constant [8 x i8] c"threads\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
define void @blocked(ptr %y, i64 %nb, i64 %T) {
entry:
  %n = mul nsw i64 %nb, %T
  %bytes = shl i64 %n, 3
  %tok.b = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.blocks),
      "hpvm.dims"(i64 %nb), "hpvm.out"(ptr %y, i64 %bytes), "hpvm.value"(i64 %T) ]
  br label %b.cond
b.cond:
  %b = phi i64 [ 0, %entry ], [ %b.next, %b.latch ]
  %cb = icmp slt i64 %b, %nb
  br i1 %cb, label %b.body, label %b.end
b.body:
  %tok.t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.threads),
      "hpvm.dims"(i64 %T), "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %t.cond
t.cond:
  %t = phi i64 [ 0, %b.body ], [ %t.next, %t.body ]
  %ct = icmp slt i64 %t, %T
  br i1 %ct, label %t.body, label %t.end
t.body:
  %base = mul nsw i64 %b, %T
  %idx = add nsw i64 %base, %t
  %py = getelementptr inbounds i64, ptr %y, i64 %idx
  %v = mul i64 %b, 1000
  %w = add i64 %v, %t
  store i64 %w, ptr %py, align 8
  %t.next = add nuw nsw i64 %t, 1
  br label %t.cond
t.end:
  call void @llvm.directive.region.exit(token %tok.t)
  br label %b.latch
b.latch:
  %b.next = add nuw nsw i64 %b, 1
  br label %b.cond
b.end:
  call void @llvm.directive.region.exit(token %tok.b)
  ret void
}
)");
  ASSERT_TRUE(P.Ok);
  int64_t NB = 5, T = 77, Bytes = 8 * NB * T;
  std::vector<int64_t> Y(NB * T, -1);
  std::map<std::string, void *> Args{{"y", Y.data()}, {"nb", &NB}, {"T", &T}};
  for (const Param &Pr : P.Graphs.front().root().Params)
    if (!Args.count(Pr.Name))
      Args[Pr.Name] = &Bytes;
  ASSERT_EQ(P.launch("blocks", Args), "");
  for (int64_t B = 0; B < NB; ++B)
    for (int64_t Th = 0; Th < T; ++Th)
      ASSERT_EQ(Y[B * T + Th], B * 1000 + Th) << "b = " << B << ", t = " << Th;
}

} // namespace
