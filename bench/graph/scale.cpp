//===- scale.cpp - A graph of many empty nodes: load, schedule, run -------===//
//
// How the runtime scales with the number of nodes: a graph of N empty CPU
// leaves (default 10000) in three shapes, through the C ABI as a program
// from hpvm-clang would be:
//
//   independent  N children of the root, no edges
//   chain        each child after the one before it
//   layers       N/100 layers of 100, each child after its parent in the
//                layer before
//
// For each shape, a fresh program holding the graph and a one-leaf probe:
//   load    the probe's first launch: the program's graph text read and
//           verified, plans built (the N-node graph's too)
//   first   the big graph's first launch: its candidates found, every
//           leaf scheduled and run
//   launch  the median of BENCH_GRAPH_REPS (20) more launches, under each
//           policy (hpvm_set_thread_policy); per node: that over N
// Every launch must run every leaf exactly once (a counter the kernels
// bump), else the program fails. Prints one RESULT line per measure.
//
//   hpvm-bench-graph [nodes]            (bench/graph/run.sh runs it)
//
//===----------------------------------------------------------------------===//

#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphText.h"
#include "hpvm/rt/hpvm_rt.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace hpvm;

namespace {

std::atomic<uint64_t> Ran{0};

void emptyKernel(void *const *, void *const *, const uint64_t *,
                 const uint64_t *, uint64_t, uint64_t) {
  Ran.fetch_add(1, std::memory_order_relaxed);
}

enum class Shape { Independent, Chain, Layers };
const char *name(Shape S) {
  return S == Shape::Independent ? "independent"
         : S == Shape::Chain     ? "chain"
                                 : "layers";
}

/// The graph of N leaves in shape S, named "wide", and "probe".
struct Program {
  Program(unsigned N, Shape S) : Wide("wide"), Probe("probe", Node::Kind::Leaf) {
    Node &R = Wide.root();
    std::vector<Node *> Leaves;
    for (unsigned I = 0; I != N; ++I) {
      Node &L = R.addLeaf("n" + std::to_string(I), "empty");
      if (S == Shape::Chain && I)
        R.addDependency(*Leaves.back(), L);
      if (S == Shape::Layers && I >= 100)
        R.addDependency(*Leaves[I - 100], L);
      Leaves.push_back(&L);
    }
    Probe.root().Function = "empty";
    Text = writeGraphText({&Wide, &Probe});
    Names.push_back("probe");
    for (unsigned I = 0; I != N; ++I)
      Names.push_back("wide/n" + std::to_string(I));
    for (const std::string &Name : Names) {
      hpvm_artifact A{};
      A.node = Name.c_str();
      A.target = HPVM_TARGET_CPU;
      A.cpu_fn = emptyKernel;
      A.entry = "main";
      Artifacts.push_back(A);
    }
    Desc.abi_version = HPVM_RT_ABI_VERSION;
    Desc.graphs = Text.c_str();
    Desc.num_artifacts = static_cast<uint32_t>(Artifacts.size());
    Desc.artifacts = Artifacts.data();
  }
  ~Program() { hpvm_release_program(&Desc); }

  Graph Wide, Probe;
  std::string Text;
  std::vector<std::string> Names;
  std::vector<hpvm_artifact> Artifacts;
  hpvm_program_desc Desc{};
};

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// One launch of Graph; its time in seconds. Exits unless it ran Leaves.
double launch(const Program &P, const char *Graph, uint64_t Leaves) {
  uint64_t Before = Ran.load();
  double T0 = now();
  int Status = hpvm_launch(&P.Desc, Graph, nullptr);
  double T = now() - T0;
  if (Status != HPVM_OK) {
    std::fprintf(stderr, "hpvm-bench-graph: %s\n", hpvm_error_message());
    std::exit(1);
  }
  if (Ran.load() - Before != Leaves) {
    std::fprintf(stderr,
                 "hpvm-bench-graph: graph '%s' ran %llu leaves, not %llu\n",
                 Graph, static_cast<unsigned long long>(Ran.load() - Before),
                 static_cast<unsigned long long>(Leaves));
    std::exit(1);
  }
  return T;
}

void report(const char *Shape, const char *What, unsigned N, double Seconds) {
  std::printf("RESULT graph %s %s nodes=%u ms=%.4f per_node_us=%.4f\n", Shape,
              What, N, Seconds * 1e3, Seconds * 1e6 / N);
}

} // namespace

int main(int argc, char **argv) {
  unsigned N = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 10000;
  const char *Reps = std::getenv("BENCH_GRAPH_REPS");
  int R = Reps ? std::max(1, std::atoi(Reps)) : 20;
  if (N < 1) {
    std::fprintf(stderr, "usage: hpvm-bench-graph [nodes]\n");
    return 2;
  }
  for (Shape S : {Shape::Independent, Shape::Chain, Shape::Layers}) {
    Program P(N, S);
    report(name(S), "load", N, launch(P, "probe", 1));
    report(name(S), "first", N, launch(P, "wide", N));
    for (const char *Policy : {"hint", "round-robin", "heft", "dmda", "auto"}) {
      hpvm_set_thread_policy(Policy);
      launch(P, "wide", N); // a policy that learns sees the graph once
      std::vector<double> T;
      for (int I = 0; I != R; ++I)
        T.push_back(launch(P, "wide", N));
      std::sort(T.begin(), T.end());
      report(name(S), (std::string("launch-") + Policy).c_str(), N,
             T[T.size() / 2]);
    }
    hpvm_set_thread_policy(nullptr);
  }
  return 0;
}
