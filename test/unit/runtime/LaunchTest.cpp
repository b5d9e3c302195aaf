//===- LaunchTest.cpp - Running graphs on the CPU device ------------------===//

#include "RuntimeTestSupport.h"

#include <algorithm>
#include <csignal>
#include <mutex>
#include <numeric>

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

//===----------------------------------------------------------------------===//
// Kernels, written as a backend would emit them for hpvm_cpu_kernel_fn.
//===----------------------------------------------------------------------===//

// vadd(a, b, c, bytes, n): c[i] = a[i] + b[i]
void vaddKernel(void *const *Args, void *const *, const uint64_t *Dims,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  const float *A = buffer<float>(Args, 0);
  const float *B = buffer<float>(Args, 1);
  float *C = buffer<float>(Args, 2);
  EXPECT_EQ(Dims[1], 1u);
  EXPECT_EQ(Dims[2], 1u);
  for (uint64_t I = Begin; I != End; ++I)
    C[I] = A[I] + B[I];
}

TEST(Launch, VectorAddWithRemainderSizes) {
  Graph G = vaddGraph("vadd");
  TestProgram P({&G}, {{"vadd", HPVM_TARGET_CPU, vaddKernel}});
  for (uint64_t N : {0ull, 1ull, 7ull, 1000ull, 1000003ull}) {
    std::vector<float> A(N), B(N), C(N, -1.0f);
    for (uint64_t I = 0; I != N; ++I) {
      A[I] = static_cast<float>(I);
      B[I] = 0.5f * static_cast<float>(I % 1000);
    }
    float *PA = A.data(), *PB = B.data(), *PC = C.data();
    int64_t Bytes = static_cast<int64_t>(N * sizeof(float));
    int64_t Count = static_cast<int64_t>(N);
    ASSERT_EQ(P.launch("vadd", {&PA, &PB, &PC, &Bytes, &Count}), HPVM_OK)
        << hpvm_error_message();
    EXPECT_STREQ(hpvm_error_message(), "");
    for (uint64_t I = 0; I != N; ++I)
      ASSERT_EQ(C[I], A[I] + B[I]) << "n = " << N << ", i = " << I;
  }
}

// grid(out, rows, cols): out[i][j] = i * 1000 + j
void gridKernel(void *const *Args, void *const *, const uint64_t *Dims,
                const uint64_t *OuterIds, uint64_t Begin, uint64_t End) {
  int64_t *Out = buffer<int64_t>(Args, 0);
  EXPECT_EQ(OuterIds, nullptr); // a root leaf has no ancestors
  EXPECT_EQ(Dims[2], 1u);
  for (uint64_t I = Begin; I != End; ++I)
    for (uint64_t J = 0; J != Dims[1]; ++J)
      Out[I * Dims[1] + J] = static_cast<int64_t>(I * 1000 + J);
}

TEST(Launch, TwoDimensionalLeaf) {
  Graph G("grid", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "grid";
  R.addBuffer("out", Access::Out, Extent::param(3));
  R.addValue("rows", ScalarType::I32);
  R.addValue("cols", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::param(1), Extent::param(2)});
  TestProgram P({&G}, {{"grid", HPVM_TARGET_CPU, gridKernel}});

  int32_t Rows = 37;
  int64_t Cols = 53;
  std::vector<int64_t> Out(Rows * Cols, -1);
  int64_t *PO = Out.data();
  int64_t Bytes = static_cast<int64_t>(Out.size() * sizeof(int64_t));
  ASSERT_EQ(P.launch("grid", {&PO, &Rows, &Cols, &Bytes}), HPVM_OK)
      << hpvm_error_message();
  for (int64_t I = 0; I != Rows; ++I)
    for (int64_t J = 0; J != Cols; ++J)
      ASSERT_EQ(Out[I * Cols + J], I * 1000 + J);
}

// cube(out): out[(i * d1 + j) * d2 + k] = i * 10000 + j * 100 + k
void cubeKernel(void *const *Args, void *const *, const uint64_t *Dims,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  int32_t *Out = buffer<int32_t>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    for (uint64_t J = 0; J != Dims[1]; ++J)
      for (uint64_t K = 0; K != Dims[2]; ++K)
        Out[(I * Dims[1] + J) * Dims[2] + K] =
            static_cast<int32_t>(I * 10000 + J * 100 + K);
}

