//===- VulkanTestRunner.h - Run one SPIR-V kernel on a Vulkan device ------===//
//
// Just enough Vulkan to check what the SPIR-V backend's kernels compute:
// host-visible buffers with device addresses, a compute pipeline per kernel
// with the push-constant block of SPIRVABI.h, one dispatch, wait. The real
// device lives in the runtime; this one exists so that the emitter's tests
// do not depend on it. Tests skip (with the reason) when there is no Vulkan
// 1.2 device with buffer device addresses and 64-bit integers.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_UNIT_BACKENDS_VULKANTESTRUNNER_H
#define HPVM_TEST_UNIT_BACKENDS_VULKANTESTRUNNER_H

#include "hpvm/backends/SPIRVBackend.h"

#include <spirv/unified1/spirv.hpp11>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace hpvm::test {

class VulkanTestRunner {
public:
  /// A buffer in host-visible memory, mapped, with its device address.
  struct Buffer {
    VkBuffer Handle = VK_NULL_HANDLE;
    VkDeviceMemory Memory = VK_NULL_HANDLE;
    void *Data = nullptr;
    size_t Bytes = 0;
    uint64_t Address = 0;
    template <typename T> T *as() { return static_cast<T *>(Data); }
  };

  /// The process-wide runner, or null with Reason saying why there is none.
  static VulkanTestRunner *get(std::string &Reason) {
    static std::string Why;
    static std::unique_ptr<VulkanTestRunner> R = [] {
      auto Runner = std::unique_ptr<VulkanTestRunner>(new VulkanTestRunner);
      Why = Runner->init();
      if (!Why.empty())
        Runner.reset();
      return Runner;
    }();
    Reason = Why;
    return R.get();
  }

  ~VulkanTestRunner() {
    if (!Device)
      return;
    vkDeviceWaitIdle(Device);
    for (Buffer &B : Buffers) {
      vkDestroyBuffer(Device, B.Handle, nullptr);
      vkFreeMemory(Device, B.Memory, nullptr);
    }
    vkDestroyCommandPool(Device, Pool, nullptr);
    vkDestroyDevice(Device, nullptr);
    vkDestroyInstance(Instance, nullptr);
  }

  const std::string &deviceName() const { return Name; }
  uint32_t maxPushConstantsSize() const { return MaxPushConstants; }
  bool supportsCapabilities(const std::vector<uint32_t> &Caps) const {
    for (uint32_t C : Caps) {
      bool Ok = true;
      switch (static_cast<spv::Capability>(C)) {
      case spv::Capability::Int8:
        Ok = F12.shaderInt8;
        break;
      case spv::Capability::Int16:
        Ok = F.features.shaderInt16;
        break;
      case spv::Capability::Float64:
        Ok = F.features.shaderFloat64;
        break;
      case spv::Capability::Float16:
        Ok = F12.shaderFloat16;
        break;
      case spv::Capability::StorageBuffer8BitAccess:
        Ok = F12.storageBuffer8BitAccess;
        break;
      case spv::Capability::StorageBuffer16BitAccess:
        Ok = F11.storageBuffer16BitAccess;
        break;
      case spv::Capability::Int64Atomics:
        Ok = F12.shaderBufferInt64Atomics;
        break;
      default:
        break;
      }
      if (!Ok)
        return false;
    }
    return true;
  }

  /// A zeroed buffer of Bytes (at least 4) bytes; lives as long as the
  /// runner.
  Buffer &buffer(size_t Bytes) {
    Bytes = std::max<size_t>(Bytes, 4);
    Buffers.emplace_back();
    Buffer &B = Buffers.back();
    B.Bytes = Bytes;
    VkBufferCreateInfo BI{};
    BI.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    BI.size = Bytes;
    BI.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    BI.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    vkCreateBuffer(Device, &BI, nullptr, &B.Handle);
    VkMemoryRequirements Req;
    vkGetBufferMemoryRequirements(Device, B.Handle, &Req);
    VkMemoryAllocateFlagsInfo Flags{};
    Flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
    Flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo AI{};
    AI.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    AI.pNext = &Flags;
    AI.allocationSize = Req.size;
    AI.memoryTypeIndex = memoryType(Req.memoryTypeBits);
    vkAllocateMemory(Device, &AI, nullptr, &B.Memory);
    vkBindBufferMemory(Device, B.Handle, B.Memory, 0);
    vkMapMemory(Device, B.Memory, 0, VK_WHOLE_SIZE, 0, &B.Data);
    std::memset(B.Data, 0, Bytes);
    VkBufferDeviceAddressInfo DA{};
    DA.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    DA.buffer = B.Handle;
    B.Address = vkGetBufferDeviceAddress(Device, &DA);
    return B;
  }

