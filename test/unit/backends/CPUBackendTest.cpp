//===- CPUBackendTest.cpp - CPU kernels built, JIT-ed and run -------------===//
//
// Region-form kernels are extracted, compiled by buildCPUKernels, JIT-ed with
// CPUJIT and called directly through the hpvm_cpu_kernel_fn ABI the way the
// runtime does (args as pointers to each parameter, ranges of the first id in
// arbitrary chunks), and their results are compared with scalar references:
// empty, tiny and odd sizes so that vector remainders run; 2-D and 3-D nests
// with extents that are no multiple of the vector width; ancestor ids; a leaf
// without dims that returns outputs. Also the failures: bad options,
// replicated leaves with outputs, unresolvable external functions.
//
//===----------------------------------------------------------------------===//
#include "hpvm/backends/CPUBackend.h"
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"

#include "IRTestSupport.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace llvm;
using namespace hpvm;

namespace {

/// One module's kernels in a JIT, with its graphs for the parameter order.
class Kernels {
public:
  /// Parses IR (region form, extracted here, unless GraphForm), compiles
  /// and JITs it. Failures are reported to gtest; check ok().
  explicit Kernels(StringRef IR, bool GraphForm = false,
                   CPUOptions Opts = CPUOptions()) {
    Ctx.setDiagnosticHandlerCallBack(
        [](const DiagnosticInfo *DI, void *Self) {
          if (DI->getSeverity() != DS_Error)
            return;
          std::string Msg;
          raw_string_ostream OS(Msg);
          DiagnosticPrinterRawOStream DP(OS);
          DI->print(DP);
          static_cast<Kernels *>(Self)->Errors += OS.str() + "\n";
        },
        this);
    if (!test::parseGraphModule(Ctx, IR, "CPUBackendTest", GraphForm, M, Graphs,
                                &Errors))
      return;
    auto K = buildCPUKernels(*M, Opts);
    if (!K) {
      ADD_FAILURE() << toString(K.takeError());
      return;
    }
    auto J = CPUJIT::create(Opts);
    if (!J) {
      ADD_FAILURE() << toString(J.takeError());
      return;
    }
    JIT = std::move(*J);
    if (Error E = JIT->addModule(std::move(*K))) {
      ADD_FAILURE() << toString(std::move(E));
      JIT.reset();
    }
  }

  bool ok() const { return JIT != nullptr; }

  /// The leaf at Path ("graph/child/leaf").
  const Node *leaf(StringRef Path) const {
    const Node *Found = nullptr;
    for (const Graph &G : Graphs)
      forEachNode(G.root(), [&](const Node &N) {
        if (N.isLeaf() && N.path() == Path)
          Found = &N;
      });
    EXPECT_NE(Found, nullptr) << "no leaf " << Path.str();
    return Found;
  }

  /// The leaf at Path and its kernel; a null kernel (the failure reported)
  /// where either is missing.
  std::pair<const Node *, hpvm_cpu_kernel_fn> leafKernel(StringRef Path) {
    const Node *N = leaf(Path);
    return {N, N ? kernel(*N) : nullptr};
  }

  hpvm_cpu_kernel_fn kernel(const Node &N) {
    auto Fn = JIT->lookup(getCPUWrapperName(N.Function));
    if (!Fn) {
      ADD_FAILURE() << toString(Fn.takeError());
      return nullptr;
    }
    return *Fn;
  }

  /// args[] for N: for each parameter (by name), a pointer to its value.
  static std::vector<void *> args(const Node &N,
                                  const std::map<std::string, void *> &Values) {
    std::vector<void *> Args;
    for (const Param &P : N.Params) {
      auto It = Values.find(P.Name);
      EXPECT_NE(It, Values.end()) << "no value for parameter " << P.Name;
      Args.push_back(It == Values.end() ? nullptr : It->second);
    }
    return Args;
  }

  LLVMContext Ctx;
  std::string Errors;
  std::unique_ptr<Module> M;
  std::vector<Graph> Graphs;
  std::unique_ptr<CPUJIT> JIT;
};

std::vector<float> randomFloats(size_t N, unsigned Seed) {
  std::mt19937 Gen(Seed);
  std::uniform_real_distribution<float> Dist(-100.0f, 100.0f);
  std::vector<float> V(N);
  for (float &X : V)
    X = Dist(Gen);
  return V;
}

/// Splits [0, N) into chunks of pseudo-random sizes (some empty).
std::vector<std::pair<uint64_t, uint64_t>> chunks(uint64_t N, unsigned Seed) {
  std::mt19937 Gen(Seed);
  std::uniform_int_distribution<uint64_t> Size(0, 37);
  std::vector<std::pair<uint64_t, uint64_t>> Result;
  uint64_t Begin = 0;
  while (Begin < N) {
    uint64_t End = std::min(N, Begin + Size(Gen));
    Result.push_back({Begin, End});
    Begin = End;
  }
  Result.push_back({N, N});
  return Result;
}

/// Calls Fn over [0, Dims[0]) in chunks(Dims[0], Seed), as the runtime's
/// workers would.
void runInChunks(hpvm_cpu_kernel_fn Fn, std::vector<void *> &Args,
                 const uint64_t (&Dims)[3], unsigned Seed,
                 const uint64_t *OuterIds = nullptr) {
  for (auto [Begin, End] : chunks(Dims[0], Seed))
    Fn(Args.data(), nullptr, Dims, OuterIds, Begin, End);
}

/// Expects V[From..] to hold Fill still: a kernel wrote nothing past its
/// extent.
template <typename T, typename Fill>
void expectUntouchedFrom(const std::vector<T> &V, size_t From, Fill F) {
  for (size_t I = From; I < V.size(); ++I)
    ASSERT_EQ(V[I], F) << "written past the end at " << I;
}

const uint64_t OneDim[3] = {1, 1, 1};

/// Fails the current test with E's message if E is an error.
bool succeeded(Error E) {
  if (!E)
    return true;
  ADD_FAILURE() << toString(std::move(E));
  return false;
}

// --- 1-D --------------------------------------------------------------------

const char *VAddIR = R"IR(
@.name.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @vadd(ptr %a, ptr %b, ptr %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.vadd),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes, ptr %b, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %for.cond
for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %vb = load float, ptr %pb, align 4
  %sum = fadd float %va, %vb
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  store float %sum, ptr %pc, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond
for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
)IR";

