//===- OpenCL.h - The OpenCL device of hpvm-rt ------------------*- C++ -*-===//
//
// Runs leaves compiled to OpenCL-flavour SPIR-V (HPVM_TARGET_OPENCL)
// through an OpenCL platform that ingests SPIR-V (clCreateProgramWithIL).
// The ICD loader (libOpenCL.so.1) is dlopen'ed, so hpvm-rt has no link-time
// dependency on OpenCL: without a loader or a usable device the kind is
// simply absent and says why. docs/runtime.md ("OpenCL device") describes
// the kernel ABI, memory, programs and profiling; this header is what
// discovery, tests and tools need.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_OPENCL_H
#define HPVM_RT_OPENCL_H

#include "hpvm/rt/Device.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpvm::rt {

struct DiscoveryContext;

struct OpenCLOptions {
  /// The ICD loader to dlopen (HPVM_OPENCL_LOADER).
  std::string Loader = "libOpenCL.so.1";
  /// HPVM_OPENCL_DEVICE: a device index (over every platform's devices, in
  /// the loader's order) or a case-insensitive substring of the device's or
  /// its platform's name; empty picks the best usable device (gpu >
  /// accelerator > cpu > other).
  std::string Select;
  /// HPVM_OPENCL_CPU_WORK_GROUPS=1: a CPU device runs work-group kernels
  /// (docs/runtime.md §4) too. By default it runs a work-group leaf's
  /// phases, a thread per group: what a CPU runtime makes of barriers
  /// anyway, without its barrier passes (Intel's crashed on some kernels).
  bool CpuWorkGroups = false;

  static OpenCLOptions fromEnvironment();
};

/// What discovery learnt about one OpenCL device.
struct OpenCLDeviceInfo {
  /// Over all platforms, in the order the loader lists them.
  unsigned Index = 0;
  std::string Name;
  std::string Platform;
  /// "gpu", "accelerator", "cpu" or "other".
  std::string Type;
  /// CL_DEVICE_VERSION, e.g. "OpenCL 3.0 ...".
  std::string Version;
  /// The SPIR-V versions it ingests, e.g. "SPIR-V_1.0 SPIR-V_1.1".
  std::string ILVersions;
  /// Why the device cannot be used ("no SPIR-V IL support
  /// (CL_DEVICE_IL_VERSION is empty)", "32-bit addresses", ...); empty when
  /// it can.
  std::string Unusable;
};

/// "<index> '<name>' (<platform>; <type>)", as messages name a device.
std::string describeOpenCLDevice(const OpenCLDeviceInfo &D);

/// Which of Devices to use: the usable one Select names (an index or a
/// name substring; several matches are ranked), or the best usable one by
/// type, earlier index first among equals. Returns -1 with Why set (every
/// device and its verdict) when there is none.
int chooseOpenCLDevice(const std::vector<OpenCLDeviceInfo> &Devices,
                       const std::string &Select, std::string &Why);

/// The discover function of the "opencl" device kind: appends at most one
/// device. Returns why there is none (no loader, no platform, no usable
/// device), or, when it found one, a note naming the devices it skipped and
/// why. Never throws.
std::string discoverOpenCLDevices(const DiscoveryContext &Ctx,
                                  const OpenCLOptions &Options,
                                  std::vector<std::unique_ptr<Device>> &Out);

/// What only the OpenCL device can say about itself (tests, tools).
class OpenCLDevice : public Device {
public:
  struct Counters {
    /// clBuildProgram calls, and launches that found their program built.
    uint64_t ProgramsBuilt = 0;
    uint64_t ProgramCacheHits = 0;
    /// clEnqueueNDRangeKernel calls.
    uint64_t Launches = 0;
    /// clCreateBuffer calls for buffers, and allocations served from the
    /// pool of freed ones instead.
    uint64_t MemoryAllocations = 0;
    uint64_t PooledAllocations = 0;
  };
  virtual Counters counters() const = 0;
  virtual const OpenCLDeviceInfo &info() const = 0;
  /// Whether launches are profiled (device events in the trace).
  virtual bool hasProfiling() const = 0;
};

} // namespace hpvm::rt

#endif // HPVM_RT_OPENCL_H