TEST(Launch, ThreeDimensionalLeafWithConstantDims) {
  Graph G("cube", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "cube";
  R.addBuffer("out", Access::Out, Extent::constant(11 * 7 * 5 * 4));
  R.setDims({Extent::constant(11), Extent::constant(7), Extent::constant(5)});
  TestProgram P({&G}, {{"cube", HPVM_TARGET_CPU, cubeKernel}});

  std::vector<int32_t> Out(11 * 7 * 5, -1);
  int32_t *PO = Out.data();
  ASSERT_EQ(P.launch("cube", {&PO}), HPVM_OK) << hpvm_error_message();
  for (int I = 0; I != 11; ++I)
    for (int J = 0; J != 7; ++J)
      for (int K = 0; K != 5; ++K)
        ASSERT_EQ(Out[(I * 7 + J) * 5 + K], I * 10000 + J * 100 + K);
}

// ids(out, cols): leaf of a replicated internal node, one row per parent
// instance; out[row][j] = outer id * 1000 + j, and the grandparent's ids.
void rowKernel(void *const *Args, void *const *, const uint64_t *Dims,
               const uint64_t *OuterIds, uint64_t Begin, uint64_t End) {
  int64_t *Out = buffer<int64_t>(Args, 0);
  uint64_t Cols = Dims[0];
  ASSERT_NE(OuterIds, nullptr);
  uint64_t Row = OuterIds[0];
  // Level 2 (the root) is not replicated: its ids are 0.
  EXPECT_EQ(OuterIds[3], 0u);
  EXPECT_EQ(OuterIds[1], 0u);
  for (uint64_t J = Begin; J != End; ++J)
    Out[Row * Cols + J] = static_cast<int64_t>(Row * 1000 + J);
}

TEST(Launch, ReplicatedInternalNodePassesOuterIds) {
  Graph G("rows");
  Node &R = G.root();
  unsigned Out = R.addBuffer("out", Access::Out, Extent::param(3));
  unsigned Rows = R.addValue("rows", ScalarType::I64);
  unsigned Cols = R.addValue("cols", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  Node &Each = R.addInternal("each");
  Each.addBuffer("out", Access::Out, Extent::param(2));
  Each.addValue("cols", ScalarType::I64);
  Each.addValue("bytes", ScalarType::I64);
  Each.addValue("rows", ScalarType::I64);
  Each.setDims({Extent::param(3)});
  Node &Row = Each.addLeaf("row", "row");
  Row.addBuffer("out", Access::Out, Extent::param(2));
  Row.addValue("cols", ScalarType::I64);
  Row.addValue("bytes", ScalarType::I64);
  Row.setDims({Extent::param(1)});
  R.bind(Each, 0, Out);
  R.bind(Each, 1, Cols);
  R.bind(Each, 2, 3);
  R.bind(Each, 3, Rows);
  Each.bind(Row, 0, 0);
  Each.bind(Row, 1, 1);
  Each.bind(Row, 2, 2);
  TestProgram P({&G}, {{"rows/each/row", HPVM_TARGET_CPU, rowKernel}});

  for (int64_t NumRows : {1, 5, 64}) {
    int64_t NumCols = 33;
    std::vector<int64_t> Data(NumRows * NumCols, -1);
    int64_t *PD = Data.data();
    int64_t Bytes = static_cast<int64_t>(Data.size() * sizeof(int64_t));
    ASSERT_EQ(P.launch("rows", {&PD, &NumRows, &NumCols, &Bytes}), HPVM_OK)
        << hpvm_error_message();
    for (int64_t I = 0; I != NumRows; ++I)
      for (int64_t J = 0; J != NumCols; ++J)
        ASSERT_EQ(Data[I * NumCols + J], I * 1000 + J);
  }
}

// tile(out): a leaf (3 instances) inside a 2-D replicated root; writes
// out[((a * 4 + b) * 3) + i] = a * 100 + b * 10 + i.
void tileKernel(void *const *Args, void *const *, const uint64_t *Dims,
                const uint64_t *OuterIds, uint64_t Begin, uint64_t End) {
  int32_t *Out = buffer<int32_t>(Args, 0);
  uint64_t A = OuterIds[0], B = OuterIds[1];
  EXPECT_EQ(OuterIds[2], 0u);
  for (uint64_t I = Begin; I != End; ++I)
    Out[(A * 4 + B) * 3 + I] = static_cast<int32_t>(A * 100 + B * 10 + I);
}

TEST(Launch, ReplicatedRootIn2D) {
  Graph G("tiles");
  Node &R = G.root();
  R.addBuffer("out", Access::Out, Extent::constant(5 * 4 * 3 * 4));
  R.setDims({Extent::constant(5), Extent::constant(4)});
  Node &T = R.addLeaf("tile", "tile");
  T.addBuffer("out", Access::Out, Extent::constant(5 * 4 * 3 * 4));
  T.setDims({Extent::constant(3)});
  R.bind(T, 0, 0);
  TestProgram P({&G}, {{"tiles/tile", HPVM_TARGET_CPU, tileKernel}});
  std::vector<int32_t> Out(5 * 4 * 3, -1);
  int32_t *PO = Out.data();
  ASSERT_EQ(P.launch("tiles", {&PO}), HPVM_OK) << hpvm_error_message();
  for (int A = 0; A != 5; ++A)
    for (int B = 0; B != 4; ++B)
      for (int I = 0; I != 3; ++I)
        ASSERT_EQ(Out[(A * 4 + B) * 3 + I], A * 100 + B * 10 + I);
}

//===----------------------------------------------------------------------===//
// Ordering and concurrency
//===----------------------------------------------------------------------===//

std::mutex LogM;
std::vector<std::string> Log;

template <char Name>
void logKernel(void *const *, void *const *, const uint64_t *, const uint64_t *,
               uint64_t, uint64_t) {
  // Make a wrong order likely to show if the edges were ignored.
  std::this_thread::sleep_for(std::chrono::microseconds(Name == 'a' ? 300 : 0));
  std::lock_guard<std::mutex> L(LogM);
  Log.push_back(std::string(1, Name));
}

TEST(Launch, DependencyEdgesOrderChildren) {
  // a -> {b, c} -> d, and e independent of everything.
  Graph G("diamond");
  Node &R = G.root();
  Node &A = R.addLeaf("a", "a");
  Node &B = R.addLeaf("b", "b");
  Node &C = R.addLeaf("c", "c");
  Node &D = R.addLeaf("d", "d");
  R.addLeaf("e", "e");
  R.addDependency(A, B);
  R.addDependency(A, C);
  R.addDependency(B, D);
  R.addDependency(C, D);
  R.addDependency(A, B); // duplicate edges are harmless
  TestProgram P({&G}, {{"diamond/a", HPVM_TARGET_CPU, logKernel<'a'>},
                       {"diamond/b", HPVM_TARGET_CPU, logKernel<'b'>},
                       {"diamond/c", HPVM_TARGET_CPU, logKernel<'c'>},
                       {"diamond/d", HPVM_TARGET_CPU, logKernel<'d'>},
                       {"diamond/e", HPVM_TARGET_CPU, logKernel<'e'>}});
  for (int Round = 0; Round != 50; ++Round) {
    Log.clear();
    ASSERT_EQ(P.launch("diamond", {}), HPVM_OK) << hpvm_error_message();
    ASSERT_EQ(Log.size(), 5u);
    auto Pos = [&](const char *N) {
      return std::find(Log.begin(), Log.end(), N) - Log.begin();
    };
    EXPECT_LT(Pos("a"), Pos("b"));
    EXPECT_LT(Pos("a"), Pos("c"));
    EXPECT_LT(Pos("b"), Pos("d"));
    EXPECT_LT(Pos("c"), Pos("d"));
    EXPECT_LT(Pos("e"), 5);
  }
}

// Each of two leaves waits until both have arrived. If the executor ran
// them one after the other, the first would wait for ever; the timeout
// turns that into a failure instead of a hang.
std::atomic<int> Arrived{0};
std::atomic<bool> TimedOut{false};

void rendezvousKernel(void *const *, void *const *, const uint64_t *,
                      const uint64_t *, uint64_t, uint64_t) {
  Arrived.fetch_add(1);
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Arrived.load() < 2) {
    if (std::chrono::steady_clock::now() > Deadline) {
      TimedOut = true;
      return;
    }
    std::this_thread::yield();
  }
}

TEST(Launch, IndependentChildrenRunConcurrently) {
  ASSERT_GE(rt::Runtime::get().pool().size(), 2u)
      << "the test main sets HPVM_NUM_THREADS";
  Graph G("pair");
  Node &R = G.root();
  R.addLeaf("left", "rendezvous");
  R.addLeaf("right", "rendezvous");
  TestProgram P({&G}, {{"pair/left", HPVM_TARGET_CPU, rendezvousKernel},
                       {"pair/right", HPVM_TARGET_CPU, rendezvousKernel}});
  for (int Round = 0; Round != 20; ++Round) {
    Arrived = 0;
    ASSERT_EQ(P.launch("pair", {}), HPVM_OK) << hpvm_error_message();
    ASSERT_FALSE(TimedOut) << "the two leaves did not run at the same time";
    EXPECT_EQ(Arrived.load(), 2);
  }
}

TEST(Launch, IndependentInternalNodesRunConcurrently) {
  // The same rendezvous one level down, each leaf inside its own internal
  // node, so that the frames themselves must overlap.
  Graph G("pair2");
  Node &R = G.root();
  R.addInternal("l").addLeaf("x", "rendezvous");
  R.addInternal("r").addLeaf("x", "rendezvous");
  TestProgram P({&G}, {{"pair2/l/x", HPVM_TARGET_CPU, rendezvousKernel},
                       {"pair2/r/x", HPVM_TARGET_CPU, rendezvousKernel}});
  Arrived = 0;
  ASSERT_EQ(P.launch("pair2", {}), HPVM_OK) << hpvm_error_message();
  ASSERT_FALSE(TimedOut);
}

//===----------------------------------------------------------------------===//
// Data between children
//===----------------------------------------------------------------------===//

// produce(x): writes x[i] = i; scale(x, y): y[i] = 2 x[i]; add1(y, z) ...
void produceKernel(void *const *Args, void *const *, const uint64_t *,
                   const uint64_t *, uint64_t Begin, uint64_t End) {
  int32_t *X = buffer<int32_t>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] = static_cast<int32_t>(I);
}
void scaleKernel(void *const *Args, void *const *, const uint64_t *,
                 const uint64_t *, uint64_t Begin, uint64_t End) {
  const int32_t *X = buffer<int32_t>(Args, 0);
  int32_t *Y = buffer<int32_t>(Args, 1);
  for (uint64_t I = Begin; I != End; ++I)
    Y[I] = 2 * X[I];
}

