// The floor under any launch on a Vulkan device: what a minimal hand-written
// Vulkan program spends to run a 2-invocation store (store2.spvasm) and know
// it has finished. Everything is created once; each launch records a command
// buffer (bind the pipeline and the storage buffer's descriptor set,
// dispatch one work-group), submits it with a fence and waits for the fence,
// through the Vulkan API and nothing else. Timed by bench/common/bench.c in
// batches of 1000 launches like the launch benchmark, which bench/run.sh
// sets next to it with HPVM_DEVICES=vulkan.
//
//   launch_raw <variant> [<spv>]
//       variant "vulkan-raw": the thread blocks in vkWaitForFences, as
//       hpvm-rt's launches do; "vulkan-raw-poll": it spins on
//       vkGetFenceStatus instead (a thread that burns a core to be first).
//       <spv> is the assembled kernel (default: store2.spv next to the
//       executable).
//
// libvulkan.so.1 is dlopen'ed, as hpvm-rt does, and the first physical
// device with a compute queue is used: the one hpvm-rt picks where there is
// one device (lavapipe here).
#include "../common/bench.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(VkResult R, const char *Call) {
  if (R == VK_SUCCESS)
    return;
  fprintf(stderr, "launch_raw: %s failed: VkResult %d\n", Call, (int)R);
  exit(1);
}

#define LOAD(Get, Owner, Name)                                                 \
  PFN_##Name Name = (PFN_##Name)Get(Owner, #Name);                             \
  if (!Name) {                                                                 \
    fprintf(stderr, "launch_raw: the Vulkan loader lacks %s\n", #Name);        \
    return 1;                                                                  \
  }

struct ctx {
  PFN_vkResetCommandPool ResetCommandPool;
  PFN_vkBeginCommandBuffer BeginCommandBuffer;
  PFN_vkCmdBindPipeline CmdBindPipeline;
  PFN_vkCmdBindDescriptorSets CmdBindDescriptorSets;
  PFN_vkCmdDispatch CmdDispatch;
  PFN_vkEndCommandBuffer EndCommandBuffer;
  PFN_vkQueueSubmit QueueSubmit;
  PFN_vkWaitForFences WaitForFences;
  PFN_vkGetFenceStatus GetFenceStatus;
  PFN_vkResetFences ResetFences;
  VkDevice Dev;
  VkQueue Queue;
  VkCommandPool Pool;
  VkCommandBuffer Cmd;
  VkPipeline Pipe;
  VkPipelineLayout Layout;
  VkDescriptorSet Set;
  VkFence Fence;
  int Poll;
};

enum { Batch = 1000 };

static void launchOnce(struct ctx *C) {
  check(C->ResetCommandPool(C->Dev, C->Pool, 0), "vkResetCommandPool");
  VkCommandBufferBeginInfo BI = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  check(C->BeginCommandBuffer(C->Cmd, &BI), "vkBeginCommandBuffer");
  C->CmdBindPipeline(C->Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, C->Pipe);
  C->CmdBindDescriptorSets(C->Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, C->Layout, 0,
                           1, &C->Set, 0, NULL);
  C->CmdDispatch(C->Cmd, 1, 1, 1);
  check(C->EndCommandBuffer(C->Cmd), "vkEndCommandBuffer");
  VkSubmitInfo SI = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                     .commandBufferCount = 1,
                     .pCommandBuffers = &C->Cmd};
  check(C->QueueSubmit(C->Queue, 1, &SI, C->Fence), "vkQueueSubmit");
  if (C->Poll) {
    VkResult R;
    while ((R = C->GetFenceStatus(C->Dev, C->Fence)) == VK_NOT_READY)
      ;
    check(R, "vkGetFenceStatus");
  } else {
    check(C->WaitForFences(C->Dev, 1, &C->Fence, VK_TRUE, UINT64_MAX),
          "vkWaitForFences");
  }
  check(C->ResetFences(C->Dev, 1, &C->Fence), "vkResetFences");
}

static void run(void *P) {
  for (int I = 0; I < Batch; ++I)
    launchOnce(P);
}

