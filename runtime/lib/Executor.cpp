//===- Executor.cpp - Running a graph plan --------------------------------===//
//
// The children of an internal node run as a dataflow: a child's count of
// unfinished predecessors is set when the frame starts, and whoever finishes
// the last predecessor runs it. The thread that finishes a child carries on
// with one newly ready successor itself and hands the others to the pool, so
// a chain of dependent children runs on one thread without queueing, and
// independent ones spread over the pool. The frame's own thread waits for
// the last child by helping the pool rather than blocking.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"
#include "LaunchSites.h"
#include "PlanBuilder.h"
#include "SmallArray.h"

#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/Runtime.h"
#include "hpvm/rt/Stats.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

using namespace hpvm;
using namespace hpvm::rt;

uint64_t hpvm::rt::extentOf(const NodePlan &P, const Extent &E,
                            void *const *Args) {
  if (E.isConstant())
    return E.value();
  unsigned K = E.paramIndex();
  const Param &Prm = P.N->Params[K];
  if (!Args[K])
    throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                  "node '" + P.Path + "': the argument for parameter '" +
                      Prm.Name + "' is NULL");
  // Counts below zero count nothing, as a C loop whose bound is below its
  // start runs no iterations (a section of negative length touches nothing).
  int64_t V = readInteger(Args[K], Prm.Type);
  return V < 0 ? 0 : static_cast<uint64_t>(V);
}

void hpvm::rt::requireArguments(const char *Call, const GraphPlan &G,
                                void *const *Args) {
  size_t NumParams = G.Root->N->Params.size();
  if (NumParams && !Args)
    throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                  std::string(Call) + ": graph '" + G.Name + "' takes " +
                      std::to_string(NumParams) +
                      " arguments, but args is NULL");
  // A buffer the graph gives bytes must be memory: a NULL one would reach
  // the kernels (a host device would dereference it).
  for (size_t K = 0; K != NumParams; ++K) {
    const Param &Prm = G.Root->N->Params[K];
    if (!Prm.isBuffer())
      continue;
    if (!Args[K])
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    std::string(Call) + ": graph '" + G.Name +
                        "': the argument for buffer '" + Prm.Name +
                        "' is NULL");
    if (!bufferPointer(Args, static_cast<unsigned>(K)))
      if (uint64_t Bytes = extentOf(*G.Root, Prm.Bytes, Args))
        throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                      std::string(Call) + ": graph '" + G.Name + "': buffer '" +
                          Prm.Name +
                          "' is a NULL pointer "
                          "but the graph gives it " +
                          std::to_string(Bytes) + " bytes");
  }
}

void hpvm::rt::copyArguments(const GraphPlan &G, void *const *Args,
                             uint64_t *Values, void **Copy) {
  const std::vector<Param> &Params = G.Root->N->Params;
  for (size_t K = 0; K != Params.size(); ++K) {
    if (!Args[K])
      continue;
    std::memcpy(&Values[K], Args[K],
                Params[K].isBuffer() ? sizeof(void *)
                                     : typeSize(Params[K].Type));
    Copy[K] = &Values[K];
  }
}

uint64_t hpvm::rt::evalDims(const NodePlan &P, void *const *Args,
                            uint64_t Dims[3]) {
  Dims[0] = Dims[1] = Dims[2] = 1;
  uint64_t Instances = 1;
  const std::vector<Extent> &D = P.N->Dims;
  for (unsigned I = 0, E = static_cast<unsigned>(D.size()); I != E; ++I) {
    Dims[I] = extentOf(P, D[I], Args);
    if (__builtin_mul_overflow(Instances, Dims[I], &Instances))
      throw RtError(HPVM_ERR_BAD_VALUE,
                    "node '" + P.Path +
                        "': the number of instances overflows 64 bits");
  }
  return Instances;
}

namespace {

/// Where buffer Prm's section starts for the instance whose ancestors have
/// OuterIds (docs/ir.md: the sum of its offset terms). False when it cannot
/// be told: in a grid launch the level-1 ids are every parent instance's.
bool sectionStart(const NodePlan &P, const Param &Prm, void *const *Args,
                  const uint64_t *OuterIds, bool Grid, uint64_t &Start) {
  Start = 0;
  for (const OffsetTerm &T : Prm.Offset) {
    uint64_t Term = extentOf(P, T.Coef, Args);
    if (T.Level) {
      if ((Grid && T.Level == 1) || !OuterIds)
        return false;
      if (__builtin_mul_overflow(Term, OuterIds[(T.Level - 1) * 3 + T.Dim],
                                 &Term))
        return false;
    }
    if (__builtin_add_overflow(Start, Term, &Start))
      return false;
  }
  return true;
}

/// Sets U's rows from what the leaf writes of it (Param::Written) when they
/// make sense for its section: at least one row, rows that do not overlap,
/// the last ending inside the section. Otherwise the runtime copies the
/// whole section in, as for any out buffer.
bool rowsWritten(const NodePlan &P, const WrittenRows &W, void *const *Args,
                 BufferUse &U) {
  // Scale * extent + Add, which must come out a count.
  auto Eval = [&](const DerivedExtent &D, uint64_t &Out) {
    int64_t V;
    return !__builtin_mul_overflow(
               static_cast<int64_t>(extentOf(P, D.Of, Args)), D.Scale, &V) &&
           !__builtin_add_overflow(V, D.Add, &V) && V >= 0 &&
           (Out = static_cast<uint64_t>(V), true);
  };
  if (!Eval(W.Start, U.RowsStart) || !Eval(W.RowBytes, U.RowBytes) ||
      !Eval(W.Stride, U.RowStride) || !Eval(W.Rows, U.RowCount))
    return false;
  uint64_t Last, End;
  return U.RowCount && (U.RowCount == 1 || U.RowBytes <= U.RowStride) &&
         !__builtin_mul_overflow(U.RowCount - 1, U.RowStride, &Last) &&
         !__builtin_add_overflow(Last, U.RowsStart, &Last) &&
         !__builtin_add_overflow(Last, U.RowBytes, &End) && End <= U.bytes();
}

} // namespace

