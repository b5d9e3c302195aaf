//===- OpenCLApi.h - OpenCL entry points without linking OpenCL -*- C++ -*-===//
//
// hpvm-rt must run where no OpenCL ICD loader is installed, so it never
// links libOpenCL: the loader is dlopen'ed and the functions below come from
// dlsym. Unlike Vulkan, the few types and constants needed are declared
// here from the OpenCL specification rather than taken from the headers, so
// the opencl kind exists in every build, headers or not.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_OPENCLAPI_H
#define HPVM_RT_LIB_OPENCLAPI_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace hpvm::rt::cl {

// Scalar types as the specification defines them on every platform this
// runtime builds for.
using Int = int32_t;
using Uint = uint32_t;
using Ulong = uint64_t;
using Bitfield = Ulong;
using Bool = Uint;

// Opaque handles.
using PlatformId = struct _platform_id *;
using DeviceId = struct _device_id *;
using Context = struct _context *;
using CommandQueue = struct _command_queue *;
using Mem = struct _mem *;
using Program = struct _program *;
using Kernel = struct _kernel *;
using Event = struct _event *;

/// cl_name_version (OpenCL 3.0): a packed version and a 64-byte name.
struct NameVersion {
  Uint Version;
  char Name[64];
};

constexpr Int Success = 0;
constexpr Int BuildProgramFailure = -11;
constexpr Int PlatformNotFoundKhr = -1001;

// clGetPlatformInfo
constexpr Uint PlatformVersion = 0x0901;
constexpr Uint PlatformName = 0x0902;
constexpr Uint PlatformExtensions = 0x0904;

// clGetDeviceIDs
constexpr Bitfield DeviceTypeAll = 0xFFFFFFFF;
constexpr Bitfield DeviceTypeCpu = 1 << 1;
constexpr Bitfield DeviceTypeGpu = 1 << 2;
constexpr Bitfield DeviceTypeAccelerator = 1 << 3;

// clGetDeviceInfo
constexpr Uint DeviceType = 0x1000;
constexpr Uint DeviceMaxWorkItemDimensions = 0x1003;
constexpr Uint DeviceMaxWorkGroupSize = 0x1004;
constexpr Uint DeviceMaxWorkItemSizes = 0x1005;
constexpr Uint DeviceAddressBits = 0x100D;
constexpr Uint DeviceMaxMemAllocSize = 0x1010;
constexpr Uint DeviceAvailable = 0x1027;
constexpr Uint DeviceCompilerAvailable = 0x1028;
constexpr Uint DeviceName = 0x102B;
constexpr Uint DeviceProfile = 0x102E;
constexpr Uint DeviceVersion = 0x102F;
constexpr Uint DeviceExtensions = 0x1030;
constexpr Uint DeviceDoubleFpConfig = 0x1032;
constexpr Uint DeviceHalfFpConfig = 0x1033;
constexpr Uint DeviceHostUnifiedMemory = 0x1035;
constexpr Uint DeviceIlVersion = 0x105B;
constexpr Uint DeviceIlsWithVersion = 0x1061;

// Contexts, queues, memory, programs, events.
constexpr intptr_t ContextPlatform = 0x1084;
constexpr Bitfield QueueProperties = 0x1093;
constexpr Bitfield QueueProfilingEnable = 1 << 1;
constexpr Bitfield MemReadWrite = 1 << 0;
constexpr Uint ProgramBuildLog = 0x1183;
constexpr Uint KernelNumArgs = 0x1191;
constexpr Uint ProfilingCommandStart = 0x1282;
constexpr Uint ProfilingCommandEnd = 0x1283;