Node &addStage(Node &R, const char *Name, unsigned NumBuffers) {
  Node &L = R.addLeaf(Name, Name);
  L.addBuffer("x", NumBuffers == 1 ? Access::Out : Access::In,
              Extent::param(NumBuffers));
  if (NumBuffers == 2)
    L.addBuffer("y", Access::Out, Extent::param(2));
  L.addValue("bytes", ScalarType::I64);
  L.addValue("n", ScalarType::I64);
  L.setDims({Extent::param(NumBuffers + 1)});
  return L;
}

TEST(Launch, ChainThroughBuffers) {
  Graph G("chain");
  Node &R = G.root();
  R.addBuffer("x", Access::InOut, Extent::param(2));
  R.addBuffer("y", Access::InOut, Extent::param(2));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  Node &A = addStage(R, "produce", 1);
  Node &B = addStage(R, "scale", 2);
  R.bind(A, 0, 0);
  R.bind(A, 1, 2);
  R.bind(A, 2, 3);
  R.bind(B, 0, 0);
  R.bind(B, 1, 1);
  R.bind(B, 2, 2);
  R.bind(B, 3, 3);
  R.addDependency(A, B);
  TestProgram P({&G}, {{"chain/produce", HPVM_TARGET_CPU, produceKernel},
                       {"chain/scale", HPVM_TARGET_CPU, scaleKernel}});
  int64_t N = 100000;
  std::vector<int32_t> X(N, -1), Y(N, -1);
  int32_t *PX = X.data(), *PY = Y.data();
  int64_t Bytes = N * 4;
  ASSERT_EQ(P.launch("chain", {&PX, &PY, &Bytes, &N}), HPVM_OK)
      << hpvm_error_message();
  for (int64_t I = 0; I != N; ++I)
    ASSERT_EQ(Y[I], 2 * I);
}