/// Runs vadd over n elements in chunks; checks every element, and that
/// nothing past n (a guard zone) is written even when the last chunk asks
/// for more than exists.
void checkVAdd(Kernels &K, uint64_t N, unsigned Seed) {
  auto [Leaf, Fn] = K.leafKernel("vadd");
  ASSERT_NE(Fn, nullptr);
  constexpr size_t Guard = 64;
  std::vector<float> A = randomFloats(N, Seed), B = randomFloats(N, Seed + 1);
  std::vector<float> C(N + Guard, -12345.0f);
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  uint64_t Bytes = N * 4, NV = N;
  std::vector<void *> Args = Kernels::args(
      *Leaf,
      {{"a", &PA}, {"b", &PB}, {"c", &PC}, {"bytes", &Bytes}, {"n", &NV}});
  uint64_t Dims[3] = {N, 1, 1};
  auto Parts = chunks(N, Seed + 2);
  // The last call overshoots: the wrapper clamps to the extent.
  Parts.push_back({N > 3 ? N - 3 : 0, N + Guard});
  for (auto [Begin, End] : Parts)
    Fn(Args.data(), nullptr, Dims, nullptr, Begin, End);
  for (uint64_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << "n = " << N << ", i = " << I;
  expectUntouchedFrom(C, N, -12345.0f);
}

TEST(CPUBackendTest, VectorAddSizesAndChunks) {
  Kernels K(VAddIR);
  ASSERT_TRUE(K.ok());
  for (uint64_t N : {0ull, 1ull, 7ull, 1000003ull})
    checkVAdd(K, N, static_cast<unsigned>(N));
}

TEST(CPUBackendTest, VectorAddSubRangeOnly) {
  Kernels K(VAddIR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("vadd");
  ASSERT_NE(Fn, nullptr);
  uint64_t N = 1000;
  std::vector<float> A = randomFloats(N, 1), B = randomFloats(N, 2);
  std::vector<float> C(N, 0.5f);
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  uint64_t Bytes = N * 4;
  std::vector<void *> Args = Kernels::args(
      *Leaf,
      {{"a", &PA}, {"b", &PB}, {"c", &PC}, {"bytes", &Bytes}, {"n", &N}});
  uint64_t Dims[3] = {N, 1, 1};
  Fn(Args.data(), nullptr, Dims, nullptr, 101, 533);
  for (uint64_t I = 0; I < N; ++I) {
    bool Inside = I >= 101 && I < 533;
    ASSERT_EQ(C[I], Inside ? A[I] + B[I] : 0.5f) << "i = " << I;
  }
  // An empty or reversed range does nothing.
  std::vector<float> Before = C;
  Fn(Args.data(), nullptr, Dims, nullptr, 700, 700);
  Fn(Args.data(), nullptr, Dims, nullptr, 700, 10);
  EXPECT_EQ(C, Before);
}

TEST(CPUBackendTest, VectorAddFromThreads) {
  Kernels K(VAddIR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("vadd");
  ASSERT_NE(Fn, nullptr);
  uint64_t N = 1000003, Bytes = N * 4;
  std::vector<float> A = randomFloats(N, 5), B = randomFloats(N, 6);
  std::vector<float> C(N, 0.0f);
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  std::vector<void *> Args = Kernels::args(
      *Leaf,
      {{"a", &PA}, {"b", &PB}, {"c", &PC}, {"bytes", &Bytes}, {"n", &N}});
  uint64_t Dims[3] = {N, 1, 1};
  std::vector<std::thread> Threads;
  const uint64_t T = 4;
  for (uint64_t I = 0; I < T; ++I)
    Threads.emplace_back([&, I, Fn = Fn] {
      Fn(Args.data(), nullptr, Dims, nullptr, N * I / T, N * (I + 1) / T);
    });
  for (std::thread &Th : Threads)
    Th.join();
  for (uint64_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << "i = " << I;
}

TEST(CPUBackendTest, VectorAddAtEveryOptLevel) {
  for (unsigned Level = 0; Level <= 3; ++Level) {
    CPUOptions Opts;
    Opts.OptLevel = Level;
    Kernels K(VAddIR, /*GraphForm=*/false, Opts);
    ASSERT_TRUE(K.ok()) << "-O" << Level;
    checkVAdd(K, 1031, Level);
  }
}

TEST(CPUBackendTest, PinnedCPUWhereTheHostHasIt) {
  if (!sys::getHostCPUFeatures().lookup("avx2"))
    GTEST_SKIP() << "this host has no AVX2, so haswell code cannot run here";
  CPUOptions Opts;
  Opts.CPU = "haswell";
  Kernels K(VAddIR, /*GraphForm=*/false, Opts);
  ASSERT_TRUE(K.ok());
  checkVAdd(K, 12345, 9);
}

// --- value parameters of several types, helpers, constant tables, libm ------

const char *MixIR = R"IR(
@.name.mix = private unnamed_addr constant [4 x i8] c"mix\00"
@table = internal unnamed_addr constant [4 x float] [float 1.0, float 2.0, float 0.5, float -1.0]
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare float @expf(float)
declare float @llvm.sqrt.f32(float)

define internal float @helper(float %x, float %alpha) noinline {
  %s = fmul float %x, %alpha
  %r = call float @llvm.sqrt.f32(float %s)
  ret float %r
}

; y[i] = helper(|x[i]|, alpha) * table[i & 3] + (neg ? -i >> shift : i >> shift)
;        + (i % 97 == 0 ? expf(x[i] / 100) : 0)
define void @mix(ptr %x, ptr %y, float %alpha, i32 %shift, i1 %neg, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.mix),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes),
      "hpvm.value"(float %alpha, i32 %shift, i1 %neg) ]
  br label %for.cond
for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.latch ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %vx = load float, ptr %px, align 4
  %ax = call float @llvm.fabs.f32(float %vx)
  %h = call float @helper(float %ax, float %alpha)
  %k = and i64 %i, 3
  %pt = getelementptr inbounds [4 x float], ptr @table, i64 0, i64 %k
  %tv = load float, ptr %pt, align 4
  %m = fmul float %h, %tv
  %sh = zext i32 %shift to i64
  %q = ashr i64 %i, %sh
  %mq = sub i64 0, %q
  %sq = select i1 %neg, i64 %mq, i64 %q
  %qf = sitofp i64 %sq to float
  %r = fadd float %m, %qf
  %rem = urem i64 %i, 97
  %every = icmp eq i64 %rem, 0
  br i1 %every, label %with.exp, label %store
with.exp:
  %xs = fdiv float %vx, 100.0
  %e = call float @expf(float %xs)
  %re = fadd float %r, %e
  br label %store
store:
  %res = phi float [ %r, %for.body ], [ %re, %with.exp ]
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %res, ptr %py, align 4
  br label %for.latch
for.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond
for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
declare float @llvm.fabs.f32(float)
)IR";

TEST(CPUBackendTest, ValueParamsHelpersTablesAndLibm) {
  Kernels K(MixIR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("mix");
  ASSERT_NE(Fn, nullptr);
  const float Table[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  for (bool Neg : {false, true}) {
    uint64_t N = 1003, Bytes = N * 4;
    std::vector<float> X = randomFloats(N, 11), Y(N, 0.0f);
    float *PX = X.data(), *PY = Y.data();
    float Alpha = 1.5f;
    int32_t Shift = 3;
    bool NegFlag = Neg; // a C bool: what args[i] points to for an i1
    std::vector<void *> Args = Kernels::args(*Leaf, {{"x", &PX},
                                                     {"y", &PY},
                                                     {"alpha", &Alpha},
                                                     {"shift", &Shift},
                                                     {"neg", &NegFlag},
                                                     {"bytes", &Bytes},
                                                     {"n", &N}});
    uint64_t Dims[3] = {N, 1, 1};
    runInChunks(Fn, Args, Dims, 3);
    for (uint64_t I = 0; I < N; ++I) {
      float H = std::sqrt(std::fabs(X[I]) * Alpha);
      int64_t Q = static_cast<int64_t>(I) >> Shift;
      float R = H * Table[I & 3] + static_cast<float>(Neg ? -Q : Q);
      if (I % 97 == 0)
        R += std::exp(X[I] / 100.0f);
      ASSERT_NEAR(Y[I], R, 1e-4f * std::max(1.0f, std::fabs(R)))
          << "i = " << I << ", neg = " << Neg;
    }
  }
}

// --- 2-D and 3-D
// --------------------------------------------------------------

const char *StencilIR = R"IR(
@.name.stencil = private unnamed_addr constant [8 x i8] c"stencil\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @stencil(ptr %in, ptr %out, i64 %n, i64 %m) {
entry:
  %ni = add nsw i64 %n, -2
  %mj = add nsw i64 %m, -2
  %nm = mul nsw i64 %n, %m
  %bytes = shl i64 %nm, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.stencil),
      "hpvm.dims"(i64 %ni, i64 %mj),
      "hpvm.in"(ptr %in, i64 %bytes),
      "hpvm.out"(ptr %out, i64 %bytes),
      "hpvm.value"(i64 %m) ]
  br label %i.cond
i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %ni
  br i1 %ci, label %i.body, label %i.end
i.body:
  %row = add nuw nsw i64 %i, 1
  %rowoff = mul nsw i64 %row, %m
  br label %j.cond
j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.body ]
  %cj = icmp slt i64 %j, %mj
  br i1 %cj, label %j.body, label %i.latch
