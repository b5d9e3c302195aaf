//===- CudaDeviceTest.cpp - The CUDA device, on a stand-in or a real driver
//===//
//
// Built twice. In hpvm-rt-tests it runs against FakeCudaDriver.cpp, so that
// the CUDA device's code (discovery, staging, streams, events, module cache,
// parameter marshalling, launch shapes, grid-mapped launches, errors) is
// exercised on every machine; in hpvm-rt-cuda-tests (CTest label "cuda",
// HPVM_TEST_CUDA_REAL) the same launch tests run on libcuda.so.1 and a GPU,
// and skip, saying why, where there is none.
//
// The kernels are PTX written by hand to NVPTXABI.h, the NVPTX backend's
// launch interface (checked with ptxas when they were written); for the
// stand-in driver each has a C++ twin that does the same per (block,
// thread), registered under the entry's name. The pure functions that
// shape launches and marshal parameters are tested directly too.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaDriver.h"
#include "RuntimeTestSupport.h"

#include "hpvm/rt/Cuda.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Stats.h"

#include <cstdio>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace hpvm;
using namespace hpvm::rttest;
using rt::CudaDevice;
using rt::Runtime;

namespace {

#ifdef HPVM_TEST_CUDA_REAL
constexpr bool Real = true;
const char *const DriverPath = "libcuda.so.1";
#else
constexpr bool Real = false;
const char *const DriverPath = HPVM_TEST_FAKE_CUDA_DRIVER;
#endif

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

const char *const VaddPtx = R"(.version 7.8
.target sm_80
.address_size 64

// vadd(a, b, c, n, bytes), dims [n]: c[i] = a[i] + b[i]; flat form only
// (a root leaf has no parent to map to the grid).
.visible .entry hpvm_nvptx_vadd(.param .u64 a, .param .u64 b, .param .u64 c,
                                .param .u64 n, .param .u64 bytes,
                                .param .u32 form)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<4>;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd0, %r0, %r1;
  cvt.u64.u32 %rd1, %r2;
  add.u64 %rd2, %rd0, %rd1;
  ld.param.u64 %rd3, [n];
  setp.ge.u64 %p0, %rd2, %rd3;
  @%p0 bra DONE;
  ld.param.u64 %rd4, [a];
  ld.param.u64 %rd5, [b];
  ld.param.u64 %rd6, [c];
  shl.b64 %rd7, %rd2, 2;
  add.u64 %rd8, %rd4, %rd7;
  add.u64 %rd9, %rd5, %rd7;
  add.u64 %rd10, %rd6, %rd7;
  ld.global.f32 %f0, [%rd8];
  ld.global.f32 %f1, [%rd9];
  add.f32 %f2, %f0, %f1;
  st.global.f32 [%rd10], %f2;
DONE:
  ret;
}
)";

const char *const CellPtx = R"(.version 7.8
.target sm_80
.address_size 64

// cell(out, n, cols, bytes), dims [n], in a replicated parent [rows, cols]:
// out[(row * cols + col) * n + i] = row * 1000000 + col * 1000 + i. Flat:
// one instance per thread, the parent's ids from the parameters.
// Grid-mapped: the block is the parent instance (dim 1 = x, dim 0 = y),
// threads stride over n; the level-1 id parameters must be 0.
.visible .entry hpvm_nvptx_cell(.param .u64 out, .param .u64 n,
                                .param .u64 cols, .param .u64 bytes,
                                .param .u64 id0, .param .u64 id1,
                                .param .u64 id2, .param .u32 form)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd0, [out];
  ld.param.u64 %rd1, [n];
  ld.param.u64 %rd2, [cols];
  ld.param.u64 %rd3, [id0];
  ld.param.u64 %rd4, [id1];
  ld.param.u64 %rd5, [id2];
  ld.param.u32 %r0, [form];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ctaid.y;
  cvt.u64.u32 %rd6, %r1;
  setp.ne.u32 %p0, %r0, 0;
  @%p0 bra GRID;
  mul.wide.u32 %rd7, %r3, %r2;
  add.u64 %rd8, %rd7, %rd6;       // i
  mov.u64 %rd9, %rd1;             // step: past the end, one instance
  mov.u64 %rd10, %rd3;            // row
  mov.u64 %rd11, %rd4;            // col
  bra LOOP;
GRID:
  or.b64 %rd12, %rd3, %rd4;
  or.b64 %rd12, %rd12, %rd5;
  setp.ne.u64 %p1, %rd12, 0;
  @%p1 bra DONE;                  // wrong ids: leave the cells unwritten
  mov.u64 %rd8, %rd6;
  cvt.u64.u32 %rd9, %r2;
  cvt.u64.u32 %rd10, %r4;
  cvt.u64.u32 %rd11, %r3;
LOOP:
  setp.ge.u64 %p2, %rd8, %rd1;
  @%p2 bra DONE;
  mul.lo.u64 %rd13, %rd10, %rd2;
  add.u64 %rd13, %rd13, %rd11;
  mul.lo.u64 %rd13, %rd13, %rd1;
  add.u64 %rd13, %rd13, %rd8;     // cell index
  mul.lo.u64 %rd14, %rd10, 1000000;
  mul.lo.u64 %rd15, %rd11, 1000;
  add.u64 %rd14, %rd14, %rd15;
  add.u64 %rd14, %rd14, %rd8;     // value
  shl.b64 %rd13, %rd13, 3;
  add.u64 %rd13, %rd0, %rd13;
  st.global.u64 [%rd13], %rd14;
  add.u64 %rd8, %rd8, %rd9;
  bra LOOP;
DONE:
  ret;
}
)";

const char *const TypesPtx = R"(.version 7.8
.target sm_80
.address_size 64

// types(out, b, c, s, i, l, h, f, d, p, bytes), no dims, two ancestor
// levels: writes its parameters' bits, zero-extended, to out[slot * 20 + k]
// with slot = level-2 id 0 * 3 + level-1 id 0, then the form and the ids.
.visible .entry hpvm_nvptx_types(.param .u64 out, .param .u8 b,
                                 .param .u8 c, .param .u16 s, .param .u32 i,
                                 .param .u64 l, .param .b16 h, .param .f32 f,
                                 .param .f64 d, .param .u64 p,
                                 .param .u64 bytes, .param .u64 a0,
                                 .param .u64 a1, .param .u64 a2,
                                 .param .u64 g0, .param .u64 g1,
                                 .param .u64 g2, .param .u32 form)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<2>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd0, [out];
  ld.param.u64 %rd11, [a0];
  ld.param.u64 %rd14, [g0];
  mul.lo.u64 %rd1, %rd14, 3;
  add.u64 %rd1, %rd1, %rd11;
  mul.lo.u64 %rd1, %rd1, 160;
  add.u64 %rd0, %rd0, %rd1;
  ld.param.u8 %h0, [b];
  cvt.u64.u16 %rd2, %h0;
  st.global.u64 [%rd0], %rd2;
  ld.param.u8 %h1, [c];
  cvt.u64.u16 %rd2, %h1;
  and.b64 %rd2, %rd2, 255;
  st.global.u64 [%rd0+8], %rd2;
  ld.param.u16 %h2, [s];
  cvt.u64.u16 %rd2, %h2;
  st.global.u64 [%rd0+16], %rd2;
  ld.param.u32 %r0, [i];
  cvt.u64.u32 %rd2, %r0;
  st.global.u64 [%rd0+24], %rd2;
  ld.param.u64 %rd2, [l];
  st.global.u64 [%rd0+32], %rd2;
  ld.param.b16 %h3, [h];
  cvt.u64.u16 %rd2, %h3;
  st.global.u64 [%rd0+40], %rd2;
  ld.param.f32 %f0, [f];
  mov.b32 %r1, %f0;
  cvt.u64.u32 %rd2, %r1;
  st.global.u64 [%rd0+48], %rd2;
  ld.param.f64 %fd0, [d];
  mov.b64 %rd2, %fd0;
  st.global.u64 [%rd0+56], %rd2;
  ld.param.u64 %rd2, [p];
  st.global.u64 [%rd0+64], %rd2;
  ld.param.u64 %rd2, [bytes];
  st.global.u64 [%rd0+72], %rd2;
  ld.param.u32 %r2, [form];
  cvt.u64.u32 %rd2, %r2;
  st.global.u64 [%rd0+80], %rd2;
  st.global.u64 [%rd0+88], %rd11;
  ld.param.u64 %rd12, [a1];
  st.global.u64 [%rd0+96], %rd12;
  ld.param.u64 %rd13, [a2];
  st.global.u64 [%rd0+104], %rd13;
  st.global.u64 [%rd0+112], %rd14;
  ld.param.u64 %rd15, [g1];
  st.global.u64 [%rd0+120], %rd15;
  ld.param.u64 %rd16, [g2];
  st.global.u64 [%rd0+128], %rd16;
  ret;
}
)";

