//===- Scheduler.cpp - The scheduling policies ----------------------------===//

#include "hpvm/rt/Scheduler.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Device.h"
#include "hpvm/rt/Link.h"
#include "hpvm/rt/Stats.h"

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
      Rates[I] = uploadBytesPerSecond(Q.Candidates[I]);
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

  /// The candidate's measured link (measured on first use, outside the
  /// lock: it copies), else what its device states, else a guess.
  static double uploadBytesPerSecond(const Candidate &Cand) {
    double Rate =
        Cand.HostLink ? Cand.HostLink->up() : Cand.Dev->bytesPerSecond();
    return Rate > 0 ? Rate : 8e9;
  }

  bool measured(const Candidate &Cand, uint64_t Instances) const {
    const NodeStats &H = *Cand.History;
    if (How == Estimate::PerInstance)
      return H.Launches.load(std::memory_order_relaxed) != 0;
    return H.Model.BySize[PerfModel::bucket(Instances)].Samples.load(
               std::memory_order_relaxed) != 0;
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