j.body:
  %col = add nuw nsw i64 %j, 1
  %idx = add nsw i64 %rowoff, %col
  %p.c = getelementptr inbounds float, ptr %in, i64 %idx
  %v.c = load float, ptr %p.c, align 4
  %idx.n = sub nsw i64 %idx, %m
  %p.n = getelementptr inbounds float, ptr %in, i64 %idx.n
  %v.n = load float, ptr %p.n, align 4
  %idx.s = add nsw i64 %idx, %m
  %p.s = getelementptr inbounds float, ptr %in, i64 %idx.s
  %v.s = load float, ptr %p.s, align 4
  %p.w = getelementptr inbounds float, ptr %p.c, i64 -1
  %v.w = load float, ptr %p.w, align 4
  %p.e = getelementptr inbounds float, ptr %p.c, i64 1
  %v.e = load float, ptr %p.e, align 4
  %s1 = fadd float %v.c, %v.n
  %s2 = fadd float %s1, %v.s
  %s3 = fadd float %s2, %v.w
  %s4 = fadd float %s3, %v.e
  %r = fmul float %s4, 0x3FC99999A0000000
  %p.o = getelementptr inbounds float, ptr %out, i64 %idx
  store float %r, ptr %p.o, align 4
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond
i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond
i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
)IR";