// Rejected by ptxas (an unknown symbol), and by the stand-in driver for
// the marker it contains.
const char *const BadPtx = R"(.version 7.8
.target sm_80
.address_size 64

.visible .entry hpvm_nvptx_bad(.param .u64 out, .param .u32 form)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd0, [out];
  st.global.u64 [%rd0], HPVM_FAKE_JIT_ERROR;
  ret;
}
)";

// The stand-in driver's twins of the kernels above.
uint64_t param(const FakeCudaThread *T, unsigned I) {
  return *static_cast<const uint64_t *>(T->Params[I]);
}

int fakeVadd(const FakeCudaThread *T) {
  uint64_t I = uint64_t(T->BlockId[0]) * T->Block[0] + T->ThreadId[0];
  if (I >= param(T, 3))
    return 0;
  auto *A = reinterpret_cast<const float *>(param(T, 0));
  auto *B = reinterpret_cast<const float *>(param(T, 1));
  auto *C = reinterpret_cast<float *>(param(T, 2));
  C[I] = A[I] + B[I];
  return 0;
}

int fakeCell(const FakeCudaThread *T) {
  auto *Out = reinterpret_cast<uint64_t *>(param(T, 0));
  uint64_t N = param(T, 1), Cols = param(T, 2);
  uint64_t I, Step, Row, Col;
  if (param(T, 7) == 0) {
    I = uint64_t(T->BlockId[0]) * T->Block[0] + T->ThreadId[0];
    Step = N;
    Row = param(T, 4);
    Col = param(T, 5);
  } else {
    if (param(T, 4) | param(T, 5) | param(T, 6))
      return 0;
    I = T->ThreadId[0];
    Step = T->Block[0];
    Row = T->BlockId[1];
    Col = T->BlockId[0];
  }
  for (; I < N; I += Step)
    Out[(Row * Cols + Col) * N + I] = Row * 1000000 + Col * 1000 + I;
  return 0;
}

int fakeTypes(const FakeCudaThread *T) {
  uint64_t Slot = param(T, 14) * 3 + param(T, 11);
  auto *Out = reinterpret_cast<uint64_t *>(param(T, 0)) + Slot * 20;
  for (unsigned K = 0; K != 10; ++K)
    Out[K] = param(T, K + 1);
  Out[10] = param(T, 17);
  for (unsigned K = 0; K != 6; ++K)
    Out[11 + K] = param(T, 11 + K);
  return 0;
}

// A kernel that faults, as one reading an illegal address would.
int fakeFault(const FakeCudaThread *) { return 700; }

//===----------------------------------------------------------------------===//
// The stand-in driver's controls
//===----------------------------------------------------------------------===//

struct FakeControls {
  FakeCudaRegisterFn Register = nullptr;
  FakeCudaStatsFn Stats = nullptr;
  FakeCudaResetFn Reset = nullptr;
  FakeCudaLastParamsFn LastParams = nullptr;
};

/// The stand-in's controls, its kernels registered (the same library the
/// CUDA device dlopens: one path, one handle).
const FakeControls &fake() {
  static const FakeControls C = [] {
    FakeControls F;
    void *H = dlopen(DriverPath, RTLD_NOW | RTLD_LOCAL);
    if (!H || !dlsym(H, HPVM_FAKE_CUDA_REGISTER)) {
      std::fprintf(stderr, "cannot use the stand-in driver '%s'\n", DriverPath);
      std::abort();
    }
    F.Register =
        reinterpret_cast<FakeCudaRegisterFn>(dlsym(H, HPVM_FAKE_CUDA_REGISTER));
    F.Stats = reinterpret_cast<FakeCudaStatsFn>(dlsym(H, HPVM_FAKE_CUDA_STATS));
    F.Reset = reinterpret_cast<FakeCudaResetFn>(dlsym(H, HPVM_FAKE_CUDA_RESET));
    F.LastParams = reinterpret_cast<FakeCudaLastParamsFn>(
        dlsym(H, HPVM_FAKE_CUDA_LAST_PARAMS));
    F.Register("hpvm_nvptx_vadd", fakeVadd);
    F.Register("hpvm_nvptx_cell", fakeCell);
    F.Register("hpvm_nvptx_types", fakeTypes);
    F.Register("hpvm_nvptx_fault", fakeFault);
    return F;
  }();
  return C;
}

FakeCudaStats fakeStats() {
  FakeCudaStats S{};
  if (!Real)
    fake().Stats(&S);
  return S;
}

/// Sets environment variables for its scope (the stand-in reads its
/// settings at cuInit).
class ScopedEnv {
public:
  ScopedEnv(std::initializer_list<std::pair<const char *, const char *>> Vars) {
    for (const auto &V : Vars) {
      Names.push_back(V.first);
      setenv(V.first, V.second, 1);
    }
  }
  ~ScopedEnv() {
    for (const char *N : Names)
      unsetenv(N);
  }

private:
  std::vector<const char *> Names;
};

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

rt::MemorySpace newSpace(void *) { return Runtime::get().newMemorySpace(); }

std::string discover(const char *Driver,
                     std::vector<std::unique_ptr<rt::Device>> &Found) {
  Runtime &RT = Runtime::get();
  rt::DiscoveryContext Ctx{RT.pool(), newSpace, nullptr, &RT.trace()};
  rt::CudaOptions O;
  O.Driver = Driver;
  return rt::discoverCudaDevices(Ctx, O, Found);
}

/// A CUDA device of the driver under test, registered with the runtime for
/// its scope; null with Why set when there is none.
class ScopedCuda {
public:
  ScopedCuda() {
    if (!Real)
      fake().Reset();
    std::vector<std::unique_ptr<rt::Device>> Found;
    Why = discover(DriverPath, Found);
    if (Found.empty())
      return;
    Dev = static_cast<CudaDevice *>(Found[0].get());
    Runtime::get().addDevice(std::move(Found[0]));
  }
  ~ScopedCuda() {
    if (Dev)
      Runtime::get().removeDevice(*Dev);
  }
  CudaDevice *Dev = nullptr;
  std::string Why;
};

class CudaTest : public testing::Test {
protected:
  void SetUp() override {
    Cuda = std::make_unique<ScopedCuda>();
    if (!Cuda->Dev) {
      if (Real)
        GTEST_SKIP() << "no CUDA device: " << Cuda->Why;
      FAIL() << "the stand-in driver gave no device: " << Cuda->Why;
    }
    Dev = Cuda->Dev;
    Runtime::get().coherence().resetCounters();
  }
  void TearDown() override { Cuda.reset(); }

  std::unique_ptr<ScopedCuda> Cuda;
  CudaDevice *Dev = nullptr;
};

#define SKIP_ON_A_REAL_GPU(Why)                                                \
  do {                                                                         \
    if (Real)                                                                  \
      GTEST_SKIP() << Why;                                                     \
  } while (0)

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

