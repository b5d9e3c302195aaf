// The floor under any launch on an NVIDIA GPU: cuLaunchKernel of an empty
// kernel (bench/gpu/empty.cu, as PTX from nvcc -ptx) on one thread, then
// cuStreamSynchronize, through the CUDA Driver API and nothing else. Timed by
// bench/common/bench.c like every benchmark, in batches of 1000 launches;
// the result is per launch+synchronise. bench/gpu/run.sh sets it next to one
// hpvm_launch of the launch benchmark's node with HPVM_DEVICES=cuda.
//
//   launch_raw <variant> [<module> [<fallback module>]]
//       the benchmark; <module> is the PTX (default: empty.ptx next to the
//       executable), <fallback module> a cubin of the same kernel (default
//       empty.cubin there) loaded when the driver rejects the PTX (a driver
//       older than the toolkit's PTX version)
//   launch_raw --probe
//       prints "GPU <index> sm_<major><minor> <name>" per device and
//       "DRIVER <version>", exits 0; or says why there is no usable GPU on
//       stderr and exits 1 (bench/gpu/run.sh's check for a GPU)
//
// libcuda.so.1 is dlopen'ed, as hpvm-rt does, so this builds anywhere the
// toolkit's cuda.h is and runs (to say there is no GPU) without a driver.
#include "../common/bench.h"
#include "driver_syms.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*GetErrorName)(CUresult, const char **);
} Cu;

static const char *errorName(CUresult R) {
  const char *Name = NULL;
  if (Cu.GetErrorName && Cu.GetErrorName(R, &Name) == CUDA_SUCCESS && Name)
    return Name;
  static char Buf[32];
  snprintf(Buf, sizeof Buf, "CUresult %d", (int)R);
  return Buf;
}

static void check(CUresult R, const char *Call) {
  if (R == CUDA_SUCCESS)
    return;
  fprintf(stderr, "launch_raw: %s failed: %s\n", Call, errorName(R));
  exit(3);
}

// Loads the driver and initialises it; returns 0, or prints why not and
// returns 1.
static int loadDriver(void) {
  const bench_driver_sym Syms[] = {
      {(void **)&Cu.Init, "cuInit"},
      {(void **)&Cu.DriverGetVersion, "cuDriverGetVersion"},
      {(void **)&Cu.DeviceGetCount, "cuDeviceGetCount"},
      {(void **)&Cu.DeviceGet, "cuDeviceGet"},
      {(void **)&Cu.DeviceGetName, "cuDeviceGetName"},
      {(void **)&Cu.DeviceGetAttribute, "cuDeviceGetAttribute"},
      {(void **)&Cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void **)&Cu.CtxSetCurrent, "cuCtxSetCurrent"},
      {(void **)&Cu.ModuleLoadData, "cuModuleLoadData"},
      {(void **)&Cu.ModuleGetFunction, "cuModuleGetFunction"},
      {(void **)&Cu.StreamCreate, "cuStreamCreate"},
      {(void **)&Cu.LaunchKernel, "cuLaunchKernel"},
      {(void **)&Cu.StreamSynchronize, "cuStreamSynchronize"},
      {(void **)&Cu.GetErrorName, "cuGetErrorName"},
  };
  if (bench_driver_load(Syms, sizeof Syms / sizeof *Syms))
    return 1;
  CUresult R = Cu.Init(0);
  if (R != CUDA_SUCCESS) {
    fprintf(stderr, "no GPU: cuInit failed: %s\n", errorName(R));
    return 1;
  }
  int Count = 0;
  R = Cu.DeviceGetCount(&Count);
  if (R != CUDA_SUCCESS || Count < 1) {
    fprintf(stderr, "no GPU: the CUDA driver reports %d devices%s%s\n", Count,
            R != CUDA_SUCCESS ? ": " : "",
            R != CUDA_SUCCESS ? errorName(R) : "");
    return 1;
  }
  return 0;
}

static int probe(void) {
  if (loadDriver())
    return 1;
  int Version = 0, Count = 0;
  check(Cu.DriverGetVersion(&Version), "cuDriverGetVersion");
  check(Cu.DeviceGetCount(&Count), "cuDeviceGetCount");
  printf("DRIVER %d.%d\n", Version / 1000, Version % 1000 / 10);
  for (int I = 0; I < Count; ++I) {
    CUdevice Dev;
    char Name[256];
    int Major = 0, Minor = 0;
    check(Cu.DeviceGet(&Dev, I), "cuDeviceGet");
    check(Cu.DeviceGetName(Name, sizeof Name, Dev), "cuDeviceGetName");
    check(Cu.DeviceGetAttribute(
              &Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Dev),
          "cuDeviceGetAttribute");
    check(Cu.DeviceGetAttribute(
              &Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Dev),
          "cuDeviceGetAttribute");
    printf("GPU %d sm_%d%d %s\n", I, Major, Minor, Name);
  }
  return 0;
}

struct ctx {
  CUfunction Fn;
  CUstream Stream;
};

enum { Batch = 1000 };

static void run(void *P) {
  struct ctx *C = P;
  for (int I = 0; I < Batch; ++I) {
    check(Cu.LaunchKernel(C->Fn, 1, 1, 1, 1, 1, 1, 0, C->Stream, NULL, NULL),
          "cuLaunchKernel");
    check(Cu.StreamSynchronize(C->Stream), "cuStreamSynchronize");
  }
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe") == 0)
    return probe();
  if (argc < 2 || argc > 4 || argv[1][0] == '-') {
    fprintf(stderr,
            "usage: %s <variant> [<module.ptx> [<module.cubin>]] | --probe\n",
            argv[0]);
    return 2;
  }
  char PtxBuf[4096], CubinBuf[4096];
  const char *Ptx =
      argc > 2 ? argv[2] : bench_beside_exe(PtxBuf, sizeof PtxBuf, "empty.ptx");
  const char *Cubin =
      argc > 3
          ? argv[3]
          : (argc > 2
                 ? NULL
                 : bench_beside_exe(CubinBuf, sizeof CubinBuf, "empty.cubin"));
  if (loadDriver())
    return 1;
  CUdevice Dev;
  CUcontext Ctx;
  check(Cu.DeviceGet(&Dev, 0), "cuDeviceGet");
  check(Cu.DevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain");
  check(Cu.CtxSetCurrent(Ctx), "cuCtxSetCurrent");

  CUmodule Mod;
  const char *Form = "PTX";
  CUresult R = Cu.ModuleLoadData(&Mod, bench_read_file(Ptx, NULL));
  if (R != CUDA_SUCCESS && Cubin) {
    fprintf(stderr,
            "launch_raw: the driver rejects %s (%s); loading the cubin %s\n",
            Ptx, errorName(R), Cubin);
    Form = "cubin";
    R = Cu.ModuleLoadData(&Mod, bench_read_file(Cubin, NULL));
  }
  check(R, "cuModuleLoadData");
  struct ctx C;
  check(Cu.ModuleGetFunction(&C.Fn, Mod, "hpvm_bench_empty"),
        "cuModuleGetFunction");
  check(Cu.StreamCreate(&C.Stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

  bench_times T = bench_measure(run, &C, 1, Batch);
  char Size[64];
  snprintf(Size, sizeof Size, "empty-kernel,%s", Form);
  // Nothing to check beyond every call succeeding (check() exits otherwise).
  bench_report("launch-raw", argv[1], Size, T, 0, 0, 1);
  return 0;
}
