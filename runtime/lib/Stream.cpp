//===- Stream.cpp - hpvm_stream_*: a graph over a stream of frames --------===//
//
// The state is small (frames in flight times stages) and changes only when
// a frame is pushed, a stage ends or a frame completes, so one lock guards
// it and each change looks at every frame for stages that may now run.
// Blocking calls wait by helping the pool (ThreadPool::waitFor), so a
// stream works with a pool of one thread too.
//
//===----------------------------------------------------------------------===//

#include "Stream.h"

#include "AsyncLaunches.h"
#include "Executor.h"
#include "Plan.h"
#include "PlanBuilder.h"
#include "SmallArray.h"

#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Error.h"

#include <cstdio>
#include <cstring>

using namespace hpvm;
using namespace hpvm::rt;

struct Stream::FrameState {
  FrameState(size_t NumParams, unsigned NumStages)
      : Values(NumParams), Args(NumParams), Ranges(NumParams),
        Remaining(NumStages, 0), Jobs(NumStages) {}

  uint64_t Index = 0;
  /// The argument values (buffers: the data pointer) and the argument
  /// array pointing at them, as an asynchronous launch keeps them.
  SmallArray<uint64_t, 8> Values;
  SmallArray<void *, 8> Args;
  SmallArray<BufferRange, 8> Ranges;
  size_t NumRanges = 0;
  /// The root's frame (an internal root): its children's arguments and
  /// value slots.
  Frame *RootFrame = nullptr;
  LaunchContext Ctx;

  // Under the stream's lock.
  /// Per stage: its predecessors in this frame that have not run.
  std::vector<unsigned> Remaining;
  std::vector<StageJob> Jobs;
  unsigned StagesDone = 0;
  bool Started = false;
  /// Earlier frames in flight whose buffers conflict with this one's and
  /// that have not completed; later frames waiting for this one.
  unsigned BlockedBy = 0;
  std::vector<FrameState *> Blocks;
  bool Complete = false;
  hpvm_status Code = HPVM_OK;
  std::string Message;
  /// 1 once Complete (for ThreadPool::waitFor).
  std::atomic<unsigned> Done{0};
};

Stream::Stream(Runtime &RT, unsigned Capacity, const LaunchOptions *Opts)
    : RT(RT), Capacity(Capacity ? Capacity : 4) {
  if (Opts) {
    Options = *Opts;
    Options->Fallbacks = nullptr; // the caller's list may be gone
  }
}

void Stream::bind(GraphPlan &Graph, const hpvm_program_desc *Prog) {
  std::lock_guard<std::mutex> L(M);
  if (G) {
    if (G != &Graph || Program != Prog)
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    "hpvm_stream_push: the stream runs graph '" + GraphName +
                        "'" + (Program != Prog ? " of another program" : "") +
                        "; a frame of graph '" + Graph.Name +
                        "' cannot join it");
    return;
  }
  const NodePlan &R = *Graph.Root;
  if (R.Replicated && !R.N->isLeaf())
    throw RtError(HPVM_ERR_UNSUPPORTED,
                  "hpvm_stream_open: graph '" + Graph.Name +
                      "' has a replicated root, which runs as one launch "
                      "with no stages; a stream needs a root that is a leaf "
                      "or a node with children");
  G = &Graph;
  Root = &R;
  Program = Prog;
  GraphName = Graph.Name;
  NumStages = R.N->isLeaf() ? 1 : static_cast<unsigned>(R.Children.size());
  StreamOut.assign(NumStages, {});
  for (const Edge &E : R.N->Edges)
    if (E.Kind == EdgeKind::Streaming)
      StreamOut[E.Src].push_back({E.Dst, E.Capacity});
  for (unsigned S = 0; S != NumStages; ++S)
    StageNames.push_back(R.N->isLeaf() ? R.N->name()
                                       : R.Children[S]->N->name());
  StageNext.assign(NumStages, 0);
  StageBusy.assign(NumStages, 0);
  StageNanos.assign(NumStages, 0);
}

Stream::~Stream() {
  cancel();
  drain();
  for (auto &F : Frames)
    if (F->RootFrame)
      Root->returnFrame(F->RootFrame);
}

