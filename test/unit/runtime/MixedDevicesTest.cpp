//===- MixedDevicesTest.cpp - One replicated node, several devices --------===//
//
// The shape that once computed wrong results: a replicated node whose
// children run in different memory spaces, instances side by side. Row r
// scales its row of x on one device, then adds r on another:
//
//   rows [R]: scale(x) -> plus(x, y)      x[r][i] *= 3; y[r][i] = x[r][i] + r
//
// with fake devices whose kernels take a while (so instances overlap), under
// every policy, with sections that are the whole buffers (every instance
// names all of x and y: coherence must order their ranges) and sections per
// row (x[r*n : n]: instances are apart, and copies move rows, not buffers).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Coherence.h"

using namespace hpvm;
using namespace hpvm::rttest;
using rt::Runtime;

namespace {

constexpr uint64_t R = 12, N = 500;
constexpr uint64_t RowBytes = N * sizeof(float), Bytes = R * RowBytes;

// scale(x, n): x[r*n + i] *= 3 for the parent's instance r.
void scaleKernel(void *const *Args, void *const *, const uint64_t *,
                 const uint64_t *OuterIds, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  uint64_t Row = OuterIds[0];
  for (uint64_t I = Begin; I != End; ++I)
    X[Row * N + I] *= 3.0f;
}

// plus(x, y): y[r*n + i] = x[r*n + i] + r.
void plusKernel(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *OuterIds, uint64_t Begin, uint64_t End) {
  const float *X = buffer<float>(Args, 0);
  float *Y = buffer<float>(Args, 1);
  uint64_t Row = OuterIds[0];
  for (uint64_t I = Begin; I != End; ++I)
    Y[Row * N + I] = X[Row * N + I] + static_cast<float>(Row);
}

/// rows [R] { scale; plus } with the children's targets, and sections per
/// row or of the whole buffers.
Graph rowsGraph(const char *Name, TargetMask Scale, TargetMask Plus,
                bool PerRow) {
  Graph G(Name);
  Node &Root = G.root();
  Root.addBuffer("x", Access::InOut, Extent::constant(Bytes));
  Root.addBuffer("y", Access::Out, Extent::constant(Bytes));
  Root.setDims({Extent::constant(R)});
  auto Section = [&](Param &P) {
    if (PerRow)
      P.Offset = {OffsetTerm{Extent::constant(RowBytes), 1, 0}};
  };
  uint64_t Size = PerRow ? RowBytes : Bytes;
  Node &S = Root.addLeaf("scale", "scale");
  Section(S.Params[S.addBuffer("x", Access::InOut, Extent::constant(Size))]);
  S.setDims({Extent::constant(N)});
  S.setTargets(Scale);
  Node &P = Root.addLeaf("plus", "plus");
  Section(P.Params[P.addBuffer("x", Access::In, Extent::constant(Size))]);
  Param &Y = P.Params[P.addBuffer("y", Access::Out, Extent::constant(Size))];
  Section(Y);
  Y.WritesAll = PerRow; // each instance writes its row whole
  P.setDims({Extent::constant(N)});
  P.setTargets(Plus);
  Root.bind(S, 0, 0);
  Root.bind(P, 0, 0);
  Root.bind(P, 1, 1);
  Root.addDependency(S, P);
  return G;
}

struct Case {
  const char *Policy;
  bool PerRow;
};

class MixedDevices : public testing::TestWithParam<Case> {};

/// Runs rows on a fake GPU (slow kernels) and the CPU, Runs times, and
/// checks every element; returns the bytes the fake device moved.
uint64_t runRows(const Graph &G, const char *Name, FakeDevice &Gpu, int Runs) {
  // The device's artifact first: hint prefers it.
  std::vector<ArtifactSpec> Specs;
  for (const auto &Child : G.root().Children)
    for (auto [Target, Mask] : {std::pair(HPVM_TARGET_NVPTX, TargetNVPTX),
                                std::pair(HPVM_TARGET_CPU, TargetCPU)})
      if (Child->Targets & Mask)
        Specs.push_back({Child->path(), Target,
                         Child->name() == "scale" ? scaleKernel : plusKernel});
  TestProgram P({&G}, std::move(Specs));
  uint64_t Before = Gpu.BytesIn + Gpu.BytesOut;
  for (int Run = 0; Run != Runs; ++Run) {
    std::vector<float> X(R * N), Y(R * N, -1.0f);
    for (uint64_t I = 0; I != R * N; ++I)
      X[I] = static_cast<float>((I * 7 + Run) % 101);
    float *PX = X.data(), *PY = Y.data();
    EXPECT_EQ(P.launch(Name, {&PX, &PY}), HPVM_OK) << hpvm_error_message();
    uint64_t Wrong = 0;
    for (uint64_t Row = 0; Row != R; ++Row)
      for (uint64_t I = 0; I != N; ++I) {
        float Want = static_cast<float>(((Row * N + I) * 7 + Run) % 101) * 3;
        Wrong += X[Row * N + I] != Want ||
                 Y[Row * N + I] != Want + static_cast<float>(Row);
      }
    EXPECT_EQ(Wrong, 0u) << "run " << Run;
  }
  EXPECT_TRUE(Runtime::get().coherence().idle());
  return Gpu.BytesIn + Gpu.BytesOut - Before;
}

} // namespace