int main(int argc, char **argv) {
  const char *Variant = argc > 1 ? argv[1] : "vulkan-raw";
  char Beside[4096];
  const char *SpvPath =
      argc > 2 ? argv[2]
               : bench_beside_exe(Beside, sizeof Beside, "store2.spv");
  struct ctx C = {.Poll = strstr(Variant, "poll") != NULL};

  void *Lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    fprintf(stderr, "launch_raw: no Vulkan loader: %s\n", dlerror());
    return 1;
  }
  PFN_vkGetInstanceProcAddr GetInstanceProcAddr =
      (PFN_vkGetInstanceProcAddr)dlsym(Lib, "vkGetInstanceProcAddr");
  if (!GetInstanceProcAddr) {
    fprintf(stderr, "launch_raw: the loader lacks vkGetInstanceProcAddr\n");
    return 1;
  }
  LOAD(GetInstanceProcAddr, NULL, vkCreateInstance);
  VkApplicationInfo App = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "launch_raw",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo II = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pApplicationInfo = &App};
  VkInstance Inst;
  check(vkCreateInstance(&II, NULL, &Inst), "vkCreateInstance");
  LOAD(GetInstanceProcAddr, Inst, vkEnumeratePhysicalDevices);
  LOAD(GetInstanceProcAddr, Inst, vkGetPhysicalDeviceQueueFamilyProperties);
  LOAD(GetInstanceProcAddr, Inst, vkGetPhysicalDeviceMemoryProperties);
  LOAD(GetInstanceProcAddr, Inst, vkGetPhysicalDeviceProperties);
  LOAD(GetInstanceProcAddr, Inst, vkCreateDevice);
  LOAD(GetInstanceProcAddr, Inst, vkGetDeviceProcAddr);

  // The first device with a compute queue family.
  uint32_t NumPhys = 8;
  VkPhysicalDevice Phys[8];
  VkResult R = vkEnumeratePhysicalDevices(Inst, &NumPhys, Phys);
  if (R != VK_SUCCESS && R != VK_INCOMPLETE)
    check(R, "vkEnumeratePhysicalDevices");
  VkPhysicalDevice P = VK_NULL_HANDLE;
  uint32_t Family = 0;
  for (uint32_t D = 0; D < NumPhys && !P; ++D) {
    uint32_t NumFamilies = 16;
    VkQueueFamilyProperties Families[16];
    vkGetPhysicalDeviceQueueFamilyProperties(Phys[D], &NumFamilies, Families);
    for (uint32_t Q = 0; Q < NumFamilies && !P; ++Q)
      if (Families[Q].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        P = Phys[D];
        Family = Q;
      }
  }
  if (!P) {
    fprintf(stderr, "launch_raw: no Vulkan device with a compute queue\n");
    return 1;
  }
  VkPhysicalDeviceProperties Props;
  vkGetPhysicalDeviceProperties(P, &Props);
  fprintf(stderr, "launch_raw: %s\n", Props.deviceName);

  float Priority = 1;
  VkDeviceQueueCreateInfo QI = {.sType =
                                    VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                .queueFamilyIndex = Family,
                                .queueCount = 1,
                                .pQueuePriorities = &Priority};
  VkDeviceCreateInfo DI = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                           .queueCreateInfoCount = 1,
                           .pQueueCreateInfos = &QI};
  check(vkCreateDevice(P, &DI, NULL, &C.Dev), "vkCreateDevice");
  VkDevice Dev = C.Dev;
