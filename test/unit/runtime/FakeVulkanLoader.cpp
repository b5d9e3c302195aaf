//===- FakeVulkanLoader.cpp - A stand-in Vulkan loader that keeps count ---===//
//
// LazyDiscoveryTest points HPVM_VULKAN_LOADER here to see whether, and how
// often, hpvm-rt looks for Vulkan devices, whatever driver the machine has.
// It is not a loader: it knows no Vulkan function, so discovery fails
// ("has no vkCreateInstance") and the vulkan kind has no device.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#define HPVM_FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<unsigned> Discoveries{0};

// Being opened at all is what a CPU-only program must avoid. An environment
// variable says so even if the library were closed again, and the test
// reads it without opening the library itself.
__attribute__((constructor)) void markOpened() {
  setenv("HPVM_TEST_FAKE_VULKAN_LOADER_OPENED", "1", 1);
}

} // namespace

using VoidFunction = void (*)();

HPVM_FAKE_EXPORT VoidFunction vkGetInstanceProcAddr(void *, const char *Name) {
  // Loading asks for vkCreateInstance once per discovery. The pause keeps
  // one discovery in progress long enough for concurrent loaders of other
  // programs to arrive while it runs.
  if (Name && std::strcmp(Name, "vkCreateInstance") == 0) {
    Discoveries.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  return nullptr;
}

HPVM_FAKE_EXPORT unsigned hpvmFakeVulkanLoaderDiscoveries() {
  return Discoveries.load();
}