TEST(CPUBackendTest, Stencil2DWithRemainders) {
  Kernels K(StencilIR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("stencil");
  ASSERT_NE(Fn, nullptr);
  // Inner extents 1, 35 and 61: below, between and above the vector
  // widths, none a multiple of them.
  for (auto [NRows, MCols] :
       {std::pair<uint64_t, uint64_t>{3, 3}, {13, 37}, {9, 63}}) {
    std::vector<float> In = randomFloats(NRows * MCols, 21);
    std::vector<float> Out(NRows * MCols, 7.0f);
    float *PIn = In.data(), *POut = Out.data();
    uint64_t Bytes = NRows * MCols * 4, M = MCols;
    uint64_t Ni = NRows - 2, Mj = MCols - 2;
    std::vector<void *> Args = Kernels::args(*Leaf, {{"in", &PIn},
                                                     {"out", &POut},
                                                     {"bytes", &Bytes},
                                                     {"m", &M},
                                                     {"ni", &Ni},
                                                     {"mj", &Mj}});
    uint64_t Dims[3] = {Ni, Mj, 1};
    runInChunks(Fn, Args, Dims, 4);
    for (uint64_t I = 0; I < NRows; ++I)
      for (uint64_t J = 0; J < MCols; ++J) {
        uint64_t Idx = I * MCols + J;
        float Want = 7.0f;
        if (I > 0 && I + 1 < NRows && J > 0 && J + 1 < MCols)
          Want = ((((In[Idx] + In[Idx - M]) + In[Idx + M]) + In[Idx - 1]) +
                  In[Idx + 1]) *
                 0.2f;
        ASSERT_EQ(Out[Idx], Want)
            << NRows << "x" << MCols << " at (" << I << ", " << J << ")";
      }
  }
}

const char *Scale3IR = R"IR(
@.name.scale3 = private unnamed_addr constant [7 x i8] c"scale3\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; c[(i*d1 + j)*d2 + k] = 2 * a[...] + i - j + k   (i32 elements)
define void @scale3(ptr %a, ptr %c, i64 %d0, i64 %d1, i64 %d2) {
entry:
  %p01 = mul nsw i64 %d0, %d1
  %p012 = mul nsw i64 %p01, %d2
  %bytes = shl i64 %p012, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.scale3),
      "hpvm.dims"(i64 %d0, i64 %d1, i64 %d2),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %i.cond
i.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  %ci = icmp slt i64 %i, %d0
  br i1 %ci, label %i.body, label %i.end
i.body:
  br label %j.cond
j.cond:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %j.latch ]
  %cj = icmp slt i64 %j, %d1
  br i1 %cj, label %j.body, label %i.latch
j.body:
  br label %k.cond
k.cond:
  %k = phi i64 [ 0, %j.body ], [ %k.next, %k.body ]
  %ck = icmp slt i64 %k, %d2
  br i1 %ck, label %k.body, label %j.latch
k.body:
  %ij = mul nsw i64 %i, %d1
  %ij2 = add nsw i64 %ij, %j
  %ijk1 = mul nsw i64 %ij2, %d2
  %idx = add nsw i64 %ijk1, %k
  %pa = getelementptr inbounds i32, ptr %a, i64 %idx
  %va = load i32, ptr %pa, align 4
  %twice = shl i32 %va, 1
  %i32 = trunc i64 %i to i32
  %j32 = trunc i64 %j to i32
  %k32 = trunc i64 %k to i32
  %s1 = add i32 %twice, %i32
  %s2 = sub i32 %s1, %j32
  %s3 = add i32 %s2, %k32
  %pc = getelementptr inbounds i32, ptr %c, i64 %idx
  store i32 %s3, ptr %pc, align 4
  %k.next = add nuw nsw i64 %k, 1
  br label %k.cond
j.latch:
  %j.next = add nuw nsw i64 %j, 1
  br label %j.cond
i.latch:
  %i.next = add nuw nsw i64 %i, 1
  br label %i.cond
i.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
)IR";

