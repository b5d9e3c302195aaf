//===- Stream.h - hpvm_stream_*: a graph over a stream of frames -*- C++
//-*-===//
//
// A stream runs one graph once per frame of root arguments, the root's
// children as the stages of a pipeline: each stage runs its frames in push
// order; within a frame a stage waits for its predecessors (edges of any
// kind); a streaming edge of capacity c lets its source run at most c
// frames ahead of its destination; frames whose root buffers conflict run
// one after the other. Stages run as tasks on the pool through the
// executor, exactly as one launch's children do, so devices, coherence,
// statistics and the trace see them as they see any launch.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_STREAM_H
#define HPVM_RT_LIB_STREAM_H

#include "hpvm/rt/Runtime.h"
#include "hpvm/rt/ThreadPool.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hpvm::rt {

struct GraphPlan;
struct NodePlan;

class Stream {
public:
  /// A stream holding at most Capacity frames between push and pop, under
  /// Options (copied; null: none), of no graph until bind().
  Stream(Runtime &RT, unsigned Capacity, const LaunchOptions *Options);
  /// Cancels and waits for the frames still running.
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  /// Makes it a stream of G (checked and prepared), of Program; once
  /// bound, checks that G is that graph. Throws RtError for a graph a
  /// stream cannot run or another graph.
  void bind(GraphPlan &G, const hpvm_program_desc *Program);
  /// Admits a frame with a copy of Args, once fewer than Capacity frames
  /// are unpopped; throws RtError (a bad argument, an ended stream). The
  /// stream is bound.
  void push(void *const *Args);
  /// Waits for the oldest unpopped frame: its status (Message: why it
  /// failed) and number; HPVM_END_OF_STREAM once the stream has ended and
  /// every frame is popped; HPVM_ERR_INVALID_ARGUMENT for a stream that
  /// has had no frame and no graph.
  hpvm_status pop(uint64_t &Frame, std::string &Message);
  /// No frame follows.
  void end();
  /// Drops the frames no stage has started and ends the stream.
  void cancel();
  /// Returns once no stage is running or will run (after cancel).
  void drain();

  const hpvm_program_desc *program() const {
    std::lock_guard<std::mutex> L(M);
    return Program;
  }
  Runtime &runtime() const { return RT; }
  /// For the statistics: frames, time from the first push to the last
  /// frame done, and how busy each stage was over that time.
  std::string summary() const;

private:
  struct FrameState;
  struct StageJob {
    ThreadPool::Job Job;
    Stream *S = nullptr;
    FrameState *F = nullptr;
    unsigned Stage = 0;
    bool Claimed = false;
  };

  Runtime &RT;
  /// Set once by bind(), under M.
  GraphPlan *G = nullptr;
  const NodePlan *Root = nullptr;
  const hpvm_program_desc *Program = nullptr;
  unsigned Capacity;
  std::optional<LaunchOptions> Options;
  /// Names kept for messages and statistics, which may come after the
  /// program (and G with it) is released.
  std::string GraphName;
  std::vector<std::string> StageNames;
  /// The root's children, or the root itself when it is a leaf.
  unsigned NumStages = 0;
  /// Per stage: its streaming edges, as (destination, capacity).
  std::vector<std::vector<std::pair<unsigned, unsigned>>> StreamOut;

  mutable std::mutex M;
  /// A frame was pushed or popped, or the stream ended.
  std::condition_variable Changed;
  /// Pushed and not popped, in push order.
  std::deque<std::shared_ptr<FrameState>> Frames;
  uint64_t NextIndex = 0;
  /// Per stage: the number of the next frame it runs, whether it is
  /// running, and its busy time so far.
  std::vector<uint64_t> StageNext;
  std::vector<uint8_t> StageBusy;
  std::vector<uint64_t> StageNanos;
  /// Stage tasks and frame completions under way.
  std::atomic<unsigned> Busy{0};
  bool Ended = false, Cancelled = false;
  uint64_t FirstPushNanos = 0, LastDoneNanos = 0, FramesDone = 0;

  /// With M held: claims every stage of a frame that may run now and
  /// appends its job to Start.
  void dispatch(std::vector<ThreadPool::Job *> &Start);
  bool mayRun(const FrameState &F, unsigned Stage) const;
  void submit(const std::vector<ThreadPool::Job *> &Start);
  static void stageEntry(void *Job, uint64_t, uint64_t);
  void runStage(FrameState &F, unsigned Stage);
  /// Brings F's buffers back to the host and marks it complete.
  void finishFrame(FrameState &F);
  /// With M held: F is complete; frames waiting for it may go.
  void complete(FrameState &F, std::vector<ThreadPool::Job *> &Start);
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_STREAM_H
