//===- Clock.h - The runtime's time base ------------------------*- C++ -*-===//
#ifndef HPVM_RT_CLOCK_H
#define HPVM_RT_CLOCK_H

#include <chrono>
#include <cstdint>

namespace hpvm::rt {

/// Monotonic nanoseconds; stats, traces and heft all use this one clock.
inline uint64_t nowNanos() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

} // namespace hpvm::rt

#endif // HPVM_RT_CLOCK_H
