//===- Link.cpp - A device's measured host<->device bandwidth -------------===//
#include "hpvm/rt/Link.h"

#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Device.h"
#include "hpvm/rt/Stats.h"

#include <algorithm>
#include <limits>
#include <vector>

using namespace hpvm::rt;

namespace {

/// What a copy of this size shows without taking long on any device.
constexpr size_t CalibrationBytes = size_t(1) << 20;

} // namespace

double Link::up() {
  std::call_once(Once, [this] { find(); });
  return Up;
}

double Link::down() {
  std::call_once(Once, [this] { find(); });
  return Down;
}

void Link::find() {
  if (D.memorySpace() == HostSpace) {
    Up = Down = std::numeric_limits<double>::infinity();
    return;
  }
  if (double Stated = D.bytesPerSecond(); Stated > 0) {
    Up = Down = Stated;
    return;
  }
  std::string Key = D.description();
  if (S.link(Key, Up, Down))
    return;
  // Best of three each way. An upload may return before the copy is done
  // (the device queues it): a one-byte download after it waits for it.
  Up = Down = FallbackBytesPerSecond;
  void *Buffer = nullptr;
  try {
    Buffer = D.allocate(CalibrationBytes);
    std::vector<char> Host(CalibrationBytes, 1);
    char Byte;
    uint64_t BestUp = UINT64_MAX, BestDown = UINT64_MAX;
    for (int I = 0; I != 3; ++I) {
      uint64_t T0 = nowNanos();
      D.copyFromHost(Buffer, 0, Host.data(), CalibrationBytes);
      D.copyToHost(&Byte, Buffer, 0, 1);
      uint64_t T1 = nowNanos();
      D.copyToHost(Host.data(), Buffer, 0, CalibrationBytes);
      uint64_t T2 = nowNanos();
      BestUp = std::min(BestUp, T1 - T0);
      BestDown = std::min(BestDown, T2 - T1);
    }
    D.free(Buffer);
    Up = CalibrationBytes * 1e9 / double(std::max<uint64_t>(BestUp, 1));
    Down = CalibrationBytes * 1e9 / double(std::max<uint64_t>(BestDown, 1));
    Measured = true;
    S.setLink(Key, Up, Down);
  } catch (...) {
    // An estimate must not fail a launch: the fallback stands, unsaved.
    if (Buffer)
      D.free(Buffer);
  }
}
