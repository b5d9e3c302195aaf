// Where a small CUDA launch's time goes: the pieces an hpvm launch on the
// CUDA device is made of (docs/runtime.md §4.3), added one at a time to the
// floor of launch_raw.c, each timed by bench/common/bench.c in batches of
// 1000 launches of a one-thread kernel that stores a flag:
//
//   sync          cuLaunchKernel, cuStreamSynchronize (launch_raw's floor,
//                 with a store)
//   copy          + the flag copied home: cuMemcpyDtoHAsync into pinned
//                 memory on the kernel's stream, then cuStreamSynchronize
//   copy-blocking   the same copy with cuMemcpyDtoH (what a CUDA program
//                 that copies its result with cudaMemcpy does)
//   copy-event    copy, ending on an event: cuEventRecord after the copy,
//                 cuEventSynchronize (hpvm's launch and wait)
//   copy-event-ctx  copy-event with the context pushed and popped around the
//                 launch and around the wait (hpvm's ScopedContext)
//   copy-event-streams  copy-event on four streams in turn (hpvm's launch
//                 streams)
//
//   launch_parts <variant>...
//
// The kernel is PTX written here, so no CUDA toolkit is needed; the driver
// is dlopen'ed and its few types declared here, as hpvm-rt does.
#include "../common/bench.h"
#include "driver_syms.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
enum { CUDA_SUCCESS = 0, NON_BLOCKING = 1, DISABLE_TIMING = 2 };

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxPushCurrent)(CUcontext);
  CUresult (*CtxPopCurrent)(CUcontext *);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemHostAlloc)(void **, size_t, unsigned);
  CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
} Cu;

static void check(CUresult R, const char *Call) {
  if (R == CUDA_SUCCESS)
    return;
  fprintf(stderr, "launch_parts: %s failed: CUresult %d\n", Call, R);
  exit(3);
}

static const char Ptx[] = ".version 7.0\n"
                          ".target sm_70\n"
                          ".address_size 64\n"
                          ".visible .entry hpvm_bench_store(.param .u64 p) {\n"
                          "  .reg .b64 %rd<3>;\n"
                          "  .reg .b32 %r<2>;\n"
                          "  ld.param.u64 %rd1, [p];\n"
                          "  cvta.to.global.u64 %rd2, %rd1;\n"
                          "  mov.u32 %r1, 1;\n"
                          "  st.global.u32 [%rd2], %r1;\n"
                          "  ret;\n"
                          "}\n";

enum { Batch = 1000, Streams = 4 };

struct ctx {
  const char *Variant;
  CUcontext Ctx;
  CUfunction Fn;
  CUstream Stream[Streams];
  CUevent Done;
  CUdeviceptr Flag;
  uint32_t *Home;
};

static void launch(struct ctx *C, CUstream S) {
  void *Params[] = {&C->Flag};
  check(Cu.LaunchKernel(C->Fn, 1, 1, 1, 1, 1, 1, 0, S, Params, NULL),
        "cuLaunchKernel");
}

static void run(void *P) {
  struct ctx *C = P;
  const char *V = C->Variant;
  for (int I = 0; I < Batch; ++I) {
    CUstream S = C->Stream[0];
    if (!strcmp(V, "sync")) {
      launch(C, S);
      check(Cu.StreamSynchronize(S), "cuStreamSynchronize");
    } else if (!strcmp(V, "copy")) {
      launch(C, S);
      check(Cu.MemcpyDtoHAsync(C->Home, C->Flag, 4, S), "cuMemcpyDtoHAsync");
      check(Cu.StreamSynchronize(S), "cuStreamSynchronize");
    } else if (!strcmp(V, "copy-blocking")) {
      launch(C, S);
      check(Cu.MemcpyDtoH(C->Home, C->Flag, 4), "cuMemcpyDtoH");
    } else {
      int Ctx = !strcmp(V, "copy-event-ctx");
      if (!strcmp(V, "copy-event-streams"))
        S = C->Stream[I % Streams];
      CUcontext Popped;
      if (Ctx)
        check(Cu.CtxPushCurrent(C->Ctx), "cuCtxPushCurrent");
      launch(C, S);
      check(Cu.MemcpyDtoHAsync(C->Home, C->Flag, 4, S), "cuMemcpyDtoHAsync");
      check(Cu.EventRecord(C->Done, S), "cuEventRecord");
      if (Ctx) {
        check(Cu.CtxPopCurrent(&Popped), "cuCtxPopCurrent");
        check(Cu.CtxPushCurrent(C->Ctx), "cuCtxPushCurrent");
      }
      check(Cu.EventSynchronize(C->Done), "cuEventSynchronize");
      if (Ctx)
        check(Cu.CtxPopCurrent(&Popped), "cuCtxPopCurrent");
    }
  }
}