void *hpvm::rt::bufferPointer(void *const *Args, unsigned K) {
  void *Host;
  std::memcpy(&Host, Args[K], sizeof(Host));
  return Host;
}

Executor::Executor(Runtime &RT)
    : RT(RT), Pool(RT.pool()), Coh(RT.coherence()), TheTrace(RT.trace()) {}

void Executor::run(const GraphPlan &G, void *const *Args, LaunchContext &Ctx) {
  try {
    noteRootBuffers(G, Args, Ctx);
  } catch (const RtError &E) {
    Ctx.fail(E.code(), E.what());
    return;
  }
  runRoot(*G.Root, Args, Ctx);
}

void Executor::noteRootBuffers(const GraphPlan &G, void *const *Args,
                               LaunchContext &Ctx) {
  // Every buffer a leaf uses is a root buffer passed down: device copies
  // hold what the root declares, however little one leaf names.
  const NodePlan &Root = *G.Root;
  if (Ctx.TrackHost || !Coh.idle())
    for (unsigned K = 0, E = static_cast<unsigned>(Root.N->Params.size());
         K != E; ++K)
      if (const Param &Prm = Root.N->Params[K]; Prm.isBuffer() && Args[K])
        Ctx.RootBuffers.push_back({bufferPointer(Args, K),
                                   extentOf(Root, Prm.Bytes, Args),
                                   &G.BufferNames[K]});
}

void Executor::bindRootFrame(Frame &F, void *const *Args, LaunchContext &Ctx) {
  bindFrame(F, Args, nullptr, Ctx);
  F.OuterIds[0] = F.OuterIds[1] = F.OuterIds[2] = 0;
}

void Executor::runRoot(const NodePlan &Root, void *const *Args,
                       LaunchContext &Ctx) {
  if (Ctx.Failed.load(std::memory_order_relaxed))
    return;
  // The root's outputs go nowhere, but a leaf still writes them.
  size_t NumOuts = Root.N->Outputs.size();
  SmallArray<uint64_t, 4> Scratch(NumOuts);
  SmallArray<void *, 4> Outs(NumOuts);
  for (size_t I = 0; I != NumOuts; ++I)
    Outs[I] = &Scratch[I];
  try {
    runNode(Root, Args, NumOuts ? Outs.data() : nullptr, nullptr, Ctx);
  } catch (const RtError &E) {
    Ctx.fail(E.code(), E.what());
  } catch (const std::exception &E) {
    Ctx.fail(HPVM_ERR_DEVICE, unexpectedErrorMessage(E));
  }
}

bool Executor::runNode(const NodePlan &P, void *const *Args, void *const *Outs,
                       const uint64_t *OuterIds, LaunchContext &Ctx,
                       size_t Planned, Frame::ChildTask *Then) {
  if (!P.N->isLeaf()) {
    runInternal(P, Args, Outs, OuterIds, Ctx);
    return true;
  }
  return runLeaf(P, Args, Outs, OuterIds, Ctx, nullptr, Planned, Then) !=
         LeafRun::InFlight;
}