#define DEV(Name) LOAD(vkGetDeviceProcAddr, Dev, Name)
  DEV(vkGetDeviceQueue);
  DEV(vkCreateBuffer);
  DEV(vkGetBufferMemoryRequirements);
  DEV(vkAllocateMemory);
  DEV(vkBindBufferMemory);
  DEV(vkMapMemory);
  DEV(vkCreateDescriptorSetLayout);
  DEV(vkCreateDescriptorPool);
  DEV(vkAllocateDescriptorSets);
  DEV(vkUpdateDescriptorSets);
  DEV(vkCreatePipelineLayout);
  DEV(vkCreateShaderModule);
  DEV(vkCreateComputePipelines);
  DEV(vkCreateCommandPool);
  DEV(vkAllocateCommandBuffers);
  DEV(vkCreateFence);
  DEV(vkResetCommandPool);
  DEV(vkBeginCommandBuffer);
  DEV(vkCmdBindPipeline);
  DEV(vkCmdBindDescriptorSets);
  DEV(vkCmdDispatch);
  DEV(vkEndCommandBuffer);
  DEV(vkQueueSubmit);
  DEV(vkWaitForFences);
  DEV(vkGetFenceStatus);
  DEV(vkResetFences);
  C.ResetCommandPool = vkResetCommandPool;
  C.BeginCommandBuffer = vkBeginCommandBuffer;
  C.CmdBindPipeline = vkCmdBindPipeline;
  C.CmdBindDescriptorSets = vkCmdBindDescriptorSets;
  C.CmdDispatch = vkCmdDispatch;
  C.EndCommandBuffer = vkEndCommandBuffer;
  C.QueueSubmit = vkQueueSubmit;
  C.WaitForFences = vkWaitForFences;
  C.GetFenceStatus = vkGetFenceStatus;
  C.ResetFences = vkResetFences;
  vkGetDeviceQueue(Dev, Family, 0, &C.Queue);

  // Two ints in host-visible, coherent memory: the host reads the stores.
  VkBufferCreateInfo BCI = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = 8,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  VkBuffer Buf;
  check(vkCreateBuffer(Dev, &BCI, NULL, &Buf), "vkCreateBuffer");
  VkMemoryRequirements Req;
  vkGetBufferMemoryRequirements(Dev, Buf, &Req);
  VkPhysicalDeviceMemoryProperties Mem;
  vkGetPhysicalDeviceMemoryProperties(P, &Mem);
  const VkMemoryPropertyFlags Want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t Type = UINT32_MAX;
  for (uint32_t T = 0; T < Mem.memoryTypeCount && Type == UINT32_MAX; ++T)
    if ((Req.memoryTypeBits & (1u << T)) &&
        (Mem.memoryTypes[T].propertyFlags & Want) == Want)
      Type = T;
  if (Type == UINT32_MAX) {
    fprintf(stderr, "launch_raw: no host-visible coherent memory\n");
    return 1;
  }
  VkMemoryAllocateInfo MAI = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = Req.size,
                              .memoryTypeIndex = Type};
  VkDeviceMemory Memory;
  check(vkAllocateMemory(Dev, &MAI, NULL, &Memory), "vkAllocateMemory");
  check(vkBindBufferMemory(Dev, Buf, Memory, 0), "vkBindBufferMemory");
  volatile int *Flags;
  check(vkMapMemory(Dev, Memory, 0, 8, 0, (void **)&Flags), "vkMapMemory");
  Flags[0] = Flags[1] = 0;

  VkDescriptorSetLayoutBinding Binding = {
      .binding = 0,
      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      .descriptorCount = 1,
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo LCI = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 1,
      .pBindings = &Binding};
  VkDescriptorSetLayout SetLayout;
  check(vkCreateDescriptorSetLayout(Dev, &LCI, NULL, &SetLayout),
        "vkCreateDescriptorSetLayout");
  VkDescriptorPoolSize PoolSize = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
  VkDescriptorPoolCreateInfo DPI = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = 1,
      .poolSizeCount = 1,
      .pPoolSizes = &PoolSize};
  VkDescriptorPool DescPool;
  check(vkCreateDescriptorPool(Dev, &DPI, NULL, &DescPool),
        "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo SAI = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorPool = DescPool,
      .descriptorSetCount = 1,
      .pSetLayouts = &SetLayout};
  check(vkAllocateDescriptorSets(Dev, &SAI, &C.Set),
        "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo DBI = {Buf, 0, 8};
  VkWriteDescriptorSet W = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                            .dstSet = C.Set,
                            .dstBinding = 0,
                            .descriptorCount = 1,
                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            .pBufferInfo = &DBI};
  vkUpdateDescriptorSets(Dev, 1, &W, 0, NULL);
  VkPipelineLayoutCreateInfo PLI = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &SetLayout};
  check(vkCreatePipelineLayout(Dev, &PLI, NULL, &C.Layout),
        "vkCreatePipelineLayout");

  size_t CodeBytes;
  const uint32_t *Code = (const uint32_t *)bench_read_file(SpvPath, &CodeBytes);
  if (CodeBytes == 0 || CodeBytes % 4) {
    fprintf(stderr, "launch_raw: %s is not a SPIR-V module\n", SpvPath);
    return 1;
  }
  VkShaderModuleCreateInfo SMI = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = CodeBytes,
      .pCode = Code};
  VkShaderModule Module;
  check(vkCreateShaderModule(Dev, &SMI, NULL, &Module), "vkCreateShaderModule");
  VkComputePipelineCreateInfo CPI = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = Module,
                .pName = "main"},
      .layout = C.Layout};
  check(vkCreateComputePipelines(Dev, VK_NULL_HANDLE, 1, &CPI, NULL, &C.Pipe),
        "vkCreateComputePipelines");

  VkCommandPoolCreateInfo CPCI = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
      .queueFamilyIndex = Family};
  check(vkCreateCommandPool(Dev, &CPCI, NULL, &C.Pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo CBI = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = C.Pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1};
  check(vkAllocateCommandBuffers(Dev, &CBI, &C.Cmd),
        "vkAllocateCommandBuffers");
  VkFenceCreateInfo FCI = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(vkCreateFence(Dev, &FCI, NULL, &C.Fence), "vkCreateFence");

  bench_times T = bench_measure(run, &C, 1, Batch);
  int Ok = Flags[0] == 1 && Flags[1] == 1;
  bench_report("launch", Variant, "2-instances", T, 0, 0, Ok);
  // The process ends here; the driver's objects go with it.
  return !Ok;
}
