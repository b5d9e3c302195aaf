//===- LaunchSites.cpp - Launches that skip the runtime -------------------===//
//
// No word of a site is written by both sides: the runtime writes limit, fn
// and until, the generated code launches and instances. Disarming is one
// store of limit, which no direct launch can undo. Direct launches of
// several threads at once may lose counts of each other's (plain
// increments), so a site may let a few more than its budget through, and
// the statistics may miss a few: never a result.
//
//===----------------------------------------------------------------------===//

#include "LaunchSites.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

using namespace hpvm::rt;

namespace {

struct Armed {
  NodeStats *History;
  /// Site.launches and Site.instances when it was armed.
  uint64_t LaunchesBefore, InstancesBefore;
};

struct Registry {
  std::mutex M;
  std::unordered_map<hpvm_launch_site *, Armed> Sites;
  /// Whether Sites may be non-empty: disarmAll's fast way out.
  std::atomic<bool> Any{false};
  std::atomic<unsigned> Holds{0};
};

Registry &registry() {
  // Never destroyed: sites may be disarmed from static destructors.
  static Registry *R = new Registry;
  return *R;
}

uint64_t load(const uint64_t &Word) {
  return __atomic_load_n(&Word, __ATOMIC_RELAXED);
}

/// With the lock held: disarms Site and counts what it ran since armed.
void takeBack(hpvm_launch_site &Site, const Armed &A) {
  __atomic_store_n(&Site.limit, int64_t(0), __ATOMIC_RELAXED);
  A.History->DirectLaunches.fetch_add(load(Site.launches) - A.LaunchesBefore,
                                      std::memory_order_relaxed);
  A.History->DirectInstances.fetch_add(load(Site.instances) - A.InstancesBefore,
                                       std::memory_order_relaxed);
}

} // namespace

void LaunchSites::arm(hpvm_launch_site &Site, NodeStats *History,
                      hpvm_cpu_kernel_fn Fn, uint64_t Limit, uint64_t Budget,
                      const std::function<bool()> &Ready) {
  Registry &R = registry();
  std::lock_guard<std::mutex> L(R.M);
  // Announced before Ready() looks, and disarmAll looks at Any after its
  // caller's change (a fence on each side): either Ready() sees the
  // change, or disarmAll sees Any and waits for this lock.
  R.Any.store(true, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  auto It = R.Sites.find(&Site);
  if (It != R.Sites.end()) {
    takeBack(Site, It->second);
    R.Sites.erase(It);
  }
  if (!Limit || !Ready()) {
    R.Any.store(!R.Sites.empty(), std::memory_order_relaxed);
    return;
  }
  uint64_t Launches = load(Site.launches);
  R.Sites.emplace(&Site, Armed{History, Launches, load(Site.instances)});
  __atomic_store_n(&Site.fn, Fn, __ATOMIC_RELAXED);
  __atomic_store_n(&Site.until, Launches + Budget, __ATOMIC_RELAXED);
  // Last, and releasing the rest: a launch that sees the limit sees the
  // function and budget it goes with.
  __atomic_store_n(&Site.limit, int64_t(std::min(Limit, MaxLimit)),
                   __ATOMIC_RELEASE);
}

uint64_t LaunchSites::inPlaceLimit(const NodeStats &History, const Device &D,
                                   double NanosBefore) {
  double Now = History.SerialNanosPerInstance.load(std::memory_order_relaxed);
  if (!(NanosBefore > 0 && Now <= 1.5 * NanosBefore))
    return 0;
  return std::min(D.callingThreadInstances(Now), MaxLimit);
}

uint64_t LaunchSites::budget(uint64_t NanosEach) {
  return std::clamp<uint64_t>(1000000 / std::max<uint64_t>(NanosEach, 1), 16,
                              65536);
}

void LaunchSites::disarmAll() {
  Registry &R = registry();
  std::atomic_thread_fence(std::memory_order_seq_cst); // see arm()
  if (!R.Any.load(std::memory_order_relaxed))
    return;
  std::lock_guard<std::mutex> L(R.M);
  for (auto &[Site, A] : R.Sites)
    takeBack(*Site, A);
  R.Sites.clear();
  R.Any.store(false, std::memory_order_relaxed);
}

void LaunchSites::hold() {
  registry().Holds.fetch_add(1, std::memory_order_acq_rel);
  disarmAll();
}

void LaunchSites::release() {
  registry().Holds.fetch_sub(1, std::memory_order_acq_rel);
}

unsigned LaunchSites::holds() {
  return registry().Holds.load(std::memory_order_acquire);
}