Executor::LeafRun Executor::runLeaf(const NodePlan &P, void *const *Args,
                                    void *const *Outs, const uint64_t *OuterIds,
                                    LaunchContext &Ctx,
                                    const uint64_t *ParentDims, size_t Planned,
                                    Frame::ChildTask *Then) {
  KernelLaunch L;
  uint64_t Instances = evalDims(P, Args, L.Dims);
  if (ParentDims) {
    L.Grid = true;
    std::memcpy(L.ParentDims, ParentDims, sizeof(L.ParentDims));
    // Too many for one launch to count: one launch per parent instance
    // still can.
    uint64_t Parents = ParentDims[0] * ParentDims[1] * ParentDims[2];
    if (__builtin_mul_overflow(Instances, Parents, &Instances))
      return LeafRun::Declined;
  }

  // The launch of this leaf on C, as far as the device needs to know.
  auto describe = [&](const Candidate &C) {
    L.Leaf = P.N;
    L.Path = P.Path.c_str();
    L.Artifact = C.Artifact;
    L.Args = Args;
    L.Outs = P.Replicated || P.N->Outputs.empty() ? nullptr : Outs;
    L.OuterIds = OuterIds;
    L.OuterLevels = P.Depth;
  };

  // A small launch of a leaf whose cost is settled may run untimed on the
  // host, as a launch site's would: what the device would run alone on
  // this thread, with nothing to move and nothing else to choose (a
  // time-step loop's sweeps). Decided before anything a timed launch needs
  // is set up; a timed launch that could have been one may let the next
  // ones be (allowUntimed, below).
  const Candidate *Only = P.Candidates.size() == 1 && Ctx.Allowed.empty()
                              ? &P.Candidates[0]
                              : nullptr;
  bool Untimable = Only && !L.Grid && Instances && Ctx.MayUntime &&
                   P.WorkGroupKernels.empty() && !Ctx.TrackHost &&
                   Only->Dev->memorySpace() == HostSpace && Coh.idle();
  if (Untimable && takeUntimed(*Only->History, Instances)) {
    Device &D = *Only->Dev;
    describe(*Only);
    L.SerialNanos = Only->History->serialNanos(Instances);
    LaunchToken Token;
    D.launch(L, Token);
    D.wait(Token);
    Only->History->DirectLaunches.fetch_add(1, std::memory_order_relaxed);
    Only->History->DirectInstances.fetch_add(Instances,
                                             std::memory_order_relaxed);
    return LeafRun::Ran;
  }

  size_t NumBuffers = P.BufferParams.size();
  // Byte sizes are needed only when coherence or the scheduler looks.
  SmallArray<BufferUse, 8> Uses(NumBuffers);
  bool HaveUses = false;
  auto FillUses = [&] {
    if (HaveUses)
      return;
    for (size_t I = 0; I != NumBuffers; ++I) {
      unsigned K = P.BufferParams[I];
      const Param &Prm = P.N->Params[K];
      if (!Args[K])
        throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                      "node '" + P.Path + "': the argument for buffer '" +
                          Prm.Name + "' is NULL");
      BufferUse &U = Uses[I];
      U.Host = bufferPointer(Args, K);
      U.Mode = Prm.Mode;
      U.WritesAll = Prm.WritesAll && Prm.Mode == Access::Out;
      U.Name = nullptr;
      U.Extent = 0;
      for (const LaunchContext::RootBuffer &B : Ctx.RootBuffers)
        if (B.Host == U.Host) {
          U.Extent = B.Bytes;
          U.Name = B.Name;
        }
      uint64_t Bytes = extentOf(P, Prm.Bytes, Args);
      if (!sectionStart(P, Prm, Args, OuterIds, ParentDims != nullptr,
                        U.Begin) ||
          __builtin_add_overflow(U.Begin, Bytes, &U.End)) {
        // A grid launch runs every parent instance's section at once: it
        // takes the whole buffer.
        U.Begin = 0;
        U.End = std::max(U.Extent, Bytes);
        U.WritesAll = false;
      }
      if (U.Extent && U.End > U.Extent)
        throw RtError(HPVM_ERR_BAD_VALUE,
                      "node '" + P.Path + "': the section [" +
                          std::to_string(U.Begin) + ", " +
                          std::to_string(U.End) + ") of buffer '" + Prm.Name +
                          "' ends past the " + std::to_string(U.Extent) +
                          " bytes the graph's root gives it");
      U.Extent = std::max(U.Extent, U.End);
      U.HasRows = !U.WritesAll && Prm.Written && Prm.Mode == Access::Out &&
                  rowsWritten(P, *Prm.Written, Args, U);
    }
    HaveUses = true;
  };

  // The candidates this launch allows (LaunchOptions::Devices).
  const Candidate *Cands = P.Candidates.data();
  size_t NumCands = P.Candidates.size();
  std::vector<Candidate> Allowed;
  if (!Ctx.Allowed.empty()) {
    for (const Candidate &Cand : P.Candidates)
      if (Cand.DeviceIndex < Ctx.Allowed.size() &&
          Ctx.Allowed[Cand.DeviceIndex])
        Allowed.push_back(Cand);
    if (!Allowed.empty()) {
      Cands = Allowed.data();
      NumCands = Allowed.size();
    } else {
      std::string Message = "node '" + P.Path +
                            "' can run on none of the "
                            "devices this launch allows (" +
                            Ctx.AllowedText + ")" + P.Refused;
      if (Ctx.Strict)
        throw RtError(HPVM_ERR_NO_DEVICE, Message);
      Message += "; it runs where it can";
      std::lock_guard<std::mutex> L(Ctx.M);
      // Once per leaf, however many instances of its ancestors run it.
      if (Ctx.Fallbacks &&
          std::find(Ctx.Fallbacks->begin(), Ctx.Fallbacks->end(), Message) ==
              Ctx.Fallbacks->end())
        Ctx.Fallbacks->push_back(Message);
    }
  }
  // A device that failed the leaf before, where another one ran it, gets
  // none of its launches while another candidate remains (fallBack).
  std::vector<Candidate> Working;
  auto DropCandidate = [&](auto Drop) {
    size_t Left = 0;
    for (size_t I = 0; I != NumCands; ++I)
      Left += !Drop(Cands[I]);
    if (!Left || Left == NumCands)
      return false;
    std::vector<Candidate> Kept;
    for (size_t I = 0; I != NumCands; ++I)
      if (!Drop(Cands[I]))
        Kept.push_back(Cands[I]);
    Working = std::move(Kept);
    Cands = Working.data();
    NumCands = Working.size();
    Planned = SIZE_MAX; // an index into the candidates it was made for
    return true;
  };
  DropCandidate([](const Candidate &C) { return C.History->failedHere(); });

  for (;;) {
    Scheduler *Sched = nullptr;
    ScheduleQuery Q;
    size_t Choice = 0;
    // The instances of a leaf under a replicated ancestor write the sections
    // they share (no per-instance offset): in one memory space they run side
    // by side, in several they would take turns (coherence lets one space
    // write a range at a time) and move the buffers back and forth. So the
    // first instance chooses for all of this launch. Instances with sections
    // of their own may go anywhere.
    bool Pin = P.UnderReplicated && P.SharedWrites;
    if (NumCands > 1 &&
        !(Pin && Ctx.pinned(P.LeafId, Cands, NumCands, Choice))) {
      FillUses();
      Q.LeafId = P.LeafId;
      Q.Path = P.Path.c_str();
      Q.Candidates = Cands;
      Q.NumCandidates = NumCands;
      Q.Instances = Instances;
      Q.Buffers = Uses.data();
      Q.NumBuffers = NumBuffers;
      Q.Planned = Planned;
      Sched = Ctx.Sched ? Ctx.Sched : &RT.scheduler();
      Choice = Sched->choose(Q);
      if (Choice >= NumCands)
        Choice = 0;
      if (Pin)
        Choice = Ctx.pin(P.LeafId, Cands, NumCands, Choice);
    }
    const Candidate &C = Cands[Choice];
    Device &D = *C.Dev;
    describe(C);
    if (L.Grid && !D.canLaunchGrid(L)) {
      if (Sched)
        Sched->finished(Q, Choice, 0);
      return LeafRun::Declined;
    }
    // A work-group leaf runs each group as a device work-group, a thread per
    // work-item, where the device has its work-group kernel and the group
    // fits; otherwise the other artifact runs each group on one thread.
    L.WorkGroup = false;
    const char *Variant = nullptr;
    if (!L.Grid && Instances && !P.WorkGroupKernels.empty())
      if (const hpvm_artifact *Kernel = P.workGroupKernel(C.Artifact->target)) {
        uint64_t Group[3] = {1, 1, 1}; // x, y, z: the last extent is x
        size_t G = P.N->Group.size();
        for (size_t A = 0; A != G; ++A)
          Group[A] = extentOf(P, P.N->Group[G - 1 - A], Args);
        L.WorkGroup = D.fitsWorkGroup(Group);
        if (L.WorkGroup) {
          L.Artifact = Kernel;
          std::copy(Group, Group + 3, L.GroupDims);
        }
        Variant = L.WorkGroup ? "work-groups" : "a thread per group";
      }

    // A launch in a frame whose other children may run meanwhile need not
    // keep this thread while its kernel runs, if the device can say when it
    // is done. Host devices run launches on the calling thread anyway.
    LeafInFlight *Async = nullptr;
    if (Then && Instances && D.memorySpace() != HostSpace) {
      if (!Then->InFlight)
        Then->InFlight = std::make_unique<LeafInFlight>();
      Async = Then->InFlight.get();
    }

    // Off the host, in a launch that may put buffers elsewhere, or with
    // copies elsewhere, buffers go through coherence, which keeps them
    // registered until the kernel has finished, and the leaf gets pointers to
    // this device's copies.
    size_t NumParams = P.N->Params.size();
    SmallArray<void *, 16> DevArgs(NumParams);
    SmallArray<void *, 16> DevPtrs(NumBuffers);
    Coherence::Hold OwnHold;
    struct HoldGuard {
      Coherence &Coh;
      Coherence::Hold *H;
      ~HoldGuard() {
        if (H)
          Coh.complete(*H);
      }
    } Held{Coh, Async ? &Async->Held : &OwnHold};
    try {
      // Compiling the artifact (once per device) is not running it: it is
      // timed apart, so that statistics and heft see run times only.
      uint64_t Begin = nowNanos();
      if (Instances && D.prepare(L)) {
        uint64_t Done = nowNanos();
        C.History->CompileNanos.fetch_add(Done - Begin,
                                          std::memory_order_relaxed);
        if (TheTrace.enabled())
          TheTrace.recordCompile(D.name(), P.Path, Begin, Done);
        Begin = Done;
      }

      // A launch of no instances touches no data: nothing to make coherent.
      if (Instances && NumBuffers &&
          (D.memorySpace() != HostSpace || Ctx.TrackHost || !Coh.idle())) {
        FillUses();
        Coh.acquire(Ctx.Buffers, Uses.data(), NumBuffers, D, DevPtrs.data(),
                    *Held.H, Ctx.TrackHost, C.History);
        for (size_t I = 0; I != NumParams; ++I)
          DevArgs[I] = Args[I];
        for (size_t I = 0; I != NumBuffers; ++I)
          DevArgs[P.BufferParams[I]] = &DevPtrs[I];
        L.Args = DevArgs.data();
      }

      // The device may run the leaf's streaming-store variant instead, by
      // how much data the launch touches.
      if (Instances && P.StreamingVariant &&
          C.Artifact->target == HPVM_TARGET_CPU) {
        // A grid launch takes the whole of every buffer (FillUses).
        if (L.Grid)
          FillUses();
        for (size_t I = 0; I != NumBuffers; ++I) {
          uint64_t Bytes =
              L.Grid ? Uses[I].bytes()
                     : extentOf(P, P.N->Params[P.BufferParams[I]].Bytes, Args);
          if (__builtin_add_overflow(L.FootprintBytes, Bytes,
                                     &L.FootprintBytes))
            L.FootprintBytes = UINT64_MAX;
        }
        bool Streaming = D.useStreamingVariant(L);
        if (Streaming)
          L.Artifact = P.StreamingVariant;
        Variant = Streaming ? "streaming-stores" : "normal";
      }

      // Without data to move the run starts where compiling ended: one read
      // of the clock less on the launch's path.
      uint64_t Start = L.Args == Args ? Begin : nowNanos();
      LaunchToken OwnToken;
      LaunchToken &Token = Async ? Async->Token : OwnToken;
      if (Instances) {
        L.SerialNanos = C.History->serialNanos(Instances);
        Token = LaunchToken();
        D.launch(L, Token);
        if (Async) {
          LeafInFlight &A = *Async;
          A.Task = Then;
          A.Dev = &D;
          A.History = C.History;
          A.Instances = Instances;
          A.Start = Start;
          A.Variant = Variant;
          A.Sched = Sched;
          A.Choice = Choice;
          if (Sched) {
            A.Candidates.assign(Cands, Cands + NumCands);
            A.Buffers.assign(Uses.data(), Uses.data() + NumBuffers);
            A.Q = Q;
            A.Q.Candidates = A.Candidates.data();
            A.Q.Buffers = A.Buffers.data();
          }
          // From here on the launch may finish, and its frame with it, at any
          // moment: nothing of the frame's is touched after this.
          Held.H = nullptr;
          if (D.whenDone(Token, leafDone, Async))
            return LeafRun::InFlight;
          Held.H = &A.Held;
        }
        D.wait(Token);
        Coh.complete(*Held.H);
      }
      double Before =
          C.History->SerialNanosPerInstance.load(std::memory_order_relaxed);
      leafRan(*C.History, Instances, Start, Token, Variant, Sched, Q, Choice);
      if (Untimable && Token.HostThreads == 1 &&
          !(Variant && std::strcmp(Variant, "normal") != 0))
        allowUntimed(*C.History, D, Before, Instances);
    } catch (const RtError &E) {
      if (Sched)
        Sched->finished(Q, Choice, 0);
      // Instances pinned to one space write ranges they share: one's
      // writes cannot be told from another's, so none falls back.
      if (!Held.H || Pin ||
          !fallBack(P, *C.Dev, *C.History, E, *Held.H, Ctx, NumCands > 1))
        throw;
      Held.H = nullptr; // discarded
      const Candidate Failed = C;
      DropCandidate([&](const Candidate &K) { return K.Dev == Failed.Dev; });
      continue; // on another device
    } catch (...) {
      if (Sched)
        Sched->finished(Q, Choice, 0);
      throw;
    }
    return LeafRun::Ran;
  }
}

