//===- CudaApi.h - CUDA Driver API entry points without linking CUDA -*- C++ -*-
//
// hpvm-rt must build where no CUDA toolkit is installed and run where no
// driver is, so it neither includes cuda.h nor links libcuda: the few types
// and constants the CUDA device needs are declared here (their values are
// the Driver API's, which NVIDIA keeps stable), the driver is dlopen'ed and
// every function is looked up by its versioned symbol name (cuMemAlloc_v2,
// not the cuMemAlloc macro of cuda.h), so that the device gets the ABI it
// was written against whatever driver version is installed.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_CUDAAPI_H
#define HPVM_RT_LIB_CUDAAPI_H

#include <cstddef>
#include <memory>
#include <string>

namespace hpvm::rt::cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;

// CUresult values the device tells apart.
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_DEVICE_UNAVAILABLE = 46;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221;
constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr CUresult CUDA_ERROR_LAUNCH_TIMEOUT = 702;
constexpr CUresult CUDA_ERROR_HARDWARE_STACK_ERROR = 714;
constexpr CUresult CUDA_ERROR_ILLEGAL_INSTRUCTION = 715;
constexpr CUresult CUDA_ERROR_MISALIGNED_ADDRESS = 716;
constexpr CUresult CUDA_ERROR_INVALID_ADDRESS_SPACE = 717;
constexpr CUresult CUDA_ERROR_INVALID_PC = 718;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;
constexpr CUresult CUDA_ERROR_UNKNOWN = 999;

// CUdevice_attribute.
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

// CUfunction_attribute.
constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;

// CUjit_option.
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// Flags.
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;

/// Lets a function pointer type be written where a declarator cannot be.
template <typename T> using Fn = T;

// (member, symbol, fallback symbol or nullptr, type). The symbols are the
// versioned ones that cuda.h's macros expand to; a fallback is the older
// name of the same signature, for drivers that predate the first.
#define HPVM_CU_FUNCTIONS(X)                                                   \
  X(cuInit, "cuInit", nullptr, CUresult (*)(unsigned))                         \
  X(cuDriverGetVersion, "cuDriverGetVersion", nullptr, CUresult (*)(int *))    \
  X(cuGetErrorName, "cuGetErrorName", nullptr,                                 \
    CUresult (*)(CUresult, const char **))                                     \
  X(cuGetErrorString, "cuGetErrorString", nullptr,                             \
    CUresult (*)(CUresult, const char **))                                     \
  X(cuDeviceGetCount, "cuDeviceGetCount", nullptr, CUresult (*)(int *))        \
  X(cuDeviceGet, "cuDeviceGet", nullptr, CUresult (*)(CUdevice *, int))        \
  X(cuDeviceGetName, "cuDeviceGetName", nullptr,                               \
    CUresult (*)(char *, int, CUdevice))                                       \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr,                     \
    CUresult (*)(int *, int, CUdevice))                                        \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", nullptr,                          \
    CUresult (*)(size_t *, CUdevice))                                          \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr,             \
    CUresult (*)(CUcontext *, CUdevice))                                       \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",                 \
    "cuDevicePrimaryCtxRelease", CUresult (*)(CUdevice))                       \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", nullptr, CUresult (*)(CUcontext)) \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", nullptr, CUresult (*)(CUcontext *)) \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", nullptr,                         \
    CUresult (*)(CUmodule *, const void *, unsigned, int *, void **))          \
  X(cuModuleGetFunction, "cuModuleGetFunction", nullptr,                       \
    CUresult (*)(CUfunction *, CUmodule, const char *))                        \
  X(cuModuleUnload, "cuModuleUnload", nullptr, CUresult (*)(CUmodule))         \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", nullptr,                         \
    CUresult (*)(int *, int, CUfunction))                                      \
  X(cuMemAlloc, "cuMemAlloc_v2", nullptr, CUresult (*)(CUdeviceptr *, size_t)) \
  X(cuMemFree, "cuMemFree_v2", nullptr, CUresult (*)(CUdeviceptr))             \
  X(cuMemHostAlloc, "cuMemHostAlloc", nullptr,                                 \
    CUresult (*)(void **, size_t, unsigned))                                   \
  X(cuMemFreeHost, "cuMemFreeHost", nullptr, CUresult (*)(void *))             \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", nullptr,                        \
    CUresult (*)(CUdeviceptr, const void *, size_t, CUstream))                 \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", nullptr,                        \
    CUresult (*)(void *, CUdeviceptr, size_t, CUstream))                       \
  X(cuStreamCreate, "cuStreamCreate", nullptr,                                 \
    CUresult (*)(CUstream *, unsigned))                                        \
  X(cuStreamDestroy, "cuStreamDestroy_v2", nullptr, CUresult (*)(CUstream))    \
  X(cuStreamSynchronize, "cuStreamSynchronize", nullptr,                       \
    CUresult (*)(CUstream))                                                    \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", nullptr,                           \
    CUresult (*)(CUstream, CUevent, unsigned))                                 \
  X(cuEventCreate, "cuEventCreate", nullptr,                                   \
    CUresult (*)(CUevent *, unsigned))                                         \
  X(cuEventDestroy, "cuEventDestroy_v2", nullptr, CUresult (*)(CUevent))       \
  X(cuEventRecord, "cuEventRecord", nullptr, CUresult (*)(CUevent, CUstream))  \
  X(cuEventQuery, "cuEventQuery", nullptr, CUresult (*)(CUevent))              \
  X(cuEventSynchronize, "cuEventSynchronize", nullptr, CUresult (*)(CUevent))  \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",         \
    CUresult (*)(float *, CUevent, CUevent))                                   \
  X(cuLaunchKernel, "cuLaunchKernel", nullptr,                                 \
    CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, \
                 unsigned, unsigned, CUstream, void **, void **))

/// The driver, kept loaded for the rest of the process once opened (as the
/// Vulkan loader is): it starts threads and registers exit handlers that
/// must not find it unmapped.
struct Library {
#define HPVM_CU_DECLARE(Member, Symbol, Fallback, Type)                        \
  Fn<Type> Member = nullptr;
  HPVM_CU_FUNCTIONS(HPVM_CU_DECLARE)
#undef HPVM_CU_DECLARE

  /// Null with Why set when Path cannot be loaded or lacks a function.
  static std::shared_ptr<Library> open(const std::string &Path,
                                       std::string &Why);

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)": the driver's name and
  /// description of R, or the names this file knows, or the number.
  std::string describe(CUresult R) const;
};

/// The name of the codes declared above ("CUDA_ERROR_INVALID_PTX"), or
/// "CUresult <n>": what describe() falls back on when the driver cannot say
/// (the toolkit's stub library knows no names).
std::string resultName(CUresult R);

} // namespace hpvm::rt::cu

#endif // HPVM_RT_LIB_CUDAAPI_H
