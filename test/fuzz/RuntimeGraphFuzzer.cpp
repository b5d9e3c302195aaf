//===- RuntimeGraphFuzzer.cpp - libFuzzer target: graph text in hpvm-rt --===//
//
// Any text as a program's graphs, loaded and launched by the runtime as a
// program hpvm-clang emitted would be: every leaf gets a CPU artifact that
// does nothing, every graph is launched with buffers in a small arena and
// values from the input's first bytes. Whatever the text, the calls return
// a status (with a message unless it is HPVM_OK) and never crash. Only the
// CPU device runs, so no buffer is copied: what is checked is the loader,
// the verifier and the executor's planning, not the kernels.
//
// Graphs whose constant extents would make a launch run for long (a
// replicated internal node of billions of instances is valid, and slow)
// are loaded but not launched.
//
//===----------------------------------------------------------------------===//
#include "RuntimeFuzzing.h"
#include "hpvm/ir/GraphText.h"
#include "hpvm/rt/hpvm_rt.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void nothing(void *const *, void *const *, const uint64_t *, const uint64_t *,
             uint64_t, uint64_t) {}

/// Whether every constant extent of N and below is small.
bool smallExtents(const hpvm::Node &N) {
  for (const hpvm::Extent &E : N.Dims)
    if (E.isConstant() && E.value() > 64)
      return false;
  for (const auto &C : N.Children)
    if (!smallExtents(*C))
      return false;
  return true;
}

void leafPaths(const hpvm::Node &N, std::vector<std::string> &Out) {
  if (N.isLeaf())
    Out.push_back(N.path());
  for (const auto &C : N.Children)
    leafPaths(*C, Out);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // The first 8 bytes: the values passed for the graphs' value parameters
  // (each below 16, so that extents taken from them stay small).
  uint8_t Values[8] = {};
  size_t Head = Size < 8 ? Size : 8;
  std::memcpy(Values, Data, Head);
  std::string Text(reinterpret_cast<const char *>(Data) + Head, Size - Head);

  // The runtime reads the text itself; the model read here only names the
  // leaves and the graphs (text it rejects is still given to the runtime).
  std::vector<hpvm::Graph> Graphs;
  try {
    Graphs = hpvm::readGraphText(Text);
  } catch (const hpvm::GraphError &) {
  }
  std::vector<std::string> Leaves;
  for (const hpvm::Graph &G : Graphs)
    leafPaths(G.root(), Leaves);
  std::vector<hpvm_artifact> Artifacts;
  for (const std::string &Path : Leaves)
    Artifacts.push_back(
        {Path.c_str(), HPVM_TARGET_CPU, nothing, nullptr, 0, nullptr});
  hpvm_program_desc Desc{HPVM_RT_ABI_VERSION, Text.c_str(),
                         static_cast<uint32_t>(Artifacts.size()),
                         Artifacts.data()};

  static float Arena[1 << 12];
  std::vector<int64_t> Scalars(64);
  std::vector<void *> Args(64);
  auto Check = [](int Status, const char *Call) {
    if (Status != HPVM_OK && !*hpvm_error_message()) {
      std::fprintf(stderr, "%s returned %d with no message\n", Call, Status);
      std::abort();
    }
  };
  bool Loaded = false;
  for (const hpvm::Graph &G : Graphs) {
    const auto &Params = G.root().Params;
    if (Params.size() > Args.size() || !smallExtents(G.root()))
      continue;
    for (size_t K = 0; K != Params.size(); ++K) {
      Scalars[K] = Values[K % 8] & 15;
      Args[K] = Params[K].isBuffer() ? static_cast<void *>(Arena + 64 * K)
                                     : static_cast<void *>(&Scalars[K]);
    }
    // A buffer argument is a pointer to the buffer's pointer.
    std::vector<void *> BufferPtrs(Params.size());
    for (size_t K = 0; K != Params.size(); ++K)
      if (Params[K].isBuffer()) {
        BufferPtrs[K] = Args[K];
        Args[K] = &BufferPtrs[K];
      }
    Check(hpvm_launch(&Desc, G.name().c_str(), Args.data()), "hpvm_launch");
    Loaded = true;
  }
  if (!Loaded)
    Check(hpvm_launch(&Desc, "none", Args.data()), "hpvm_launch");
  hpvm_release_program(&Desc);
  return 0;
}
