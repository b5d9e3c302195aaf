//===- Program.h - A loaded hpvm_program_desc -------------------*- C++ -*-===//
//
// Loading checks everything about a program that does not depend on the
// devices present: the ABI version, the graph text, the verifier's rules,
// and that every artifact belongs to a leaf that allows its target. What
// the devices decide (whether some device can run each leaf) is checked per
// launch, because devices can come and go.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_PROGRAM_H
#define HPVM_RT_LIB_PROGRAM_H

#include "Plan.h"

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/hpvm_rt.h"

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hpvm::rt {

class Stats;

/// "cpu", "spirv", "opencl", ... for one enum hpvm_target value; the number
/// in hex for anything else.
std::string artifactTargetName(uint32_t Target);

class Program {
public:
  /// Never throws: a program that fails to load remembers why, so that a
  /// bad descriptor is not parsed again on every launch.
  static std::unique_ptr<Program> load(const hpvm_program_desc &D, Stats &S,
                                       std::atomic<unsigned> &NextLeafId);

  /// Whether D still describes this program (same fields at the address).
  bool describes(const hpvm_program_desc &D) const {
    return D.abi_version == Desc.abi_version && D.graphs == Desc.graphs &&
           D.num_artifacts == Desc.num_artifacts &&
           D.artifacts == Desc.artifacts;
  }

  /// Empty when the program loaded.
  const std::string &loadError() const { return LoadError; }
  GraphPlan *find(std::string_view Name) const;
  /// "a, b, c", for messages.
  std::string graphNames() const;
  /// The hpvm_target bits of the program's artifacts (0 if it failed to
  /// load): which device kinds loading it must have discovered.
  uint32_t artifactTargets() const { return ArtifactTargets; }

private:
  hpvm_program_desc Desc{};
  std::string LoadError;
  uint32_t ArtifactTargets = 0;
  std::vector<Graph> Graphs;
  std::vector<std::unique_ptr<GraphPlan>> Plans;
  std::unordered_map<std::string_view, GraphPlan *> ByName;

  void loadOrThrow(const hpvm_program_desc &D, Stats &S,
                   std::atomic<unsigned> &NextLeafId);
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_PROGRAM_H