void Stream::push(void *const *Args) {
  {
    std::lock_guard<std::mutex> L(M);
    if (!G)
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    "hpvm_stream_push: the stream has no graph yet; open it "
                    "with hpvm_stream_open, or push its first frame with a "
                    "`nowait` launch (hpvm_set_thread_stream)");
    if (Cancelled || Ended)
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    "hpvm_stream_push: the stream of graph '" + GraphName +
                        "' has " + (Cancelled ? "been cancelled" : "ended") +
                        "; no frame may follow");
  }
  const std::vector<Param> &Params = Root->N->Params;
  requireArguments("hpvm_stream_push", *G, Args);
  // Checked now: a frame's stages run after the push has returned.
  for (size_t K = 0; K != Params.size(); ++K)
    if (!Args[K])
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    "hpvm_stream_push: the argument for parameter '" +
                        Params[K].Name + "' of graph '" + GraphName +
                        "' is NULL");
  auto F = std::make_shared<FrameState>(Params.size(), NumStages);
  copyArguments(*G, Args, F->Values.data(), F->Args.data());
  F->NumRanges = rootRanges(*G, F->Args.data(), F->Ranges.data());
  RT.prepare(*G); // devices found since the last frame become candidates
  // Asynchronous launches on these buffers come first, as they would
  // before a synchronous launch.
  RT.Async->waitForConflicts(F->Ranges.data(), F->NumRanges);

  LaunchContext &Ctx = F->Ctx;
  Ctx.TrackHost = G->OffHost.load(std::memory_order_relaxed);
  if (Options)
    RT.applyLaunchOptions(*Options, Ctx);
  RT.Exec->noteRootBuffers(*G, F->Args.data(), Ctx);
  if (!Root->N->isLeaf()) {
    F->RootFrame = Root->takeFrame();
    RT.Exec->bindRootFrame(*F->RootFrame, F->Args.data(), Ctx);
    for (unsigned S = 0; S != NumStages; ++S)
      F->Remaining[S] = Root->PredCount[S];
  }
  for (unsigned S = 0; S != NumStages; ++S) {
    StageJob &J = F->Jobs[S];
    J.Job.Fn = stageEntry;
    J.Job.Ctx = &J;
    J.S = this;
    J.F = F.get();
    J.Stage = S;
  }

  std::vector<ThreadPool::Job *> Start;
  {
    std::unique_lock<std::mutex> L(M);
    // Room: fewer than Capacity frames unpopped. A frame still running is
    // waited for by helping the pool; a finished one waits for a pop.
    while (Frames.size() >= Capacity && !Cancelled) {
      std::shared_ptr<FrameState> Oldest = Frames.front(); // a pop may free it
      if (!Oldest->Complete) {
        L.unlock();
        RT.pool().waitFor(Oldest->Done, 1);
        L.lock();
      } else {
        Changed.wait(L);
      }
    }
    if (Cancelled) {
      if (F->RootFrame)
        Root->returnFrame(F->RootFrame);
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    "hpvm_stream_push: the stream of graph '" + GraphName +
                        "' was cancelled while the push waited for room");
    }
    F->Index = NextIndex++;
    if (F->Index == 0)
      FirstPushNanos = nowNanos();
    for (auto &Earlier : Frames) {
      if (Earlier->Complete)
        continue;
      bool Conflicts = false;
      for (size_t A = 0; A != F->NumRanges && !Conflicts; ++A)
        for (size_t B = 0; B != Earlier->NumRanges && !Conflicts; ++B)
          Conflicts = F->Ranges[A].conflicts(Earlier->Ranges[B]);
      if (Conflicts) {
        ++F->BlockedBy;
        Earlier->Blocks.push_back(F.get());
      }
    }
    Frames.push_back(std::move(F));
    dispatch(Start);
  }
  Changed.notify_all();
  submit(Start);
}

hpvm_status Stream::pop(uint64_t &Index, std::string &Message) {
  std::unique_lock<std::mutex> L(M);
  while (true) {
    if (Frames.empty()) {
      if (Ended || Cancelled)
        return HPVM_END_OF_STREAM;
      // Nothing was ever pushed: the pop would wait for a first push that,
      // in the usual shape (the thread that pushes pops), cannot come.
      if (!G) {
        Message = "hpvm_stream_pop: the stream has no graph and no frame "
                  "yet; push frames (hpvm_stream_push, or `nowait` launches "
                  "after hpvm_set_thread_stream) before popping";
        return HPVM_ERR_INVALID_ARGUMENT;
      }
      Changed.wait(L);
      continue;
    }
    std::shared_ptr<FrameState> Oldest = Frames.front(); // a pop may free it
    if (!Oldest->Complete) {
      L.unlock();
      RT.pool().waitFor(Oldest->Done, 1);
      L.lock();
      continue;
    }
    std::shared_ptr<FrameState> F = std::move(Frames.front());
    Frames.pop_front();
    L.unlock();
    Changed.notify_all();
    Index = F->Index;
    Message = std::move(F->Message);
    return F->Code;
  }
}

void Stream::end() {
  {
    std::lock_guard<std::mutex> L(M);
    Ended = true;
  }
  Changed.notify_all();
}

void Stream::cancel() {
  {
    std::lock_guard<std::mutex> L(M);
    Cancelled = Ended = true;
    // No stage has started these, nor any later frame (stages run frames
    // in order): they never will.
    for (auto &F : Frames) {
      if (F->Started || F->Complete)
        continue;
      F->Code = HPVM_ERR_CANCELLED;
      F->Message = "frame " + std::to_string(F->Index) +
                   " of the stream of "
                   "graph '" +
                   GraphName + "' was cancelled before it started";
      F->Complete = true;
      if (F->RootFrame) {
        Root->returnFrame(F->RootFrame);
        F->RootFrame = nullptr;
      }
      F->Done.store(1, std::memory_order_release);
    }
  }
  Changed.notify_all();
  RT.pool().notifyWaiters();
}

