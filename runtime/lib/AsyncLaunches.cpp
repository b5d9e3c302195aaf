//===- AsyncLaunches.cpp - hpvm_launch_async and its ordering -------------===//
#include "AsyncLaunches.h"
#include "LaunchSites.h"

#include "Executor.h"
#include "Plan.h"
#include "PlanBuilder.h"
#include "SmallArray.h"

#include "hpvm/rt/Error.h"
#include "hpvm/rt/Stats.h"

#include <algorithm>
#include <cstring>
#include <optional>

using namespace hpvm;
using namespace hpvm::rt;

size_t hpvm::rt::rootRanges(const GraphPlan &G, void *const *Args,
                            BufferRange *Out) {
  const NodePlan &Root = *G.Root;
  size_t Count = 0;
  for (unsigned K = 0, E = static_cast<unsigned>(Root.N->Params.size()); K != E;
       ++K) {
    const Param &Prm = Root.N->Params[K];
    // A missing argument is the launch's error to report, when it runs.
    if (!Prm.isBuffer() || !Args[K])
      continue;
    BufferRange R;
    R.Writes = writes(Prm.Mode);
    if (!Prm.Offset.empty()) {
      // Where an offset moves the section is not worth working out here:
      // the launch is ordered against everything.
      R.End = UINTPTR_MAX;
    } else {
      R.Begin = reinterpret_cast<uintptr_t>(bufferPointer(Args, K));
      uint64_t Bytes = extentOf(Root, Prm.Bytes, Args);
      R.End = Bytes > UINTPTR_MAX - R.Begin ? UINTPTR_MAX : R.Begin + Bytes;
    }
    Out[Count++] = R;
  }
  return Count;
}

struct AsyncLaunches::Launch {
  /// Room for NumParams of everything per parameter, inline for ordinary
  /// graphs: a launch makes one allocation for all of it.
  explicit Launch(size_t NumParams)
      : Values(NumParams), Args(NumParams), Ranges(NumParams),
        Entries(NumParams) {}

  AsyncLaunches *Owner = nullptr;
  GraphPlan *G = nullptr;
  /// The argument values, one slot each (buffers: the data pointer), and
  /// the argument array pointing at them.
  SmallArray<uint64_t, 8> Values;
  SmallArray<void *, 8> Args;
  std::optional<LaunchOptions> Options;
  SmallArray<BufferRange, 8> Ranges;
  size_t NumRanges = 0;
  std::thread::id Submitter;
  hpvm_handle Handle = 0;

  // Under Owner->M.
  /// Earlier launches it waits for that have not finished.
  unsigned Waiting = 0;
  /// Later launches waiting for it.
  std::vector<std::shared_ptr<Launch>> Successors;

  /// While it is in flight: itself (what keeps it alive for the pool) and
  /// its neighbours in Owner's list; its entries in Owner->ByBegin.
  std::shared_ptr<Launch> Self;
  Launch *PrevInFlight = nullptr, *NextInFlight = nullptr;
  SmallArray<std::multimap<uintptr_t, Entry>::iterator, 8> Entries;
  size_t NumEntries = 0;
  /// Marks a launch already counted by conflicting().
  uint64_t Seen = 0;
  /// Its handle has been waited for (taken out of Owner->Handles).
  bool Taken = false;

  /// Set before it starts (a predecessor failed) or by its run; read once
  /// Done is 1.
  hpvm_status Code = HPVM_OK;
  std::string Message;
  ThreadPool::Job Job;
  std::atomic<unsigned> Done{0};
};

std::vector<AsyncLaunches::Launch *>
AsyncLaunches::conflicting(const BufferRange *Ranges, size_t Count) {
  static std::atomic<uint64_t> NextQuery{1};
  uint64_t Query = NextQuery.fetch_add(1, std::memory_order_relaxed);
  std::vector<Launch *> Found;
  for (size_t I = 0; I != Count; ++I) {
    const BufferRange &R = Ranges[I];
    uintptr_t From = R.Begin > MaxLength ? R.Begin - MaxLength : 0;
    for (auto It = ByBegin.lower_bound(From), E = ByBegin.lower_bound(R.End);
         It != E; ++It) {
      const Entry &X = It->second;
      if (X.Owner->Seen != Query &&
          R.conflicts(BufferRange{It->first, X.End, X.Writes})) {
        X.Owner->Seen = Query;
        Found.push_back(X.Owner);
      }
    }
  }
  return Found;
}

AsyncLaunches::~AsyncLaunches() { waitForEverything(); }

void AsyncLaunches::waitForEverything() {
  for (;;) {
    std::shared_ptr<Launch> Last;
    {
      std::lock_guard<std::mutex> Lock(M);
      if (!LastInFlight)
        return;
      Last = LastInFlight->Self;
    }
    waitUntilFinished(*Last);
  }
}