  /// Runs K once over Extents (node dims, outermost first; missing = 1)
  /// with the push constants (or kernel arguments) in Slots. Returns "" or
  /// what failed.
  std::string run(const SPIRVKernel &K, const std::vector<uint8_t> &Slots,
                  std::array<uint64_t, 3> Extents, unsigned NumDims) {
    if (Slots.size() > MaxPushConstants)
      return "push constants of " + std::to_string(Slots.size()) +
             " bytes exceed the device's " + std::to_string(MaxPushConstants);
    VkShaderModuleCreateInfo SI{};
    SI.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    SI.codeSize = K.Words.size() * 4;
    SI.pCode = K.Words.data();
    VkShaderModule Module;
    if (vkCreateShaderModule(Device, &SI, nullptr, &Module) != VK_SUCCESS)
      return "vkCreateShaderModule failed";
    VkPushConstantRange Range{};
    Range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    Range.size = static_cast<uint32_t>(Slots.size());
    VkPipelineLayoutCreateInfo LI{};
    LI.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    LI.pushConstantRangeCount = Slots.empty() ? 0 : 1;
    LI.pPushConstantRanges = &Range;
    VkPipelineLayout Layout;
    vkCreatePipelineLayout(Device, &LI, nullptr, &Layout);
    VkComputePipelineCreateInfo PI{};
    PI.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    PI.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    PI.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    PI.stage.module = Module;
    PI.stage.pName = K.EntryName.c_str();
    PI.layout = Layout;
    VkPipeline Pipeline;
    VkResult R = vkCreateComputePipelines(Device, VK_NULL_HANDLE, 1, &PI,
                                          nullptr, &Pipeline);
    if (R != VK_SUCCESS) {
      vkDestroyPipelineLayout(Device, Layout, nullptr);
      vkDestroyShaderModule(Device, Module, nullptr);
      return "vkCreateComputePipelines failed: " + std::to_string(R);
    }
    // Node dim D-1 is x: work groups per component, rounded up.
    uint32_t Groups[3] = {1, 1, 1};
    for (unsigned D = 0; D < NumDims; ++D) {
      unsigned C = spirvIdComponent(NumDims, D);
      uint64_t G = (Extents[D] + K.LocalSize[C] - 1) / K.LocalSize[C];
      Groups[C] = static_cast<uint32_t>(std::max<uint64_t>(G, 1));
    }
    bool Empty = false;
    for (unsigned D = 0; D < NumDims; ++D)
      Empty |= Extents[D] == 0;

    VkCommandBufferAllocateInfo CA{};

    CA.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    CA.commandPool = Pool;
    CA.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    CA.commandBufferCount = 1;
    VkCommandBuffer CB;
    vkAllocateCommandBuffers(Device, &CA, &CB);
    VkCommandBufferBeginInfo Begin{};
    Begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    Begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(CB, &Begin);
    vkCmdBindPipeline(CB, VK_PIPELINE_BIND_POINT_COMPUTE, Pipeline);
    if (!Slots.empty())
      vkCmdPushConstants(CB, Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                         static_cast<uint32_t>(Slots.size()), Slots.data());
    if (!Empty)
      vkCmdDispatch(CB, Groups[0], Groups[1], Groups[2]);
    VkMemoryBarrier MB{};
    MB.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    MB.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    MB.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(CB, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &MB, 0, nullptr, 0,
                         nullptr);
    vkEndCommandBuffer(CB);
    VkFenceCreateInfo FI{};
    FI.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkFence Fence;
    vkCreateFence(Device, &FI, nullptr, &Fence);
    VkSubmitInfo Submit{};
    Submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    Submit.commandBufferCount = 1;
    Submit.pCommandBuffers = &CB;
    std::string Result;
    if (vkQueueSubmit(Queue, 1, &Submit, Fence) != VK_SUCCESS ||
        vkWaitForFences(Device, 1, &Fence, VK_TRUE, 60ull * 1000000000ull) !=
            VK_SUCCESS)
      Result = "the dispatch failed or timed out";
    vkDestroyFence(Device, Fence, nullptr);
    vkFreeCommandBuffers(Device, Pool, 1, &CB);
    vkDestroyPipeline(Device, Pipeline, nullptr);
    vkDestroyPipelineLayout(Device, Layout, nullptr);
    vkDestroyShaderModule(Device, Module, nullptr);
    return Result;
  }

private:
  VulkanTestRunner() = default;

