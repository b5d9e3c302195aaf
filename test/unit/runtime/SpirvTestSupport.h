//===- SpirvTestSupport.h - SPIR-V programs for device tests ----*- C++ -*-===//
//
// The Vulkan and OpenCL device tests both launch hand-written SPIR-V
// kernels, assembled at test time with SPIRV-Tools, from programs whose
// leaves carry SPIR-V (and CPU) artifacts, exactly as the SPIR-V backend's
// output does; vadd is their common kernel.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_SPIRV_SUPPORT_H
#define HPVM_TEST_SPIRV_SUPPORT_H

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Devices.h"

#include <spirv-tools/libspirv.hpp>

namespace hpvm::rttest {

/// Assembles and validates Text for Env (Vulkan 1.2 unless told); fails
/// the test otherwise.
inline std::vector<uint32_t> assemble(const std::string &Text,
                                      spv_target_env Env = SPV_ENV_VULKAN_1_2) {
  spvtools::SpirvTools Tools(Env);
  std::string Messages;
  Tools.SetMessageConsumer([&](spv_message_level_t, const char *,
                               const spv_position_t &P, const char *M) {
    Messages += "line " + std::to_string(P.line) + ": " + M + "\n";
  });
  std::vector<uint32_t> Words;
  if (!Tools.Assemble(Text, &Words)) {
    ADD_FAILURE() << "SPIR-V does not assemble:\n" << Messages << Text;
    return {};
  }
  if (!Tools.Validate(Words))
    ADD_FAILURE() << "SPIR-V does not validate:\n" << Messages << Text;
  return Words;
}

struct Art {
  std::string Node;
  uint32_t Target;
  hpvm_cpu_kernel_fn Fn = nullptr;
  std::vector<uint32_t> Words = {};
  std::string Entry = "main";
};

/// A program descriptor with SPIR-V (and CPU) artifacts.
class Program {
public:
  Program(const std::vector<const Graph *> &Graphs, std::vector<Art> Arts)
      : Text(writeGraphText(Graphs)), Arts(std::move(Arts)) {
    for (const Art &A : this->Arts) {
      hpvm_artifact X{};
      X.node = A.Node.c_str();
      X.target = A.Target;
      X.cpu_fn = A.Fn;
      X.code = A.Words.empty() ? nullptr : A.Words.data();
      X.code_size = A.Words.size() * sizeof(uint32_t);
      X.entry = A.Entry.c_str();
      Artifacts.push_back(X);
    }
    Desc.abi_version = HPVM_RT_ABI_VERSION;
    Desc.graphs = Text.c_str();
    Desc.num_artifacts = static_cast<uint32_t>(Artifacts.size());
    Desc.artifacts = Artifacts.data();
  }
  ~Program() { hpvm_release_program(&Desc); }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  int launch(const char *Graph, std::vector<void *> Args) {
    return hpvm_launch(&Desc, Graph, Args.empty() ? nullptr : Args.data());
  }

