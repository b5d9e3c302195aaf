//===- RuntimeConfig.h - How a runtime is set up ----------------*- C++ -*-===//
//
// Everything a Runtime reads when it starts. The process's runtime (the C
// ABI's, Runtime::get()) takes it from the HPVM_* environment variables
// (docs/runtime.md §9); a library user or the Python binding fills one in
// and constructs a Runtime of its own, with no environment involved.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_RUNTIMECONFIG_H
#define HPVM_RT_RUNTIMECONFIG_H

#include "hpvm/rt/Cuda.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/OpenCL.h"
#include "hpvm/rt/Vulkan.h"

#include <string>

namespace hpvm::rt {

struct RuntimeConfig {
  /// Worker threads of the pool (HPVM_NUM_THREADS); 0: one per hardware
  /// thread. At most 4096.
  unsigned Threads = 0;
  /// How long idle workers spin before sleeping (HPVM_SPIN_US), at most
  /// 10^6.
  unsigned SpinMicros = 100;
  /// The scheduling policy (HPVM_SCHEDULER): makeScheduler's names. auto
  /// places as hint until performance models exist (docs/runtime.md §6).
  std::string Scheduler = "auto";
  /// Where the Chrome trace goes (HPVM_TRACE); empty: no trace.
  std::string TracePath;
  /// The performance-model file (HPVM_PERF_MODELS): read when the runtime
  /// starts, written when it ends (for the process's runtime: at exit), so
  /// that dmda and auto start from what earlier runs measured; empty: the
  /// models live as long as the runtime.
  std::string PerfModelsPath;
  /// The device kinds to use (HPVM_DEVICES: "cpu,vulkan", ...); empty: the
  /// CPU at once, other kinds when a program with artifacts for them loads.
  std::string Devices;
  /// Whether a kind in Devices that has no device fails every launch
  /// (HPVM_DEVICES_STRICT).
  bool DevicesStrict = false;
  /// Per device kind (HPVM_VULKAN_*, HPVM_OPENCL_*, HPVM_CUDA_*,
  /// HPVM_STREAMING_STORES).
  CpuOptions Cpu;
  VulkanOptions Vulkan;
  OpenCLOptions OpenCL;
  CudaOptions Cuda;
  /// A setting that means nothing, as fromEnvironment found it: the
  /// runtime then fails every launch with HPVM_ERR_CONFIG and this text.
  std::string Error;

  /// The settings the HPVM_* environment variables give.
  static RuntimeConfig fromEnvironment();
};

} // namespace hpvm::rt

#endif // HPVM_RT_RUNTIMECONFIG_H
