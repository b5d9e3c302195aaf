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

} // namespace hpvm::rttest

#endif // HPVM_TEST_SPIRV_SUPPORT_H