TEST(CPUBackendTest, ThreeDimsWithRemainders) {
  Kernels K(Scale3IR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("scale3");
  ASSERT_NE(Fn, nullptr);
  for (auto Ext : {std::vector<uint64_t>{3, 5, 11}, {2, 1, 67}, {4, 3, 0}}) {
    uint64_t D0 = Ext[0], D1 = Ext[1], D2 = Ext[2];
    uint64_t Total = D0 * D1 * D2, Bytes = Total * 4;
    std::vector<int32_t> A(Total), C(Total + 8, -1);
    for (uint64_t I = 0; I < Total; ++I)
      A[I] = static_cast<int32_t>(I * 7 % 1000) - 500;
    int32_t *PA = A.data(), *PC = C.data();
    std::vector<void *> Args = Kernels::args(*Leaf, {{"a", &PA},
                                                     {"c", &PC},
                                                     {"bytes", &Bytes},
                                                     {"d0", &D0},
                                                     {"d1", &D1},
                                                     {"d2", &D2}});
    uint64_t Dims[3] = {D0, D1, D2};
    runInChunks(Fn, Args, Dims, 6);
    for (uint64_t I = 0; I < D0; ++I)
      for (uint64_t J = 0; J < D1; ++J)
        for (uint64_t Kk = 0; Kk < D2; ++Kk) {
          uint64_t Idx = (I * D1 + J) * D2 + Kk;
          int32_t Want = 2 * A[Idx] + static_cast<int32_t>(I) -
                         static_cast<int32_t>(J) + static_cast<int32_t>(Kk);
          ASSERT_EQ(C[Idx], Want) << "(" << I << ", " << J << ", " << Kk
                                  << ") of " << D0 << "x" << D1 << "x" << D2;
        }
    ASSERT_NO_FATAL_FAILURE(expectUntouchedFrom(C, Total, -1));
  }
}

// A C `int` loop as clang emits it (i32 extent, truncated and re-extended
// id): the bound checks fold, so results must still be exact.
const char *IntLoopIR = R"IR(
@.name.negate = private unnamed_addr constant [7 x i8] c"negate\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @negate(ptr %a, ptr %b, i32 %n) {
entry:
  %n64 = sext i32 %n to i64
  %bytes = shl nsw i64 %n64, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.negate),
      "hpvm.dims"(i32 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %b, i64 %bytes) ]
  br label %for.cond
for.cond:
  %i = phi i32 [ 0, %entry ], [ %inc, %for.body ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %idxprom = sext i32 %i to i64
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %idxprom
  %v = load i32, ptr %arrayidx, align 4
  %sub = sub nsw i32 %i, %v
  %arrayidx2 = getelementptr inbounds i32, ptr %b, i64 %idxprom
  store i32 %sub, ptr %arrayidx2, align 4
  %inc = add nsw i32 %i, 1
  br label %for.cond
for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
)IR";

TEST(CPUBackendTest, IntLoopWithNarrowExtent) {
  Kernels K(IntLoopIR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("negate");
  ASSERT_NE(Fn, nullptr);
  for (int32_t N : {0, 5, 1001}) {
    std::vector<int32_t> A(N), B(N + 16, 99);
    for (int32_t I = 0; I < N; ++I)
      A[I] = I * 3 - 17;
    int32_t *PA = A.data(), *PB = B.data();
    uint64_t Bytes = static_cast<uint64_t>(N) * 4;
    std::vector<void *> Args = Kernels::args(
        *Leaf, {{"a", &PA}, {"b", &PB}, {"bytes", &Bytes}, {"n", &N}});
    uint64_t Dims[3] = {static_cast<uint64_t>(N), 1, 1};
    runInChunks(Fn, Args, Dims, 8);
    for (int32_t I = 0; I < N; ++I)
      ASSERT_EQ(B[I], I - A[I]) << "i = " << I;
    ASSERT_NO_FATAL_FAILURE(expectUntouchedFrom(B, N, 99));
  }
}

// A private array (an alloca the region names implicitly): after inlining
// all instances share one copy, so its accesses must not be declared
// independent across instances; results must be what each instance alone
// computes.
const char *PrivateIR = R"IR(
@.name.priv = private unnamed_addr constant [5 x i8] c"priv\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; tmp[k] = x[i] * k for k < 4; y[i] = tmp[i % 4] + tmp[(i+1) % 4]
define void @priv(ptr %x, ptr %y, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %tmp = alloca [4 x float], align 4
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.priv),
      "hpvm.dims"(i64 %n), "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %for.cond
for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill.end ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %vx = load float, ptr %px, align 4
  br label %fill
fill:
  %k = phi i64 [ 0, %for.body ], [ %k.next, %fill ]
  %kf = sitofp i64 %k to float
  %prod = fmul float %vx, %kf
  %pt = getelementptr inbounds [4 x float], ptr %tmp, i64 0, i64 %k
  store float %prod, ptr %pt, align 4
  %k.next = add nuw nsw i64 %k, 1
  %more = icmp slt i64 %k.next, 4
  br i1 %more, label %fill, label %use
use:
  %m = and i64 %i, 3
  %pm = getelementptr inbounds [4 x float], ptr %tmp, i64 0, i64 %m
  %vm = load float, ptr %pm, align 4
  %i1 = add i64 %i, 1
  %m1 = and i64 %i1, 3
  %pm1 = getelementptr inbounds [4 x float], ptr %tmp, i64 0, i64 %m1
  %vm1 = load float, ptr %pm1, align 4
  %s = fadd float %vm, %vm1
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %s, ptr %py, align 4
  br label %fill.end
fill.end:
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond
for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
)IR";

TEST(CPUBackendTest, PrivateArrayPerInstance) {
  Kernels K(PrivateIR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("priv");
  ASSERT_NE(Fn, nullptr);
  uint64_t N = 517, Bytes = N * 4;
  std::vector<float> X = randomFloats(N, 31), Y(N, 0.0f);
  float *PX = X.data(), *PY = Y.data();
  std::vector<void *> Args = Kernels::args(
      *Leaf, {{"x", &PX}, {"y", &PY}, {"bytes", &Bytes}, {"n", &N}});
  uint64_t Dims[3] = {N, 1, 1};
  runInChunks(Fn, Args, Dims, 12);
  for (uint64_t I = 0; I < N; ++I) {
    float Want = X[I] * static_cast<float>(I % 4) +
                 X[I] * static_cast<float>((I + 1) % 4);
    ASSERT_EQ(Y[I], Want) << "i = " << I;
  }
}

// --- ancestors' ids
// -------------------------------------------------------------

const char *BlockedIR = R"IR(
@.name.blocks = private unnamed_addr constant [7 x i8] c"blocks\00"
@.name.threads = private unnamed_addr constant [8 x i8] c"threads\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

; y[b*T + t] = x[b*T + t] * 10 + b
define void @blocked(ptr %x, ptr %y, i64 %nb, i64 %T) {
entry:
  %n = mul nsw i64 %nb, %T
  %bytes = shl i64 %n, 2
  %tok.b = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.blocks),
      "hpvm.dims"(i64 %nb),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes),
      "hpvm.value"(i64 %T) ]
  br label %b.cond
