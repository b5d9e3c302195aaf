//===- Scheduler.cpp - The hint, round-robin and heft policies ------------===//

#include "hpvm/rt/Scheduler.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Device.h"
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

class HeftScheduler final : public Scheduler {
public:
  explicit HeftScheduler(const Coherence &C) : C(C) {}
  const char *name() const override { return "heft"; }

  size_t choose(const ScheduleQuery &Q) override {
    // Explore first: without a measurement a device cannot be compared.
    for (size_t I = 0; I != Q.NumCandidates; ++I)
      if (Q.Candidates[I].History->Launches.load(std::memory_order_relaxed) ==
          0)
        return reserve(Q.Candidates[I], I);

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
      double Transfer = Bytes / Cand.Dev->bytesPerSecond() * 1e9;
      const NodeStats &H = *Cand.History;
      double Instances = static_cast<double>(
          std::max<uint64_t>(1, H.Instances.load(std::memory_order_relaxed)));
      // Per instance, so that history from other sizes still applies; a
      // launch of zero instances still costs its overhead.
      double PerInstance = H.Nanos.load(std::memory_order_relaxed) / Instances;
      double Run =
          PerInstance * static_cast<double>(std::max<uint64_t>(1, Q.Instances));
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
  std::mutex M;
  std::vector<double> BusyUntil; // by device, in nowNanos() time
  std::vector<unsigned> InFlight;

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
       return std::make_unique<HeftScheduler>(C);
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