hpvm_handle AsyncLaunches::submit(GraphPlan &G, void *const *Args,
                                  const LaunchOptions *Options) {
  const std::vector<Param> &Params = G.Root->N->Params;
  auto L = std::make_shared<Launch>(Params.size());
  L->Owner = this;
  L->G = &G;
  // (A NULL argument stays NULL: the launch reports it when it runs.)
  copyArguments(G, Args, L->Values.data(), L->Args.data());
  if (Options) {
    L->Options = *Options;
    // The caller's list of fallbacks may be gone by the time the launch
    // runs; an asynchronous launch's fallbacks are not collected.
    L->Options->Fallbacks = nullptr;
  }
  L->NumRanges = rootRanges(G, L->Args.data(), L->Ranges.data());
  L->Submitter = std::this_thread::get_id();

  bool Ready;
  {
    std::lock_guard<std::mutex> Lock(M);
    L->Handle = NextHandle++;
    for (Launch *Earlier : conflicting(L->Ranges.data(), L->NumRanges)) {
      if (Earlier->Done.load(std::memory_order_relaxed)) {
        // Finished: it is in the index because it failed and nobody has
        // waited for it yet. What follows it fails, however fast it failed.
        inheritFailure(*L, *Earlier);
        continue;
      }
      ++L->Waiting;
      Earlier->Successors.push_back(L);
    }
    L->Self = L;
    L->PrevInFlight = LastInFlight;
    (LastInFlight ? LastInFlight->NextInFlight : FirstInFlight) = L.get();
    LastInFlight = L.get();
    for (size_t I = 0; I != L->NumRanges; ++I) {
      const BufferRange &R = L->Ranges[I];
      if (R.Begin >= R.End)
        continue; // touches nothing: conflicts with nothing
      MaxLength = std::max(MaxLength, R.End - R.Begin);
      L->Entries[L->NumEntries++] =
          ByBegin.insert({R.Begin, Entry{R.End, R.Writes, L.get()}});
    }
    NumInFlight.fetch_add(1, std::memory_order_release);
    Handles.emplace(L->Handle, L);
    Ready = L->Waiting == 0;
  }
  // Launch sites must not run what this launch may be using.
  LaunchSites::disarmAll();
  hpvm_handle H = L->Handle;
  if (Ready && tiny(*L))
    runEntry(L.get(), 0, 0);
  else if (Ready)
    start(*L);
  return H;
}

namespace {

/// Launches expected to take less than this run where they are submitted:
/// handing one to a pool thread and learning that it ended costs about a
/// microsecond (a wake-up, locks, the thread's own caches).
constexpr uint64_t InlineBelowNanos = 2000;

} // namespace

bool AsyncLaunches::tiny(Launch &L) const {
  // A graph that is one leaf, which only the CPU can run (in host memory:
  // nothing to overlap with a device), whose earlier launches tell what it
  // costs.
  const NodePlan &Root = *L.G->Root;
  if (L.Code != HPVM_OK || !Root.N->isLeaf() || Root.Candidates.size() != 1 ||
      L.G->OffHost.load(std::memory_order_relaxed))
    return false;
  const NodeStats *History = Root.Candidates[0].History;
  try {
    uint64_t Dims[3];
    uint64_t Instances = evalDims(Root, L.Args.data(), Dims);
    uint64_t Nanos = History ? History->serialNanos(Instances) : 0;
    return Nanos && Nanos < InlineBelowNanos;
  } catch (const RtError &) {
    return false; // the launch reports it when it runs
  }
}

void AsyncLaunches::start(Launch &L) {
  L.Job.Fn = runEntry;
  L.Job.Ctx = &L;
  RT.pool().submit(L.Job);
}

void AsyncLaunches::runEntry(void *Ctx, uint64_t, uint64_t) {
  Launch &L = *static_cast<Launch *>(Ctx);
  if (L.Code == HPVM_OK) {
    try {
      L.Owner->RT.run(*L.G, L.Args.data(), L.Options ? &*L.Options : nullptr);
    } catch (const RtError &E) {
      L.Code = E.code();
      L.Message = E.what();
    } catch (const std::exception &E) {
      L.Code = HPVM_ERR_DEVICE;
      L.Message = unexpectedErrorMessage(E);
    }
  }
  L.Owner->finish(L);
}

