//===- FakeCudaDriver.h - What tests ask the stand-in CUDA driver -*- C++ -*-=//
//
// FakeCudaDriver.cpp is a library with the CUDA Driver API symbols hpvm-rt
// looks up, so that the CUDA device's own code (discovery, contexts,
// staging, streams, events, module cache, parameter marshalling, grid
// shapes, errors) runs on machines without a GPU. Memory is host memory,
// each stream is a thread that runs its queue in order after a short delay
// (so that a runtime that reads a staging buffer before its copy is done
// reads stale bytes), and a kernel is a C++ function the test registers
// under the PTX entry's name, called once per (block, thread) with the
// parameter values copied at launch time, as the driver copies them.
//
// Its behaviour is set through the environment, read at cuInit:
//   HPVM_FAKE_CUDA_INIT_RESULT   what cuInit returns (default 0)
//   HPVM_FAKE_CUDA_DEVICES       how many GPUs (default 1)
//   HPVM_FAKE_CUDA_RETAIN_FAILS  the ordinal whose primary context fails
//   HPVM_FAKE_CUDA_MAX_GRID_Y    grid limit along y and z (default 65535)
//   HPVM_FAKE_CUDA_MAX_THREADS   threads per block kernels allow (1024)
//   HPVM_FAKE_CUDA_DELAY_US      delay before each queued operation (200)
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_FAKE_CUDA_DRIVER_H
#define HPVM_TEST_FAKE_CUDA_DRIVER_H

#include <cstddef>
#include <cstdint>

extern "C" {

/// One thread of a launch.
struct FakeCudaThread {
  /// The launch's parameters, each pointing to its value as the PTX entry
  /// declares it (.u8 .. .u64), copied when cuLaunchKernel was called.
  void *const *Params;
  unsigned NumParams;
  unsigned Grid[3], Block[3];
  unsigned BlockId[3], ThreadId[3];
};

/// A kernel: 0, or a CUresult that the launch then fails with (sticky,
/// like a fault on a real device).
using FakeCudaKernel = int (*)(const FakeCudaThread *);

struct FakeCudaStats {
  uint64_t ModuleLoads;
  uint64_t Launches;
  /// Asynchronous copies whose host side was pinned (cuMemHostAlloc) or
  /// not.
  uint64_t PinnedCopies;
  uint64_t PageableCopies;
  uint64_t HostAllocations;
  uint64_t DeviceAllocations;
  /// Device allocations not freed yet.
  uint64_t LiveDeviceAllocations;
  /// Calls made without the device's context current.
  uint64_t CallsWithoutContext;
  /// cuStreamWaitEvent calls: a kernel stream waiting for uploads.
  uint64_t StreamWaits;
  unsigned LastGrid[3], LastBlock[3];
};
}

/// The names tests dlsym from the library.
#define HPVM_FAKE_CUDA_REGISTER "hpvmFakeCudaRegisterKernel"
#define HPVM_FAKE_CUDA_STATS "hpvmFakeCudaStats"
#define HPVM_FAKE_CUDA_RESET "hpvmFakeCudaReset"
#define HPVM_FAKE_CUDA_LAST_PARAMS "hpvmFakeCudaLastParams"

using FakeCudaRegisterFn = void (*)(const char *Entry, FakeCudaKernel Fn);
using FakeCudaStatsFn = void (*)(FakeCudaStats *Out);
using FakeCudaResetFn = void (*)();
/// Copies the last launch's parameters, each zero-extended to 64 bits,
/// into Out (up to Max); returns how many there were.
using FakeCudaLastParamsFn = size_t (*)(uint64_t *Out, size_t Max);

#endif // HPVM_TEST_FAKE_CUDA_DRIVER_H