  uint32_t memoryType(uint32_t Bits) {
    VkPhysicalDeviceMemoryProperties MP;
    vkGetPhysicalDeviceMemoryProperties(Physical, &MP);
    VkMemoryPropertyFlags Want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t I = 0; I < MP.memoryTypeCount; ++I)
      if ((Bits & (1u << I)) &&
          (MP.memoryTypes[I].propertyFlags & Want) == Want)
        return I;
    return 0;
  }

  std::string init() {
    VkApplicationInfo App{};
    App.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    App.pApplicationName = "hpvm-spirv-tests";
    App.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo II{};
    II.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    II.pApplicationInfo = &App;
    if (vkCreateInstance(&II, nullptr, &Instance) != VK_SUCCESS) {
      Instance = VK_NULL_HANDLE;
      return "no Vulkan instance (is a Vulkan driver installed?)";
    }
    uint32_t Count = 0;
    vkEnumeratePhysicalDevices(Instance, &Count, nullptr);
    std::vector<VkPhysicalDevice> Devices(Count);
    vkEnumeratePhysicalDevices(Instance, &Count, Devices.data());
    std::string Why = "no Vulkan device";
    for (VkPhysicalDevice D : Devices) {
      VkPhysicalDeviceProperties P;
      vkGetPhysicalDeviceProperties(D, &P);
      F11 = {};
      F11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
      F12 = {};
      F12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
      F = {};
      F.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
      F.pNext = &F11;
      F11.pNext = &F12;
      if (P.apiVersion < VK_API_VERSION_1_2) {
        Why = std::string(P.deviceName) + " has no Vulkan 1.2";
        continue;
      }
      vkGetPhysicalDeviceFeatures2(D, &F);
      if (!F12.bufferDeviceAddress || !F.features.shaderInt64) {
        Why = std::string(P.deviceName) +
              " lacks bufferDeviceAddress or shaderInt64";
        continue;
      }
      uint32_t QCount = 0;
      vkGetPhysicalDeviceQueueFamilyProperties(D, &QCount, nullptr);
      std::vector<VkQueueFamilyProperties> Qs(QCount);
      vkGetPhysicalDeviceQueueFamilyProperties(D, &QCount, Qs.data());
      uint32_t Family = UINT32_MAX;
      for (uint32_t Q = 0; Q < QCount; ++Q)
        if (Qs[Q].queueFlags & VK_QUEUE_COMPUTE_BIT) {
          Family = Q;
          break;
        }
      if (Family == UINT32_MAX)
        continue;
      Physical = D;
      Name = P.deviceName;
      MaxPushConstants = P.limits.maxPushConstantsSize;
      // Enable what the device has; kernels that need more are skipped.
      VkPhysicalDeviceFeatures2 Enable = F;
      VkPhysicalDeviceVulkan11Features E11 = F11;
      VkPhysicalDeviceVulkan12Features E12 = F12;
      Enable.pNext = &E11;
      E11.pNext = &E12;
      E12.pNext = nullptr;
      float Priority = 1;
      VkDeviceQueueCreateInfo QI{};
      QI.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
      QI.queueFamilyIndex = Family;
      QI.queueCount = 1;
      QI.pQueuePriorities = &Priority;
      VkDeviceCreateInfo DI{};
      DI.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
      DI.pNext = &Enable;
      DI.queueCreateInfoCount = 1;
      DI.pQueueCreateInfos = &QI;
      if (vkCreateDevice(D, &DI, nullptr, &Device) != VK_SUCCESS) {
        Device = VK_NULL_HANDLE;
        Why = "vkCreateDevice failed on " + Name;
        continue;
      }
      vkGetDeviceQueue(Device, Family, 0, &Queue);
      VkCommandPoolCreateInfo PI{};
      PI.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
      PI.queueFamilyIndex = Family;
      PI.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
      vkCreateCommandPool(Device, &PI, nullptr, &Pool);
      return "";
    }
    return Why;
  }

  VkInstance Instance = VK_NULL_HANDLE;
  VkPhysicalDevice Physical = VK_NULL_HANDLE;
  VkDevice Device = VK_NULL_HANDLE;
  VkQueue Queue = VK_NULL_HANDLE;
  VkCommandPool Pool = VK_NULL_HANDLE;
  VkPhysicalDeviceFeatures2 F{};
  VkPhysicalDeviceVulkan11Features F11{};
  VkPhysicalDeviceVulkan12Features F12{};
  std::string Name;
  uint32_t MaxPushConstants = 0;
  /// A deque: buffer() hands out references that must stay valid.
  std::deque<Buffer> Buffers;
};

} // namespace hpvm::test

#endif // HPVM_TEST_UNIT_BACKENDS_VULKANTESTRUNNER_H