b.cond:
  %b = phi i64 [ 0, %entry ], [ %b.next, %b.latch ]
  %cb = icmp slt i64 %b, %nb
  br i1 %cb, label %b.body, label %b.end
b.body:
  %tok.t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.threads),
      "hpvm.dims"(i64 %T),
      "hpvm.in"(ptr %x, i64 %bytes),
      "hpvm.out"(ptr %y, i64 %bytes) ]
  br label %t.cond
t.cond:
  %t = phi i64 [ 0, %b.body ], [ %t.next, %t.body ]
  %ct = icmp slt i64 %t, %T
  br i1 %ct, label %t.body, label %t.end
t.body:
  %base = mul nsw i64 %b, %T
  %idx = add nsw i64 %base, %t
  %px = getelementptr inbounds i32, ptr %x, i64 %idx
  %vx = load i32, ptr %px, align 4
  %m = mul i32 %vx, 10
  %b32 = trunc i64 %b to i32
  %r = add i32 %m, %b32
  %py = getelementptr inbounds i32, ptr %y, i64 %idx
  store i32 %r, ptr %py, align 4
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
)IR";

TEST(CPUBackendTest, LeafReadsItsParentsId) {
  Kernels K(BlockedIR);
  ASSERT_TRUE(K.ok());
  auto [Leaf, Fn] = K.leafKernel("blocks/threads");
  ASSERT_NE(Fn, nullptr);
  uint64_t NB = 5, T = 19, Bytes = NB * T * 4;
  std::vector<int32_t> X(NB * T), Y(NB * T, 0);
  for (uint64_t I = 0; I < NB * T; ++I)
    X[I] = static_cast<int32_t>(I) - 40;
  int32_t *PX = X.data(), *PY = Y.data();
  std::vector<void *> Args = Kernels::args(
      *Leaf, {{"x", &PX}, {"y", &PY}, {"bytes", &Bytes}, {"T", &T}});
  uint64_t Dims[3] = {T, 1, 1};
  // What the runtime does for each instance of the parent: outer_ids holds
  // level 1 (the parent) at [0..2]; the rest of the array is never read.
  for (uint64_t B = 0; B < NB; ++B) {
    uint64_t OuterIds[6] = {B, 0, 0, ~0ull, ~0ull, ~0ull};
    runInChunks(Fn, Args, Dims, static_cast<unsigned>(B), OuterIds);
  }
  for (uint64_t B = 0; B < NB; ++B)
    for (uint64_t Th = 0; Th < T; ++Th) {
      uint64_t I = B * T + Th;
      ASSERT_EQ(Y[I], X[I] * 10 + static_cast<int32_t>(B))
          << "b = " << B << ", t = " << Th;
    }
}

// --- a leaf without dims, with outputs (graph form: regions have none) -------

const char *StatsIR = R"IR(
; sum of a[0..n) and whether any element is negative
define internal { i64, i1 } @hpvm.node.stats(ptr %a, i64 %bytes, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %neg = phi i1 [ false, %entry ], [ %neg.next, %loop ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %p, align 4
  %v64 = sext i32 %v to i64
  %sum.next = add i64 %sum, %v64
  %isneg = icmp slt i32 %v, 0
  %neg.next = or i1 %neg, %isneg
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  %s = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %g = phi i1 [ false, %entry ], [ %neg.next, %loop ]
  %r0 = insertvalue { i64, i1 } undef, i64 %s, 0
  %r1 = insertvalue { i64, i1 } %r0, i1 %g, 1
  ret { i64, i1 } %r1
}

define internal i32 @hpvm.node.first(ptr %a, i64 %bytes) {
  %v = load i32, ptr %a, align 4
  ret i32 %v
}

!hpvm.graphs = !{!0, !10}
!0 = !{!"hpvm.graph", !"stats", !1}
!1 = !{!"hpvm.node", !"name", !"stats", !"kind", !"leaf", !"function", ptr @hpvm.node.stats, !"params", !2, !"outputs", !6, !"targets", !"cpu"}
!2 = !{!3, !5, !9}
!3 = !{!"buffer", !"a", !"in", !4}
!4 = !{!"param", i32 1}
!5 = !{!"value", !"bytes", !"i64"}
!9 = !{!"value", !"n", !"i64"}
!6 = !{!7, !8}
!7 = !{!"sum", !"i64"}
!8 = !{!"negative", !"i1"}
!10 = !{!"hpvm.graph", !"first", !11}
!11 = !{!"hpvm.node", !"name", !"first", !"kind", !"leaf", !"function", ptr @hpvm.node.first, !"params", !12, !"outputs", !13}
!12 = !{!3, !5}
!13 = !{!14}
!14 = !{!"x", !"i32"}
)IR";

