//===- VulkanApi.cpp - Vulkan entry points without linking Vulkan ---------===//

#include "VulkanApi.h"

#if HPVM_RT_HAVE_VULKAN

#include <dlfcn.h>

using namespace hpvm::rt::vk;

std::shared_ptr<Library> Library::open(const std::string &Path,
                                       std::string &Why) {
  // RTLD_LOCAL: the loader's symbols must not satisfy anyone else's
  // references (a program may carry its own Vulkan code).
  void *Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *E = dlerror();
    Why = "cannot load the Vulkan loader '" + Path +
          "': " + (E ? E : "unknown error");
    return nullptr;
  }
  auto L = std::make_shared<Library>();
  L->GetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(Handle, "vkGetInstanceProcAddr"));
  if (!L->GetInstanceProcAddr) {
    Why = "'" + Path + "' has no vkGetInstanceProcAddr";
    return nullptr;
  }
#define HPVM_VK_LOAD(Name)                                                     \
  L->Name =                                                                    \
      reinterpret_cast<PFN_##Name>(L->GetInstanceProcAddr(nullptr, #Name));
  HPVM_VK_GLOBAL_FUNCTIONS(HPVM_VK_LOAD)
#undef HPVM_VK_LOAD
  if (!L->vkCreateInstance) {
    Why = "'" + Path + "' has no vkCreateInstance";
    return nullptr;
  }
  return L;
}

std::string InstanceFunctions::load(const Library &L, VkInstance I) {
#define HPVM_VK_LOAD(Name)                                                     \
  Name = reinterpret_cast<PFN_##Name>(L.GetInstanceProcAddr(I, #Name));        \
  if (!Name)                                                                   \
    return #Name;
  HPVM_VK_INSTANCE_FUNCTIONS(HPVM_VK_LOAD)
#undef HPVM_VK_LOAD
  return "";
}

std::string DeviceFunctions::load(const InstanceFunctions &IF, VkDevice D) {
#define HPVM_VK_LOAD(Name)                                                     \
  Name = reinterpret_cast<PFN_##Name>(IF.vkGetDeviceProcAddr(D, #Name));       \
  if (!Name)                                                                   \
    return #Name;
  HPVM_VK_DEVICE_FUNCTIONS(HPVM_VK_LOAD)
#undef HPVM_VK_LOAD
  return "";
}

std::string hpvm::rt::vk::resultName(VkResult R) {
  switch (R) {
#define HPVM_VK_CASE(Name)                                                     \
  case Name:                                                                   \
    return #Name;
    HPVM_VK_CASE(VK_SUCCESS)
    HPVM_VK_CASE(VK_NOT_READY)
    HPVM_VK_CASE(VK_TIMEOUT)
    HPVM_VK_CASE(VK_INCOMPLETE)
    HPVM_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    HPVM_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    HPVM_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    HPVM_VK_CASE(VK_ERROR_DEVICE_LOST)
    HPVM_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    HPVM_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    HPVM_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    HPVM_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    HPVM_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    HPVM_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    HPVM_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    HPVM_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    HPVM_VK_CASE(VK_ERROR_UNKNOWN)
    HPVM_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    HPVM_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    HPVM_VK_CASE(VK_ERROR_FRAGMENTATION)
    HPVM_VK_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    HPVM_VK_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    HPVM_VK_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef HPVM_VK_CASE
  default:
    return "VkResult " + std::to_string(static_cast<int>(R));
  }
}

#endif // HPVM_RT_HAVE_VULKAN
