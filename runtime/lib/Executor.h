//===- Executor.h - Running a graph plan ------------------------*- C++ -*-===//
//
// Runs one launch of a graph: internal nodes start a child when every
// incoming dependency and value edge is done, and run independent children
// at the same time as tasks on the thread pool; replicated internal nodes
// run their child graph once per instance (or, when that graph is one
// replicated leaf and its device can, as one grid launch); leaves go to the
// device the scheduler picks, with their buffers made coherent there first.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_EXECUTOR_H
#define HPVM_RT_LIB_EXECUTOR_H

#include "Plan.h"

#include "hpvm/rt/Error.h"

namespace hpvm::rt {

class Runtime;
class Trace;

/// The value of extent E of node P for the node's arguments Args (below
/// zero counts as zero); throws RtError for a missing argument.
uint64_t extentOf(const NodePlan &P, const Extent &E, void *const *Args);

/// Node P's extents for Args in Dims[0..2] (missing ones 1), and its number
/// of instances; throws RtError when that overflows 64 bits.
uint64_t evalDims(const NodePlan &P, void *const *Args, uint64_t Dims[3]);

/// The data pointer of buffer argument K (Args[K] points to it).
void *bufferPointer(void *const *Args, unsigned K);

/// Throws RtError (HPVM_ERR_INVALID_ARGUMENT) for a NULL Args when G's root
/// has parameters; Call names the C function in the message.
void requireArguments(const char *Call, const GraphPlan &G, void *const *Args);

/// A launch's own copy of its argument values, for one that runs after its
/// caller has moved on: Values gets one 8-byte slot per root parameter (a
/// buffer's: its data pointer) and Copy[K] points to slot K, or stays NULL
/// where Args[K] is NULL.
void copyArguments(const GraphPlan &G, void *const *Args, uint64_t *Values,
                   void **Copy);

/// A leaf's device launch that finishes without its launching thread
/// (Device::whenDone): what finishing it needs, kept with the frame's
/// child, whose chain it then continues (Executor::leafDone).
struct LeafInFlight {
  ThreadPool::Job Job;
  Frame::ChildTask *Task = nullptr;
  Device *Dev = nullptr;
  LaunchToken Token;
  Coherence::Hold Held;
  NodeStats *History = nullptr;
  uint64_t Instances = 0, Start = 0;
  const char *Variant = nullptr;
  /// The policy that chose the device, told when the launch has finished;
  /// the query's candidates and buffers are copied here, as the launching
  /// thread's are gone by then.
  Scheduler *Sched = nullptr;
  ScheduleQuery Q;
  size_t Choice = 0;
  std::vector<Candidate> Candidates;
  std::vector<BufferUse> Buffers;
};

class Executor {
public:
  explicit Executor(Runtime &RT);

  /// Runs G with root arguments Args. Failures are recorded in Ctx (the
  /// first one wins, later work is skipped), never thrown.
  void run(const GraphPlan &G, void *const *Args, LaunchContext &Ctx);

  /// What run() does, in the pieces a stream (Stream.cpp) calls itself to
  /// run the root's children one frame at a time: the root buffers of a
  /// launch with Args go into Ctx; a frame of the (internal) root is bound
  /// to Args; one child of it runs; the whole root runs (run()'s last step,
  /// a leaf root's only stage). Failures go to Ctx, as in run().
  void noteRootBuffers(const GraphPlan &G, void *const *Args,
                       LaunchContext &Ctx);
  void bindRootFrame(Frame &F, void *const *Args, LaunchContext &Ctx);
  void runStage(Frame &F, unsigned Child) { runChild(F, Child); }
  void runRoot(const NodePlan &Root, void *const *Args, LaunchContext &Ctx);

private:
  Runtime &RT;
  ThreadPool &Pool;
  Coherence &Coh;
  Trace &TheTrace;

  /// How runLeaf ended: the leaf ran; a grid launch the device cannot run
  /// was declined, having done nothing; the leaf's device launch will
  /// finish on its own and then continue its frame's chain (Then).
  enum class LeafRun { Ran, Declined, InFlight };

  /// Planned: the candidate a plan of the node's frame chose for it, if
  /// any (planFrame). With Then, a leaf's device launch may finish without
  /// this thread: then it returns false, and the launch continues Then's
  /// chain when it is done; otherwise true.
  bool runNode(const NodePlan &P, void *const *Args, void *const *Outs,
               const uint64_t *OuterIds, LaunchContext &Ctx,
               size_t Planned = SIZE_MAX, Frame::ChildTask *Then = nullptr);
  /// With ParentDims, runs the leaf for every instance of its parent as one
  /// grid launch, or declines when the device the scheduler picks cannot.
  LeafRun runLeaf(const NodePlan &P, void *const *Args, void *const *Outs,
                  const uint64_t *OuterIds, LaunchContext &Ctx,
                  const uint64_t *ParentDims = nullptr,
                  size_t Planned = SIZE_MAX, Frame::ChildTask *Then = nullptr);
  /// What follows a leaf's run: its statistics, trace event and the
  /// policy's feedback; InFlight when it ended without its launching thread.
  /// Whether a launch of Instances may run untimed now (one taken from
  /// History.UntimedLeft).
  static bool takeUntimed(NodeStats &History, uint64_t Instances);
  /// After a timed launch of Instances on host device D that ran on the
  /// calling thread: allows untimed ones if the cost has settled.
  static void allowUntimed(NodeStats &History, const Device &D,
                           double NanosBefore, uint64_t Instances);
  /// Whether a launch of leaf P on Dev (its statistics History) that
  /// failed with E runs again elsewhere: a device error, Others (another
  /// candidate allowed), not strict, and H's writes discarded with every
  /// range valid elsewhere (Coherence::discard). Then Dev gets no more of
  /// the leaf's launches, and the first time a note says so (stderr, the
  /// statistics, LaunchOptions::Fallbacks).
  bool fallBack(const NodePlan &P, Device &Dev, NodeStats &History,
                const RtError &E, Coherence::Hold &H, LaunchContext &Ctx,
                bool Others);
  void leafRan(NodeStats &History, uint64_t Instances, uint64_t Start,
               const LaunchToken &Token, const char *Variant, Scheduler *Sched,
               const ScheduleQuery &Q, size_t Choice, bool InFlight = false);
  /// Device::whenDone's callback, and the pool task it starts, which
  /// finishes the launch and goes on along its chain.
  static void leafDone(void *InFlight);
  static void finishInFlight(void *InFlight, uint64_t, uint64_t);
  bool runGrid(const NodePlan &P, void *const *Args, const uint64_t Dims[3],
               const uint64_t *OuterIds, LaunchContext &Ctx);
  void runInternal(const NodePlan &P, void *const *Args, void *const *Outs,
                   const uint64_t *OuterIds, LaunchContext &Ctx);
  void bindFrame(Frame &F, void *const *Args, const uint64_t *OuterIds,
                 LaunchContext &Ctx);
  void runFrame(Frame &F);
  /// Asks a policy that places frames together (Scheduler::plansFrames)
  /// to place F's children, into F.Planned.
  void planFrame(Frame &F);
  void runChain(Frame &F, unsigned Child);
  /// Starts the successors that Child's end makes ready and counts it
  /// done; returns one of them to run next on this thread, or -1.
  int childDone(Frame &F, unsigned Child);
  /// False when the child's device launch finishes on its own (MayDefer).
  bool runChild(Frame &F, unsigned Child, bool MayDefer = false);
  static void taskEntry(void *Task, uint64_t, uint64_t);
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_EXECUTOR_H