void Stream::drain() {
  // Every stage task and completion counts itself in Busy; the pool runs
  // queued tasks while this waits.
  RT.pool().waitFor(Busy, 0);
}

bool Stream::mayRun(const FrameState &F, unsigned S) const {
  if (F.Jobs[S].Claimed || F.Remaining[S] || StageBusy[S] ||
      StageNext[S] != F.Index)
    return false;
  for (auto [Dst, Cap] : StreamOut[S])
    if (F.Index >= StageNext[Dst] + Cap)
      return false;
  return true;
}

void Stream::dispatch(std::vector<ThreadPool::Job *> &Start) {
  for (auto &F : Frames) {
    if (F->Complete || F->BlockedBy)
      continue;
    for (unsigned S = 0; S != NumStages; ++S) {
      if (!mayRun(*F, S))
        continue;
      F->Jobs[S].Claimed = true;
      F->Started = true;
      StageBusy[S] = 1;
      Busy.fetch_add(1, std::memory_order_relaxed);
      Start.push_back(&F->Jobs[S].Job);
    }
  }
}

void Stream::submit(const std::vector<ThreadPool::Job *> &Start) {
  for (ThreadPool::Job *J : Start)
    RT.pool().submit(*J);
}

void Stream::stageEntry(void *Job, uint64_t, uint64_t) {
  auto &J = *static_cast<StageJob *>(Job);
  J.S->runStage(*J.F, J.Stage);
}

void Stream::runStage(FrameState &F, unsigned S) {
  uint64_t Begin = nowNanos();
  if (F.RootFrame)
    RT.Exec->runStage(*F.RootFrame, S);
  else
    RT.Exec->runRoot(*Root, F.Args.data(), F.Ctx);
  uint64_t End = nowNanos();

  std::vector<ThreadPool::Job *> Start;
  bool FrameDone;
  {
    std::lock_guard<std::mutex> L(M);
    StageNanos[S] += End - Begin;
    StageBusy[S] = 0;
    ++StageNext[S];
    if (F.RootFrame)
      for (unsigned Succ : Root->Succ[S])
        --F.Remaining[Succ];
    FrameDone = ++F.StagesDone == NumStages;
    if (FrameDone)
      Busy.fetch_add(1, std::memory_order_relaxed); // the completion
    dispatch(Start);
  }
  submit(Start);
  if (FrameDone)
    finishFrame(F);
  if (Busy.fetch_sub(1, std::memory_order_acq_rel) == 1)
    RT.pool().notifyWaiters();
}

void Stream::finishFrame(FrameState &F) {
  LaunchContext &Ctx = F.Ctx;
  if (!Ctx.Buffers.empty()) {
    try {
      RT.Coh.release(Ctx.Buffers, G->EndStats);
    } catch (const RtError &E) {
      Ctx.fail(E.code(), E.what());
    } catch (const std::exception &E) {
      Ctx.fail(HPVM_ERR_DEVICE, E.what());
    }
  }
  std::vector<ThreadPool::Job *> Start;
  {
    std::lock_guard<std::mutex> L(M);
    if (Ctx.Code != HPVM_OK) {
      F.Code = Ctx.Code;
      F.Message = "frame " + std::to_string(F.Index) + ": " + Ctx.Message;
    }
    complete(F, Start);
    Busy.fetch_sub(1, std::memory_order_relaxed);
  }
  Changed.notify_all();
  RT.pool().notifyWaiters();
  submit(Start);
}

void Stream::complete(FrameState &F, std::vector<ThreadPool::Job *> &Start) {
  if (F.RootFrame) {
    Root->returnFrame(F.RootFrame);
    F.RootFrame = nullptr;
  }
  F.Complete = true;
  ++FramesDone;
  LastDoneNanos = nowNanos();
  for (FrameState *Later : F.Blocks)
    --Later->BlockedBy;
  F.Blocks.clear();
  dispatch(Start);
  F.Done.store(1, std::memory_order_release);
}

std::string Stream::summary() const {
  std::lock_guard<std::mutex> L(M);
  if (!G)
    return ""; // never bound: nothing ran
  double Seconds =
      FramesDone ? double(LastDoneNanos - FirstPushNanos) * 1e-9 : 0.0;
  char Head[160];
  std::snprintf(Head, sizeof(Head), "stream '%s': %llu frames in %.3f ms",
                GraphName.c_str(), static_cast<unsigned long long>(FramesDone),
                Seconds * 1e3);
  std::string Text = Head;
  if (Seconds > 0)
    Text += " (" + std::to_string(static_cast<uint64_t>(FramesDone / Seconds)) +
            " frames/s)";
  Text += "; stages busy:";
  for (unsigned S = 0; S != NumStages; ++S) {
    const std::string &Name = StageNames[S];
    char Share[32];
    std::snprintf(Share, sizeof(Share), " %.0f%%",
                  Seconds > 0 ? 100.0 * double(StageNanos[S]) * 1e-9 / Seconds
                              : 0.0);
    Text += (S ? ", " : " ") + Name + Share;
  }
  return Text;
}
