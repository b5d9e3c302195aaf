//===- DeviceSupport.h - What the GPU-style devices share ----*- C++ -*-===//
//
// The GPU-style devices (Vulkan, OpenCL, CUDA) cache compiled modules by a
// hash of their code, pool freed buffers by size class, place device-clock
// events on the host time line, and stay unusable after a fatal failure.
//
// DeviceClock: Vulkan timestamps and OpenCL profiling counters tick on the
// device's own clock. Without a calibration extension, each piece of device
// work still bounds the offset between the clocks: it started after the host
// submitted it and ended before the host saw it finish. Intersecting the bounds
// of every submission narrows the offset down; if the clocks drift apart the
// intersection empties and the estimate starts over. A device event placed
// with it always lies inside its launch's host event.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_DEVICESUPPORT_H
#define HPVM_RT_LIB_DEVICESUPPORT_H

#include "PlanBuilder.h"

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/Error.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hpvm::rt {

/// Whether work-groups of Group[0] x Group[1] x Group[2] work-items (along
/// x, y, z) fit a device's limits: at most MaxItems work-items, and at most
/// MaxSize[A] along axis A.
inline bool fitsWorkGroupLimits(const uint64_t *Group, uint64_t MaxItems,
                                const uint64_t *MaxSize) {
  uint64_t Items = 1;
  for (unsigned A = 0; A != 3; ++A) {
    if (!Group[A] || Group[A] > MaxSize[A])
      return false;
    Items *= Group[A];
  }
  return Items <= MaxItems;
}

/// Runs a device kind's discovery, which never fails: whatever goes wrong
/// (a driver call that throws, a device that cannot be opened) is the
/// reason there is no device.
template <class DiscoverFn> std::string discoverSafely(DiscoverFn Discover) {
  try {
    return Discover();
  } catch (const std::exception &E) {
    return E.what();
  }
}

/// The bytes a launch gives buffer parameter P of Leaf, with the launch's
/// arguments Args. Coherence hands a device its own copies of buffers,
/// except of empty ones (and null ones), which it leaves alone: any other
/// pointer the device does not know is an error. Where the size comes from
/// a null argument it counts as not empty.
inline uint64_t bufferBytes(const Node &Leaf, const Param &P,
                            void *const *Args) {
  if (!P.Bytes.isParam())
    return P.Bytes.value();
  unsigned K = P.Bytes.paramIndex();
  const void *V = Args[K];
  if (!V)
    return 1;
  // Below zero is empty, as the executor counts it.
  int64_t Bytes = readInteger(V, Leaf.Params[K].Type);
  return Bytes < 0 ? 0 : static_cast<uint64_t>(Bytes);
}

/// Size classes for pooling: exact reuse for repeated launches of one
/// program, without pooling every odd size separately.
inline size_t poolSizeClass(size_t Bytes) {
  Bytes = std::max<size_t>(Bytes, 4);
  size_t Step = Bytes < (size_t(1) << 20) ? 256 : size_t(64) << 10;
  return (Bytes + Step - 1) / Step * Step;
}

/// Freed buffers kept for reuse, per device: device buffers, and host
/// staging buffers where the device copies through them.
constexpr size_t BufferPoolLimit = size_t(256) << 20;
constexpr size_t StagingPoolLimit = size_t(64) << 20;

/// Freed buffers by size class (poolSizeClass), up to a bound in bytes.
/// Not locked: the device's own lock guards it together with what goes
/// with it (the set of live buffers, the staging in flight).
template <class Handle> class BufferPool {
public:
  explicit BufferPool(size_t Limit) : Limit(Limit) {}

  /// A pooled buffer of exactly size class Class, if there is one.
  std::optional<Handle> take(size_t Class) {
    auto It = Free.find(Class);
    if (It == Free.end())
      return std::nullopt;
    Handle H = It->second;
    Free.erase(It);
    Bytes -= Class;
    Reused.fetch_add(1, std::memory_order_relaxed);
    return H;
  }
  /// Keeps H, of size class Capacity, unless that would pass the bound;
  /// false when the caller must free it itself.
  bool give(Handle H, size_t Capacity) {
    if (Bytes + Capacity > Limit)
      return false;
    Free.emplace(Capacity, H);
    Bytes += Capacity;
    return true;
  }
  /// Empties the pool; the caller frees what it returns.
  std::vector<Handle> drain() {
    std::vector<Handle> All;
    All.reserve(Free.size());
    for (auto &Entry : Free)
      All.push_back(Entry.second);
    Free.clear();
    Bytes = 0;
    return All;
  }
  /// How many take() calls found a buffer (read without the lock).
  uint64_t reused() const { return Reused.load(); }

private:
  std::multimap<size_t, Handle> Free;
  size_t Bytes = 0;
  const size_t Limit;
  std::atomic<uint64_t> Reused{0};
};

/// A device whose context is gone (a lost Vulkan device, a faulted CUDA
/// context) stays unusable; every later call reports the first reason.
class StickyFailure {
public:
  void set(const std::string &Why) {
    std::lock_guard<std::mutex> L(M);
    if (!Failed.exchange(true))
      Reason = Why;
  }
  /// One relaxed load while the device works.
  bool failed() const { return Failed.load(std::memory_order_relaxed); }
  std::string why() const {
    std::lock_guard<std::mutex> L(M);
    return Reason;
  }
  /// Called first by every entry point that would use the lost context:
  /// throws once the device has failed, with its name and the reason.
  void checkUsable(const std::string &Device) const {
    if (failed())
      throwUnusable(Device);
  }

private:
  [[noreturn]] void throwUnusable(const std::string &Device) const {
    std::string What =
        "the device is unusable since an earlier failure (" + why() + ")";
    throw RtError(HPVM_ERR_DEVICE, Device + ": " + What);
  }

  std::atomic<bool> Failed{false};
  mutable std::mutex M;
  std::string Reason;
};

/// A fast 64-bit hash of a module's bytes and its entry point's name,
/// eight bytes per step (a hit is confirmed by comparing the words).
inline uint64_t moduleHash(const void *Code, size_t Bytes, const char *Entry) {
  const unsigned char *P = static_cast<const unsigned char *>(Code);
  uint64_t H = 0x9e3779b97f4a7c15ull ^ Bytes;
  auto Mix = [&H](uint64_t W) {
    H = (H ^ W) * 0xff51afd7ed558ccdull;
    H ^= H >> 32;
  };
  size_t I = 0;
  for (; I + 8 <= Bytes; I += 8) {
    uint64_t W;
    std::memcpy(&W, P + I, 8);
    Mix(W);
  }
  uint64_t Tail = 0;
  std::memcpy(&Tail, P + I, Bytes - I);
  Mix(Tail);
  for (const char *C = Entry; *C; ++C)
    Mix(static_cast<unsigned char>(*C));
  return H;
}

class DeviceClock {
public:
  /// Work submitted at host time Submitted (ns) and seen finished at Done
  /// ran on the device from DeviceFirst to DeviceLast (device ns). Returns
  /// the offset to add to device times to put them on the host time line.
  int64_t offset(uint64_t Submitted, uint64_t Done, double DeviceFirst,
                 double DeviceLast) {
    int64_t Lo =
        static_cast<int64_t>(Submitted) - static_cast<int64_t>(DeviceFirst);
    int64_t Hi = static_cast<int64_t>(Done) - static_cast<int64_t>(DeviceLast);
    std::lock_guard<std::mutex> L(M);
    if (!Calibrated || std::max(Lo, OffsetLo) > std::min(Hi, OffsetHi)) {
      OffsetLo = Lo;
      OffsetHi = std::max(Lo, Hi);
      Calibrated = true;
    } else {
      OffsetLo = std::max(Lo, OffsetLo);
      OffsetHi = std::min(Hi, OffsetHi);
    }
    return OffsetLo;
  }

private:
  std::mutex M;
  // The offset host - device lies in [OffsetLo, OffsetHi].
  int64_t OffsetLo = 0, OffsetHi = 0;
  bool Calibrated = false;
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_DEVICESUPPORT_H