#define HPVM_CL_FUNCTIONS(X)                                                   \
  X(clGetPlatformIDs, Int, (Uint, PlatformId *, Uint *))                       \
  X(clGetPlatformInfo, Int, (PlatformId, Uint, size_t, void *, size_t *))      \
  X(clGetDeviceIDs, Int, (PlatformId, Bitfield, Uint, DeviceId *, Uint *))     \
  X(clGetDeviceInfo, Int, (DeviceId, Uint, size_t, void *, size_t *))          \
  X(clCreateContext, Context,                                                  \
    (const intptr_t *, Uint, const DeviceId *, void *, void *, Int *))         \
  X(clReleaseContext, Int, (Context))                                          \
  X(clCreateCommandQueue, CommandQueue, (Context, DeviceId, Bitfield, Int *))  \
  X(clReleaseCommandQueue, Int, (CommandQueue))                                \
  X(clFinish, Int, (CommandQueue))                                             \
  X(clFlush, Int, (CommandQueue))                                              \
  X(clCreateBuffer, Mem, (Context, Bitfield, size_t, void *, Int *))           \
  X(clReleaseMemObject, Int, (Mem))                                            \
  X(clEnqueueWriteBuffer, Int,                                                 \
    (CommandQueue, Mem, Bool, size_t, size_t, const void *, Uint,              \
     const Event *, Event *))                                                  \
  X(clEnqueueReadBuffer, Int,                                                  \
    (CommandQueue, Mem, Bool, size_t, size_t, void *, Uint, const Event *,     \
     Event *))                                                                 \
  X(clBuildProgram, Int,                                                       \
    (Program, Uint, const DeviceId *, const char *, void *, void *))           \
  X(clGetProgramBuildInfo, Int,                                                \
    (Program, DeviceId, Uint, size_t, void *, size_t *))                       \
  X(clReleaseProgram, Int, (Program))                                          \
  X(clCreateKernel, Kernel, (Program, const char *, Int *))                    \
  X(clSetKernelArg, Int, (Kernel, Uint, size_t, const void *))                 \
  X(clReleaseKernel, Int, (Kernel))                                            \
  X(clGetKernelInfo, Int, (Kernel, Uint, size_t, void *, size_t *))            \
  X(clEnqueueNDRangeKernel, Int,                                               \
    (CommandQueue, Kernel, Uint, const size_t *, const size_t *,               \
     const size_t *, Uint, const Event *, Event *))                            \
  X(clWaitForEvents, Int, (Uint, const Event *))                               \
  X(clGetEventProfilingInfo, Int, (Event, Uint, size_t, void *, size_t *))     \
  X(clRetainEvent, Int, (Event))                                               \
  X(clReleaseEvent, Int, (Event))                                              \
  X(clSetEventCallback, Int,                                                   \
    (Event, Int, void (*)(Event, Int, void *), void *))                        \
  X(clGetExtensionFunctionAddressForPlatform, void *,                          \
    (PlatformId, const char *))

// Newer than OpenCL 1.2: the loader may lack them, and a 1.2 platform's
// dispatch table certainly does; used only where the platform has them.
#define HPVM_CL_OPTIONAL_FUNCTIONS(X)                                          \
  X(clCreateCommandQueueWithProperties, CommandQueue,                          \
    (Context, DeviceId, const Bitfield *, Int *))                              \
  X(clCreateProgramWithIL, Program, (Context, const void *, size_t, Int *))

#define HPVM_CL_DECLARE(Name, Ret, Params) Ret(*Name) Params = nullptr;

/// The ICD loader, kept loaded for the rest of the process once opened:
/// drivers start threads and register exit handlers, and unloading them
/// under their feet is a classic source of crashes at exit.
struct Library {
  HPVM_CL_FUNCTIONS(HPVM_CL_DECLARE)
  HPVM_CL_OPTIONAL_FUNCTIONS(HPVM_CL_DECLARE)

  /// Null with Why set when Path cannot be loaded or lacks a function.
  static std::shared_ptr<Library> open(const std::string &Path,
                                       std::string &Why);
};

#undef HPVM_CL_DECLARE

/// clCreateProgramWithILKHR (cl_khr_il_program), which OpenCL 1.2
/// platforms offer instead of clCreateProgramWithIL.
using CreateProgramWithILFn = Program (*)(Context, const void *, size_t, Int *);

/// "CL_OUT_OF_RESOURCES (-5)", or the number for codes it does not know.
std::string errorName(Int Code);

} // namespace hpvm::rt::cl

#endif // HPVM_RT_LIB_OPENCLAPI_H