bool Executor::fallBack(const NodePlan &P, Device &Dev, NodeStats &History,
                        const RtError &E, Coherence::Hold &H,
                        LaunchContext &Ctx, bool Others) {
  // A device failing (a driver error, no memory, a lost device, lavapipe's
  // loop cut), not a bad argument; another device allowed; its inputs
  // intact once its writes are dropped.
  if (E.code() != HPVM_ERR_DEVICE || !Others || Ctx.Strict ||
      RT.devicesStrict() || !Coh.discard(H))
    return false;
  std::string Why = E.what();
  if (RT.stats().recordFailure(History, Why)) {
    std::string Note = "node '" + P.Path + "' failed on " + Dev.name() +
                       " and runs on another device from now on: " + Why;
    std::fprintf(stderr, "hpvm-rt: note: %s\n", Note.c_str());
    if (Ctx.Fallbacks) {
      std::lock_guard<std::mutex> L(Ctx.M);
      Ctx.Fallbacks->push_back(Note);
    }
  }
  return true;
}

bool Executor::takeUntimed(NodeStats &History, uint64_t Instances) {
  return History.UntimedLeft.load(std::memory_order_relaxed) > 0 &&
         Instances <= History.UntimedLimit.load(std::memory_order_relaxed) &&
         History.UntimedLeft.fetch_sub(1, std::memory_order_relaxed) > 0;
}