  hpvm_program_desc Desc{};

private:
  std::string Text;
  std::vector<Art> Arts;
  std::vector<hpvm_artifact> Artifacts;
};

inline void vaddCpuKernel(void *const *Args, void *const *, const uint64_t *,
                          const uint64_t *, uint64_t Begin, uint64_t End) {
  const float *A = buffer<float>(Args, 0), *B = buffer<float>(Args, 1);
  float *C = buffer<float>(Args, 2);
  for (uint64_t I = Begin; I != End; ++I)
    C[I] = A[I] + B[I];
}

/// Runs vadd over N floats and checks every element.
inline void runVadd(Program &P, const char *Graph, uint64_t N) {
  std::vector<float> A(N), B(N), C(N, -1.0f);
  for (uint64_t I = 0; I != N; ++I) {
    A[I] = static_cast<float>(I);
    B[I] = 0.25f * static_cast<float>(I % 1024);
  }
  float *PA = A.data(), *PB = B.data(), *PC = C.data();
  int64_t Bytes = static_cast<int64_t>(N * sizeof(float));
  int64_t Count = static_cast<int64_t>(N);
  ASSERT_EQ(P.launch(Graph, {&PA, &PB, &PC, &Bytes, &Count}), HPVM_OK)
      << hpvm_error_message();
  for (uint64_t I = 0; I != N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << "n = " << N << ", i = " << I;
}

// fill(a, b, n) on the CPU: a[i] = i, b[i] = 2i.
inline void fillKernel(void *const *Args, void *const *, const uint64_t *,
                       const uint64_t *, uint64_t Begin, uint64_t End) {
  float *A = buffer<float>(Args, 0), *B = buffer<float>(Args, 1);
  for (uint64_t I = Begin; I != End; ++I) {
    A[I] = static_cast<float>(I);
    B[I] = 2.0f * static_cast<float>(I);
  }
}

// twice(d, e, n) on the CPU: e[i] = 2 d[i].
inline void twiceKernel(void *const *Args, void *const *, const uint64_t *,
                        const uint64_t *, uint64_t Begin, uint64_t End) {
  const float *D = buffer<float>(Args, 0);
  float *E = buffer<float>(Args, 1);
  for (uint64_t I = Begin; I != End; ++I)
    E[I] = 2.0f * D[I];
}

/// fill (CPU) -> add: c = a + b (device) -> add2: d = c + a (device) ->
/// twice: e = 2d (CPU), all on one set of buffers.
inline Graph mixedGraph(const char *Name) {
  Graph G(Name);
  Node &R = G.root();
  for (const char *B : {"a", "b", "c", "d", "e"})
    R.addBuffer(B, Access::InOut, Extent::param(6));
  R.addValue("n", ScalarType::I64);
  R.addValue("bytes", ScalarType::I64);
  Node &Fill = R.addLeaf("fill", "fill");
  Fill.addBuffer("a", Access::Out, Extent::param(3));
  Fill.addBuffer("b", Access::Out, Extent::param(3));
  Fill.addValue("n", ScalarType::I64);
  Fill.addValue("bytes", ScalarType::I64);
  Fill.setDims({Extent::param(2)});
  R.bind(Fill, 0, 0);
  R.bind(Fill, 1, 1);
  R.bind(Fill, 2, 5);
  R.bind(Fill, 3, 6);
  const unsigned Adds[2][3] = {{0, 1, 2}, {2, 0, 3}};
  Node *Prev = &Fill;
  for (unsigned K = 0; K != 2; ++K) {
    Node &Add = R.addLeaf(K ? "add2" : "add", "vadd");
    Add.addBuffer("x", Access::In, Extent::param(3));
    Add.addBuffer("y", Access::In, Extent::param(3));
    Add.addBuffer("z", Access::Out, Extent::param(3));
    Add.addValue("bytes", ScalarType::I64);
    Add.addValue("n", ScalarType::I64);
    Add.setDims({Extent::param(4)});
    for (unsigned I = 0; I != 3; ++I)
      R.bind(Add, I, Adds[K][I]);
    R.bind(Add, 3, 6);
    R.bind(Add, 4, 5);
    R.addDependency(*Prev, Add);
    Prev = &Add;
  }
  Node &Twice = R.addLeaf("twice", "twice");
  Twice.addBuffer("d", Access::In, Extent::param(3));
  Twice.addBuffer("e", Access::Out, Extent::param(3));
  Twice.addValue("n", ScalarType::I64);
  Twice.addValue("bytes", ScalarType::I64);
  Twice.setDims({Extent::param(2)});
  R.bind(Twice, 0, 3);
  R.bind(Twice, 1, 4);
  R.bind(Twice, 2, 5);
  R.bind(Twice, 3, 6);
  R.addDependency(*Prev, Twice);
  return G;
}

/// The artifacts of mixedGraph(Graph): fill and twice on the CPU, both
/// adds as the device's Vadd.
inline std::vector<Art> mixedArts(const std::string &Graph, uint32_t Target,
                                  const std::vector<uint32_t> &Vadd) {
  return {{Graph + "/fill", HPVM_TARGET_CPU, fillKernel},
          {Graph + "/add", Target, nullptr, Vadd},
          {Graph + "/add2", Target, nullptr, Vadd},
          {Graph + "/twice", HPVM_TARGET_CPU, twiceKernel}};
}

/// Launches mixedGraph over N floats, checks c, d and e, and what
/// coherence moved: in, a, b and c for add (c is out, copied in whole
/// since a leaf may write part of it), d for add2; back, d for twice and c
/// at the end. a and c are already valid on the device for add2.
inline void launchMixed(Program &P, const char *Graph, uint64_t N) {
  rt::Coherence &Coh = rt::Runtime::get().coherence();
  std::vector<float> A(N, -1), B(N, -1), C(N, -1), D(N, -1), E(N, -1);
  float *PA = A.data(), *PB = B.data(), *PC = C.data(), *PD = D.data(),
        *PE = E.data();
  int64_t Count = N, Bytes = N * sizeof(float);
  Coh.resetCounters();
  ASSERT_EQ(P.launch(Graph, {&PA, &PB, &PC, &PD, &PE, &Count, &Bytes}), HPVM_OK)
      << hpvm_error_message();
  for (uint64_t I = 0; I != N; ++I) {
    ASSERT_EQ(C[I], 3.0f * I) << I;
    ASSERT_EQ(D[I], 4.0f * I) << I;
    ASSERT_EQ(E[I], 8.0f * I) << I;
  }
  EXPECT_EQ(Coh.bytesMoved(), 6 * N * sizeof(float));
  EXPECT_EQ(Coh.copiesAvoided(), 2u);
}

/// Expects a second launchMixed to have reused the first one's four
/// device buffers (Counters: the device's).
template <typename Counters>
void expectBuffersReused(const Counters &Before, const Counters &After) {
  EXPECT_EQ(After.MemoryAllocations, Before.MemoryAllocations);
  EXPECT_EQ(After.PooledAllocations - Before.PooledAllocations, 4u);
}

/// rows [2] -> each [rows] -> row [cols]: each instance of the replicated
/// "each" launches the leaf, so launches arrive from several pool threads
/// at once, all on one buffer. row(out, cols, bytes, rows) writes
/// out[(g * rows + i) * cols + j] = g * 1000000 + i * 1000 + j, from its
/// id j, its parent's i and the root's g.
inline Graph ancestorRowsGraph(const char *Name) {
  Graph G(Name);
  Node &R = G.root();
  unsigned Out = R.addBuffer("out", Access::Out, Extent::param(3));
  unsigned Rows = R.addValue("rows", ScalarType::I64);
  unsigned Cols = R.addValue("cols", ScalarType::I64);
  unsigned Bytes = R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::constant(2)});
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
  Row.addValue("rows", ScalarType::I64);
  Row.setDims({Extent::param(1)});
  R.bind(Each, 0, Out);
  R.bind(Each, 1, Cols);
  R.bind(Each, 2, Bytes);
  R.bind(Each, 3, Rows);
  for (unsigned I = 0; I != 4; ++I)
    Each.bind(Row, I, I);
  return G;
}

