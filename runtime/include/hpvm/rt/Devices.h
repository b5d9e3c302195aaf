//===- Devices.h - Finding the devices of this machine ----------*- C++ -*-===//
//
// Each kind of device (cpu, vulkan; cuda, opencl later) is one entry of
// deviceKinds(): a name for HPVM_DEVICES and a function that finds the
// devices of that kind, loading its driver if it has one. Adding a kind is
// adding its entry; a kind whose driver is missing finds no devices and
// says why, it does not fail.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_DEVICES_H
#define HPVM_RT_DEVICES_H

#include "hpvm/rt/Device.h"

#include <memory>
#include <string>
#include <vector>

namespace hpvm::rt {

class ThreadPool;
class Trace;

/// What a device kind's discovery may use.
struct DiscoveryContext {
  ThreadPool &Pool;
  /// Hands out memory space ids for devices with their own memory.
  MemorySpace (*NewSpace)(void *Cookie);
  void *Cookie;
  /// Where devices with their own clocks put device-side events; may be
  /// null (no device events).
  Trace *Events = nullptr;
};

struct DeviceKind {
  const char *Name;
  /// Appends the devices found; returns why there are none, if there are
  /// none (e.g. "libcuda.so.1 not found"). When it found some, a returned
  /// text is a note (e.g. the devices it skipped and why).
  std::string (*Discover)(const DiscoveryContext &Ctx,
                          std::vector<std::unique_ptr<Device>> &Out);
};

/// Every kind this build of hpvm-rt knows, in discovery order.
const std::vector<DeviceKind> &deviceKinds();

struct Discovery {
  std::vector<std::unique_ptr<Device>> Devices;
  /// Requested kinds that are unknown or found nothing (non-strict).
  std::vector<std::string> Notes;
  /// Strict mode: the requested kinds that are missing, and why.
  std::string Error;
};

/// Finds the devices of the kinds in Requested ("cpu,vulkan"; empty means
/// every kind). With Strict, a requested kind that is unknown or has no
/// device is an Error naming it; otherwise it is a note.
Discovery discoverDevices(const DiscoveryContext &Ctx,
                          const std::string &Requested, bool Strict);

/// The CPU device: host memory, launches run on Pool.
std::unique_ptr<Device> makeCpuDevice(ThreadPool &Pool);

} // namespace hpvm::rt

#endif // HPVM_RT_DEVICES_H
