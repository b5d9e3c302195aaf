//===- RuntimeTestMain.cpp - Runs hpvm-rt-tests in a known environment ----===//
//
// The runtime reads HPVM_* once, at its first use. Tests must not depend on
// the caller's settings, and the concurrency tests need more than one
// thread whatever the machine has, so main fixes the environment first.
// Death tests re-execute this binary ("threadsafe" style) to get a runtime
// that starts afresh under the settings they make.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char **argv) {
  for (const char *Name :
       {"HPVM_DEVICES", "HPVM_DEVICES_STRICT", "HPVM_SCHEDULER", "HPVM_TRACE",
        "HPVM_STATS", "HPVM_SPIN_US", "HPVM_VULKAN_DEVICE",
        "HPVM_VULKAN_LOADER", "HPVM_VULKAN_STAGING", "HPVM_VULKAN_SPIN_US",
        "HPVM_STREAMING_STORES", "HPVM_SERIAL_BELOW_NS", "HPVM_PERF_MODELS"})
    unsetenv(Name);
  setenv("HPVM_NUM_THREADS", "4", 1);
  // Tests give their NVPTX leaves fake devices; a GPU the runtime found by
  // itself would be a second candidate and change where they run. The CUDA
  // tests create their devices explicitly, from the driver they choose.
  setenv("HPVM_CUDA_DRIVER", "/nonexistent/hpvm-rt-tests/libcuda.so.1", 1);
  testing::InitGoogleTest(&argc, argv);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  return RUN_ALL_TESTS();
}
