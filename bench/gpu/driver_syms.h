// What bench/gpu/launch_raw.c and launch_parts.c share: libcuda.so.1
// dlopen'ed, as hpvm-rt does, and the Driver API functions they call looked
// up in it, so that they build without linking the driver and say why when
// a machine has none.
#ifndef HPVM_BENCH_GPU_DRIVER_SYMS_H
#define HPVM_BENCH_GPU_DRIVER_SYMS_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/// One function to look up: where its address goes, and its name.
typedef struct {
  void **slot;
  const char *name;
} bench_driver_sym;

/// Opens the driver and fills every slot; returns 0, or prints why not
/// ("no CUDA driver: ...") and returns 1.
static inline int bench_driver_load(const bench_driver_sym *syms,
                                    size_t count) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "no CUDA driver: %s\n", dlerror());
    return 1;
  }
  for (size_t i = 0; i != count; ++i)
    if (!(*syms[i].slot = dlsym(lib, syms[i].name))) {
      fprintf(stderr, "no CUDA driver: libcuda.so.1 lacks %s\n", syms[i].name);
      return 1;
    }
  return 0;
}

#endif // HPVM_BENCH_GPU_DRIVER_SYMS_H