/// Launches ancestorRowsGraph with 1, 5 and 64 rows of 70 and checks every
/// element.
inline void runAncestorRows(Program &P, const char *Graph) {
  for (int64_t NumRows : {1, 5, 64}) {
    int64_t NumCols = 70;
    std::vector<int64_t> Data(2 * NumRows * NumCols, -1);
    int64_t *PD = Data.data();
    int64_t Size = static_cast<int64_t>(Data.size() * sizeof(int64_t));
    ASSERT_EQ(P.launch(Graph, {&PD, &NumRows, &NumCols, &Size}), HPVM_OK)
        << hpvm_error_message();
    for (int64_t G = 0; G != 2; ++G)
      for (int64_t I = 0; I != NumRows; ++I)
        for (int64_t J = 0; J != NumCols; ++J)
          ASSERT_EQ(Data[(G * NumRows + I) * NumCols + J],
                    G * 1000000 + I * 1000 + J)
              << "rows " << NumRows << " at " << G << "," << I << "," << J;
  }
}

/// slots(out, i1, i8, i16, i32, f32, f64, i64), a root leaf without dims
/// whose kernel writes each value's slot, zero-extended, to out[0..6];
/// out is OutBytes long.
inline Graph slotsGraph(const char *Name, uint64_t OutBytes) {
  Graph G(Name, Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "slots";
  R.addBuffer("out", Access::Out, Extent::constant(OutBytes));
  for (auto [Value, Type] :
       {std::pair<const char *, ScalarType>{"i1", ScalarType::I1},
        {"i8", ScalarType::I8},
        {"i16", ScalarType::I16},
        {"i32", ScalarType::I32},
        {"f32", ScalarType::F32},
        {"f64", ScalarType::F64},
        {"i64", ScalarType::I64}})
    R.addValue(Value, Type);
  return G;
}

/// The values slotsGraph's launches pass, and what out must hold after.
struct SlotValues {
  static constexpr uint64_t Untouched = 0xdeadbeefdeadbeefull;
  bool I1 = true;
  int8_t I8 = -5;
  int16_t I16 = -300;
  int32_t I32 = -70000;
  float F32 = 1.5f;
  double F64 = -2.25;
  int64_t I64 = -1234567890123ll;

  /// Launches slotsGraph's Graph with these values and out = Out.
  int launch(Program &P, const char *Graph, uint64_t *Out) {
    return P.launch(Graph, {&Out, &I1, &I8, &I16, &I32, &F32, &F64, &I64});
  }

  /// Narrow integers travel as uints holding the value's own bytes; out[7]
  /// follows the values and must stay Untouched.
  void expectIn(GuardedArray<uint64_t> &Out) const {
    uint32_t F32Bits;
    std::memcpy(&F32Bits, &F32, 4);
    uint64_t F64Bits;
    std::memcpy(&F64Bits, &F64, 8);
    EXPECT_EQ(Out[0], 1u);
    EXPECT_EQ(Out[1], 0xfbu);
    EXPECT_EQ(Out[2], 0xfed4u);
    EXPECT_EQ(Out[3], 0xfffeee90u);
    EXPECT_EQ(Out[4], F32Bits);
    EXPECT_EQ(Out[5], F64Bits);
    EXPECT_EQ(Out[6], static_cast<uint64_t>(I64));
    EXPECT_EQ(Out[7], Untouched);
  }
};

/// Expects a leaf with an output to be refused by the device of Target,
/// whose refusal says What.
inline void expectLeafOutputsRefused(const char *Name, uint32_t Target,
                                     std::vector<uint32_t> Words,
                                     const std::string &What) {
  Graph G(Name, Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "out";
  R.addValue("n", ScalarType::I64);
  // Not replicated (no dims), so its output goes somewhere.
  R.addOutput("sum", ScalarType::I64);
  Program P({&G}, {{Name, Target, nullptr, std::move(Words)}});
  int64_t N = 4;
  expectError(P.launch(Name, {&N}), HPVM_ERR_UNSUPPORTED, What);
}

/// Runs the discovery of one device kind.
using DiscoverFn = std::function<std::string(
    rt::DiscoveryContext &, std::vector<std::unique_ptr<rt::Device>> &)>;

/// A device of its own for a test: discovered afresh and registered with
/// the runtime in place of the ones of its target, which come back when
/// it goes, so that programs run on it and its counters start at zero.
class OwnDevice {
public:
  /// Fails the test unless Discover finds exactly one device.
  void install(uint32_t Target, const DiscoverFn &Discover) {
    rt::Runtime &RT = rt::Runtime::get();
    // Discovery is lazy: have it happen now, so that loading the test's
    // program does not add a second device beside this one.
    RT.discoverDevicesFor(Target);
    rt::DiscoveryContext Ctx{
        RT.pool(), [](void *) { return rt::Runtime::get().newMemorySpace(); },
        nullptr, &RT.trace()};
    std::vector<std::unique_ptr<rt::Device>> Found;
    std::string Why = Discover(Ctx, Found);
    ASSERT_EQ(Found.size(), 1u) << Why;
    for (size_t I = RT.numDevices(); I-- > 0;)
      if (RT.device(I).target() == Target)
        SteppedAside.push_back(RT.removeDevice(RT.device(I)));
    Dev = Found[0].get();
    RT.addDevice(std::move(Found[0]));
    RT.coherence().resetCounters();
  }

  ~OwnDevice() {
    rt::Runtime &RT = rt::Runtime::get();
    if (Dev)
      RT.removeDevice(*Dev);
    for (auto &D : SteppedAside)
      RT.addDevice(std::move(D));
  }

  rt::Device *Dev = nullptr;

private:
  std::vector<std::unique_ptr<rt::Device>> SteppedAside;
};

} // namespace hpvm::rttest

#endif // HPVM_TEST_SPIRV_SUPPORT_H