void Executor::allowUntimed(NodeStats &History, const Device &D,
                            double NanosBefore, uint64_t Instances) {
  // As a launch site is armed (Runtime::armSite), for about 1 ms of
  // launches.
  uint64_t Limit = LaunchSites::inPlaceLimit(History, D, NanosBefore);
  if (!Limit || Limit < Instances)
    return;
  History.UntimedLimit.store(Limit, std::memory_order_relaxed);
  History.UntimedLeft.store(
      int64_t(LaunchSites::budget(History.serialNanos(Instances))),
      std::memory_order_relaxed);
}

void Executor::leafRan(NodeStats &History, uint64_t Instances, uint64_t Start,
                       const LaunchToken &Token, const char *Variant,
                       Scheduler *Sched, const ScheduleQuery &Q, size_t Choice,
                       bool InFlight) {
  uint64_t End = nowNanos();
  History.record(Instances, End - Start);
  if (Instances)
    History.Model.learn(Instances, End - Start);
  History.learnSerialCost(Instances, End - Start, Token.HostThreads,
                          Token.HostWorkNanos);
  if (TheTrace.enabled())
    TheTrace.record(History, Start, End, Instances, Variant, InFlight);
  if (Sched)
    Sched->finished(Q, Choice, End - Start);
}

void Executor::leafDone(void *InFlight) {
  // On the device's thread. The kernel's buffers are free now: pool threads
  // may be waiting for them in Coherence::acquire, all of them, so they
  // are released here and not by a task that needs a pool thread. The rest
  // calls the device and may go on to run other leaves: a task on the pool.
  auto &A = *static_cast<LeafInFlight *>(InFlight);
  Executor &X = *A.Task->F->X;
  X.Coh.complete(A.Held);
  A.Job.Fn = finishInFlight;
  A.Job.Ctx = &A;
  X.Pool.submit(A.Job);
}

