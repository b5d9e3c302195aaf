//===- AsyncLaunches.h - hpvm_launch_async and its ordering -----*- C++ -*-===//
//
// Launches that run in the background, ordered by the buffers they name:
// a launch waits for every earlier one in flight whose root buffers overlap
// its own, either of the two writing them (sequential consistency per
// buffer, as StarPU orders tasks by their data), and runs on the thread
// pool once they have finished; launches on other buffers run at the same
// time. Synchronous launches and data-region calls wait the same way for
// the asynchronous ones they conflict with, so that a program's order of
// calls is the order in which each buffer sees them.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_ASYNCLAUNCHES_H
#define HPVM_RT_LIB_ASYNCLAUNCHES_H

#include "hpvm/rt/Runtime.h"
#include "hpvm/rt/ThreadPool.h"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace hpvm::rt {

struct GraphPlan;

/// Bytes [Begin, End) of host memory that a launch or a call reads or
/// writes.
struct BufferRange {
  uintptr_t Begin = 0, End = 0;
  bool Writes = false;

  /// Whether the two cannot happen in either order: they overlap and one
  /// writes.
  bool conflicts(const BufferRange &O) const {
    return (Writes || O.Writes) && Begin < O.End && O.Begin < End;
  }
};

/// The root buffers graph G's launch with Args touches, written to Out
/// (room for one per root parameter); returns how many.
size_t rootRanges(const GraphPlan &G, void *const *Args, BufferRange *Out);

class AsyncLaunches {
public:
  explicit AsyncLaunches(Runtime &RT) : RT(RT) {}
  /// Waits for every launch still in flight.
  ~AsyncLaunches();

  /// Starts G with a copy of Args, under Options (copied too; null: none);
  /// returns its handle.
  hpvm_handle submit(GraphPlan &G, void *const *Args,
                     const LaunchOptions *Options);
  /// Waits for the launch and forgets it: its status and message.
  /// HPVM_ERR_INVALID_ARGUMENT for an unknown handle.
  hpvm_status wait(hpvm_handle H, std::string &Message);
  /// Whether the launch has finished; throws RtError for an unknown handle.
  bool finished(hpvm_handle H);
  /// Waits for every launch this thread (AllThreads: any thread) submitted
  /// and has not waited for; the first failure's status and message.
  hpvm_status waitAll(std::string &Message, bool AllThreads = false);
  /// Returns once no launch in flight conflicts with Ranges[0, Count).
  void waitForConflicts(const BufferRange *Ranges, size_t Count);
  /// Returns once no launch in flight conflicts with G's launch with Args;
  /// at once if none is in flight.
  void waitForConflicts(const GraphPlan &G, void *const *Args);
  /// Returns once no launch is in flight.
  void waitForEverything();
  /// Whether no launch is in flight, and no failed one waits to be waited
  /// for (the launches that follow it on a buffer would fail).
  bool idle();

private:
  struct Launch;
  Runtime &RT;
  std::mutex M;
  hpvm_handle NextHandle = 1;
  /// Launches not waited for yet, by handle.
  std::unordered_map<hpvm_handle, std::shared_ptr<Launch>> Handles;
  /// Launches that have not finished, in the order they were submitted
  /// (linked through the launches themselves: nothing to allocate).
  Launch *FirstInFlight = nullptr, *LastInFlight = nullptr;
  std::atomic<size_t> NumInFlight{0};
  /// Their buffer ranges by first byte, so that a new launch finds what it
  /// conflicts with without looking at every launch in flight: a range
  /// overlapping [B, E) starts in [B - MaxLength, E).
  struct Entry {
    uintptr_t End;
    bool Writes;
    Launch *Owner;
  };
  std::multimap<uintptr_t, Entry> ByBegin;
  /// The longest range in ByBegin (0 when it is empty).
  uintptr_t MaxLength = 0;

  /// With M held: the launches in flight conflicting with Ranges, and the
  /// failed ones nobody has waited for yet, each once, in no particular
  /// order.
  std::vector<Launch *> conflicting(const BufferRange *Ranges, size_t Count);
  /// With M held: L's ranges leave the index.
  void dropEntries(Launch &L);
  /// With M held: L, which follows Failed on a buffer, fails too.
  static void inheritFailure(Launch &L, const Launch &Failed);

  static void runEntry(void *Ctx, uint64_t, uint64_t);
  /// Whether L is known to take less time than handing it to a pool
  /// thread (and so runs on the submitting thread once it is ready).
  bool tiny(Launch &L) const;
  void start(Launch &L);
  void finish(Launch &L);
  void waitUntilFinished(Launch &L);
  std::shared_ptr<Launch> take(hpvm_handle H);
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_ASYNCLAUNCHES_H
