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
// heft, dmda and auto also place a graph node's children together when
// every leaf among them has a prediction on each of its devices (planFrame:
// HEFT's upward ranks, moves costed over the measured links, Link.h).
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
#include <vector>

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
  /// The candidate planFrame chose for this leaf in its frame, if it did
  /// (SIZE_MAX: none).
  size_t Planned = SIZE_MAX;
};

/// One child of a node whose children are about to run together (a
/// frame), for a policy that places them as a graph (planFrame).
struct FrameChild {
  /// Its candidates; none for a child that is not a leaf.
  const Candidate *Candidates = nullptr;
  size_t NumCandidates = 0;
  uint64_t Instances = 0;
  /// The children that wait for it, and for each the bytes it writes that
  /// that child reads (what moves if they run in different memory).
  std::vector<unsigned> Succ;
  std::vector<uint64_t> SuccBytes;
  /// Out: the candidate chosen for it (SIZE_MAX: none, choose() decides).
  size_t Choice = SIZE_MAX;
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
  /// Whether the policy places a frame's children together: then the
  /// executor calls planFrame when a frame starts, and choose() gets each
  /// leaf's planned choice in ScheduleQuery::Planned.
  virtual bool plansFrames() const { return false; }
  /// Sets Choice of the children it places (a frame's children, in order).
  virtual void planFrame(std::vector<FrameChild> &Children) {}
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