TEST_P(MixedDevices, ChildrenOnDifferentDevicesComputeTheSequentialResult) {
  const Case &C = GetParam();
  ScopedScheduler Policy(C.Policy);
  ScopedDevice Gpu(std::make_unique<FakeDevice>("fake-mixed", HPVM_TARGET_NVPTX,
                                                std::chrono::milliseconds(1)));
  // Forced apart: scale on the device, plus on the CPU.
  Graph Apart = rowsGraph("apart", TargetNVPTX, TargetCPU, C.PerRow);
  uint64_t Moved = runRows(Apart, "apart", *Gpu, 3);
  if (C.PerRow) {
    // Each row of x goes up once and comes back once per run; y never
    // leaves the host.
    EXPECT_EQ(Moved, 3 * 2 * Bytes);
  }
  // Free: the policy places every instance of every child.
  Graph Free = rowsGraph("free", TargetCPU | TargetNVPTX,
                         TargetCPU | TargetNVPTX, C.PerRow);
  runRows(Free, "free", *Gpu, 3);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, MixedDevices,
    testing::Values(Case{"hint", false}, Case{"round-robin", false},
                    Case{"heft", false}, Case{"hint", true},
                    Case{"round-robin", true}, Case{"heft", true}),
    [](const testing::TestParamInfo<Case> &I) {
      std::string Name = I.param.Policy;
      Name.erase(std::remove(Name.begin(), Name.end(), '-'), Name.end());
      return Name + (I.param.PerRow ? "_PerRowSections" : "_WholeBuffers");
    });

// A device that says it cannot run a leaf (Device::cannotRun: a limit such
// as Vulkan's push-constant bytes) is never offered it, under any policy;
// with no other device the launch fails saying why.
class RefusingDevice : public testing::TestWithParam<const char *> {};

TEST_P(RefusingDevice, IsNotOfferedTheLeafItRefuses) {
  ScopedScheduler Policy(GetParam());
  auto Fake = std::make_unique<FakeDevice>("fake-refusing", HPVM_TARGET_NVPTX);
  Fake->RefuseLeaf = "scale";
  ScopedDevice Gpu(std::move(Fake));
  std::string Name = std::string("refusing_") + GetParam();
  Name.erase(std::remove(Name.begin(), Name.end(), '-'), Name.end());
  Graph G = rowsGraph(Name.c_str(), TargetCPU | TargetNVPTX,
                      TargetCPU | TargetNVPTX, /*PerRow=*/true);
  Runtime::get().stats().reset();
  runRows(G, Name.c_str(), *Gpu, 3);
  std::map<std::string, uint64_t> Scale = launchesByDevice(Name + "/scale");
  EXPECT_EQ(Scale.count("fake-refusing"), 0u);
  EXPECT_GT(Scale["cpu"], 0u);
}

