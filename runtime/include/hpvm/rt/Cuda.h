//===- Cuda.h - The CUDA device of hpvm-rt ----------------------*- C++ -*-===//
//
// Runs leaves compiled to PTX (HPVM_TARGET_NVPTX) through the CUDA Driver
// API. The driver (libcuda.so.1) is dlopen'ed, so hpvm-rt has no link-time
// dependency on CUDA: without a driver or a GPU the device is absent and
// says why. docs/runtime.md ("CUDA device") describes the launch interface
// (abi/include/hpvm/abi/NVPTXABI.h), streams, staging and events;
// this header is what discovery, tests and tools need. It declares no
// Driver API type.
//
// The launch shape and the kernel parameters are computed by the plain
// functions below, which need no driver, so that they are tested on any
// machine.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_CUDA_H
#define HPVM_RT_CUDA_H

#include "hpvm/rt/Device.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpvm::rt {

struct DiscoveryContext;

struct CudaOptions {
  /// The driver to dlopen (HPVM_CUDA_DRIVER).
  std::string Driver = "libcuda.so.1";

  static CudaOptions fromEnvironment();
};

/// The discover function of the "cuda" device kind: appends one device per
/// GPU the driver reports ("cuda:0", ...). Returns why there is none (no
/// driver, cuInit failing, no GPU, none usable), or, when it found some, a
/// note naming the GPUs it skipped and why. Never throws.
std::string discoverCudaDevices(const DiscoveryContext &Ctx,
                                const CudaOptions &Options,
                                std::vector<std::unique_ptr<Device>> &Out);

/// Grid and block dimensions (x, y, z) of one cuLaunchKernel.
struct CudaLaunchShape {
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Block[3] = {1, 1, 1};
};

/// The grid limits of a device (CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_*).
struct CudaGridLimits {
  uint32_t Max[3] = {2147483647u, 65535u, 65535u};
};

/// The flat launch form of NVPTXABI.h for a leaf with NumDims dims and
/// extents Dims (outermost first, missing ones 1): block nvptxBlockSize,
/// grid ceil(extent / block) per component. Returns why not when an extent
/// needs more blocks than Limits allow.
std::string cudaFlatShape(size_t NumDims, const uint64_t Dims[3],
                          const CudaGridLimits &Limits, CudaLaunchShape &Out);

/// The launch of a work-group kernel (NVPTXABI.h) for a leaf with NumDims
/// dims and extents Dims (outermost first, missing ones 1) whose
/// work-groups have Group work-items (along x, y, z): a block per instance,
/// a thread per work-item. Returns why not when the instances need more
/// blocks than Limits allow.
std::string cudaWorkGroupShape(size_t NumDims, const uint64_t Dims[3],
                               const uint64_t Group[3],
                               const CudaGridLimits &Limits,
                               CudaLaunchShape &Out);

/// The grid-mapped form: one block per instance of the parent (ParentDims,
/// ParentNumDims of them, mapped to components as the leaf's are), block
/// nvptxBlockSize(LeafNumDims). Returns why not when the leaf has no dims,
/// the parent has none, or its extents exceed Limits.
std::string cudaGridMappedShape(size_t LeafNumDims, size_t ParentNumDims,
                                const uint64_t ParentDims[3],
                                const CudaGridLimits &Limits,
                                CudaLaunchShape &Out);

/// The launch forms' last kernel parameter.
enum class CudaLaunchForm : uint32_t { Flat = 0, GridMapped = 1 };

/// How many kernel parameters a leaf's kernel has: one per node parameter,
/// 3 per ancestor level, and the form.
size_t cudaKernelParamCount(const Node &Leaf, unsigned OuterLevels);

/// Marshals a launch's kernel parameters as NVPTXABI.h lays them out: each
/// in its own 8-byte slot of Slots (the value in the low bytes, the rest
/// zero), Ptrs[i] = &Slots[i] for cuLaunchKernel. Args follow
/// hpvm_cpu_kernel_fn's convention; a buffer's slot is the pointer value
/// its argument points to (the CUDA device's copies are device addresses).
/// For GridMapped the level-1 outer ids are written as 0. Both arrays hold
/// cudaKernelParamCount entries. Returns why not (a NULL argument).
std::string cudaMarshalParams(const Node &Leaf, void *const *Args,
                              const uint64_t *OuterIds, unsigned OuterLevels,
                              CudaLaunchForm Form, uint64_t *Slots,
                              void **Ptrs);

/// What only the CUDA device can say about itself (tests, tools).
class CudaDevice : public Device {
public:
  struct Counters {
    /// cuModuleLoadDataEx calls, and launches that found their module in
    /// the cache.
    uint64_t ModulesLoaded = 0;
    uint64_t ModuleCacheHits = 0;
    /// cuLaunchKernel calls, and how many of them were grid-mapped.
    uint64_t Launches = 0;
    uint64_t GridLaunches = 0;
    /// Bytes copied through pinned staging buffers (either direction), and
    /// the cuMemHostAlloc calls that made those buffers.
    uint64_t StagingBytes = 0;
    uint64_t StagingAllocations = 0;
    /// Bytes copyToHost found copied home already, after the kernel that
    /// wrote them, on its stream (small buffers).
    uint64_t EagerDownloadBytes = 0;
    /// cuMemAlloc calls, and allocations served from freed buffers.
    uint64_t MemoryAllocations = 0;
    uint64_t PooledAllocations = 0;
  };
  virtual Counters counters() const = 0;
  /// "NVIDIA H100 80GB HBM3".
  virtual const std::string &deviceName() const = 0;
  /// Compute capability as major * 10 + minor (90 for sm_90).
  virtual unsigned computeCapability() const = 0;
  virtual uint64_t totalMemory() const = 0;
  virtual const CudaGridLimits &gridLimits() const = 0;
};

} // namespace hpvm::rt

#endif // HPVM_RT_CUDA_H