/// vadd in VaddPtx's parameter order.
Graph ptxVaddGraph(const std::string &Name) {
  return vaddGraph(Name, VaddValues::CountThenBytes);
}

ArtifactSpec vaddArtifact(const std::string &Node) {
  return {Node, HPVM_TARGET_NVPTX, nullptr, VaddPtx, "hpvm_nvptx_vadd"};
}

/// Runs vadd over N floats and checks every element; returns the status.
int runVadd(TestProgram &P, const char *Graph, uint64_t N) {
  std::vector<float> A(N), B(N), C(N, -1.0f);
  for (uint64_t I = 0; I != N; ++I) {
    A[I] = static_cast<float>(I % 1000);
    B[I] = static_cast<float>(I % 7) * 0.5f;
  }
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  int64_t Num = static_cast<int64_t>(N), Bytes = Num * 4;
  int Code = P.launch(Graph, {&PA, &PB, &PC, &Num, &Bytes});
  if (Code != HPVM_OK)
    return Code;
  for (uint64_t I = 0; I != N; ++I)
    if (C[I] != A[I] + B[I]) {
      ADD_FAILURE() << Graph << ": c[" << I << "] = " << C[I] << ", expected "
                    << A[I] + B[I];
      break;
    }
  return Code;
}

/// cells [rows, cols] -> cell [n], the leaf's kernel CellPtx.
Graph cellGraph(const std::string &Name) {
  Graph G(Name);
  Node &R = G.root();
  R.addBuffer("out", Access::Out, Extent::param(4));
  R.addValue("n", ScalarType::I64);
  R.addValue("rows", ScalarType::I64);
  R.addValue("cols", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::param(2), Extent::param(3)});
  Node &Cell = R.addLeaf("cell", "cell");
  Cell.addBuffer("out", Access::Out, Extent::param(3));
  Cell.addValue("n", ScalarType::I64);
  Cell.addValue("cols", ScalarType::I64);
  Cell.addValue("bytes", ScalarType::I64);
  Cell.setDims({Extent::param(1)});
  R.bind(Cell, 0, 0);
  R.bind(Cell, 1, 1);
  R.bind(Cell, 2, 3);
  R.bind(Cell, 3, 4);
  return G;
}