void Executor::finishInFlight(void *InFlight, uint64_t, uint64_t) {
  auto &A = *static_cast<LeafInFlight *>(InFlight);
  Frame &F = *A.Task->F;
  Executor &X = *F.X;
  unsigned Child = A.Task->Child;
  try {
    try {
      A.Dev->wait(A.Token);
    } catch (...) {
      if (A.Sched)
        A.Sched->finished(A.Q, A.Choice, 0);
      throw;
    }
    X.leafRan(*A.History, A.Instances, A.Start, A.Token, A.Variant, A.Sched,
              A.Q, A.Choice, /*InFlight=*/true);
  } catch (const RtError &E) {
    // As in runLeaf: a device that failed runs the leaf no more, another
    // one runs it now (on this thread), if the launch allows one.
    const NodePlan &C = *F.P.Children[Child];
    bool Others = false;
    if (!(C.UnderReplicated && C.SharedWrites)) // as in runLeaf
      for (const Candidate &K : C.Candidates)
        Others |=
            K.Dev != A.Dev && !K.History->failedHere() &&
            (F.Ctx->Allowed.empty() || (K.DeviceIndex < F.Ctx->Allowed.size() &&
                                        F.Ctx->Allowed[K.DeviceIndex]));
    if (X.fallBack(C, *A.Dev, *A.History, E, A.Held, *F.Ctx, Others))
      X.runChild(F, Child);
    else
      F.Ctx->fail(E.code(), E.what());
  } catch (const std::exception &E) {
    F.Ctx->fail(HPVM_ERR_DEVICE, unexpectedErrorMessage(E));
  }
  int Next = X.childDone(F, Child);
  if (Next >= 0)
    X.runChain(F, static_cast<unsigned>(Next));
}

bool Executor::runGrid(const NodePlan &P, void *const *Args,
                       const uint64_t Dims[3], const uint64_t *OuterIds,
                       LaunchContext &Ctx) {
  // One frame binds the leaf's arguments, which are the same for every
  // instance; its level-1 ids stay 0, the device supplies them.
  struct FrameGuard {
    const NodePlan &P;
    Frame *F;
    ~FrameGuard() { P.returnFrame(F); }
  } G{P, P.takeFrame()};
  Frame &F = *G.F;
  bindFrame(F, Args, OuterIds, Ctx);
  F.OuterIds[0] = F.OuterIds[1] = F.OuterIds[2] = 0;
  return runLeaf(*P.Children[0], F.ChildArgs.data() + P.ParamBase[0], nullptr,
                 F.OuterIds.data(), Ctx, Dims) == LeafRun::Ran;
}

