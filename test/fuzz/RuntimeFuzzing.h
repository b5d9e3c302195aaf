//===- RuntimeFuzzing.h - What the fuzz targets on hpvm-rt share ----------===//
//
// They run hpvm-rt on the CPU alone, with two threads: no device copies
// buffers, so what is fuzzed is the runtime's own code, and every input
// runs the same way on every machine.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_FUZZ_RUNTIMEFUZZING_H
#define HPVM_TEST_FUZZ_RUNTIMEFUZZING_H

#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  setenv("HPVM_DEVICES", "cpu", 1);
  setenv("HPVM_NUM_THREADS", "2", 1);
  return 0;
}

#endif // HPVM_TEST_FUZZ_RUNTIMEFUZZING_H