void AsyncLaunches::finish(Launch &L) {
  std::shared_ptr<Launch> Self; // L lives until this returns
  std::vector<std::shared_ptr<Launch>> Ready;
  {
    std::lock_guard<std::mutex> Lock(M);
    Self = std::move(L.Self);
    (L.PrevInFlight ? L.PrevInFlight->NextInFlight : FirstInFlight) =
        L.NextInFlight;
    (L.NextInFlight ? L.NextInFlight->PrevInFlight : LastInFlight) =
        L.PrevInFlight;
    L.PrevInFlight = L.NextInFlight = nullptr;
    // A failure stays in the index until it is waited for, so that every
    // launch after it on its buffers fails too (submit).
    if (L.Code == HPVM_OK || L.Taken)
      dropEntries(L);
    NumInFlight.fetch_sub(1, std::memory_order_release);
    for (std::shared_ptr<Launch> &S : L.Successors) {
      if (L.Code != HPVM_OK)
        inheritFailure(*S, L);
      if (--S->Waiting == 0)
        Ready.push_back(std::move(S));
    }
    L.Successors.clear();
    L.Done.store(1, std::memory_order_release);
  }
  RT.pool().notifyWaiters();
  for (const std::shared_ptr<Launch> &S : Ready)
    start(*S);
}

void AsyncLaunches::waitUntilFinished(Launch &L) {
  RT.pool().waitFor(L.Done, 1);
}

std::shared_ptr<AsyncLaunches::Launch> AsyncLaunches::take(hpvm_handle H) {
  std::lock_guard<std::mutex> Lock(M);
  auto It = Handles.find(H);
  if (It == Handles.end())
    return nullptr;
  std::shared_ptr<Launch> L = std::move(It->second);
  Handles.erase(It);
  L->Taken = true;
  if (L->Done.load(std::memory_order_relaxed))
    dropEntries(*L); // a failure nobody had waited for
  return L;
}

void AsyncLaunches::dropEntries(Launch &L) {
  for (size_t I = 0; I != L.NumEntries; ++I)
    ByBegin.erase(L.Entries[I]);
  L.NumEntries = 0;
  if (ByBegin.empty())
    MaxLength = 0;
}

void AsyncLaunches::inheritFailure(Launch &L, const Launch &Failed) {
  if (L.Code != HPVM_OK)
    return;
  L.Code = Failed.Code;
  L.Message = "not run: launch " + std::to_string(Failed.Handle) +
              " of graph '" + Failed.G->Name +
              "', which it follows on a buffer, failed: " + Failed.Message;
}

static std::string unknownHandle(const char *Call, hpvm_handle H) {
  return std::string(Call) + ": unknown handle " + std::to_string(H) +
         " (not returned by hpvm_launch_async of this runtime, or already "
         "waited for)";
}

hpvm_status AsyncLaunches::wait(hpvm_handle H, std::string &Message) {
  std::shared_ptr<Launch> L = take(H);
  if (!L) {
    Message = unknownHandle("hpvm_wait", H);
    return HPVM_ERR_INVALID_ARGUMENT;
  }
  waitUntilFinished(*L);
  Message = L->Message;
  return L->Code;
}

bool AsyncLaunches::finished(hpvm_handle H) {
  std::lock_guard<std::mutex> Lock(M);
  auto It = Handles.find(H);
  if (It == Handles.end())
    throw RtError(HPVM_ERR_INVALID_ARGUMENT, unknownHandle("hpvm_test", H));
  return It->second->Done.load(std::memory_order_acquire) == 1;
}

hpvm_status AsyncLaunches::waitAll(std::string &Message, bool AllThreads) {
  std::vector<hpvm_handle> Mine;
  {
    std::lock_guard<std::mutex> Lock(M);
    for (const auto &[H, L] : Handles)
      if (AllThreads || L->Submitter == std::this_thread::get_id())
        Mine.push_back(H);
  }
  std::sort(Mine.begin(), Mine.end());
  hpvm_status First = HPVM_OK;
  for (hpvm_handle H : Mine) {
    std::string Text;
    hpvm_status Code = wait(H, Text);
    if (First == HPVM_OK && Code != HPVM_OK) {
      First = Code;
      Message = std::move(Text);
    }
  }
  return First;
}

bool AsyncLaunches::idle() {
  if (NumInFlight.load(std::memory_order_acquire) != 0)
    return false;
  std::lock_guard<std::mutex> Lock(M);
  return ByBegin.empty();
}

void AsyncLaunches::waitForConflicts(const GraphPlan &G, void *const *Args) {
  if (NumInFlight.load(std::memory_order_acquire) == 0)
    return;
  SmallArray<BufferRange, 8> Ranges(G.Root->N->Params.size());
  waitForConflicts(Ranges.data(), rootRanges(G, Args, Ranges.data()));
}

void AsyncLaunches::waitForConflicts(const BufferRange *Ranges, size_t Count) {
  if (NumInFlight.load(std::memory_order_acquire) == 0)
    return;
  std::vector<std::shared_ptr<Launch>> Conflicting;
  {
    std::lock_guard<std::mutex> Lock(M);
    for (Launch *L : conflicting(Ranges, Count))
      if (!L->Done.load(std::memory_order_relaxed)) // else a failed one
        Conflicting.push_back(L->Self);
  }
  for (const std::shared_ptr<Launch> &L : Conflicting)
    waitUntilFinished(*L);
}
