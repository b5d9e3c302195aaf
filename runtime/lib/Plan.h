//===- Plan.h - What a launch of a graph needs, computed once ---*- C++ -*-===//
//
// A plan is a graph turned into what the executor indexes directly: where
// each child parameter comes from, the dependency counts and successors of
// each child, storage for constants, and (per device set) the candidates of
// each leaf. Everything here is built when a program is loaded, so that a
// launch parses and looks up nothing.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_PLAN_H
#define HPVM_RT_LIB_PLAN_H

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Scheduler.h"
#include "hpvm/rt/ThreadPool.h"
#include "hpvm/rt/hpvm_rt.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hpvm::rt {

class Executor;
struct Frame;
struct LeafInFlight;
struct NodeStats;

/// Where a child's parameter value lives while its parent runs.
struct ArgSource {
  enum Kind : uint8_t { Parent, Constant, Slot };
  Kind From = Parent;
  /// Parent: the parent's parameter; Constant: index into
  /// NodePlan::Constants; Slot: index into the frame's output slots.
  unsigned Index = 0;
};

struct NodePlan {
  NodePlan();
  ~NodePlan();

  const Node *N = nullptr;
  std::string Path;
  /// 0 for the root; also the number of outer id levels a leaf receives.
  unsigned Depth = 0;
  bool Replicated = false; // has dims
  /// Some ancestor is replicated: the node runs once per ancestor instance.
  bool UnderReplicated = false;

  // --- Leaves ---------------------------------------------------------------
  unsigned LeafId = 0;
  /// The program's artifacts for this leaf, in the program's order.
  std::vector<const hpvm_artifact *> Artifacts;
  /// The CPU artifact's streaming-store variant (HPVM_CPU_STREAMING_ENTRY),
  /// or null; not among Artifacts.
  const hpvm_artifact *StreamingVariant = nullptr;
  /// Artifacts the compiler left out (hpvm_rt.h: no code, entry says why);
  /// never run, named when no device can run the leaf.
  std::vector<const hpvm_artifact *> LeftOut;
  /// A work-group leaf's work-group kernels (HPVM_WORK_GROUP_ENTRY_SUFFIX),
  /// one per target at most; not among Artifacts.
  std::vector<const hpvm_artifact *> WorkGroupKernels;
  const hpvm_artifact *workGroupKernel(uint32_t Target) const {
    for (const hpvm_artifact *A : WorkGroupKernels)
      if (A->target == Target)
        return A;
    return nullptr;
  }
  /// (artifact, device) pairs for the runtime's current devices.
  std::vector<Candidate> Candidates;
  /// "; <device> cannot run it: <why>" for each device that has the
  /// artifact's target but refuses the leaf (Device::cannotRun); rewritten
  /// only when it changes, as Candidates.
  std::string Refused;
  std::vector<unsigned> BufferParams;
  /// Some buffer parameter is out or inout with a section that is the same
  /// for every instance of its ancestors (no instance id in its offset).
  bool SharedWrites = false;

  // --- Internal nodes -------------------------------------------------------
  NodeStats *Stats = nullptr; // as run by the executor ("host")
  std::vector<std::unique_ptr<NodePlan>> Children;
  /// Child c's parameters are ArgSources[ParamBase[c] ...], its outputs
  /// frame slots OutBase[c] ...
  std::vector<unsigned> ParamBase, OutBase;
  unsigned NumSlots = 0;
  std::vector<ArgSource> ArgSources;
  /// Constant bindings, each in its parameter's type at the slot's start.
  std::vector<uint64_t> Constants;
  /// Incoming dependency and value edges per child (duplicates merged),
  /// successors per child, and the children with no predecessor.
  std::vector<unsigned> PredCount;
  std::vector<std::vector<unsigned>> Succ;
  std::vector<unsigned> Roots;
  /// Some two children may run at the same time (the children are not one
  /// chain): then a child's device launch lets its thread go on to other
  /// children while the kernel runs (Device::whenDone).
  bool ParallelChildren = false;
  /// Per output of this node: the slot holding it when the children finish.
  std::vector<unsigned> OutputSlots;
  /// A replicated node whose child graph is one replicated leaf without
  /// outputs: the leaf's arguments (this node's parameters and constants)
  /// are the same in every instance, so all instances may run as one grid
  /// launch (KernelLaunch::Grid) on a device that can.
  bool GridLeaf = false;

  /// Frames of finished executions, reused to avoid allocating per launch.
  Frame *takeFrame() const;
  void returnFrame(Frame *F) const;

private:
  mutable std::mutex FrameM;
  mutable std::vector<std::unique_ptr<Frame>> FreeFrames;
};

struct GraphPlan {
  std::string Name;
  const Graph *G = nullptr;
  std::unique_ptr<NodePlan> Root;
  /// Set when the graph uses something the executor cannot run yet.
  std::string Unsupported;
  std::vector<NodePlan *> Leaves;