static int loadDriver(void) {
  const bench_driver_sym Syms[] = {
      {(void **)&Cu.Init, "cuInit"},
      {(void **)&Cu.DeviceGet, "cuDeviceGet"},
      {(void **)&Cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void **)&Cu.CtxSetCurrent, "cuCtxSetCurrent"},
      {(void **)&Cu.CtxPushCurrent, "cuCtxPushCurrent_v2"},
      {(void **)&Cu.CtxPopCurrent, "cuCtxPopCurrent_v2"},
      {(void **)&Cu.ModuleLoadData, "cuModuleLoadData"},
      {(void **)&Cu.ModuleGetFunction, "cuModuleGetFunction"},
      {(void **)&Cu.StreamCreate, "cuStreamCreate"},
      {(void **)&Cu.StreamSynchronize, "cuStreamSynchronize"},
      {(void **)&Cu.EventCreate, "cuEventCreate"},
      {(void **)&Cu.EventRecord, "cuEventRecord"},
      {(void **)&Cu.EventSynchronize, "cuEventSynchronize"},
      {(void **)&Cu.MemAlloc, "cuMemAlloc_v2"},
      {(void **)&Cu.MemHostAlloc, "cuMemHostAlloc"},
      {(void **)&Cu.MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"},
      {(void **)&Cu.MemcpyDtoH, "cuMemcpyDtoH_v2"},
      {(void **)&Cu.LaunchKernel, "cuLaunchKernel"},
  };
  if (bench_driver_load(Syms, sizeof Syms / sizeof *Syms))
    return 1;
  if (Cu.Init(0) != CUDA_SUCCESS) {
    fprintf(stderr, "no GPU: cuInit failed\n");
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <variant>...\n", argv[0]);
    return 2;
  }
  if (loadDriver())
    return 1;
  struct ctx C;
  CUdevice Dev;
  check(Cu.DeviceGet(&Dev, 0), "cuDeviceGet");
  check(Cu.DevicePrimaryCtxRetain(&C.Ctx, Dev), "cuDevicePrimaryCtxRetain");
  check(Cu.CtxSetCurrent(C.Ctx), "cuCtxSetCurrent");
  CUmodule Mod;
  check(Cu.ModuleLoadData(&Mod, Ptx), "cuModuleLoadData");
  check(Cu.ModuleGetFunction(&C.Fn, Mod, "hpvm_bench_store"),
        "cuModuleGetFunction");
  for (int K = 0; K < Streams; ++K)
    check(Cu.StreamCreate(&C.Stream[K], NON_BLOCKING), "cuStreamCreate");
  check(Cu.EventCreate(&C.Done, DISABLE_TIMING), "cuEventCreate");
  check(Cu.MemAlloc(&C.Flag, 256), "cuMemAlloc");
  check(Cu.MemHostAlloc((void **)&C.Home, 256, 0), "cuMemHostAlloc");
  for (int A = 1; A < argc; ++A) {
    C.Variant = argv[A];
    *C.Home = 0;
    bench_times T = bench_measure(run, &C, 1, Batch);
    bench_report("launch-parts", argv[A], "store-kernel", T, 0, 0,
                 *C.Home == 1);
  }
  return 0;
}
