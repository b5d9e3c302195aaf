//===- Scheduler.cpp - The scheduling policies ----------------------------===//

#include "hpvm/rt/Scheduler.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Device.h"
#include "hpvm/rt/Link.h"
#include "hpvm/rt/Stats.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

using namespace hpvm;
using namespace hpvm::rt;

Scheduler::~Scheduler() = default;

namespace {

class HintScheduler final : public Scheduler {
public:
  const char *name() const override { return "hint"; }
  size_t choose(const ScheduleQuery &) override { return 0; }
};

class RoundRobinScheduler final : public Scheduler {
public:
  const char *name() const override { return "round-robin"; }
  size_t choose(const ScheduleQuery &Q) override {
    std::lock_guard<std::mutex> L(M);
    if (Q.LeafId >= Next.size())
      Next.resize(Q.LeafId + 1, 0);
    return Next[Q.LeafId]++ % Q.NumCandidates;
  }

private:
  std::mutex M;
  std::vector<uint64_t> Next; // by leaf
};

/// Earliest estimated finish over the candidates: when the device is free,
/// plus the bytes coherence would copy, plus the leaf's predicted run time
/// there. The three policies differ in the prediction and in what they do
/// without one:
///   heft  the leaf's mean time per instance on the device, all sizes
///         together; a device without any launch of the leaf is tried first
///   dmda  the performance model of the launch's size (PerfModel: launches
///         within a factor of two, loaded from earlier runs when the
///         runtime has a model file); a size not measured on a device is
///         measured there first
///   auto  dmda's choice when every candidate has a model for the size,
///         otherwise the first candidate, as hint: it never explores, so a
///         program runs where its artifacts say until models exist
class EarliestFinishScheduler final : public Scheduler {
public:
  enum class Estimate { PerInstance, SizeModel, SizeModelOrHint };
  EarliestFinishScheduler(const Coherence &C, const char *Name, Estimate E)
      : C(C), Name(Name), How(E) {}
  const char *name() const override { return Name; }

  size_t choose(const ScheduleQuery &Q) override {
    if (Q.Planned < Q.NumCandidates) { // placed with its frame
      const Candidate &Cand = Q.Candidates[Q.Planned];
      std::lock_guard<std::mutex> L(M);
      bookLocked(Cand, nowNanos(), predict(*Cand.History, Q.Instances));
      return Q.Planned;
    }
    // Without a measurement a device cannot be compared: explore it first
    // (heft, dmda) or keep to the program's order (auto).
    for (size_t I = 0; I != Q.NumCandidates; ++I)
      if (!measured(Q.Candidates[I], Q.Instances)) {
        if (How == Estimate::SizeModelOrHint)
          I = 0;
        return reserve(Q.Candidates[I], I);
      }

    // Links before the lock: the first use of one measures it (copies).
    std::vector<double> Rates(Q.NumBuffers ? Q.NumCandidates : 0);
    for (size_t I = 0; I != Rates.size(); ++I)
      Rates[I] = linkRate(Q.Candidates[I], /*Up=*/true);
    uint64_t Now = nowNanos();
    size_t Best = 0;
    double BestFinish = std::numeric_limits<double>::infinity();
    double BestRun = 0;
    std::lock_guard<std::mutex> L(M);
    for (size_t I = 0; I != Q.NumCandidates; ++I) {
      const Candidate &Cand = Q.Candidates[I];
      double Start = static_cast<double>(Now);
      if (Cand.DeviceIndex < BusyUntil.size())
        Start = std::max(Start, BusyUntil[Cand.DeviceIndex]);
      uint64_t Bytes = 0;
      for (size_t B = 0; B != Q.NumBuffers; ++B)
        Bytes += C.bytesToAcquire(Q.Buffers[B], Cand.Dev->memorySpace());
      double Transfer = Bytes ? Bytes / Rates[I] * 1e9 : 0;
      double Run = predict(*Cand.History, Q.Instances);
      double Finish = Start + Transfer + Run;
      if (Finish < BestFinish) {
        BestFinish = Finish;
        Best = I;
        BestRun = Transfer + Run;
      }
    }
    bookLocked(Q.Candidates[Best], Now, BestRun);
    return Best;
  }

  bool plansFrames() const override { return true; }