  /// Candidates are for the device set of this generation (0: never built);
  /// NoDevice says which leaf has none. Runnable is NoDevice.empty(), read
  /// without the lock: lazy discovery may rewrite NoDevice (its list of
  /// available devices) while another thread launches the graph, so the
  /// text itself is only read under CandidatesM.
  std::mutex CandidatesM;
  std::atomic<uint64_t> Generation{0};
  std::atomic<bool> Runnable{false};
  std::string NoDevice;
  /// By root parameter: "<graph>:<parameter>" for buffers (the names in
  /// statistics and the trace), empty for values.
  std::vector<std::string> BufferNames;
  /// Where the copies made at the end of a launch are counted: the root's
  /// "host" entry.
  NodeStats *EndStats = nullptr;
  /// Some leaf may run outside host memory with this generation's devices:
  /// launches of the graph then register every buffer use with coherence,
  /// host-space ones included.
  std::atomic<bool> OffHost{false};
};

/// The state of one hpvm_launch shared by everything it runs.
struct LaunchContext {
  Coherence::LaunchSet Buffers;
  /// From LaunchOptions: the policy of this launch, and by device index
  /// whether its leaves may run there (empty: anywhere).
  Scheduler *Sched = nullptr;
  std::vector<bool> Allowed;
  bool Strict = false;
  std::string AllowedText; // "vulkan, cpu", for messages
  std::vector<std::string> *Fallbacks = nullptr;
  /// GraphPlan::OffHost when the launch started.
  bool TrackHost = false;
  /// Whether small settled CPU leaves may run untimed (NodeStats::
  /// UntimedLeft): nothing wants every launch timed (no trace, no model
  /// file, not a stream's stage, whose occupancy is its leaves' times).
  bool MayUntime = false;
  /// The root's buffer arguments, their declared sizes (what device copies
  /// of them hold) and names (GraphPlan::BufferNames).
  struct RootBuffer {
    void *Host;
    uint64_t Bytes;
    const std::string *Name;
  };
  std::vector<RootBuffer> RootBuffers;
  std::atomic<bool> Failed{false};
  std::mutex M;
  hpvm_status Code = HPVM_OK;
  std::string Message;
  /// The device chosen for each leaf (by LeafId) that runs once per
  /// instance of a replicated ancestor and writes a buffer: its instances
  /// stay in one memory space (under M).
  std::vector<std::pair<unsigned, const Device *>> Pinned;

  /// The index in Cands[0, N) of the device pinned for the leaf, if one is
  /// and it is among them (a device that failed the leaf is not).
  bool pinned(unsigned LeafId, const Candidate *Cands, size_t N,
              size_t &Choice) {
    std::lock_guard<std::mutex> L(M);
    for (const auto &[Leaf, Dev] : Pinned)
      if (Leaf == LeafId)
        for (size_t I = 0; I != N; ++I)
          if (Cands[I].Dev == Dev) {
            Choice = I;
            return true;
          }
    return false;
  }
  /// Pins Cands[Choice]'s device for the leaf unless another instance was
  /// first with one among Cands; returns the index of the pinned one.
  size_t pin(unsigned LeafId, const Candidate *Cands, size_t N, size_t Choice) {
    std::lock_guard<std::mutex> L(M);
    for (auto &[Leaf, Dev] : Pinned)
      if (Leaf == LeafId) {
        for (size_t I = 0; I != N; ++I)
          if (Cands[I].Dev == Dev)
            return I;
        Dev = Cands[Choice].Dev; // it failed the leaf: the new choice
        return Choice;
      }
    Pinned.emplace_back(LeafId, Cands[Choice].Dev);
    return Choice;
  }

  /// Keeps the first failure; later work is skipped.
  void fail(hpvm_status C, const std::string &Msg) {
    std::lock_guard<std::mutex> L(M);
    if (Code == HPVM_OK) {
      Code = C;
      Message = Msg;
    }
    Failed.store(true, std::memory_order_relaxed);
  }
};

/// One execution of an internal node's child graph: one instance of it.
struct Frame {
  struct ChildTask {
    ThreadPool::Job Job;
    Frame *F = nullptr;
    unsigned Child = 0;
    /// The child's device launch while it finishes on its own (made on
    /// first use, reused by later frames).
    std::unique_ptr<LeafInFlight> InFlight;
  };

  explicit Frame(const NodePlan &P);
  ~Frame();

  const NodePlan &P;
  Executor *X = nullptr;
  LaunchContext *Ctx = nullptr;
  std::atomic<unsigned> Done{0};
  std::unique_ptr<std::atomic<unsigned>[]> Remaining;
  std::unique_ptr<ChildTask[]> Tasks;
  std::vector<uint64_t> Slots; // child outputs
  std::vector<void *> ChildArgs;
  std::vector<void *> ChildOuts;
  /// This instance's ids, then the node's own outer ids: what its children
  /// receive as outer_ids.
  std::vector<uint64_t> OuterIds;
  /// Per child, the candidate a plan of the frame chose (SIZE_MAX: none;
  /// empty: no plan).
  std::vector<size_t> Planned;
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_PLAN_H
