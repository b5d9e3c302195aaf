//===- VulkanApi.h - Vulkan entry points without linking Vulkan -*- C++ -*-===//
//
// hpvm-rt must run where no Vulkan loader is installed, so it never links
// libvulkan: the loader is dlopen'ed and every function comes from
// vkGetInstanceProcAddr / vkGetDeviceProcAddr into the tables below. The
// Vulkan headers are used for types only (VK_NO_PROTOTYPES).
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_VULKANAPI_H
#define HPVM_RT_LIB_VULKANAPI_H

#if __has_include(<vulkan/vulkan_core.h>)
#define HPVM_RT_HAVE_VULKAN 1
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan_core.h>

#include <memory>
#include <string>

namespace hpvm::rt::vk {

// Functions needed before an instance exists.
#define HPVM_VK_GLOBAL_FUNCTIONS(X)                                            \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceVersion)

#define HPVM_VK_INSTANCE_FUNCTIONS(X)                                          \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

#define HPVM_VK_DEVICE_FUNCTIONS(X)                                            \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkDeviceWaitIdle)                                                          \
  X(vkQueueSubmit)                                                             \
  X(vkQueueWaitIdle)                                                           \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkGetBufferDeviceAddress)                                                  \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreatePipelineCache)                                                     \
  X(vkDestroyPipelineCache)                                                    \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkResetCommandPool)                                                        \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdPushConstants)                                                        \
  X(vkCmdDispatchBase)                                                         \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkGetQueryPoolResults)                                                     \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkGetFenceStatus)                                                          \
  X(vkWaitForFences)

#define HPVM_VK_DECLARE(Name) PFN_##Name Name = nullptr;

/// The loader, kept loaded for the rest of the process once opened: drivers
/// start threads and register exit handlers, and unloading them under their
/// feet is a classic source of crashes at exit.
struct Library {
  PFN_vkGetInstanceProcAddr GetInstanceProcAddr = nullptr;
  HPVM_VK_GLOBAL_FUNCTIONS(HPVM_VK_DECLARE)

  /// Null with Why set when Path cannot be loaded or is not a Vulkan
  /// loader.
  static std::shared_ptr<Library> open(const std::string &Path,
                                       std::string &Why);
};

struct InstanceFunctions {
  HPVM_VK_INSTANCE_FUNCTIONS(HPVM_VK_DECLARE)
  /// Empty on success, else the first function the loader lacks.
  std::string load(const Library &L, VkInstance I);
};

struct DeviceFunctions {
  HPVM_VK_DEVICE_FUNCTIONS(HPVM_VK_DECLARE)
  std::string load(const InstanceFunctions &IF, VkDevice D);
};

#undef HPVM_VK_DECLARE

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", or the number for codes it does not
/// know.
std::string resultName(VkResult R);

} // namespace hpvm::rt::vk

#else
#define HPVM_RT_HAVE_VULKAN 0
#endif

#endif // HPVM_RT_LIB_VULKANAPI_H