// sum(x, n) -> total: a non-replicated leaf producing an output.
void sumKernel(void *const *Args, void *const *Outs, const uint64_t *Dims,
               const uint64_t *, uint64_t Begin, uint64_t End) {
  const int64_t *X = buffer<int64_t>(Args, 0);
  int64_t N = value<int64_t>(Args, 1);
  EXPECT_EQ(Begin, 0u);
  EXPECT_EQ(End, 1u);
  EXPECT_EQ(Dims[0], 1u);
  ASSERT_NE(Outs, nullptr);
  int64_t Total = 0;
  for (int64_t I = 0; I != N; ++I)
    Total += X[I];
  std::memcpy(Outs[0], &Total, sizeof(Total));
  double Half = Total / 2.0;
  std::memcpy(Outs[1], &Half, sizeof(Half));
}
// fill(out, total, half): out[i] = total + i + half (a replicated leaf: no
// outputs pointer).
void fillKernel(void *const *Args, void *const *Outs, const uint64_t *,
                const uint64_t *, uint64_t Begin, uint64_t End) {
  EXPECT_EQ(Outs, nullptr);
  double *Out = buffer<double>(Args, 0);
  int64_t Total = value<int64_t>(Args, 1);
  double Half = value<double>(Args, 2);
  for (uint64_t I = Begin; I != End; ++I)
    Out[I] = static_cast<double>(Total + static_cast<int64_t>(I)) + Half;
}

