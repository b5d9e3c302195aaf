//===- Program.cpp - A loaded hpvm_program_desc ---------------------------===//

#include "Program.h"
#include "PlanBuilder.h"

#include "hpvm/ir/GraphText.h"
#include "hpvm/ir/GraphVerifier.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

using namespace hpvm;
using namespace hpvm::rt;

namespace {

struct LoadFailure {
  std::string Message;
};

[[noreturn]] void bad(const std::string &Message) {
  throw LoadFailure{Message};
}

/// Every target an artifact may have: the node targets, and OpenCL, which
/// stands for spirv in node masks.
constexpr uint32_t KnownArtifactTargets = AllTargets | HPVM_TARGET_OPENCL;

/// The node targets an artifact of Target needs its leaf to allow.
uint32_t nodeTargetsFor(uint32_t Target) {
  return Target == HPVM_TARGET_OPENCL ? uint32_t(TargetSPIRV) : Target;
}

/// Of two artifacts of one node and target, the work-group kernel: the one
/// whose entry is the other's followed by HPVM_WORK_GROUP_ENTRY_SUFFIX; null
/// when neither is.
const hpvm_artifact *workGroupKernelOf(const hpvm_artifact &A,
                                       const hpvm_artifact &B) {
  if (!A.entry || !B.entry)
    return nullptr;
  std::string Suffix = HPVM_WORK_GROUP_ENTRY_SUFFIX;
  if (std::string(A.entry) + Suffix == B.entry)
    return &B;
  if (std::string(B.entry) + Suffix == A.entry)
    return &A;
  return nullptr;
}

} // namespace

std::string hpvm::rt::artifactTargetName(uint32_t Target) {
  if (Target == HPVM_TARGET_OPENCL)
    return "opencl";
  if (Target && !(Target & (Target - 1)) && (Target & AllTargets))
    return targetsToString(Target);
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "0x%x", Target);
  return Buf;
}

std::unique_ptr<Program> Program::load(const hpvm_program_desc &D, Stats &S,
                                       std::atomic<unsigned> &NextLeafId) {
  auto P = std::unique_ptr<Program>(new Program());
  P->Desc = D;
  try {
    P->loadOrThrow(D, S, NextLeafId);
  } catch (const LoadFailure &E) {
    P->LoadError = "bad program: " + E.Message;
  } catch (const std::exception &E) {
    P->LoadError = std::string("bad program: ") + E.what();
  }
  if (!P->LoadError.empty()) {
    // A program that cannot launch needs no device discovered for it.
    P->ArtifactTargets = 0;
    P->ByName.clear();
    P->Plans.clear();
    P->Graphs.clear();
  }
  return P;
}

