//===- DeviceSupport.h - Pieces the executor and GPU devices share -*- C++ -*-
//
// Small things more than one device needs: stack arrays for launches that
// must not allocate, the size classes of buffer pools, the hash of module
// caches, and placing device clocks on the host time line.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_DEVICESUPPORT_H
#define HPVM_RT_LIB_DEVICESUPPORT_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace hpvm::rt {

/// An array that lives on the stack unless it is unusually long, so that a
/// launch allocates nothing for ordinary nodes.
template <typename T, size_t N> class SmallArray {
public:
  explicit SmallArray(size_t Size)
      : Ptr(Size <= N ? Inline : (Heap.reset(new T[Size]), Heap.get())) {}
  T &operator[](size_t I) { return Ptr[I]; }
  T *data() { return Ptr; }

private:
  T Inline[N];
  std::unique_ptr<T[]> Heap;
  T *Ptr;
};

/// Size classes for pooling freed buffers: exact reuse for repeated
/// launches of one program, without pooling every odd size separately.
inline size_t sizeClass(size_t Bytes) {
  Bytes = std::max<size_t>(Bytes, 4);
  size_t Step = Bytes < (size_t(1) << 20) ? 256 : size_t(64) << 10;
  return (Bytes + Step - 1) / Step * Step;
}

/// A fast 64-bit hash of a module's bytes and its entry point's name, eight
/// bytes per step; caches confirm a hit by comparing the bytes.
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

/// The offset host time - device time, learnt from spans of device work
/// that are known to lie between two host readings: the work started after
/// the host submitted it and ended before the host saw it finish. Each span
/// bounds the offset; intersecting the bounds of all spans narrows it down,
/// and if the clocks drift apart the intersection empties and the estimate
/// starts over. Not thread-safe: callers hold their clock lock.
class ClockOffset {
public:
  /// Adds the span [DeviceStart, DeviceEnd] (device ns) that ran between
  /// host times Submitted and Done; returns the offset to add to device
  /// times.
  int64_t update(int64_t Submitted, int64_t Done, int64_t DeviceStart,
                 int64_t DeviceEnd) {
    int64_t Lo = Submitted - DeviceStart;
    int64_t Hi = Done - DeviceEnd;
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
  // The offset lies in [OffsetLo, OffsetHi].
  int64_t OffsetLo = 0, OffsetHi = 0;
  bool Calibrated = false;
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_DEVICESUPPORT_H