TEST(Launch, ValueEdgesCarryOutputs) {
  Graph G("values");
  Node &R = G.root();
  R.addBuffer("x", Access::In, Extent::constant(8 * 10));
  R.addBuffer("out", Access::Out, Extent::constant(8 * 16));
  // The producer sits inside a non-replicated internal node that passes its
  // output on, to cover output bindings too.
  Node &Wrap = R.addInternal("wrap");
  Wrap.addBuffer("x", Access::In, Extent::constant(80));
  Wrap.addOutput("total", ScalarType::I64);
  Wrap.addOutput("half", ScalarType::F64);
  Node &Sum = Wrap.addLeaf("sum", "sum");
  Sum.addBuffer("x", Access::In, Extent::constant(80));
  Sum.addValue("n", ScalarType::I64);
  Sum.addOutput("total", ScalarType::I64);
  Sum.addOutput("half", ScalarType::F64);
  Wrap.bind(Sum, 0, 0);
  Wrap.bindConstant(Sum, 1, int64_t(10));
  Wrap.bindOutput(0, Sum, 0);
  Wrap.bindOutput(1, Sum, 1);
  Node &Fill = R.addLeaf("fill", "fill");
  Fill.addBuffer("out", Access::Out, Extent::constant(8 * 16));
  Fill.addValue("total", ScalarType::I64);
  Fill.addValue("half", ScalarType::F64);
  Fill.setDims({Extent::constant(16)});
  R.bind(Wrap, 0, 0);
  R.bind(Fill, 0, 1);
  R.addValueEdge(Wrap, 0, Fill, 1);
  R.addValueEdge(Wrap, 1, Fill, 2);
  TestProgram P({&G}, {{"values/wrap/sum", HPVM_TARGET_CPU, sumKernel},
                       {"values/fill", HPVM_TARGET_CPU, fillKernel}});
  std::vector<int64_t> X(10);
  std::iota(X.begin(), X.end(), 1); // total 55
  std::vector<double> Out(16, -1);
  int64_t *PX = X.data();
  double *PO = Out.data();
  ASSERT_EQ(P.launch("values", {&PX, &PO}), HPVM_OK) << hpvm_error_message();
  for (int I = 0; I != 16; ++I)
    EXPECT_EQ(Out[I], 55 + I + 27.5);
}

// consts(out, i1, i8, i16, i32, i64, f16, f32, f64): copies each value's
// bytes into out, so that the test sees exactly what the leaf was given.
void constsKernel(void *const *Args, void *const *, const uint64_t *,
                  const uint64_t *, uint64_t, uint64_t) {
  uint8_t *Out = buffer<uint8_t>(Args, 0);
  const unsigned Sizes[] = {1, 1, 2, 4, 8, 2, 4, 8};
  size_t Offset = 0;
  for (unsigned I = 0; I != 8; ++I) {
    std::memcpy(Out + Offset, Args[I + 1], Sizes[I]);
    Offset += Sizes[I];
  }
}