void Executor::bindFrame(Frame &F, void *const *Args, const uint64_t *OuterIds,
                         LaunchContext &Ctx) {
  const NodePlan &P = F.P;
  F.X = this;
  F.Ctx = &Ctx;
  for (size_t I = 0, E = P.ArgSources.size(); I != E; ++I) {
    const ArgSource &A = P.ArgSources[I];
    switch (A.From) {
    case ArgSource::Parent:
      F.ChildArgs[I] = Args[A.Index];
      break;
    case ArgSource::Constant:
      F.ChildArgs[I] = const_cast<uint64_t *>(&P.Constants[A.Index]);
      break;
    case ArgSource::Slot:
      F.ChildArgs[I] = &F.Slots[A.Index];
      break;
    }
  }
  if (P.Depth)
    std::memcpy(F.OuterIds.data() + 3, OuterIds,
                3 * P.Depth * sizeof(uint64_t));
  for (unsigned C = 0, E = static_cast<unsigned>(P.Children.size()); C != E;
       ++C) {
    Frame::ChildTask &T = F.Tasks[C];
    T.Job.Fn = taskEntry;
    T.Job.Ctx = &T;
    T.F = &F;
    T.Child = C;
  }
}

/// Instance I (row-major over Dims) as the ids F's children receive.
static void setInstance(Frame &F, uint64_t I, const uint64_t *Dims) {
  F.OuterIds[0] = I / (Dims[1] * Dims[2]);
  F.OuterIds[1] = I / Dims[2] % Dims[1];
  F.OuterIds[2] = I % Dims[2];
}

void Executor::runInternal(const NodePlan &P, void *const *Args,
                           void *const *Outs, const uint64_t *OuterIds,
                           LaunchContext &Ctx) {
  uint64_t Dims[3];
  uint64_t Instances = evalDims(P, Args, Dims);
  uint64_t Start = nowNanos();

  if (!P.Children.empty() && Instances) {
    if (P.N->Sequential) {
      // A time-step loop: one frame, its iterations in order, each child
      // graph finished before the next begins (runFrame waits for it).
      Frame *F = P.takeFrame();
      bindFrame(*F, Args, OuterIds, Ctx);
      for (uint64_t I = 0; I != Instances; ++I) {
        if (Ctx.Failed.load(std::memory_order_relaxed))
          break;
        setInstance(*F, I, Dims);
        runFrame(*F);
      }
      P.returnFrame(F);
    } else if (!P.Replicated) {
      Frame *F = P.takeFrame();
      bindFrame(*F, Args, OuterIds, Ctx);
      F->OuterIds[0] = F->OuterIds[1] = F->OuterIds[2] = 0;
      runFrame(*F);
      // Outputs are passed on only when the children produced them.
      if (!Ctx.Failed.load(std::memory_order_relaxed))
        for (size_t K = 0, E = P.OutputSlots.size(); K != E; ++K)
          std::memcpy(Outs[K], &F->Slots[P.OutputSlots[K]],
                      typeSize(P.N->Outputs[K].Type));
      P.returnFrame(F);
    } else if (!(P.GridLeaf && runGrid(P, Args, Dims, OuterIds, Ctx))) {
      // Each chunk of instances reuses one frame; instances run their
      // child graphs concurrently across chunks.
      uint64_t Grain = std::max<uint64_t>(1, Instances / (Pool.size() * 4));
      Pool.parallelFor(Instances, Grain, [&](uint64_t Begin, uint64_t End) {
        Frame *F = nullptr;
        try {
          F = P.takeFrame();
          bindFrame(*F, Args, OuterIds, Ctx);
          for (uint64_t I = Begin; I != End; ++I) {
            if (Ctx.Failed.load(std::memory_order_relaxed))
              break;
            setInstance(*F, I, Dims);
            runFrame(*F);
          }
        } catch (const RtError &E) {
          Ctx.fail(E.code(), E.what());
        } catch (const std::exception &E) {
          Ctx.fail(HPVM_ERR_DEVICE, unexpectedErrorMessage(E));
        }
        if (F)
          P.returnFrame(F);
      });
    }
  }

  uint64_t End = nowNanos();
  P.Stats->record(Instances, End - Start);
  if (TheTrace.enabled())
    TheTrace.record(*P.Stats, Start, End, Instances);
}