void Program::loadOrThrow(const hpvm_program_desc &D, Stats &S,
                          std::atomic<unsigned> &NextLeafId) {
  if (D.abi_version != HPVM_RT_ABI_VERSION)
    bad("ABI version " + std::to_string(D.abi_version) +
        ", but this hpvm-rt implements version " +
        std::to_string(HPVM_RT_ABI_VERSION));
  if (!D.graphs)
    bad("the graph text is NULL");
  if (D.num_artifacts && !D.artifacts)
    bad(std::to_string(D.num_artifacts) + " artifacts, but artifacts is NULL");

  try {
    Graphs = readGraphText(D.graphs);
  } catch (const GraphError &E) {
    bad(E.what());
  }

  for (const Graph &G : Graphs) {
    if (G.name().empty())
      bad("a graph has an empty name");
    if (!ByName.emplace(G.name(), nullptr).second)
      bad("two graphs are named '" + G.name() + "'");
    std::vector<GraphDiagnostic> Diags = verifyGraph(G);
    if (Diags.empty())
      continue;
    std::string Message = "graph '" + G.name() + "' is not well formed:";
    for (const GraphDiagnostic &Diag : Diags)
      Message += "\n  " + Diag.str();
    bad(Message);
  }

  // Every graph verified, so the builder may follow every index. (Hashed:
  // paths of many siblings share long prefixes.)
  std::unordered_map<std::string, NodePlan *> LeafByPath;
  for (const Graph &G : Graphs) {
    Plans.push_back(buildGraphPlan(G, S, NextLeafId));
    GraphPlan *Plan = Plans.back().get();
    ByName[Plan->Name] = Plan;
    for (NodePlan *Leaf : Plan->Leaves)
      LeafByPath[Leaf->Path] = Leaf;
  }

  // The path of each internal node too, to tell "not a leaf" from "unknown".
  std::unordered_map<std::string, bool> AnyPath;
  for (const Graph &G : Graphs)
    forEachNode(G.root(),
                [&](const Node &N) { AnyPath[N.path()] = N.isLeaf(); });

  // (leaf, target) -> artifact index, to report duplicates; likewise for
  // streaming-store variants, which must come with a normal CPU artifact.
  std::map<std::pair<const NodePlan *, uint32_t>, unsigned> Seen;
  std::map<const NodePlan *, unsigned> SeenStreaming;
  for (uint32_t I = 0; I != D.num_artifacts; ++I) {
    const hpvm_artifact &A = D.artifacts[I];
    std::string Which = "artifact #" + std::to_string(I);
    if (!A.node)
      bad(Which + " names no node");
    Which += " (node '" + std::string(A.node) + "')";
    auto It = LeafByPath.find(A.node);
    if (It == LeafByPath.end()) {
      if (AnyPath.count(A.node))
        bad(Which + " is for an internal node; only leaves have artifacts");
      bad(Which + " is for a node that no graph has");
    }
    NodePlan &Leaf = *It->second;
    if (!A.target || (A.target & (A.target - 1)) ||
        !(A.target & KnownArtifactTargets))
      bad(Which + " has target " + artifactTargetName(A.target) +
          "; it must be exactly one of " + targetsToString(AllTargets) +
          ",opencl");
    if (!(nodeTargetsFor(A.target) & Leaf.N->Targets))
      bad(Which + " is for target " + artifactTargetName(A.target) +
          (A.target == HPVM_TARGET_OPENCL ? " (SPIR-V for OpenCL)" : "") +
          ", which the node does not allow (it allows " +
          (Leaf.N->Targets ? targetsToString(Leaf.N->Targets) : "none") + ")");
    if (A.target == HPVM_TARGET_CPU && !A.cpu_fn)
      bad(Which + " is for the CPU but has no cpu_fn");
    if (A.target != HPVM_TARGET_CPU && !A.code) {
      if (A.code_size)
        bad(Which + " has no code but a code_size of " +
            std::to_string(A.code_size));
      Leaf.LeftOut.push_back(&A);
      continue;
    }
    if (A.target == HPVM_TARGET_NVPTX &&
        (!A.entry || static_cast<const char *>(A.code)[A.code_size] != '\0'))
      bad(Which + " is PTX but has no code, no entry, or no NUL after its " +
          std::to_string(A.code_size) + " bytes of text");
    if (A.target == HPVM_TARGET_CPU && A.entry &&
        std::strcmp(A.entry, HPVM_CPU_STREAMING_ENTRY) == 0) {
      // Not a candidate of its own: the CPU device runs it in place of the
      // normal artifact when a launch's data does not fit in the cache.
      auto [Prev, New] = SeenStreaming.emplace(&Leaf, I);
      if (!New)
        bad(Which +
            " is a second streaming-store variant for the node (the "
            "first is #" +
            std::to_string(Prev->second) + ")");
      Leaf.StreamingVariant = &A;
      continue;
    }
    auto [Prev, New] = Seen.emplace(std::make_pair(&Leaf, A.target), I);
    if (!New) {
      // A work-group leaf's work-group kernel is a second artifact of a
      // target, not a candidate of its own: the device runs it in place of
      // the other when the group fits.
      const hpvm_artifact &First = D.artifacts[Prev->second];
      const hpvm_artifact *Kernel =
          A.target == HPVM_TARGET_CPU ? nullptr : workGroupKernelOf(First, A);
      if (!Kernel || Leaf.workGroupKernel(A.target))
        bad(Which + " is a second " + artifactTargetName(A.target) +
            " artifact for the node (the first is #" +
            std::to_string(Prev->second) + ")");
      if (Leaf.N->Group.empty())
        bad(Which + " is a work-group kernel (entry \"" + Kernel->entry +
            "\"), but the node has no work-groups");
      if (Kernel == &First) {
        *std::find(Leaf.Artifacts.begin(), Leaf.Artifacts.end(), &First) = &A;
        Prev->second = I;
      }
      Leaf.WorkGroupKernels.push_back(Kernel);
      continue;
    }
    Leaf.Artifacts.push_back(&A);
    ArtifactTargets |= A.target;
  }
  for (auto [Leaf, I] : SeenStreaming)
    if (!Seen.count({Leaf, HPVM_TARGET_CPU}))
      bad("artifact #" + std::to_string(I) + " (node '" + Leaf->Path +
          "') is a streaming-store variant (entry \"" HPVM_CPU_STREAMING_ENTRY
          "\"), but the node has no other cpu artifact");
}

GraphPlan *Program::find(std::string_view Name) const {
  auto It = ByName.find(Name);
  return It == ByName.end() ? nullptr : It->second;
}

std::string Program::graphNames() const {
  std::string Names;
  for (const auto &P : Plans)
    Names += (Names.empty() ? "" : ", ") + P->Name;
  return Names.empty() ? "none" : Names;
}
