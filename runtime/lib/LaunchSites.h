//===- LaunchSites.h - Launches that skip the runtime ----------*- C++ -*-===//
//
// The launch sites of hpvm_rt.h: hpvm-clang puts one next to each launch of
// a graph that is one CPU leaf, and while the runtime keeps a site armed the
// generated code runs a small launch itself, on the calling thread, as the
// runtime would have. The runtime arms a site after a launch through it
// (Runtime::launchAtSite) and disarms every site at once when anything
// happens that such a launch would skip: see docs/runtime.md, "Launch
// sites". Sites are the process's, as the programs that hold them are.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_LAUNCHSITES_H
#define HPVM_RT_LIB_LAUNCHSITES_H

#include "hpvm/rt/Device.h"
#include "hpvm/rt/Stats.h"
#include "hpvm/rt/hpvm_rt.h"

#include <cstdint>
#include <functional>

namespace hpvm::rt {

class LaunchSites {
public:
  /// How many launches of NanosEach one arming allows before the next
  /// goes through the runtime again, which then learns from it: about
  /// 1 ms of them, so that the runtime's launch costs a fraction of a
  /// percent more, and a node whose work per instance grows is noticed
  /// within about 1 ms (times the growth) of direct launches.
  static uint64_t budget(uint64_t NanosEach);
  /// The most instances an armed site lets through (so that the generated
  /// code can multiply three extents without overflow).
  static constexpr uint64_t MaxLimit = uint64_t(1) << 20;
  /// After a launch on host device D of a leaf whose cost per instance was
  /// NanosBefore and is History's now: the most instances a launch of it
  /// may have to run in place from now on (at a site, or untimed in the
  /// executor), those D would run alone on the calling thread; 0 while the
  /// cost is unknown or still rising (NodeStats::learnSerialCost follows a
  /// rise a step at a time: it must go on learning it).
  static uint64_t inPlaceLimit(const NodeStats &History, const Device &D,
                               double NanosBefore);

  /// Arms Site if Ready() says that a direct launch would do what the
  /// runtime does: the next Budget launches of at most Limit instances may
  /// then call Fn directly, and what they run counts for History. With a
  /// Limit of 0 it disarms Site. Ready is asked with the sites' lock held,
  /// after the armer announced itself: what makes it false and then calls
  /// disarmAll either is seen by it or disarms the site after it.
  static void arm(hpvm_launch_site &Site, NodeStats *History,
                  hpvm_cpu_kernel_fn Fn, uint64_t Limit, uint64_t Budget,
                  const std::function<bool()> &Ready);
  /// Disarms every site: from now on each launch goes through the runtime
  /// until one arms its site again. Call it after the change that makes
  /// direct launches wrong, not before.
  static void disarmAll();

  /// Something that no direct launch may bypass holds on while it lasts:
  /// a runtime object, a thread's launch options, a thread's own runtime.
  /// Sites are armed only while the process's runtime is the only hold.
  static void hold();
  static void release();
  static unsigned holds();
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_LAUNCHSITES_H