TEST(CPUBackendTest, LeafWithoutDimsWritesOutputs) {
  Kernels K(StatsIR, /*GraphForm=*/true);
  ASSERT_TRUE(K.ok());
  auto [Stats, StatsFn] = K.leafKernel("stats");
  auto [First, FirstFn] = K.leafKernel("first");
  ASSERT_NE(StatsFn, nullptr);
  ASSERT_NE(FirstFn, nullptr);

  for (bool WithNegative : {false, true}) {
    std::vector<int32_t> A(1000);
    int64_t Want = 0;
    for (size_t I = 0; I < A.size(); ++I) {
      A[I] =
          static_cast<int32_t>(I % 50) + (WithNegative && I == 777 ? -900 : 0);
      Want += A[I];
    }
    int32_t *PA = A.data();
    uint64_t Bytes = A.size() * 4, N = A.size();
    std::vector<void *> Args =
        Kernels::args(*Stats, {{"a", &PA}, {"bytes", &Bytes}, {"n", &N}});
    int64_t Sum = -1;
    uint8_t Negative = 42; // an i1 output is stored as a C bool (one byte)
    void *Outs[2] = {&Sum, &Negative};
    StatsFn(Args.data(), Outs, OneDim, nullptr, 0, 1);
    EXPECT_EQ(Sum, Want);
    EXPECT_EQ(Negative, WithNegative ? 1 : 0);
  }

  int32_t Data[2] = {-77, 5};
  int32_t *PD = Data;
  uint64_t Bytes = 8;
  std::vector<void *> Args =
      Kernels::args(*First, {{"a", &PD}, {"bytes", &Bytes}});
  int32_t Out = 0;
  void *Outs[1] = {&Out};
  FirstFn(Args.data(), Outs, OneDim, nullptr, 0, 1);
  EXPECT_EQ(Out, -77);
  // An empty range runs nothing, so writes nothing.
  Out = 3;
  FirstFn(Args.data(), Outs, OneDim, nullptr, 0, 0);
  EXPECT_EQ(Out, 3);
}

// --- failures
// -----------------------------------------------------------------

/// Region-form IR compiled to its kernel module with Opts, the graph-form
/// source left in M; null, the failure reported, where a step fails.
std::unique_ptr<Module> compileKernels(LLVMContext &Ctx, StringRef IR,
                                       const CPUOptions &Opts,
                                       std::unique_ptr<Module> &M) {
  M = test::parseIR(Ctx, IR, "CPUBackendTest");
  if (!M)
    return nullptr;
  if (unsigned Failed = extractGraphs(*M)) {
    ADD_FAILURE() << Failed << " regions failed to extract";
    return nullptr;
  }
  auto K = buildCPUKernels(*M, Opts);
  if (!K) {
    ADD_FAILURE() << toString(K.takeError());
    return nullptr;
  }
  return std::move(*K);
}

std::string buildError(StringRef IR, bool GraphForm,
                       const CPUOptions &Opts = CPUOptions()) {
  LLVMContext Ctx;
  auto M = test::parseIR(Ctx, IR, "CPUBackendTest");
  if (!M)
    return "<parse error>";
  if (!GraphForm && extractGraphs(*M) != 0)
    return "<extract error>";
  auto K = buildCPUKernels(*M, Opts);
  if (K)
    return "";
  return toString(K.takeError());
}

TEST(CPUBackendTest, ReplicatedLeafWithOutputsIsAnError) {
  std::string IR = R"IR(
declare i64 @hpvm.instance.id(i32, i32) memory(none)
define internal i64 @hpvm.node.ids(i64 %n) {
  %id = call i64 @hpvm.instance.id(i32 0, i32 0)
  ret i64 %id
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"ids", !1}
!1 = !{!"hpvm.node", !"name", !"ids", !"kind", !"leaf", !"function", ptr @hpvm.node.ids, !"dims", !2, !"params", !4, !"outputs", !6}
!2 = !{!3}
!3 = !{!"param", i32 0}
!4 = !{!5}
!5 = !{!"value", !"n", !"i64"}
!6 = !{!7}
!7 = !{!"id", !"i64"}
)IR";
  std::string Err = buildError(IR, /*GraphForm=*/true);
  EXPECT_NE(Err.find("node 'ids'"), std::string::npos) << Err;
  EXPECT_NE(Err.find("replicated leaf with outputs"), std::string::npos) << Err;
}

TEST(CPUBackendTest, LeafOfTheWrongTypeIsAnError) {
  std::string IR = R"IR(
define internal void @hpvm.node.f(i32 %n) {
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"f", !1}
!1 = !{!"hpvm.node", !"name", !"f", !"kind", !"leaf", !"function", ptr @hpvm.node.f, !"params", !2}
!2 = !{!3}
!3 = !{!"value", !"n", !"i64"}
)IR";
  std::string Err = buildError(IR, /*GraphForm=*/true);
  EXPECT_NE(Err.find("node 'f': leaf function '@hpvm.node.f' has type "
                     "void (i32), but the node's parameters and outputs "
                     "need void (i64)"),
            std::string::npos)
      << Err;
}