void Executor::planFrame(Frame &F) {
  const NodePlan &P = F.P;
  size_t N = P.Children.size();
  F.Planned.assign(N, SIZE_MAX);
  Scheduler &Sched = F.Ctx->Sched ? *F.Ctx->Sched : RT.scheduler();
  // Worth a plan: a policy that makes them, and two leaves with a choice.
  if (!Sched.plansFrames())
    return;
  size_t Choices = 0;
  for (const auto &C : P.Children)
    Choices += C->N->isLeaf() && C->Candidates.size() > 1;
  if (Choices < 2)
    return;
  std::vector<FrameChild> Children(N);
  try {
    for (size_t I = 0; I != N; ++I) {
      const NodePlan &C = *P.Children[I];
      void *const *Args = F.ChildArgs.data() + P.ParamBase[I];
      FrameChild &FC = Children[I];
      if (C.N->isLeaf()) {
        FC.Candidates = C.Candidates.data();
        FC.NumCandidates = C.Candidates.size();
        uint64_t Dims[3];
        // (A dimension fed by a value edge reads its slot before the
        // producer has run: an estimate, as every prediction here is.)
        FC.Instances = evalDims(C, Args, Dims);
      }
      // What it writes that each successor reads: buffers bound to the same
      // parameter of this node.
      for (unsigned S : P.Succ[I]) {
        uint64_t Bytes = 0;
        const NodePlan &D = *P.Children[S];
        for (unsigned J : D.BufferParams) {
          const ArgSource &To = P.ArgSources[P.ParamBase[S] + J];
          if (To.From != ArgSource::Parent)
            continue;
          for (unsigned K : C.BufferParams) {
            const ArgSource &From = P.ArgSources[P.ParamBase[I] + K];
            if (From.From == ArgSource::Parent && From.Index == To.Index &&
                writes(C.N->Params[K].Mode))
              Bytes += extentOf(D, D.N->Params[J].Bytes,
                                F.ChildArgs.data() + P.ParamBase[S]);
          }
        }
        FC.Succ.push_back(S);
        FC.SuccBytes.push_back(Bytes);
      }
    }
  } catch (const RtError &) {
    return; // an argument the launch will report; no plan
  }
  Sched.planFrame(Children);
  for (size_t I = 0; I != N; ++I)
    F.Planned[I] = Children[I].Choice;
}

void Executor::runFrame(Frame &F) {
  const NodePlan &P = F.P;
  unsigned N = static_cast<unsigned>(P.Children.size());
  // A graph's frames, not every instance of a replicated node's.
  if (P.Replicated)
    F.Planned.clear();
  else
    planFrame(F);
  if (!P.ParallelChildren) {
    // A chain (a time-step loop's sweeps): each child after the one before
    // on this thread, as runChain would run them, without the counts that
    // let other threads take children on.
    for (unsigned C = P.Roots[0];; C = P.Succ[C][0]) {
      runChild(F, C, /*MayDefer=*/false);
      if (P.Succ[C].empty())
        return;
    }
  }
  F.Done.store(0, std::memory_order_relaxed);
  for (unsigned C = 0; C != N; ++C)
    F.Remaining[C].store(P.PredCount[C], std::memory_order_relaxed);
  for (size_t I = 1, E = P.Roots.size(); I < E; ++I)
    Pool.submit(F.Tasks[P.Roots[I]].Job);
  runChain(F, P.Roots[0]);
  Pool.waitFor(F.Done, N);
}

void Executor::taskEntry(void *Task, uint64_t, uint64_t) {
  auto &T = *static_cast<Frame::ChildTask *>(Task);
  T.F->X->runChain(*T.F, T.Child);
}

void Executor::runChain(Frame &F, unsigned Child) {
  // Runs as long as the chain has a next child; a child whose device
  // launch finishes on its own takes the chain on from there.
  bool MayDefer = F.P.ParallelChildren;
  while (runChild(F, Child, MayDefer)) {
    int Next = childDone(F, Child);
    if (Next < 0)
      return;
    Child = static_cast<unsigned>(Next);
  }
}

int Executor::childDone(Frame &F, unsigned Child) {
  unsigned N = static_cast<unsigned>(F.P.Children.size());
  int Next = -1;
  for (unsigned S : F.P.Succ[Child]) {
    if (F.Remaining[S].fetch_sub(1, std::memory_order_acq_rel) != 1)
      continue;
    if (Next < 0)
      Next = static_cast<int>(S);
    else
      Pool.submit(F.Tasks[S].Job);
  }
  // The frame's owner may return as soon as Done reaches N, and F with it;
  // touch F after this only while a successor is still to run.
  if (F.Done.fetch_add(1) + 1 == N)
    Pool.notifyWaiters();
  return Next;
}

bool Executor::runChild(Frame &F, unsigned Child, bool MayDefer) {
  LaunchContext &Ctx = *F.Ctx;
  // After a failure the rest of the graph is skipped, but still counted,
  // so that every frame finishes.
  if (Ctx.Failed.load(std::memory_order_relaxed))
    return true;
  const NodePlan &P = F.P;
  const NodePlan &C = *P.Children[Child];
  try {
    return runNode(C, F.ChildArgs.data() + P.ParamBase[Child],
                   F.ChildOuts.data() + P.OutBase[Child], F.OuterIds.data(),
                   Ctx, F.Planned.empty() ? SIZE_MAX : F.Planned[Child],
                   MayDefer ? &F.Tasks[Child] : nullptr);
  } catch (const RtError &E) {
    Ctx.fail(E.code(), E.what());
  } catch (const std::exception &E) {
    Ctx.fail(HPVM_ERR_DEVICE, unexpectedErrorMessage(E));
  }
  return true;
}