void runCells(TestProgram &P, const char *Graph, int64_t Rows, int64_t Cols,
              int64_t N) {
  std::vector<uint64_t> Out(Rows * Cols * N, ~0ull);
  uint64_t *PO = Out.data();
  int64_t Bytes = static_cast<int64_t>(Out.size() * 8);
  ASSERT_EQ(P.launch(Graph, {&PO, &N, &Rows, &Cols, &Bytes}), HPVM_OK)
      << hpvm_error_message();
  for (int64_t R = 0; R != Rows; ++R)
    for (int64_t C = 0; C != Cols; ++C)
      for (int64_t I = 0; I != N; ++I)
        ASSERT_EQ(Out[(R * Cols + C) * N + I],
                  uint64_t(R * 1000000 + C * 1000 + I))
            << "row " << R << " col " << C << " i " << I;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

TEST_F(CudaTest, VectorAddFromAPtxOnlyProgram) {
  Graph G = ptxVaddGraph("cu_vadd");
  TestProgram P({&G}, {vaddArtifact("cu_vadd")});
  CudaDevice::Counters Before = Dev->counters();
  uint64_t Moved = 0, Eager = 0;
  for (uint64_t N : {1, 255, 256, 257, 100003}) {
    ASSERT_EQ(runVadd(P, "cu_vadd", N), HPVM_OK) << hpvm_error_message();
    // a, b and c go up (an out buffer may be partly written), c comes back:
    // a small c in the launch itself, right after the kernel.
    Moved += 4 * N * 4;
    if (N * 4 <= 65536)
      Eager += N * 4;
  }
  CudaDevice::Counters After = Dev->counters();
  EXPECT_EQ(After.Launches - Before.Launches, 5u);
  EXPECT_EQ(After.GridLaunches - Before.GridLaunches, 0u);
  EXPECT_EQ(After.ModulesLoaded - Before.ModulesLoaded, 1u);
  EXPECT_EQ(After.ModuleCacheHits - Before.ModuleCacheHits, 4u);
  EXPECT_EQ(After.EagerDownloadBytes - Before.EagerDownloadBytes, Eager);
  EXPECT_EQ(After.StagingBytes - Before.StagingBytes, Moved - Eager);
  EXPECT_EQ(Runtime::get().coherence().bytesMoved(), Moved);
  // Freed buffers come back from the pool: the last four launches reuse
  // the first's three buffers where the size class matches.
  EXPECT_GT(After.PooledAllocations, Before.PooledAllocations);
  EXPECT_EQ(launchesByDevice("cu_vadd")[Dev->name()], 5u);
  if (!Real) {
    FakeCudaStats S = fakeStats();
    EXPECT_EQ(S.PageableCopies, 0u) << "every copy goes through staging";
    EXPECT_EQ(S.PinnedCopies, 20u);
    EXPECT_EQ(S.CallsWithoutContext, 0u);
    // 100003 elements: ceil(100003 / 256) blocks of 256.
    EXPECT_EQ(S.LastGrid[0], 391u);
    EXPECT_EQ(S.LastBlock[0], 256u);
    EXPECT_EQ(S.LastGrid[1] * S.LastGrid[2] * S.LastBlock[1] * S.LastBlock[2],
              1u);
  }
}

TEST_F(CudaTest, CopiesLargerThanAStagingBufferGoInPieces) {
  Graph G = ptxVaddGraph("cu_vadd_big");
  TestProgram P({&G}, {vaddArtifact("cu_vadd_big")});
  const uint64_t N = 5000011; // 20 MB per buffer: two 16 MiB pieces each
  ASSERT_EQ(runVadd(P, "cu_vadd_big", N), HPVM_OK) << hpvm_error_message();
  EXPECT_EQ(Dev->counters().StagingBytes, 4 * N * 4);
  if (!Real) {
    EXPECT_EQ(fakeStats().PinnedCopies, 8u);
  }
}

TEST_F(CudaTest, IndependentLeavesLaunchFromSeveralThreads) {
  // Four vadds with no edges between them: the launching thread goes on
  // while each kernel runs, on streams of their own, each after the
  // uploads of its inputs (queued on the copy stream).
  Graph G("cu_four");
  Node &R = G.root();
  for (unsigned K = 0; K != 4; ++K) {
    unsigned A =
        R.addBuffer("a" + std::to_string(K), Access::In, Extent::param(13));
    unsigned B =
        R.addBuffer("b" + std::to_string(K), Access::In, Extent::param(13));
    unsigned C =
        R.addBuffer("c" + std::to_string(K), Access::Out, Extent::param(13));
    Node &L = R.addLeaf("add" + std::to_string(K), "vadd");
    L.addBuffer("a", Access::In, Extent::param(4));
    L.addBuffer("b", Access::In, Extent::param(4));
    L.addBuffer("c", Access::Out, Extent::param(4));
    L.addValue("n", ScalarType::I64);
    L.addValue("bytes", ScalarType::I64);
    L.setDims({Extent::param(3)});
    R.bind(L, 0, A);
    R.bind(L, 1, B);
    R.bind(L, 2, C);
  }
  unsigned N = R.addValue("n", ScalarType::I64);
  unsigned Bytes = R.addValue("bytes", ScalarType::I64);
  for (const auto &Child : R.Children) {
    R.bind(*Child, 3, N);
    R.bind(*Child, 4, Bytes);
  }
  std::vector<ArtifactSpec> Arts;
  for (unsigned K = 0; K != 4; ++K)
    Arts.push_back(vaddArtifact("cu_four/add" + std::to_string(K)));
  TestProgram P({&G}, Arts);

  const int64_t Num = 4099, Size = Num * 4;
  for (int Round = 0; Round != 5; ++Round) {
    std::vector<std::vector<float>> Data(12, std::vector<float>(Num));
    std::vector<float *> Ptrs;
    for (unsigned K = 0; K != 12; ++K) {
      for (int64_t I = 0; I != Num; ++I)
        Data[K][I] = K % 3 == 2 ? -1.0f : float(K * 100 + I % 50);
      Ptrs.push_back(Data[K].data());
    }
    std::vector<void *> Args;
    for (float *&Ptr : Ptrs)
      Args.push_back(&Ptr);
    int64_t NumArg = Num, BytesArg = Size;
    Args.push_back(&NumArg);
    Args.push_back(&BytesArg);
    ASSERT_EQ(P.launch("cu_four", Args), HPVM_OK) << hpvm_error_message();
    for (unsigned K = 0; K != 4; ++K)
      for (int64_t I = 0; I != Num; ++I)
        ASSERT_EQ(Data[3 * K + 2][I], Data[3 * K][I] + Data[3 * K + 1][I])
            << "leaf " << K << " element " << I;
  }
  if (!Real) { // every kernel follows uploads: its stream waits for them
    EXPECT_GE(fakeStats().StreamWaits, 20u);
  }
}

TEST_F(CudaTest, ValuesAndAncestorIdsAreMarshalledByTheAbi) {
  // types [2] -> mid [3] -> t: each of the 6 launches writes what it
  // received to its own 20-slot row.
  Graph G("cu_types");
  Node &R = G.root();
  R.setDims({Extent::constant(2)});
  const ScalarType Types[] = {ScalarType::I1,  ScalarType::I8,  ScalarType::I16,
                              ScalarType::I32, ScalarType::I64, ScalarType::F16,
                              ScalarType::F32, ScalarType::F64, ScalarType::Ptr,
                              ScalarType::I64};
  const char *Names[] = {"b", "c", "s", "i", "l", "h", "f", "d", "p", "bytes"};
  auto AddParams = [&](Node &N) {
    N.addBuffer("out", Access::Out, Extent::param(10));
    for (unsigned K = 0; K != 10; ++K)
      N.addValue(Names[K], Types[K]);
  };
  AddParams(R);
  Node &Mid = R.addInternal("mid");
  AddParams(Mid);
  Mid.setDims({Extent::constant(3)});
  Node &T = Mid.addLeaf("t", "types");
  AddParams(T);
  for (unsigned K = 0; K != 11; ++K) {
    R.bind(Mid, K, K);
    Mid.bind(T, K, K);
  }
  TestProgram P({&G}, {{"cu_types/mid/t", HPVM_TARGET_NVPTX, nullptr, TypesPtx,
                        "hpvm_nvptx_types"}});

  std::vector<uint64_t> Out(6 * 20, ~0ull);
  uint64_t *PO = Out.data();
  uint8_t B = 1;
  int8_t C = -2;
  int16_t S = -3;
  int32_t I = -4;
  int64_t L = -5;
  uint16_t H = 0x3c00; // 1.0 as a half
  float F = 1.5f;
  double D = -2.25;
  void *Ptr = reinterpret_cast<void *>(uintptr_t(0x1234567890));
  int64_t Bytes = static_cast<int64_t>(Out.size() * 8);
  ASSERT_EQ(
      P.launch("cu_types", {&PO, &B, &C, &S, &I, &L, &H, &F, &D, &Ptr, &Bytes}),
      HPVM_OK)
      << hpvm_error_message();
  uint32_t FBits;
  std::memcpy(&FBits, &F, 4);
  uint64_t DBits;
  std::memcpy(&DBits, &D, 8);
  for (uint64_t Root = 0; Root != 2; ++Root)
    for (uint64_t M = 0; M != 3; ++M) {
      const uint64_t *Row = &Out[(Root * 3 + M) * 20];
      const uint64_t Expected[17] = {
          1,      0xfe,  0xfffd, 0xfffffffcu,  uint64_t(int64_t(-5)),
          0x3c00, FBits, DBits,  0x1234567890, uint64_t(Bytes),
          0, // the flat form
          M,      0,     0,      Root,         0,
          0};
      for (unsigned K = 0; K != 17; ++K)
        EXPECT_EQ(Row[K], Expected[K])
            << "instance (" << Root << ", " << M << ") slot " << K;
    }
  // mid's only child is not replicated: one launch per mid instance.
  EXPECT_EQ(launchesByDevice("cu_types/mid/t")[Dev->name()], 6u);
}

TEST_F(CudaTest, ReplicatedParentOfOneLeafIsOneGridMappedLaunch) {
  Graph G = cellGraph("cu_cells");
  TestProgram P({&G}, {{"cu_cells/cell", HPVM_TARGET_NVPTX, nullptr, CellPtx,
                        "hpvm_nvptx_cell"}});
  CudaDevice::Counters Before = Dev->counters();
  runCells(P, "cu_cells", 5, 7, 300);
  CudaDevice::Counters After = Dev->counters();
  EXPECT_EQ(After.Launches - Before.Launches, 1u);
  EXPECT_EQ(After.GridLaunches - Before.GridLaunches, 1u);
  EXPECT_EQ(launchesByDevice("cu_cells/cell")[Dev->name()], 1u);
  if (!Real) {
    FakeCudaStats S = fakeStats();
    // Parent dim 1 (7) is x, dim 0 (5) is y; blocks of the leaf's 1-D size.
    EXPECT_EQ(S.LastGrid[0], 7u);
    EXPECT_EQ(S.LastGrid[1], 5u);
    EXPECT_EQ(S.LastGrid[2], 1u);
    EXPECT_EQ(S.LastBlock[0], 256u);
    uint64_t Params[16];
    ASSERT_EQ(fake().LastParams(Params, 16), 8u);
    EXPECT_EQ(Params[7], 1u) << "the form parameter says grid-mapped";
  }
  // One instance of the parent, a leaf of one instance.
  runCells(P, "cu_cells", 1, 1, 1);
}

TEST(CudaGridFallback, ParentBeyondTheGridLimitLaunchesPerInstance) {
  SKIP_ON_A_REAL_GPU("needs the stand-in's small grid limit");
  // The stand-in allows 4 blocks along y: 5 rows of parent instances do
  // not fit one grid-mapped launch, so each instance gets a flat launch
  // with its ids in the parameters.
  ScopedEnv Env({{"HPVM_FAKE_CUDA_MAX_GRID_Y", "4"}});
  ScopedCuda Cuda;
  ASSERT_NE(Cuda.Dev, nullptr) << Cuda.Why;
  EXPECT_EQ(Cuda.Dev->gridLimits().Max[1], 4u);
  Graph G = cellGraph("cu_cells_tall");
  TestProgram P({&G}, {{"cu_cells_tall/cell", HPVM_TARGET_NVPTX, nullptr,
                        CellPtx, "hpvm_nvptx_cell"}});
  runCells(P, "cu_cells_tall", 5, 3, 40);
  CudaDevice::Counters C = Cuda.Dev->counters();
  EXPECT_EQ(C.Launches, 15u);
  EXPECT_EQ(C.GridLaunches, 0u);
  uint64_t Params[16];
  ASSERT_EQ(fake().LastParams(Params, 16), 8u);
  EXPECT_EQ(Params[7], 0u) << "the form parameter says flat";
  // A parent that fits still gets one launch.
  runCells(P, "cu_cells_tall", 4, 3, 40);
  EXPECT_EQ(Cuda.Dev->counters().GridLaunches, 1u);
}

TEST_F(CudaTest, CpuAndCudaLeavesShareBuffers) {
  // fill (cpu) writes a and b; add (cuda) makes c; twice (cpu) reads c.
  Graph G("cu_mix");
  Node &R = G.root();
  for (const char *B : {"a", "b", "c", "d"})
    R.addBuffer(B, Access::InOut, Extent::param(5));
  R.addValue("n", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  Node &Fill = R.addLeaf("fill", "fill");
  Fill.addBuffer("a", Access::Out, Extent::param(3));
  Fill.addBuffer("b", Access::Out, Extent::param(3));
  Fill.addValue("n", ScalarType::I64);
  Fill.addValue("bytes", ScalarType::I64);
  Fill.setDims({Extent::param(2)});
  Node &Add = R.addLeaf("add", "vadd");
  Add.addBuffer("a", Access::In, Extent::param(4));
  Add.addBuffer("b", Access::In, Extent::param(4));
  Add.addBuffer("c", Access::Out, Extent::param(4));
  Add.addValue("n", ScalarType::I64);
  Add.addValue("bytes", ScalarType::I64);
  Add.setDims({Extent::param(3)});
  Node &Twice = R.addLeaf("twice", "twice");
  Twice.addBuffer("c", Access::In, Extent::param(3));
  Twice.addBuffer("d", Access::Out, Extent::param(3));
  Twice.addValue("n", ScalarType::I64);
  Twice.addValue("bytes", ScalarType::I64);
  Twice.setDims({Extent::param(2)});
  R.bind(Fill, 0, 0);
  R.bind(Fill, 1, 1);
  R.bind(Fill, 2, 4);
  R.bind(Fill, 3, 5);
  for (unsigned K = 0; K != 3; ++K)
    R.bind(Add, K, K);
  R.bind(Add, 3, 4);
  R.bind(Add, 4, 5);
  R.bind(Twice, 0, 2);
  R.bind(Twice, 1, 3);
  R.bind(Twice, 2, 4);
  R.bind(Twice, 3, 5);
  R.addDependency(Fill, Add);
  R.addDependency(Add, Twice);
  hpvm_cpu_kernel_fn FillFn = [](void *const *Args, void *const *,
                                 const uint64_t *, const uint64_t *,
                                 uint64_t Begin, uint64_t End) {
    float *A = buffer<float>(Args, 0), *B = buffer<float>(Args, 1);
    for (uint64_t I = Begin; I != End; ++I) {
      A[I] = float(I);
      B[I] = float(2 * I);
    }
  };
  hpvm_cpu_kernel_fn TwiceFn = [](void *const *Args, void *const *,
                                  const uint64_t *, const uint64_t *,
                                  uint64_t Begin, uint64_t End) {
    const float *C = buffer<float>(Args, 0);
    float *D = buffer<float>(Args, 1);
    for (uint64_t I = Begin; I != End; ++I)
      D[I] = 2 * C[I];
  };
  TestProgram P({&G}, {{"cu_mix/fill", HPVM_TARGET_CPU, FillFn},
                       vaddArtifact("cu_mix/add"),
                       {"cu_mix/twice", HPVM_TARGET_CPU, TwiceFn}});
  const int64_t N = 10007, Bytes = N * 4;
  std::vector<float> A(N), B(N), C(N), D(N);
  float *PA = A.data(), *PB = B.data(), *PC = C.data(), *PD = D.data();
  int64_t NArg = N, BArg = Bytes;
  ASSERT_EQ(P.launch("cu_mix", {&PA, &PB, &PC, &PD, &NArg, &BArg}), HPVM_OK)
      << hpvm_error_message();
  for (int64_t I = 0; I != N; ++I)
    ASSERT_EQ(D[I], float(6 * I)) << I;
  // a, b and c up; c back before twice reads it, and nothing at the end.
  EXPECT_EQ(Runtime::get().coherence().bytesMoved(), uint64_t(4 * Bytes));
  EXPECT_EQ(launchesByDevice("cu_mix/add")[Dev->name()], 1u);
}

TEST_F(CudaTest, KernelsAndCopiesBecomeDeviceEventsInTheTrace) {
  const uint64_t N = 100003;
  DeviceTrace Tr;
  ASSERT_NO_FATAL_FAILURE(traceDevice(
      "hpvm-rt-cuda-trace", Dev->name(), "cu_traced",
      [&] {
        Graph G = ptxVaddGraph("cu_traced");
        TestProgram P({&G}, {vaddArtifact("cu_traced")});
        ASSERT_EQ(runVadd(P, "cu_traced", N), HPVM_OK) << hpvm_error_message();
        ASSERT_EQ(runVadd(P, "cu_traced", N), HPVM_OK) << hpvm_error_message();
      },
      Tr));
  for (const auto *Copies : {&Tr.Uploads, &Tr.Downloads})
    for (const Json *E : *Copies)
      EXPECT_EQ(E->get("args")->get("bytes")->Num, double(N * 4));
  EXPECT_TRUE(Tr.TrackNamed) << Tr.Text;
  EXPECT_EQ(Tr.Uploads.size(), 6u) << Tr.Text;
  EXPECT_EQ(Tr.Downloads.size(), 2u) << Tr.Text;
  ASSERT_EQ(Tr.Hosts.size(), 2u) << Tr.Text;
  ASSERT_EQ(Tr.Kernels.size(), 2u) << Tr.Text;
  for (unsigned K = 0; K != 2; ++K) {
    EXPECT_EQ(Tr.Kernels[K]->get("args")->get("instances")->Num, double(N));
    EXPECT_NE(Tr.Kernels[K]->get("tid")->Num, Tr.Hosts[K]->get("tid")->Num);
    expectInsideHostSpan(*Tr.Hosts[K], *Tr.Kernels[K], Tr.Text);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(CudaTest, PtxTheJitRejectsIsReportedWithItsLog) {
  Graph G("cu_bad", Node::Kind::Leaf);
  G.root().Function = "bad";
  G.root().addBuffer("out", Access::Out, Extent::constant(8));
  TestProgram P(
      {&G}, {{"cu_bad", HPVM_TARGET_NVPTX, nullptr, BadPtx, "hpvm_nvptx_bad"}});
  uint64_t Out = 0;
  uint64_t *PO = &Out;
  int Code = P.launch("cu_bad", {&PO});
  expectError(Code, HPVM_ERR_BAD_PROGRAM,
              "node 'cu_bad': loading the PTX of entry 'hpvm_nvptx_bad' "
              "failed: cuModuleLoadDataEx returned CUDA_ERROR_INVALID_PTX");
  expectError(Code, HPVM_ERR_BAD_PROGRAM, "; JIT log:\n");
  expectError(Code, HPVM_ERR_BAD_PROGRAM, "HPVM_FAKE_JIT_ERROR");
  // The device is still fine.
  Graph V = ptxVaddGraph("cu_after_bad");
  TestProgram Good({&V}, {vaddArtifact("cu_after_bad")});
  EXPECT_EQ(runVadd(Good, "cu_after_bad", 1000), HPVM_OK)
      << hpvm_error_message();
}

TEST_F(CudaTest, MissingEntryPointIsABadProgram) {
  Graph G = ptxVaddGraph("cu_noentry");
  TestProgram P({&G}, {{"cu_noentry", HPVM_TARGET_NVPTX, nullptr, VaddPtx,
                        "hpvm_nvptx_elsewhere"}});
  expectError(runVadd(P, "cu_noentry", 10), HPVM_ERR_BAD_PROGRAM,
              "node 'cu_noentry': the PTX has no entry point "
              "'hpvm_nvptx_elsewhere'");
}

TEST_F(CudaTest, LeafOutputsAreUnsupported) {
  Graph G("cu_outs", Node::Kind::Leaf);
  G.root().Function = "value";
  // Not replicated (no dims), so its output goes somewhere.
  G.root().addOutput("v", ScalarType::I64);
  TestProgram P({&G}, {{"cu_outs", HPVM_TARGET_NVPTX, nullptr, VaddPtx,
                        "hpvm_nvptx_vadd"}});
  expectError(P.launch("cu_outs", {}), HPVM_ERR_UNSUPPORTED,
              "cuda:0: node 'cu_outs': leaves with outputs cannot run on "
              "CUDA");
}

TEST(CudaErrors, AFaultingKernelLeavesTheDeviceUnusable) {
  SKIP_ON_A_REAL_GPU("a real fault would end the process's primary context");
  ScopedCuda Cuda;
  ASSERT_NE(Cuda.Dev, nullptr) << Cuda.Why;
  Graph G = ptxVaddGraph("cu_fault");
  // vadd's PTX under another entry name, whose twin faults.
  std::string Ptx = VaddPtx;
  Ptx.replace(Ptx.find("hpvm_nvptx_vadd"), 15, "hpvm_nvptx_fault");
  TestProgram P({&G}, {{"cu_fault", HPVM_TARGET_NVPTX, nullptr, Ptx,
                        "hpvm_nvptx_fault"}});
  expectError(runVadd(P, "cu_fault", 100), HPVM_ERR_DEVICE,
              "cuda:0: cuEventSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS "
              "(an illegal memory access was encountered) (node 'cu_fault': "
              "waiting for its kernel)");
  expectError(runVadd(P, "cu_fault", 100), HPVM_ERR_DEVICE,
              "cuda:0: the device is unusable since an earlier failure "
              "(cuEventSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS");
}

TEST(CudaErrors, KernelThatCannotRunTheAbiBlockSizeIsReported) {
  SKIP_ON_A_REAL_GPU("needs the stand-in's small per-kernel thread limit");
  ScopedEnv Env({{"HPVM_FAKE_CUDA_MAX_THREADS", "128"}});
  ScopedCuda Cuda;
  ASSERT_NE(Cuda.Dev, nullptr) << Cuda.Why;
  Graph G = ptxVaddGraph("cu_threads");
  TestProgram P({&G}, {vaddArtifact("cu_threads")});
  expectError(runVadd(P, "cu_threads", 100), HPVM_ERR_DEVICE,
              "kernel 'hpvm_nvptx_vadd' can run at most 128 threads per "
              "block on this device (registers or shared memory), but "
              "NVPTXABI.h launches it with 256");
}

//===----------------------------------------------------------------------===//
// Discovery
//===----------------------------------------------------------------------===//

#ifndef HPVM_TEST_CUDA_REAL

TEST(CudaDiscovery, KindIsLazyAndRunsNvptx) {
  const rt::DeviceKind *Cuda = nullptr;
  for (const rt::DeviceKind &K : rt::deviceKinds())
    if (std::string(K.Name) == "cuda")
      Cuda = &K;
  ASSERT_NE(Cuda, nullptr);
  EXPECT_EQ(Cuda->Targets, uint32_t(HPVM_TARGET_NVPTX));
  EXPECT_FALSE(Cuda->Eager);
}

TEST(CudaDiscovery, MissingDriverMeansNoDeviceAndSaysWhy) {
  std::vector<std::unique_ptr<rt::Device>> Found;
  std::string Why = discover("/nonexistent/hpvm-cuda/libcuda.so.1", Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_EQ(Why.rfind("/nonexistent/hpvm-cuda/libcuda.so.1 not found (", 0), 0u)
      << Why;
  EXPECT_NE(Why.find("No such file"), std::string::npos) << Why;
}

TEST(CudaDiscovery, ALibraryThatIsNoDriverIsRejected) {
  std::vector<std::unique_ptr<rt::Device>> Found;
  std::string Why = discover(HPVM_TEST_FAKE_VULKAN_LOADER, Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_NE(Why.find("' is not a usable CUDA driver: it lacks cuInit, "),
            std::string::npos)
      << Why;
}

TEST(CudaDiscovery, TheToolkitsStubLibraryHasNoDevice) {
#ifdef HPVM_TEST_CUDA_STUB
  // The stub libcuda.so that CUDA toolkits ship for linking answers every
  // call with CUDA_ERROR_STUB_LIBRARY and knows no error names.
  std::vector<std::unique_ptr<rt::Device>> Found;
  std::string Why = discover(HPVM_TEST_CUDA_STUB, Found);
  EXPECT_TRUE(Found.empty());
  EXPECT_EQ(Why, "cuInit failed: CUDA_ERROR_STUB_LIBRARY");
#else
  GTEST_SKIP() << "no CUDA toolkit stub library on this machine";
#endif
}

TEST(CudaDiscovery, InitFailureAndNoDevicesAreReasons) {
  std::vector<std::unique_ptr<rt::Device>> Found;
  {
    ScopedEnv Env({{"HPVM_FAKE_CUDA_INIT_RESULT", "100"}});
    EXPECT_EQ(discover(DriverPath, Found),
              "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
              "detected)");
  }
  {
    ScopedEnv Env({{"HPVM_FAKE_CUDA_DEVICES", "0"}});
    EXPECT_EQ(discover(DriverPath, Found),
              "the CUDA driver reports no devices");
  }
  EXPECT_TRUE(Found.empty());
}

TEST(CudaDiscovery, OneDevicePerGpuAndUnusableOnesAreNoted) {
  std::vector<std::unique_ptr<rt::Device>> Found;
  {
    ScopedEnv Env({{"HPVM_FAKE_CUDA_DEVICES", "3"}});
    EXPECT_EQ(discover(DriverPath, Found), "");
  }
  ASSERT_EQ(Found.size(), 3u);
  for (unsigned I = 0; I != 3; ++I) {
    EXPECT_EQ(Found[I]->name(), "cuda:" + std::to_string(I));
    EXPECT_EQ(Found[I]->target(), uint32_t(HPVM_TARGET_NVPTX));
    EXPECT_EQ(Found[I]->description(),
              "cuda:" + std::to_string(I) + " (HPVM Fake GPU " +
                  std::to_string(I) + "; sm_86; 1.0 GiB; 4 SMs; driver 12.8)");
    auto *C = static_cast<CudaDevice *>(Found[I].get());
    EXPECT_EQ(C->computeCapability(), 86u);
    EXPECT_EQ(C->totalMemory(), uint64_t(1) << 30);
  }
  EXPECT_NE(Found[0]->memorySpace(), Found[1]->memorySpace());
  EXPECT_NE(Found[0]->memorySpace(), rt::HostSpace);
  Found.clear();

  ScopedEnv Env(
      {{"HPVM_FAKE_CUDA_DEVICES", "2"}, {"HPVM_FAKE_CUDA_RETAIN_FAILS", "1"}});
  EXPECT_EQ(discover(DriverPath, Found),
            "skipped cuda:1: cuDevicePrimaryCtxRetain failed: "
            "CUDA_ERROR_DEVICE_UNAVAILABLE");
  ASSERT_EQ(Found.size(), 1u);
  EXPECT_EQ(Found[0]->name(), "cuda:0");
  Found.clear();
  ScopedEnv One(
      {{"HPVM_FAKE_CUDA_DEVICES", "1"}, {"HPVM_FAKE_CUDA_RETAIN_FAILS", "0"}});
  EXPECT_EQ(discover(DriverPath, Found),
            "no usable CUDA device (cuda:0: cuDevicePrimaryCtxRetain failed: "
            "CUDA_ERROR_DEVICE_UNAVAILABLE)");
  EXPECT_TRUE(Found.empty());
}

//===----------------------------------------------------------------------===//
// Launch shapes and parameters, without a driver
//===----------------------------------------------------------------------===//

TEST(CudaLaunchShape, FlatFormFollowsTheAbi) {
  rt::CudaGridLimits Limits;
  rt::CudaLaunchShape S;
  uint64_t D0[3] = {1, 1, 1};
  EXPECT_EQ(rt::cudaFlatShape(0, D0, Limits, S), "");
  EXPECT_EQ(S.Grid[0] * S.Grid[1] * S.Grid[2], 1u);
  EXPECT_EQ(S.Block[0] * S.Block[1] * S.Block[2], 1u);

  uint64_t D1[3] = {100003, 1, 1};
  EXPECT_EQ(rt::cudaFlatShape(1, D1, Limits, S), "");
  EXPECT_EQ(S.Block[0], 256u);
  EXPECT_EQ(S.Grid[0], 391u);
  EXPECT_EQ(S.Grid[1], 1u);

  // The last dim is x: [5, 100] -> x covers 100 in 32s, y covers 5 in 8s.
  uint64_t D2[3] = {5, 100, 1};
  EXPECT_EQ(rt::cudaFlatShape(2, D2, Limits, S), "");
  EXPECT_EQ(S.Block[0], 32u);
  EXPECT_EQ(S.Block[1], 8u);
  EXPECT_EQ(S.Block[2], 1u);
  EXPECT_EQ(S.Grid[0], 4u);
  EXPECT_EQ(S.Grid[1], 1u);

  uint64_t D3[3] = {3, 17, 70};
  EXPECT_EQ(rt::cudaFlatShape(3, D3, Limits, S), "");
  EXPECT_EQ(S.Block[0], 8u);
  EXPECT_EQ(S.Block[1], 8u);
  EXPECT_EQ(S.Block[2], 4u);
  EXPECT_EQ(S.Grid[0], 9u);
  EXPECT_EQ(S.Grid[1], 3u);
  EXPECT_EQ(S.Grid[2], 1u);

  // An empty extent is never launched; it would be one block.
  uint64_t Empty[3] = {0, 1, 1};
  EXPECT_EQ(rt::cudaFlatShape(1, Empty, Limits, S), "");
  EXPECT_EQ(S.Grid[0], 1u);
}

TEST(CudaLaunchShape, ExtentsBeyondTheGridLimitsAreErrors) {
  rt::CudaGridLimits Limits;
  rt::CudaLaunchShape S;
  uint64_t Tall[3] = {65535 * 8 + 1, 32, 1};
  EXPECT_EQ(rt::cudaFlatShape(2, Tall, Limits, S),
            "dim 0 has extent 524281, which needs 65536 blocks of 8 threads "
            "along y, but the device allows 65535");
  uint64_t Fits[3] = {65535 * 8, 32, 1};
  EXPECT_EQ(rt::cudaFlatShape(2, Fits, Limits, S), "");
  EXPECT_EQ(S.Grid[1], 65535u);
  uint64_t Long[3] = {uint64_t(2147483647) * 256 + 1, 1, 1};
  EXPECT_EQ(rt::cudaFlatShape(1, Long, Limits, S),
            "dim 0 has extent 549755813633, which needs 2147483648 blocks of "
            "256 threads along x, but the device allows 2147483647");
  uint64_t Deep[3] = {65535 * 4 + 1, 8, 8};
  EXPECT_NE(rt::cudaFlatShape(3, Deep, Limits, S).find("along z"),
            std::string::npos);
  rt::CudaGridLimits Small;
  Small.Max[0] = 3;
  uint64_t Four[3] = {4 * 256, 1, 1};
  EXPECT_NE(rt::cudaFlatShape(1, Four, Small, S), "");
}

TEST(CudaLaunchShape, WorkGroupKernelsRunABlockPerInstance) {
  rt::CudaGridLimits Limits;
  rt::CudaLaunchShape S;
  // Instances [3, 70000] (x the last), work-groups of 16 x 8 x 2 (x, y, z).
  uint64_t Dims[3] = {3, 70000, 1}, Group[3] = {16, 8, 2};
  EXPECT_EQ(rt::cudaWorkGroupShape(2, Dims, Group, Limits, S), "");
  EXPECT_EQ(S.Grid[0], 70000u);
  EXPECT_EQ(S.Grid[1], 3u);
  EXPECT_EQ(S.Grid[2], 1u);
  EXPECT_EQ(S.Block[0], 16u);
  EXPECT_EQ(S.Block[1], 8u);
  EXPECT_EQ(S.Block[2], 2u);
  // One instance: one block.
  uint64_t One[3] = {1, 1, 1};
  EXPECT_EQ(rt::cudaWorkGroupShape(0, One, Group, Limits, S), "");
  EXPECT_EQ(S.Grid[0] * S.Grid[1] * S.Grid[2], 1u);
  uint64_t Tall[3] = {65536, 4, 1};
  EXPECT_EQ(rt::cudaWorkGroupShape(2, Tall, Group, Limits, S),
            "dim 0 has 65536 work-groups, more blocks along y than the device "
            "allows (65535)");
}

TEST(CudaLaunchShape, GridMappedFormTakesTheParentsExtents) {
  rt::CudaGridLimits Limits;
  rt::CudaLaunchShape S;
  uint64_t P2[3] = {3, 70000, 1};
  EXPECT_EQ(rt::cudaGridMappedShape(1, 2, P2, Limits, S), "");
  EXPECT_EQ(S.Grid[0], 70000u);
  EXPECT_EQ(S.Grid[1], 3u);
  EXPECT_EQ(S.Grid[2], 1u);
  EXPECT_EQ(S.Block[0], 256u);
  EXPECT_EQ(rt::cudaGridMappedShape(2, 2, P2, Limits, S), "");
  EXPECT_EQ(S.Block[0], 32u);
  EXPECT_EQ(S.Block[1], 8u);
  uint64_t P3[3] = {2, 3, 4};
  EXPECT_EQ(rt::cudaGridMappedShape(3, 3, P3, Limits, S), "");
  EXPECT_EQ(S.Grid[0], 4u);
  EXPECT_EQ(S.Grid[1], 3u);
  EXPECT_EQ(S.Grid[2], 2u);
  EXPECT_EQ(S.Block[2], 4u);

  uint64_t Wide[3] = {70000, 3, 1};
  EXPECT_EQ(rt::cudaGridMappedShape(1, 2, Wide, Limits, S),
            "parent dim 0 has extent 70000, more blocks along y than the "
            "device allows (65535)");
  EXPECT_NE(rt::cudaGridMappedShape(0, 2, P2, Limits, S), "");
  EXPECT_NE(rt::cudaGridMappedShape(1, 0, P2, Limits, S), "");
}

TEST(CudaParams, MarshalledPerNvptxAbi) {
  Graph G("params", Node::Kind::Leaf);
  Node &L = G.root();
  L.addBuffer("buf", Access::InOut, Extent::constant(8));
  const ScalarType Types[] = {
      ScalarType::I1,  ScalarType::I8,  ScalarType::I16,
      ScalarType::I32, ScalarType::I64, ScalarType::F16,
      ScalarType::F32, ScalarType::F64, ScalarType::Ptr};
  for (unsigned K = 0; K != 9; ++K)
    L.addValue("v" + std::to_string(K), Types[K]);
  void *Buf = reinterpret_cast<void *>(uintptr_t(0x7f0000001000));
  uint8_t B = 1;
  int8_t C = -1;
  int16_t S = -2;
  int32_t I = -3;
  int64_t Lv = -4;
  uint16_t H = 0xc000;
  float F = 0.5f;
  double D = 3.0;
  void *P = reinterpret_cast<void *>(uintptr_t(0xabcdef));
  void *Args[] = {&Buf, &B, &C, &S, &I, &Lv, &H, &F, &D, &P};
  const uint64_t Outer[6] = {7, 8, 9, 10, 11, 12};

  ASSERT_EQ(rt::cudaKernelParamCount(L, 2), 10u + 6 + 1);
  uint64_t Slots[17];
  void *Ptrs[17];
  std::memset(Slots, 0xaa, sizeof(Slots));
  ASSERT_EQ(rt::cudaMarshalParams(L, Args, Outer, 2, rt::CudaLaunchForm::Flat,
                                  Slots, Ptrs),
            "");
  uint32_t FBits;
  std::memcpy(&FBits, &F, 4);
  uint64_t DBits;
  std::memcpy(&DBits, &D, 8);
  const uint64_t Expected[17] = {0x7f0000001000,
                                 1,
                                 0xff,
                                 0xfffe,
                                 0xfffffffdu,
                                 uint64_t(int64_t(-4)),
                                 0xc000,
                                 FBits,
                                 DBits,
                                 0xabcdef,
                                 7,
                                 8,
                                 9,
                                 10,
                                 11,
                                 12,
                                 0};
  for (unsigned K = 0; K != 17; ++K) {
    EXPECT_EQ(Slots[K], Expected[K]) << "slot " << K;
    EXPECT_EQ(Ptrs[K], &Slots[K]);
  }

  // Grid-mapped: level-1 ids are 0 whatever the caller had; the form is 1.
  ASSERT_EQ(rt::cudaMarshalParams(L, Args, Outer, 2,
                                  rt::CudaLaunchForm::GridMapped, Slots, Ptrs),
            "");
  for (unsigned K = 10; K != 13; ++K)
    EXPECT_EQ(Slots[K], 0u) << "slot " << K;
  EXPECT_EQ(Slots[13], 10u);
  EXPECT_EQ(Slots[16], 1u);

  // Root leaves have no ids: the form follows the parameters.
  ASSERT_EQ(rt::cudaKernelParamCount(L, 0), 11u);
  ASSERT_EQ(rt::cudaMarshalParams(L, Args, nullptr, 0, rt::CudaLaunchForm::Flat,
                                  Slots, Ptrs),
            "");
  EXPECT_EQ(Slots[10], 0u);

  Args[3] = nullptr;
  EXPECT_EQ(rt::cudaMarshalParams(L, Args, Outer, 2, rt::CudaLaunchForm::Flat,
                                  Slots, Ptrs),
            "the argument for parameter 'v2' is NULL");
}

#endif // !HPVM_TEST_CUDA_REAL

//===----------------------------------------------------------------------===//
// Through the environment, in fresh processes
//===----------------------------------------------------------------------===//

/// Whether the driver under test has a device, probed without the runtime
/// so that death tests still start their child's runtime afresh.
bool cudaAvailable(std::string &Why) {
  static const std::pair<bool, std::string> Result = [] {
    rt::ThreadPool Pool(1);
    rt::DiscoveryContext Ctx{Pool, [](void *) { return rt::MemorySpace(1); },
                             nullptr};
    rt::CudaOptions O;
    O.Driver = DriverPath;
    std::vector<std::unique_ptr<rt::Device>> Found;
    std::string Reason = rt::discoverCudaDevices(Ctx, O, Found);
    return std::make_pair(!Found.empty(), Reason);
  }();
  Why = Result.second;
  return Result.first;
}

#define SKIP_WITHOUT_CUDA()                                                    \
  do {                                                                         \
    std::string Why;                                                           \
    if (!cudaAvailable(Why))                                                   \
      GTEST_SKIP() << "no CUDA device: " << Why;                               \
  } while (0)

void fillKernel(void *const *Args, void *const *, const uint64_t *,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  float *C = buffer<float>(Args, 2);
  for (uint64_t I = Begin; I != End; ++I)
    C[I] = buffer<float>(Args, 0)[I] + buffer<float>(Args, 1)[I];
}

void vaddOnlyCudaNamed() {
  setenv("HPVM_DEVICES", "cuda", 1);
  setenv("HPVM_DEVICES_STRICT", "1", 1);
  setenv("HPVM_CUDA_DRIVER", DriverPath, 1);
  if (!Real)
    fake();
  Graph G = ptxVaddGraph("env_cuda_vadd");
  TestProgram P({&G}, {vaddArtifact("env_cuda_vadd")});
  int Code = runVadd(P, "env_cuda_vadd", 1000);
  std::fprintf(stderr, "code %d %s\n", Code, hpvm_error_message());
  hpvm_print_stats();
  std::exit(0);
}

void nvptxProgramDiscoversCudaLazily() {
  setenv("HPVM_CUDA_DRIVER", DriverPath, 1);
  if (!Real)
    fake();
  Graph C = ptxVaddGraph("lazy_cuda_cpu");
  TestProgram Cpu({&C}, {{"lazy_cuda_cpu", HPVM_TARGET_CPU, fillKernel}});
  int Code = runVadd(Cpu, "lazy_cuda_cpu", 100);
  std::vector<std::string> Pending = Runtime::get().pendingDeviceKinds();
  std::string Kinds;
  for (const std::string &K : Pending)
    Kinds += " " + K;
  std::fprintf(stderr, "cpu: code %d devices %zu pending%s\n", Code,
               Runtime::get().numDevices(), Kinds.c_str());
  // Preferring the GPU: its artifact comes first.
  Graph G = ptxVaddGraph("lazy_cuda_vadd");
  TestProgram P({&G}, {vaddArtifact("lazy_cuda_vadd"),
                       {"lazy_cuda_vadd", HPVM_TARGET_CPU, fillKernel}});
  Code = runVadd(P, "lazy_cuda_vadd", 1000);
  std::fprintf(stderr, "nvptx: code %d on cuda:0 %llu\n", Code,
               static_cast<unsigned long long>(
                   launchesByDevice("lazy_cuda_vadd")["cuda:0"]));
  std::exit(0);
}

TEST(CudaEnvironmentDeathTest, SelectedByHpvmDevices) {
  SKIP_WITHOUT_CUDA();
  EXPECT_EXIT(vaddOnlyCudaNamed(), testing::ExitedWithCode(0),
              "code 0 \n.*devices: cuda:0 \\(.*env_cuda_vadd +cuda:0 +1 +1000");
}

TEST(CudaEnvironmentDeathTest, DiscoveredWhenAPtxProgramLoads) {
  SKIP_WITHOUT_CUDA();
  EXPECT_EXIT(nvptxProgramDiscoversCudaLazily(), testing::ExitedWithCode(0),
              "cpu: code 0 devices 1 pending( [a-z]+)*\n"
              "nvptx: code 0 on cuda:0 1\n");
}

#ifndef HPVM_TEST_CUDA_REAL

void strictWithoutDriver() {
  setenv("HPVM_DEVICES", "cuda", 1);
  setenv("HPVM_DEVICES_STRICT", "1", 1);
  setenv("HPVM_CUDA_DRIVER", "/nonexistent/hpvm-strict/libcuda.so.1", 1);
  Graph G = ptxVaddGraph("strict_cuda");
  TestProgram P({&G}, {{"strict_cuda", HPVM_TARGET_CPU, fillKernel}});
  int Code = runVadd(P, "strict_cuda", 10);
  std::fprintf(stderr, "code %d: %s\n", Code, hpvm_error_message());
  std::exit(0);
}

void namedWithoutDriver() {
  setenv("HPVM_DEVICES", "cpu,cuda", 1);
  setenv("HPVM_CUDA_DRIVER", "/nonexistent/hpvm-named/libcuda.so.1", 1);
  Graph G = ptxVaddGraph("named_cuda");
  TestProgram P({&G}, {vaddArtifact("named_cuda"),
                       {"named_cuda", HPVM_TARGET_CPU, fillKernel}});
  int Code = runVadd(P, "named_cuda", 10);
  std::fprintf(
      stderr, "code %d launches on cpu %llu\n", Code,
      static_cast<unsigned long long>(launchesByDevice("named_cuda")["cpu"]));
  for (const std::string &N : Runtime::get().notes())
    std::fprintf(stderr, "note: %s\n", N.c_str());
  std::exit(0);
}

TEST(CudaEnvironmentDeathTest, MissingDriverIsAReasonNotACrash) {
  EXPECT_EXIT(strictWithoutDriver(), testing::ExitedWithCode(0),
              "code 4: HPVM_DEVICES_STRICT: requested devices are missing: "
              "'cuda' has no device: /nonexistent/hpvm-strict/libcuda.so.1 "
              "not found \\(/nonexistent/hpvm-strict/libcuda.so.1: cannot "
              "open shared object file");
  EXPECT_EXIT(namedWithoutDriver(), testing::ExitedWithCode(0),
              "code 0 launches on cpu 1\n"
              "note: HPVM_DEVICES: 'cuda' has no device: "
              "/nonexistent/hpvm-named/libcuda.so.1 not found");
}

#endif // !HPVM_TEST_CUDA_REAL

} // namespace
