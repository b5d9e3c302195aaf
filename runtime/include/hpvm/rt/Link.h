//===- Link.h - A device's measured host<->device bandwidth -----*- C++ -*-===//
//
// The transfer estimates of the heft, dmda and auto policies: how fast a
// device's memory is reached from the host and back. A device may state
// its figure (Device::bytesPerSecond); otherwise it is measured once, on
// first use, by copying a buffer there and back, and kept with the
// performance models (Stats, HPVM_PERF_MODELS) under the device's
// description, so that a machine measures each device once.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LINK_H
#define HPVM_RT_LINK_H

#include <mutex>

namespace hpvm::rt {

class Device;
class Stats;

class Link {
public:
  /// What an estimate uses when nothing better is known (a device with no
  /// link, a measurement that failed).
  static constexpr double FallbackBytesPerSecond = 8e9;

  Link(Device &D, Stats &S) : D(D), S(S) {}
  /// Bytes per second host -> device and device -> host; infinite for a
  /// device in host memory.
  double up();
  double down();
  /// Whether this process measured it (not stated, not loaded).
  bool measured() const { return Measured; }

private:
  Device &D;
  Stats &S;
  std::once_flag Once;
  double Up = 0, Down = 0;
  bool Measured = false;

  void find();
};

} // namespace hpvm::rt

#endif // HPVM_RT_LINK_H
