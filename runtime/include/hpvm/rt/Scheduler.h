//===- Scheduler.h - Choosing a device for each leaf launch -----*- C++ -*-===//
//
// A policy picks one of a leaf's candidates: the (artifact, device) pairs
// where the program has an artifact for the leaf and the runtime a device
// for its target, in the order the program lists the artifacts. Policies
// are asked only when there is a choice; a leaf with one candidate runs on
// it without a call.
//
//   hint         the first candidate: the program lists a leaf's artifacts
//                in order of preference (static placement)
//   round-robin  each leaf cycles through its candidates
//   heft         earliest estimated finish: when the device is free, plus
//                the bytes coherence would copy, plus the leaf's measured
//                time per instance there; candidates with no history yet
//                are tried first
//   dmda         the same, with the leaf's performance model for the
//                launch's size (Stats.h PerfModel) as the run time; sizes
//                not measured on a device are measured first
//   auto         dmda when every candidate has a model for the size,
//                otherwise hint
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_SCHEDULER_H
#define HPVM_RT_SCHEDULER_H

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/hpvm_rt.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hpvm::rt {

class Coherence;
class Device;
class Link;
struct BufferUse;
struct NodeStats;

struct Candidate {
  Device *Dev = nullptr;
  /// The device's index in the runtime, dense, for per-device state.
  unsigned DeviceIndex = 0;
  const hpvm_artifact *Artifact = nullptr;
  /// This leaf's history on this device.
  NodeStats *History = nullptr;
  /// The device's link from the host (null: Dev->bytesPerSecond(), or a
  /// fixed estimate).
  Link *HostLink = nullptr;
};

struct ScheduleQuery {
  /// Dense and unique per leaf of every loaded program, for per-leaf state.
  unsigned LeafId = 0;
  const char *Path = "";
  const Candidate *Candidates = nullptr;
  size_t NumCandidates = 0;
  uint64_t Instances = 0;
  const BufferUse *Buffers = nullptr;
  size_t NumBuffers = 0;
};

class Scheduler {
public:
  virtual ~Scheduler();
  virtual const char *name() const = 0;
  /// Index into Q.Candidates (NumCandidates >= 2).
  virtual size_t choose(const ScheduleQuery &Q) = 0;
  /// The chosen launch has finished after Nanos.
  virtual void finished(const ScheduleQuery &Q, size_t Choice, uint64_t Nanos) {
  }
};

/// "hint", "round-robin" or "heft"; null for any other name.
std::unique_ptr<Scheduler> makeScheduler(std::string_view Name,
                                         const Coherence &C);
/// Whether makeScheduler knows Name.
bool isSchedulerName(std::string_view Name);
/// The known names, comma-separated, for messages.
const char *schedulerNames();

} // namespace hpvm::rt

#endif // HPVM_RT_SCHEDULER_H