  /// HEFT over a frame's children (Topcuoglu, Hariri and Wu, 2002): each
  /// child's upward rank is its mean predicted run time over its devices
  /// plus the largest, over its successors, of the mean cost of moving what
  /// it writes to them plus their rank; children are placed in decreasing
  /// rank, each on the device where it would finish first given what is
  /// placed already, moves between memory spaces costed over the measured
  /// links. Only when every leaf has a prediction on every device:
  /// otherwise choose() explores, one leaf at a time.
  void planFrame(std::vector<FrameChild> &Children) override {
    size_t N = Children.size();
    size_t Leaves = 0;
    for (const FrameChild &C : Children) {
      for (size_t K = 0; K != C.NumCandidates; ++K)
        if (!measured(C.Candidates[K], C.Instances))
          return;
      Leaves += C.NumCandidates > 1;
    }
    if (Leaves < 2)
      return; // one choice to make: choose() makes it as well
    std::vector<std::vector<double>> Run(N);
    std::vector<double> Mean(N, 0), Rank(N, 0);
    for (size_t I = 0; I != N; ++I) {
      const FrameChild &C = Children[I];
      for (size_t K = 0; K != C.NumCandidates; ++K)
        Run[I].push_back(predict(*C.Candidates[K].History, C.Instances));
      for (double T : Run[I])
        Mean[I] += T / double(Run[I].size());
    }
    // Ranks, successors first: a topological order (the edges make no
    // cycle), walked backwards.
    std::vector<unsigned> Waiting(N, 0);
    for (const FrameChild &C : Children)
      for (unsigned S : C.Succ)
        ++Waiting[S];
    std::vector<size_t> Topo;
    for (size_t I = 0; I != N; ++I)
      if (!Waiting[I])
        Topo.push_back(I);
    for (size_t Next = 0; Next != Topo.size(); ++Next)
      for (unsigned S : Children[Topo[Next]].Succ)
        if (--Waiting[S] == 0)
          Topo.push_back(S);
    if (Topo.size() != N)
      return;
    for (auto It = Topo.rbegin(); It != Topo.rend(); ++It) {
      const FrameChild &C = Children[*It];
      double Below = 0;
      for (size_t E = 0; E != C.Succ.size(); ++E)
        Below =
            std::max(Below, meanMove(C, Children[C.Succ[E]], C.SuccBytes[E]) +
                                Rank[C.Succ[E]]);
      Rank[*It] = Mean[*It] + Below;
    }
    // Decreasing rank; ties (zero run times) keep the topological order.
    std::vector<size_t> Order = Topo;
    std::stable_sort(Order.begin(), Order.end(),
                     [&](size_t A, size_t B) { return Rank[A] > Rank[B]; });
    std::vector<std::vector<std::pair<size_t, uint64_t>>> Pred(N);
    for (size_t I = 0; I != N; ++I)
      for (size_t E = 0; E != Children[I].Succ.size(); ++E)
        Pred[Children[I].Succ[E]].push_back({I, Children[I].SuccBytes[E]});
    std::vector<double> Finish(N, 0);
    std::vector<const Candidate *> Placed(N, nullptr);
    std::vector<double> Free;
    {
      std::lock_guard<std::mutex> L(M);
      Free = BusyUntil;
    }
    double Now = static_cast<double>(nowNanos());
    for (size_t I : Order) {
      FrameChild &C = Children[I];
      double Ready = Now;
      for (auto [P, Bytes] : Pred[I])
        Ready = std::max(Ready, Finish[P]);
      if (!C.NumCandidates) { // not a leaf: placed when it runs
        Finish[I] = Ready;
        continue;
      }
      double Best = std::numeric_limits<double>::infinity();
      for (size_t K = 0; K != C.NumCandidates; ++K) {
        const Candidate &Cand = C.Candidates[K];
        double Start = Now;
        for (auto [P, Bytes] : Pred[I])
          Start = std::max(Start, Finish[P] + move(Placed[P], &Cand, Bytes));
        if (Cand.DeviceIndex < Free.size())
          Start = std::max(Start, Free[Cand.DeviceIndex]);
        if (Start + Run[I][K] < Best) {
          Best = Start + Run[I][K];
          C.Choice = K;
        }
      }
      const Candidate &Chosen = C.Candidates[C.Choice];
      Placed[I] = &Chosen;
      Finish[I] = Best;
      if (Chosen.DeviceIndex >= Free.size())
        Free.resize(Chosen.DeviceIndex + 1, 0);
      Free[Chosen.DeviceIndex] = Best;
    }
  }

  void finished(const ScheduleQuery &Q, size_t Choice, uint64_t) override {
    // Estimates may be off; once a device has nothing in flight, it is free
    // now whatever was booked.
    std::lock_guard<std::mutex> L(M);
    unsigned D = Q.Candidates[Choice].DeviceIndex;
    if (D < InFlight.size() && InFlight[D] && --InFlight[D] == 0)
      BusyUntil[D] = static_cast<double>(nowNanos());
  }

private:
  const Coherence &C;
  const char *Name;
  Estimate How;
  std::mutex M;
  std::vector<double> BusyUntil; // by device, in nowNanos() time
  std::vector<unsigned> InFlight;

  /// Bytes per second to (Up) or from the candidate's device: its
  /// measured link (measured on first use, so called outside the lock: it
  /// copies), else what the device states, else Link's fallback.
  static double linkRate(const Candidate &Cand, bool Up) {
    double Rate = !Cand.HostLink ? Cand.Dev->bytesPerSecond()
                  : Up           ? Cand.HostLink->up()
                                 : Cand.HostLink->down();
    return Rate > 0 ? Rate : Link::FallbackBytesPerSecond;
  }