INSTANTIATE_TEST_SUITE_P(Policies, RefusingDevice,
                         testing::Values("hint", "round-robin", "heft", "dmda",
                                         "auto"),
                         [](const testing::TestParamInfo<const char *> &I) {
                           std::string N = I.param;
                           N.erase(std::remove(N.begin(), N.end(), '-'),
                                   N.end());
                           return N;
                         });

TEST(MixedDevices, ALeafOnlyARefusingDeviceHasFailsSayingWhy) {
  auto Fake = std::make_unique<FakeDevice>("fake-refuses", HPVM_TARGET_NVPTX);
  Fake->RefuseLeaf = "scale";
  ScopedDevice Gpu(std::move(Fake));
  Graph G = rowsGraph("refused_only", TargetNVPTX, TargetCPU, false);
  TestProgram P({&G}, {{"refused_only/scale", HPVM_TARGET_NVPTX, scaleKernel},
                       {"refused_only/plus", HPVM_TARGET_CPU, plusKernel}});
  std::vector<float> X(R * N, 1.0f), Y(R * N);
  float *PX = X.data(), *PY = Y.data();
  expectError(P.launch("refused_only", {&PX, &PY}), HPVM_ERR_NO_DEVICE,
              "fake-refuses cannot run it: refuses leaves called scale");
}

TEST(MixedDevices, RoundRobinSpreadsInstancesWithSectionsOfTheirOwn) {
  ScopedScheduler Policy("round-robin");
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-spread", HPVM_TARGET_NVPTX));
  Graph G = rowsGraph("spread", TargetCPU | TargetNVPTX,
                      TargetCPU | TargetNVPTX, /*PerRow=*/true);
  Runtime::get().stats().reset();
  runRows(G, "spread", *Gpu, 1);
  // Sections of their own: instances are not kept together, so both
  // devices ran some of them.
  std::map<std::string, uint64_t> Scale = launchesByDevice("spread/scale");
  EXPECT_GT(Scale["cpu"], 0u);
  EXPECT_GT(Scale["fake-spread"], 0u);
}

TEST(MixedDevices, InstancesSharingAWrittenBufferStayOnOneDevice) {
  ScopedScheduler Policy("round-robin");
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-pinned", HPVM_TARGET_NVPTX));
  Graph G = rowsGraph("pinned", TargetCPU | TargetNVPTX,
                      TargetCPU | TargetNVPTX, /*PerRow=*/false);
  Runtime::get().stats().reset();
  runRows(G, "pinned", *Gpu, 1);
  std::map<std::string, uint64_t> Scale = launchesByDevice("pinned/scale");
  EXPECT_EQ(Scale.size(), 1u);
  EXPECT_EQ(Scale.begin()->second, R);
}

TEST(MixedDevices, ASectionPastTheRootsBufferIsAnError) {
  Graph G = rowsGraph("past", TargetCPU, TargetCPU, /*PerRow=*/true);
  // Rows start one row further than the buffer has.
  G.root().Children[0]->Params[0].Offset.push_back(
      OffsetTerm{Extent::constant(RowBytes), 0, 0});
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-past", HPVM_TARGET_NVPTX));
  G.root().Children[0]->setTargets(TargetNVPTX);
  TestProgram P({&G}, {{"past/scale", HPVM_TARGET_NVPTX, scaleKernel},
                       {"past/plus", HPVM_TARGET_CPU, plusKernel}});
  std::vector<float> X(R * N), Y(R * N);
  float *PX = X.data(), *PY = Y.data();
  expectError(P.launch("past", {&PX, &PY}), HPVM_ERR_BAD_VALUE,
              "node 'past/scale': the section [" +
                  std::to_string(R * RowBytes) + ", " +
                  std::to_string((R + 1) * RowBytes) +
                  ") of buffer 'x' ends past the " + std::to_string(Bytes) +
                  " bytes the graph's root gives it");
}