TEST(Launch, ConstantBindingsHaveTheParameterType) {
  Graph G("consts");
  Node &R = G.root();
  R.addBuffer("out", Access::Out, Extent::constant(30));
  Node &L = R.addLeaf("leaf", "consts");
  L.addBuffer("out", Access::Out, Extent::constant(30));
  const ScalarType Types[] = {ScalarType::I1,  ScalarType::I8,  ScalarType::I16,
                              ScalarType::I32, ScalarType::I64, ScalarType::F16,
                              ScalarType::F32, ScalarType::F64};
  for (ScalarType T : Types)
    L.addValue(std::string("v") + toString(T), T);
  R.bind(L, 0, 0);
  R.bindConstant(L, 1, int64_t(1));
  R.bindConstant(L, 2, int64_t(-5));
  R.bindConstant(L, 3, int64_t(-1234));
  R.bindConstant(L, 4, int64_t(-70000));
  R.bindConstant(L, 5, int64_t(1) << 40);
  R.bindConstant(L, 6, 1.5); // f16 0x3e00
  R.bindConstant(L, 7, 0.1); // rounded to float
  double Exact;
  uint64_t ExactBits = 0x3fb999999999999bull; // not what 0.1 prints as
  std::memcpy(&Exact, &ExactBits, 8);
  R.bindConstant(L, 8, Exact);
  TestProgram P({&G}, {{"consts/leaf", HPVM_TARGET_CPU, constsKernel}});

  uint8_t Out[30] = {};
  uint8_t *PO = Out;
  ASSERT_EQ(P.launch("consts", {&PO}), HPVM_OK) << hpvm_error_message();
  size_t Off = 0;
  auto Take = [&](auto &V) {
    std::memcpy(&V, Out + Off, sizeof(V));
    Off += sizeof(V);
  };
  uint8_t B1;
  int8_t I8;
  int16_t I16;
  int32_t I32;
  int64_t I64;
  uint16_t H;
  float F;
  uint64_t D;
  Take(B1);
  Take(I8);
  Take(I16);
  Take(I32);
  Take(I64);
  Take(H);
  Take(F);
  Take(D);
  EXPECT_EQ(B1, 1);
  EXPECT_EQ(I8, -5);
  EXPECT_EQ(I16, -1234);
  EXPECT_EQ(I32, -70000);
  EXPECT_EQ(I64, int64_t(1) << 40);
  EXPECT_EQ(H, 0x3e00);
  EXPECT_EQ(F, 0.1f);
  EXPECT_EQ(D, ExactBits);
}

TEST(Launch, EmptyAndZeroInstanceInternalNodes) {
  Graph G("empty");
  Node &R = G.root();
  R.addValue("n", ScalarType::I32);
  R.addInternal("nothing");
  Node &Z = R.addInternal("zero");
  Z.addValue("n", ScalarType::I32);
  Z.setDims({Extent::param(0)});
  Z.addLeaf("never", "never");
  R.bind(Z, 0, 0);
  TestProgram P({&G}, {{"empty/zero/never", HPVM_TARGET_CPU,
                        [](void *const *, void *const *, const uint64_t *,
                           const uint64_t *, uint64_t, uint64_t) {
                          ADD_FAILURE() << "a leaf of no instance ran";
                        }}});
  int32_t N = 0;
  EXPECT_EQ(P.launch("empty", {&N}), HPVM_OK) << hpvm_error_message();
}

TEST(Launch, ManyHostThreadsLaunchAtOnce) {
  Graph G = vaddGraph("vadd_mt");
  TestProgram P({&G}, {{"vadd_mt", HPVM_TARGET_CPU, vaddKernel}});
  std::atomic<int> Failures{0};
  std::vector<std::thread> Threads;
  for (int T = 0; T != 4; ++T)
    Threads.emplace_back([&, T] {
      int64_t N = 5000 + T * 37;
      std::vector<float> A(N, 1.0f * T), B(N, 2.0f), C(N, 0);
      float *PA = A.data(), *PB = B.data(), *PC = C.data();
      int64_t Bytes = N * 4;
      for (int Round = 0; Round != 50; ++Round) {
        if (P.launch("vadd_mt", {&PA, &PB, &PC, &Bytes, &N}) != HPVM_OK)
          ++Failures;
        for (int64_t I = 0; I != N; ++I)
          if (C[I] != 1.0f * T + 2.0f)
            ++Failures;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
}

// The device tests trust GuardedArray to turn a buffer declared larger than
// its host memory into an immediate fault: its last byte must be usable and
// the next one must not.
TEST(TestSupport, GuardedArrayFaultsJustPastItsEnd) {
  GuardedArray<uint64_t> A(3, 7);
  volatile char *End = reinterpret_cast<volatile char *>(A.data() + A.size());
  End[-1] = 1;
  EXPECT_EQ(A[0], 7u);
  EXPECT_EQ(A[2] >> 56, 1u);
  EXPECT_EXIT(End[0] = 1, testing::KilledBySignal(SIGSEGV), "");
}

} // namespace