  /// Nanoseconds to move Bytes from where From runs to where To runs:
  /// nothing within one memory space (or when From is not placed), else
  /// down From's link and up To's.
  static double move(const Candidate *From, const Candidate *To,
                     uint64_t Bytes) {
    if (!From || !Bytes || From->Dev->memorySpace() == To->Dev->memorySpace())
      return 0;
    double T = 0;
    if (From->Dev->memorySpace() != HostSpace)
      T += Bytes / linkRate(*From, /*Up=*/false) * 1e9;
    if (To->Dev->memorySpace() != HostSpace)
      T += Bytes / linkRate(*To, /*Up=*/true) * 1e9;
    return T;
  }
  /// The mean of move() over the two children's candidate pairs.
  static double meanMove(const FrameChild &From, const FrameChild &To,
                         uint64_t Bytes) {
    if (!From.NumCandidates || !To.NumCandidates || !Bytes)
      return 0;
    double Sum = 0;
    for (size_t A = 0; A != From.NumCandidates; ++A)
      for (size_t B = 0; B != To.NumCandidates; ++B)
        Sum += move(&From.Candidates[A], &To.Candidates[B], Bytes);
    return Sum / double(From.NumCandidates * To.NumCandidates);
  }
  bool measured(const Candidate &Cand, uint64_t Instances) const {
    const NodeStats &H = *Cand.History;
    if (How == Estimate::PerInstance)
      return H.Launches.load(std::memory_order_relaxed) != 0;
    return H.Model.samples(PerfModel::bucket(Instances)) != 0;
  }

  double predict(const NodeStats &H, uint64_t Instances) const {
    if (How != Estimate::PerInstance)
      return H.Model.predict(Instances);
    // Per instance, so that history from other sizes still applies; a
    // launch of zero instances still costs its overhead.
    double Measured = static_cast<double>(
        std::max<uint64_t>(1, H.Instances.load(std::memory_order_relaxed)));
    double PerInstance = H.Nanos.load(std::memory_order_relaxed) / Measured;
    return PerInstance * static_cast<double>(std::max<uint64_t>(1, Instances));
  }

  size_t reserve(const Candidate &Cand, size_t Index) {
    std::lock_guard<std::mutex> L(M);
    bookLocked(Cand, nowNanos(), 0);
    return Index;
  }

  void bookLocked(const Candidate &Cand, uint64_t Now, double Duration) {
    unsigned D = Cand.DeviceIndex;
    if (D >= BusyUntil.size()) {
      BusyUntil.resize(D + 1, 0);
      InFlight.resize(D + 1, 0);
    }
    BusyUntil[D] = std::max(BusyUntil[D], static_cast<double>(Now)) + Duration;
    ++InFlight[D];
  }
};

} // namespace

namespace {

/// The policies, by name: adding one is a class above and a row here.
struct Policy {
  const char *Name;
  std::unique_ptr<Scheduler> (*Make)(const Coherence &C);
};
const Policy Policies[] = {
    {"hint",
     [](const Coherence &) -> std::unique_ptr<Scheduler> {
       return std::make_unique<HintScheduler>();
     }},
    {"round-robin",
     [](const Coherence &) -> std::unique_ptr<Scheduler> {
       return std::make_unique<RoundRobinScheduler>();
     }},
    {"heft",
     [](const Coherence &C) -> std::unique_ptr<Scheduler> {
       return std::make_unique<EarliestFinishScheduler>(
           C, "heft", EarliestFinishScheduler::Estimate::PerInstance);
     }},
    {"dmda",
     [](const Coherence &C) -> std::unique_ptr<Scheduler> {
       return std::make_unique<EarliestFinishScheduler>(
           C, "dmda", EarliestFinishScheduler::Estimate::SizeModel);
     }},
    {"auto",
     [](const Coherence &C) -> std::unique_ptr<Scheduler> {
       return std::make_unique<EarliestFinishScheduler>(
           C, "auto", EarliestFinishScheduler::Estimate::SizeModelOrHint);
     }},
};

} // namespace

std::unique_ptr<Scheduler> hpvm::rt::makeScheduler(std::string_view Name,
                                                   const Coherence &C) {
  for (const Policy &P : Policies)
    if (Name == P.Name)
      return P.Make(C);
  return nullptr;
}

bool hpvm::rt::isSchedulerName(std::string_view Name) {
  for (const Policy &P : Policies)
    if (Name == P.Name)
      return true;
  return false;
}

const char *hpvm::rt::schedulerNames() {
  static const std::string Names = [] {
    std::string N;
    for (const Policy &P : Policies)
      N += (N.empty() ? "" : ", ") + std::string(P.Name);
    return N;
  }();
  return Names.c_str();
}