TEST(CPUBackendTest, BadOptionsAreErrors) {
  CPUOptions Opts;
  Opts.CPU = "no-such-cpu";
  std::string Err = buildError(VAddIR, false, Opts);
  EXPECT_NE(Err.find("unknown CPU 'no-such-cpu'"), std::string::npos) << Err;

  Opts = CPUOptions();
  Opts.Features = "+avx2,+no-such-feature";
  Err = buildError(VAddIR, false, Opts);
  EXPECT_NE(Err.find("unknown CPU feature 'no-such-feature'"),
            std::string::npos)
      << Err;

  Opts.Features = "avx2";
  Err = buildError(VAddIR, false, Opts);
  EXPECT_NE(Err.find("must start with '+'"), std::string::npos) << Err;

  Opts = CPUOptions();
  Opts.OptLevel = 4;
  Err = buildError(VAddIR, false, Opts);
  EXPECT_NE(Err.find("optimisation level 4"), std::string::npos) << Err;

  Opts = CPUOptions();
  Opts.Triple = "nonsense-arch-unknown";
  auto J = CPUJIT::create(Opts);
  ASSERT_FALSE(J);
  Err = toString(J.takeError());
  EXPECT_NE(Err.find("unknown target triple"), std::string::npos) << Err;
}

TEST(CPUBackendTest, UnresolvedExternalFailsAtLookup) {
  // Calling an external function is allowed (it links against the host
  // program); a JIT that cannot find it says so when the kernel is looked
  // up, not by crashing when it runs.
  const char *IR = R"IR(
@.name.ext = private unnamed_addr constant [4 x i8] c"ext\00"
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
declare float @hpvm_test_function_nobody_defines(float)

define void @ext(ptr %a, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.ext),
      "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %a, i64 %bytes) ]
  br label %for.cond
for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %p = getelementptr inbounds float, ptr %a, i64 %i
  %v = load float, ptr %p, align 4
  %r = call float @hpvm_test_function_nobody_defines(float %v)
  store float %r, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond
for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
)IR";
  LLVMContext Ctx;
  // The forced vectorisation of this loop fails ("loop not vectorized"): a
  // warning, which the test does not want on stderr.
  Ctx.setDiagnosticHandlerCallBack([](const DiagnosticInfo *, void *) {});
  std::unique_ptr<Module> M;
  auto K = compileKernels(Ctx, IR, CPUOptions(), M);
  ASSERT_TRUE(K);
  EXPECT_NE(K->getFunction("hpvm_test_function_nobody_defines"), nullptr);
  auto J = CPUJIT::create(CPUOptions());
  ASSERT_TRUE(bool(J)) << toString(J.takeError());
  ASSERT_TRUE(succeeded((*J)->addModule(std::move(K))));
  auto Fn = (*J)->lookup("hpvm.cpu.ext");
  ASSERT_FALSE(Fn);
  std::string Err = toString(Fn.takeError());
  EXPECT_NE(Err.find("cannot link CPU kernel 'hpvm.cpu.ext'"),
            std::string::npos)
      << Err;
  EXPECT_NE(Err.find("hpvm_test_function_nobody_defines"), std::string::npos)
      << Err;

  auto Missing = (*J)->lookup("hpvm.cpu.no_such_kernel");
  ASSERT_FALSE(Missing);
  consumeError(Missing.takeError());
}

TEST(CPUBackendTest, DuplicateKernelsInOneJITAreAnError) {
  LLVMContext Ctx;
  auto J = CPUJIT::create(CPUOptions());
  ASSERT_TRUE(bool(J)) << toString(J.takeError());
  for (int Round = 0; Round < 2; ++Round) {
    std::unique_ptr<Module> M;
    auto K = compileKernels(Ctx, VAddIR, CPUOptions(), M);
    ASSERT_TRUE(K);
    Error E = (*J)->addModule(std::move(K));
    if (Round == 0) {
      ASSERT_TRUE(succeeded(std::move(E)));
    } else {
      ASSERT_TRUE(bool(E));
      std::string Err = toString(std::move(E));
      EXPECT_NE(Err.find("hpvm.cpu.vadd"), std::string::npos) << Err;
    }
  }
}

TEST(CPUBackendTest, ObjectFile) {
  LLVMContext Ctx;
  CPUOptions Opts;
  Opts.Triple = "x86_64-unknown-linux-gnu";
  Opts.CPU = "haswell";
  std::unique_ptr<Module> M;
  auto K = compileKernels(Ctx, VAddIR, Opts, M);
  ASSERT_TRUE(K);
  // The graph-form module is left as it was.
  EXPECT_NE(M->getFunction("hpvm.node.vadd"), nullptr);
  EXPECT_EQ(M->getFunction("hpvm.cpu.vadd"), nullptr);
  // The kernel module has the wrapper, its streaming-store variant (c is
  // only written) and nothing else defined.
  Function *W = K->getFunction("hpvm.cpu.vadd");
  ASSERT_NE(W, nullptr);
  EXPECT_FALSE(W->hasLocalLinkage());
  Function *Stream = K->getFunction(getCPUStreamingVariantName("vadd"));
  ASSERT_NE(Stream, nullptr);
  EXPECT_FALSE(Stream->hasLocalLinkage());
  for (const Function &F : *K)
    EXPECT_TRUE(&F == W || &F == Stream || F.isDeclaration())
        << F.getName().str();

  SmallVector<char, 0> Object;
  raw_svector_ostream OS(Object);
  ASSERT_TRUE(succeeded(emitObjectFile(*K, Opts, OS)));
  std::string Bytes(Object.begin(), Object.end());
  ASSERT_GT(Bytes.size(), 4u);
  EXPECT_EQ(Bytes.substr(0, 4), "\x7f"
                                "ELF");
  EXPECT_NE(Bytes.find("hpvm.cpu.vadd"), std::string::npos);

  // An object for another architecture is refused.
  Opts.Triple = "aarch64-unknown-linux-gnu";
  Opts.CPU = "";
  Error E = emitObjectFile(*K, Opts, OS);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("is for x86_64"), std::string::npos);
}

} // namespace
