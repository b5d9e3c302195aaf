//===- VulkanDevice.cpp - Leaves compiled to SPIR-V, run through Vulkan ---===//
//
// One VkDevice, one compute queue. Decisions, and why:
//
// * Buffers are VkBuffers with SHADER_DEVICE_ADDRESS usage: kernels receive
//   64-bit device addresses in push constants, so no descriptor sets exist
//   and a launch records only a bind, a push and a dispatch.
// * Memory: where the device has device-local memory the host cannot map
//   (discrete GPUs), buffers live there and copies go through host-visible
//   staging buffers; where host-visible memory is all there is (lavapipe,
//   integrated GPUs), buffers are mapped once and copies are memcpy.
// * The coherence directory decides when to copy (it calls copyFromHost /
//   copyToHost only for invalid copies). Uploads it asks for are recorded
//   into a pending command buffer and submitted together with the next
//   launch, so a launch with its inputs is one vkQueueSubmit and one wait.
// * Coherence frees device copies at the end of each launch; freed buffers
//   go to a pool (by size class) so that the next launch of the same
//   program allocates nothing.
// * Pipelines are cached by a hash of the SPIR-V words and the entry point
//   (verified by comparing the words), so a program's second launch
//   creates nothing; a VkPipelineCache lets the driver share its own work.
// * Timestamps around every dispatch and batch of copies become device-side
//   trace events, placed on the host time line by bounding the device clock
//   between submit and fence (no calibration extension needed).
// * Every VkResult that is not VK_SUCCESS becomes an RtError naming the
//   call; a lost device fails every later call instead of crashing.
//
//===----------------------------------------------------------------------===//

#include "CompletionThread.h"
#include "DeviceSupport.h"
#include "EagerDownloads.h"
#include "PlanBuilder.h"
#include "SmallArray.h"
#include "SpirvModuleCache.h"
#include "VulkanApi.h"
#include "VulkanSpirv.h"

#include "hpvm/abi/SPIRVABI.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/Trace.h"
#include "hpvm/rt/Vulkan.h"

#if !HPVM_RT_HAVE_VULKAN

std::string
hpvm::rt::discoverVulkanDevices(const DiscoveryContext &, const VulkanOptions &,
                                std::vector<std::unique_ptr<Device>> &) {
  return "this hpvm-rt was built without the Vulkan headers";
}

#else

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

using namespace hpvm;
using namespace hpvm::rt;

namespace {

/// Largest staging buffer; bigger copies go in pieces.
constexpr size_t StagingChunk = size_t(16) << 20;
/// Pending upload bytes after which the batch is submitted on its own, so
/// that staging memory stays bounded.
constexpr size_t BatchLimit = size_t(64) << 20;
/// The longest push-constant block this device marshals (Vulkan devices
/// report 128 to 256 bytes; the bound keeps the block on the stack).
constexpr uint32_t PushLimit = 4096;

std::string versionText(uint32_t V) {
  return std::to_string(VK_API_VERSION_MAJOR(V)) + "." +
         std::to_string(VK_API_VERSION_MINOR(V));
}

const char *typeName(VkPhysicalDeviceType T) {
  switch (T) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "cpu";
  default:
    return "other";
  }
}

struct Instance {
  std::shared_ptr<vk::Library> Lib;
  VkInstance Handle = VK_NULL_HANDLE;
  vk::InstanceFunctions F;
  ~Instance() {
    if (Handle)
      F.vkDestroyInstance(Handle, nullptr);
  }
};

/// What the device learnt about a physical device while choosing.
struct Probe {
  VkPhysicalDevice Handle = VK_NULL_HANDLE;
  VulkanPhysicalInfo Info;
  VkPhysicalDeviceFeatures2 Features{};
  VkPhysicalDeviceVulkan11Features Features11{};
  VkPhysicalDeviceVulkan12Features Features12{};
  VkPhysicalDeviceVulkan12Properties Properties12{};
};

/// What allocate() hands out: one buffer in this device's memory.
struct VkBuf {
  VkBuffer Buffer = VK_NULL_HANDLE;
  VkDeviceMemory Memory = VK_NULL_HANDLE;
  VkDeviceAddress Address = 0;
  void *Mapped = nullptr;
  size_t Capacity = 0;
};

/// A command buffer with its fence and timestamp queries; reused.
struct Submission {
  VkCommandPool Pool = VK_NULL_HANDLE;
  VkCommandBuffer Cmd = VK_NULL_HANDLE;
  VkFence Fence = VK_NULL_HANDLE;
  VkQueryPool Queries = VK_NULL_HANDLE;
  /// Whether it writes its timestamps: only while tracing, which is all
  /// they are for (on lavapipe each costs a flush of the queue's work).
  bool Timed = false;
  /// Staging buffers it reads or writes, back to the pool when it is done.
  std::vector<VkBuf *> Staging;
  /// The pending uploads submitted in the same vkQueueSubmit.
  Submission *Batch = nullptr;
  /// The slots its launch copies the buffers it writes into.
  std::vector<EagerDownloads::Ticket> Eager;
  /// A kernel's parameters where they are more than the push constants
  /// every device has (SPIRVABI.h); made the first time one is, kept.
  VkBuf *Params = nullptr;
  uint64_t Bytes = 0;     // bytes copied by it
  uint64_t Submitted = 0; // nowNanos() just before vkQueueSubmit
  uint64_t Finished = 0;  // nowNanos() when the completion thread saw it done
  uint64_t Instances = 0;
  const char *Name = ""; // the trace event's (a node path outlives it)
  /// lavapipe: another kernel's wait found the loop status word set while
  /// this one may have been running (checkLoopStatus).
  bool MayBeCut = false;
};

struct Pipeline : SpirvModule {
  VkPipeline Handle = VK_NULL_HANDLE;
  /// A work-group kernel whose size is specialised: one pipeline per size.
  std::mutex SizedM;
  std::map<std::array<uint32_t, 3>, VkPipeline> Sized;
};

class VulkanDeviceImpl final : public VulkanDevice {
public:
  VulkanDeviceImpl(std::shared_ptr<Instance> Inst, const Probe &P,
                   const VulkanOptions &O, const DiscoveryContext &Ctx);
  ~VulkanDeviceImpl() override;

  const std::string &name() const override { return Name; }
  uint32_t target() const override { return HPVM_TARGET_SPIRV; }
  MemorySpace memorySpace() const override { return Space; }
  void *allocate(size_t Bytes) override;
  void free(void *Ptr) override;
  void copyFromHost(void *Dst, uint64_t Offset, const void *HostSrc,
                    size_t Bytes) override;
  void copyToHost(void *HostDst, const void *Src, uint64_t Offset,
                  size_t Bytes) override;
  bool prepare(KernelLaunch &L) override;
  void launch(const KernelLaunch &L, LaunchToken &T) override;
  void wait(LaunchToken &T) override;
  bool whenDone(LaunchToken &T, void (*Done)(void *), void *Ctx) override {
    return T.Handle && Completions.add(T.Handle, Done, Ctx);
  }
  std::string description() const override;

  Counters counters() const override;
  const VulkanPhysicalInfo &physicalDevice() const override { return Info; }
  bool usesStaging() const override { return Staging; }
  uint32_t maxPushConstantsSize() const override { return MaxPush; }
  std::string cannotRun(const Node &Leaf, unsigned OuterLevels) const override {
    return paramsTooBig(Leaf.Params.size(), OuterLevels);
  }
  bool fitsWorkGroup(const uint64_t *Group) const override {
    return fitsWorkGroupLimits(Group, MaxGroupItems, MaxGroupSize);
  }
  uint32_t maxWorkGroups(unsigned Axis) const override {
    return Axis < 3 ? MaxGroups[Axis] : 0;
  }
  bool hasTimestamps() const override { return Timestamps; }

private:
  std::shared_ptr<Instance> Inst;
  VulkanPhysicalInfo Info;
  std::string Name;
  MemorySpace Space;
  Trace *Events;
  VkPhysicalDevice Phys;
  VkDevice Dev = VK_NULL_HANDLE;
  vk::DeviceFunctions F;
  VkQueue Queue = VK_NULL_HANDLE;
  uint32_t QueueFamily = 0;
  VkPhysicalDeviceMemoryProperties MemProps{};
  uint32_t MaxPush = 0;
  uint32_t MaxGroups[3] = {0, 0, 0};
  /// The largest work-group: work-items in all, and along x, y, z.
  uint64_t MaxGroupItems = 0, MaxGroupSize[3] = {0, 0, 0};
  bool Staging = false;
  /// How long a wait polls a fence before it blocks (VulkanOptions).
  uint64_t SpinNanos = 0;
  bool Timestamps = false;
  double TimestampPeriod = 1;
  uint64_t TimestampMask = ~0ull;
  VkPipelineLayout Layout = VK_NULL_HANDLE;
  VkPipelineCache Cache = VK_NULL_HANDLE;
  /// lavapipe only: the word its kernels set when they ran into its loop
  /// limit (hpvm/abi/SPIRVABI.h), and its address for the pipelines.
  VkBuf *LoopStatus = nullptr;
  uint64_t LoopStatusAddress = 0;
  /// Kernel launches submitted and not yet checked: the word is one for
  /// the device, so when a wait finds it set, any of them may have been
  /// cut (under CutM).
  std::mutex CutM;
  std::vector<Submission *> Unchecked;
  /// SPIR-V capabilities whose feature the device lacks, with the end of
  /// the message saying so.
  MissingCapabilityList MissingCapabilities;

  // A lost device (or a failed submit) fails every later call.
  StickyFailure Broken;

  // Lock order: PendingM, then QueueM; BufM, SubM alone.
  std::mutex QueueM;
  std::mutex PendingM;
  Submission *Pending = nullptr;
  std::mutex SubM;
  std::vector<std::unique_ptr<Submission>> Submissions;
  std::vector<Submission *> FreeSubmissions;
  std::mutex BufM;
  std::unordered_set<VkBuf *> Live;
  BufferPool<VkBuf *> FreeBuffers{BufferPoolLimit},
      FreeStaging{StagingPoolLimit};
  SpirvModuleCache<Pipeline> Pipelines;
  DeviceClock Clock;
  // Launches in flight for whenDone; their fences are waited for in
  // submission order, which is the order the one queue runs them in.
  CompletionThread Completions{[this](void *H) {
    auto *S = static_cast<Submission *>(H);
    waitFence(S);
    S->Finished = nowNanos();
  }};

  /// With staging: small buffers a launch writes, copied home by the
  /// launch's own submission into slots of EagerArena (EagerDownloads.h).
  EagerDownloads Eager;
  VkBuf *EagerArena = nullptr;
  std::atomic<uint64_t> NumSubmits{0}, NumDispatches{0}, NumStagingBytes{0},
      NumAllocations{0};

  [[noreturn]] void fail(const std::string &What) const {
    throw RtError(HPVM_ERR_DEVICE, Name + ": " + What);
  }
  void check(VkResult R, const char *Call, const std::string &What = "") {
    if (R == VK_SUCCESS)
      return;
    if (R == VK_ERROR_DEVICE_LOST)
      Broken.set(std::string(Call) + " returned VK_ERROR_DEVICE_LOST");
    fail(std::string(Call) + " failed: " + vk::resultName(R) +
         (What.empty() ? "" : " (" + What + ")"));
  }

  /// HostVisible: a storage buffer the host maps even when the others are
  /// staged.
  VkBuf *createBuffer(size_t Bytes, bool ForStaging, bool HostVisible = false);
  void destroyBuffer(VkBuf *B);
  int memoryType(uint32_t Allowed, VkMemoryPropertyFlags Required,
                 VkMemoryPropertyFlags Preferred,
                 VkMemoryPropertyFlags Avoided) const;
  VkBuf *takeStaging(size_t Bytes);
  void returnStaging(VkBuf *B);

  Submission *takeSubmission();
  void releaseSubmission(Submission *S);
  void begin(Submission *S);
  void barrier(VkCommandBuffer Cmd, VkPipelineStageFlags Src,
               VkAccessFlags SrcAccess, VkPipelineStageFlags Dst,
               VkAccessFlags DstAccess);
  void submit(Submission *S);
  VkResult waitFence(Submission *S);
  void finish(Submission *S);
  void flushPending();
  void traceSubmission(Submission *S, uint64_t Done);
  void checkLoopStatus(Submission *S);
  /// Why a kernel's parameters do not fit (SPIRVABI.h), or "".
  static std::string paramsTooBig(size_t NumParams, unsigned OuterLevels) {
    size_t Bytes = 8 * (NumParams + 3 * size_t(OuterLevels));
    if (Bytes <= SPIRVMaxParamBlockBytes)
      return "";
    return "needs " + std::to_string(Bytes) + " bytes of parameters (" +
           std::to_string(NumParams) + " parameters and " +
           std::to_string(OuterLevels) +
           " ancestor levels of 3 ids, 8 bytes each), more than the " +
           std::to_string(SPIRVMaxParamBlockBytes) +
           " a Vulkan kernel may take";
  }

  Pipeline &pipeline(const KernelLaunch &L, bool *Created = nullptr);
  VkPipeline createPipeline(const Pipeline &P, const uint32_t *GroupSize,
                            const std::string &Where);
  VkPipeline sizedPipeline(Pipeline &P, const uint64_t *GroupSize,
                           const std::string &Where);
  void init(const Probe &P, const VulkanOptions &O);
  void destroy();
};

} // namespace

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

VulkanDeviceImpl::VulkanDeviceImpl(std::shared_ptr<Instance> I, const Probe &P,
                                   const VulkanOptions &O,
                                   const DiscoveryContext &Ctx)
    : Inst(std::move(I)), Info(P.Info),
      Name("vulkan:" + std::to_string(P.Info.Index)),
      Space(Ctx.NewSpace(Ctx.Cookie)), Events(Ctx.Events), Phys(P.Handle) {
  // A constructor that throws runs no destructor: undo by hand.
  try {
    init(P, O);
  } catch (...) {
    destroy();
    throw;
  }
}

void VulkanDeviceImpl::init(const Probe &P, const VulkanOptions &O) {
  const vk::InstanceFunctions &IF = Inst->F;
  VkPhysicalDeviceProperties Props;
  IF.vkGetPhysicalDeviceProperties(Phys, &Props);
  IF.vkGetPhysicalDeviceMemoryProperties(Phys, &MemProps);
  MaxPush = std::min(Props.limits.maxPushConstantsSize, PushLimit) & ~3u;
  for (unsigned A = 0; A != 3; ++A) {
    MaxGroups[A] = Props.limits.maxComputeWorkGroupCount[A];
    MaxGroupSize[A] = Props.limits.maxComputeWorkGroupSize[A];
  }
  MaxGroupItems = Props.limits.maxComputeWorkGroupInvocations;
  TimestampPeriod = Props.limits.timestampPeriod;

  // A queue that computes; one without graphics may run beside a display
  // server's work, and timestamps are wanted for the trace.
  uint32_t NumFamilies = 0;
  IF.vkGetPhysicalDeviceQueueFamilyProperties(Phys, &NumFamilies, nullptr);
  std::vector<VkQueueFamilyProperties> Families(NumFamilies);
  IF.vkGetPhysicalDeviceQueueFamilyProperties(Phys, &NumFamilies,
                                              Families.data());
  int Best = -1, BestScore = -1;
  for (uint32_t Q = 0; Q != NumFamilies; ++Q) {
    const VkQueueFamilyProperties &FP = Families[Q];
    if (!(FP.queueFlags & VK_QUEUE_COMPUTE_BIT) || FP.queueCount == 0)
      continue;
    int Score = (FP.timestampValidBits ? 2 : 0) +
                (FP.queueFlags & VK_QUEUE_GRAPHICS_BIT ? 0 : 1);
    if (Score > BestScore) {
      Best = static_cast<int>(Q);
      BestScore = Score;
    }
  }
  if (Best < 0)
    fail("no compute queue");
  QueueFamily = static_cast<uint32_t>(Best);
  uint32_t Bits = Families[QueueFamily].timestampValidBits;
  Timestamps = Bits != 0 && TimestampPeriod > 0;
  TimestampMask = Bits >= 64 ? ~0ull : (1ull << Bits) - 1;

  // Required features, plus the narrow and wide types the SPIR-V backend
  // may use wherever the device has them.
  VkPhysicalDeviceFeatures2 E{};
  VkPhysicalDeviceVulkan11Features E11{};
  VkPhysicalDeviceVulkan12Features E12{};
  E.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  E11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  E12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  E.pNext = &E11;
  E11.pNext = &E12;
  const VkPhysicalDeviceFeatures &A = P.Features.features;
  E.features.shaderInt64 = VK_TRUE;
  E.features.shaderInt16 = A.shaderInt16;
  E.features.shaderFloat64 = A.shaderFloat64;
  const VkPhysicalDeviceVulkan11Features &A11 = P.Features11;
  E11.storageBuffer16BitAccess = A11.storageBuffer16BitAccess;
  E11.uniformAndStorageBuffer16BitAccess =
      A11.uniformAndStorageBuffer16BitAccess;
  E11.storagePushConstant16 = A11.storagePushConstant16;
  E11.variablePointersStorageBuffer = A11.variablePointersStorageBuffer;
  E11.variablePointers = A11.variablePointers;
  const VkPhysicalDeviceVulkan12Features &A12 = P.Features12;
  E12.bufferDeviceAddress = VK_TRUE;
  E12.shaderInt8 = A12.shaderInt8;
  E12.shaderFloat16 = A12.shaderFloat16;
  E12.storageBuffer8BitAccess = A12.storageBuffer8BitAccess;
  E12.uniformAndStorageBuffer8BitAccess = A12.uniformAndStorageBuffer8BitAccess;
  E12.storagePushConstant8 = A12.storagePushConstant8;
  E12.shaderBufferInt64Atomics = A12.shaderBufferInt64Atomics;
  E12.shaderSharedInt64Atomics = A12.shaderSharedInt64Atomics;
  E12.scalarBlockLayout = A12.scalarBlockLayout;
  E12.vulkanMemoryModel = A12.vulkanMemoryModel;
  E12.vulkanMemoryModelDeviceScope = A12.vulkanMemoryModelDeviceScope;

  // Modules keep IEEE infinities, NaNs and signed zeros for every float
  // width they use; one capability stands for all widths, so a device must
  // keep them for each width it computes in.
  const VkPhysicalDeviceVulkan12Properties &P12 = P.Properties12;
  const char *LacksIeee =
      !P12.shaderSignedZeroInfNanPreserveFloat32
          ? "shaderSignedZeroInfNanPreserveFloat32"
      : E.features.shaderFloat64 && !P12.shaderSignedZeroInfNanPreserveFloat64
          ? "shaderSignedZeroInfNanPreserveFloat64"
      : E12.shaderFloat16 && !P12.shaderSignedZeroInfNanPreserveFloat16
          ? "shaderSignedZeroInfNanPreserveFloat16"
          : nullptr;

  // What a module may not ask for here (SPIR-V capability numbers from the
  // specification's Capability table).
  const struct {
    uint32_t Capability;
    const char *Name, *Feature;
    VkBool32 Enabled;
  } Needs[] = {
      {9, "Float16", "shaderFloat16", E12.shaderFloat16},
      {10, "Float64", "shaderFloat64", E.features.shaderFloat64},
      {12, "Int64Atomics", "shaderBufferInt64Atomics",
       E12.shaderBufferInt64Atomics},
      {22, "Int16", "shaderInt16", E.features.shaderInt16},
      {39, "Int8", "shaderInt8", E12.shaderInt8},
      {4433, "StorageBuffer16BitAccess", "storageBuffer16BitAccess",
       E11.storageBuffer16BitAccess},
      {4434, "UniformAndStorageBuffer16BitAccess",
       "uniformAndStorageBuffer16BitAccess",
       E11.uniformAndStorageBuffer16BitAccess},
      {4435, "StoragePushConstant16", "storagePushConstant16",
       E11.storagePushConstant16},
      {4441, "VariablePointersStorageBuffer", "variablePointersStorageBuffer",
       E11.variablePointersStorageBuffer},
      {4442, "VariablePointers", "variablePointers", E11.variablePointers},
      {4448, "StorageBuffer8BitAccess", "storageBuffer8BitAccess",
       E12.storageBuffer8BitAccess},
      {4449, "UniformAndStorageBuffer8BitAccess",
       "uniformAndStorageBuffer8BitAccess",
       E12.uniformAndStorageBuffer8BitAccess},
      {4450, "StoragePushConstant8", "storagePushConstant8",
       E12.storagePushConstant8},
      {4466, "SignedZeroInfNanPreserve", LacksIeee ? LacksIeee : "",
       LacksIeee == nullptr},
      {5345, "VulkanMemoryModel", "vulkanMemoryModel", E12.vulkanMemoryModel},
      {5346, "VulkanMemoryModelDeviceScope", "vulkanMemoryModelDeviceScope",
       E12.vulkanMemoryModelDeviceScope},
  };
  for (const auto &N : Needs)
    if (!N.Enabled)
      MissingCapabilities.push_back(
          {N.Capability, std::string(N.Name) + ", but " + Info.Name +
                             " lacks the feature " + N.Feature});

  float Priority = 1.0f;
  VkDeviceQueueCreateInfo QI{};
  QI.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  QI.queueFamilyIndex = QueueFamily;
  QI.queueCount = 1;
  QI.pQueuePriorities = &Priority;
  VkDeviceCreateInfo DI{};
  DI.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  DI.pNext = &E;
  DI.queueCreateInfoCount = 1;
  DI.pQueueCreateInfos = &QI;
  VkResult R = IF.vkCreateDevice(Phys, &DI, nullptr, &Dev);
  if (R != VK_SUCCESS) {
    Dev = VK_NULL_HANDLE;
    fail("vkCreateDevice failed: " + vk::resultName(R));
  }
  std::string Missing = F.load(IF, Dev);
  if (!Missing.empty()) {
    auto Destroy = reinterpret_cast<PFN_vkDestroyDevice>(
        IF.vkGetDeviceProcAddr(Dev, "vkDestroyDevice"));
    if (Destroy)
      Destroy(Dev, nullptr);
    Dev = VK_NULL_HANDLE;
    fail("the driver lacks " + Missing);
  }
  F.vkGetDeviceQueue(Dev, QueueFamily, 0, &Queue);

  // Staging pays off only where some device-local memory is out of the
  // host's reach; where every kind is host-visible it is a wasted copy.
  bool HiddenLocal = false;
  for (uint32_t T = 0; T != MemProps.memoryTypeCount; ++T) {
    VkMemoryPropertyFlags Flags = MemProps.memoryTypes[T].propertyFlags;
    if ((Flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
        !(Flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
      HiddenLocal = true;
  }
  Staging = O.StagingMode == VulkanOptions::Staging::Always ||
            (O.StagingMode == VulkanOptions::Staging::Auto && HiddenLocal);
  SpinNanos = uint64_t(O.SpinMicros >= 0    ? O.SpinMicros
                       : Info.Type == "cpu" ? 0
                                            : 64) *
              1000;
  if (Staging)
    EagerArena =
        createBuffer(EagerDownloads::NumSlots * EagerDownloads::SlotBytes,
                     /*ForStaging=*/true);

  VkPushConstantRange Range{VK_SHADER_STAGE_COMPUTE_BIT, 0, MaxPush};
  VkPipelineLayoutCreateInfo LI{};
  LI.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  LI.pushConstantRangeCount = 1;
  LI.pPushConstantRanges = &Range;
  check(F.vkCreatePipelineLayout(Dev, &LI, nullptr, &Layout),
        "vkCreatePipelineLayout");
  VkPipelineCacheCreateInfo CI{};
  CI.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  check(F.vkCreatePipelineCache(Dev, &CI, nullptr, &Cache),
        "vkCreatePipelineCache");

  // Mesa's llvmpipe ends the loops of an invocation after 65535 iterations
  // in all; its kernels say so in this word (VK_DRIVER_ID_MESA_LLVMPIPE
  // reports the name "llvmpipe (...)").
  if (Info.Name.rfind("llvmpipe", 0) == 0) {
    LoopStatus = createBuffer(64, /*ForStaging=*/false, /*HostVisible=*/true);
    std::memset(LoopStatus->Mapped, 0, 64);
    LoopStatusAddress = LoopStatus->Address;
  }
}

VulkanDeviceImpl::~VulkanDeviceImpl() { destroy(); }

void VulkanDeviceImpl::destroy() {
  if (!Dev)
    return;
  Completions.stop();
  // Whatever is still queued must finish before its objects go.
  F.vkDeviceWaitIdle(Dev);
  Pipelines.clear([&](Pipeline &P) {
    F.vkDestroyPipeline(Dev, P.Handle, nullptr);
    for (auto &[Size, Handle] : P.Sized)
      F.vkDestroyPipeline(Dev, Handle, nullptr);
  });
  if (Cache)
    F.vkDestroyPipelineCache(Dev, Cache, nullptr);
  if (Layout)
    F.vkDestroyPipelineLayout(Dev, Layout, nullptr);
  for (auto &S : Submissions) {
    for (VkBuf *B : S->Staging)
      destroyBuffer(B);
    if (S->Params)
      destroyBuffer(S->Params);
    if (S->Queries)
      F.vkDestroyQueryPool(Dev, S->Queries, nullptr);
    F.vkDestroyFence(Dev, S->Fence, nullptr);
    F.vkDestroyCommandPool(Dev, S->Pool, nullptr);
  }
  for (VkBuf *B : Live)
    destroyBuffer(B);
  if (LoopStatus)
    destroyBuffer(LoopStatus);
  if (EagerArena)
    destroyBuffer(EagerArena);
  for (VkBuf *B : FreeBuffers.drain())
    destroyBuffer(B);
  for (VkBuf *B : FreeStaging.drain())
    destroyBuffer(B);
  Submissions.clear();
  Live.clear();
  F.vkDestroyDevice(Dev, nullptr);
  Dev = VK_NULL_HANDLE;
}

std::string VulkanDeviceImpl::description() const {
  return Name + " (" + Info.Name + "; " + Info.Type + "; Vulkan " +
         versionText(Info.ApiVersion) + "; " +
         (Staging ? "device-local memory, staging" : "host-visible memory") +
         ")";
}

VulkanDevice::Counters VulkanDeviceImpl::counters() const {
  Counters C;
  C.PipelinesCreated = Pipelines.made();
  C.PipelineCacheHits = Pipelines.hits();
  C.Submits = NumSubmits.load();
  C.Dispatches = NumDispatches.load();
  C.StagingBytes = NumStagingBytes.load();
  C.EagerDownloadBytes = Eager.served();
  C.MemoryAllocations = NumAllocations.load();
  C.PooledAllocations = FreeBuffers.reused();
  return C;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

int VulkanDeviceImpl::memoryType(uint32_t Allowed,
                                 VkMemoryPropertyFlags Required,
                                 VkMemoryPropertyFlags Preferred,
                                 VkMemoryPropertyFlags Avoided) const {
  int Best = -1, BestScore = -1;
  for (uint32_t T = 0; T != MemProps.memoryTypeCount; ++T) {
    VkMemoryPropertyFlags Flags = MemProps.memoryTypes[T].propertyFlags;
    if (!(Allowed & (1u << T)) || (Flags & Required) != Required)
      continue;
    int Score = ((Flags & Preferred) == Preferred ? 2 : 0) +
                ((Flags & Avoided) == 0 ? 1 : 0);
    // The first of equals: drivers list their fastest kinds first.
    if (Score > BestScore) {
      Best = static_cast<int>(T);
      BestScore = Score;
    }
  }
  return Best;
}

VkBuf *VulkanDeviceImpl::createBuffer(size_t Bytes, bool ForStaging,
                                      bool HostVisible) {
  auto B = std::make_unique<VkBuf>();
  B->Capacity = Bytes;
  VkBufferCreateInfo BI{};
  BI.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  BI.size = Bytes;
  BI.usage =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (!ForStaging)
    BI.usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  BI.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  std::string What = std::to_string(Bytes) + " bytes";
  check(F.vkCreateBuffer(Dev, &BI, nullptr, &B->Buffer), "vkCreateBuffer",
        What);

  VkMemoryRequirements Req;
  F.vkGetBufferMemoryRequirements(Dev, B->Buffer, &Req);
  const VkMemoryPropertyFlags Host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags Local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  int Type;
  bool Map = ForStaging || !Staging || HostVisible;
  if (ForStaging) // host memory the device reads over the bus, cached reads
    Type = memoryType(Req.memoryTypeBits, Host,
                      VK_MEMORY_PROPERTY_HOST_CACHED_BIT, Local);
  else if (Staging && !HostVisible) // memory the host need not see
    Type = memoryType(Req.memoryTypeBits, Local, Local,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  else // mapped once, copies are memcpy
    Type = memoryType(Req.memoryTypeBits, Host, Local, 0);
  if (Type < 0) {
    F.vkDestroyBuffer(Dev, B->Buffer, nullptr);
    fail(std::string("no memory type suits a ") +
         (ForStaging ? "staging" : "storage") + " buffer of " + What);
  }

  VkMemoryAllocateFlagsInfo FI{};
  FI.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  FI.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo AI{};
  AI.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  AI.pNext = ForStaging ? nullptr : &FI;
  AI.allocationSize = Req.size;
  AI.memoryTypeIndex = static_cast<uint32_t>(Type);
  VkResult R = F.vkAllocateMemory(Dev, &AI, nullptr, &B->Memory);
  if (R == VK_SUCCESS) {
    R = F.vkBindBufferMemory(Dev, B->Buffer, B->Memory, 0);
    if (R == VK_SUCCESS && Map)
      R = F.vkMapMemory(Dev, B->Memory, 0, VK_WHOLE_SIZE, 0, &B->Mapped);
  }
  if (R != VK_SUCCESS) {
    destroyBuffer(B.release());
    check(R, "vkAllocateMemory", What);
  }
  if (!ForStaging) {
    VkBufferDeviceAddressInfo DA{};
    DA.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    DA.buffer = B->Buffer;
    B->Address = F.vkGetBufferDeviceAddress(Dev, &DA);
  }
  NumAllocations.fetch_add(1, std::memory_order_relaxed);
  return B.release();
}

void VulkanDeviceImpl::destroyBuffer(VkBuf *B) {
  // Freeing memory unmaps it.
  if (B->Buffer)
    F.vkDestroyBuffer(Dev, B->Buffer, nullptr);
  if (B->Memory)
    F.vkFreeMemory(Dev, B->Memory, nullptr);
  delete B;
}

void *VulkanDeviceImpl::allocate(size_t Bytes) {
  Broken.checkUsable(Name);
  size_t Class = poolSizeClass(Bytes);
  {
    std::lock_guard<std::mutex> L(BufM);
    if (std::optional<VkBuf *> B = FreeBuffers.take(Class)) {
      Live.insert(*B);
      return *B;
    }
  }
  VkBuf *B = createBuffer(Class, /*ForStaging=*/false);
  std::lock_guard<std::mutex> L(BufM);
  Live.insert(B);
  return B;
}

void VulkanDeviceImpl::free(void *Ptr) {
  auto *B = static_cast<VkBuf *>(Ptr);
  {
    std::lock_guard<std::mutex> L(BufM);
    if (!Live.erase(B))
      return; // not ours; never dereference it
  }
  Eager.forget(B);
  // Coherence frees copies after their launches, but an upload into B may
  // still wait in the pending batch (its launch failed before submitting).
  try {
    if (Staging)
      flushPending();
  } catch (const RtError &) {
    // Reported by whoever uses the device next (it is marked broken).
  }
  {
    std::lock_guard<std::mutex> L(BufM);
    if (FreeBuffers.give(B, B->Capacity))
      return;
  }
  // Over the pool's bound: destroy it, once nothing queued can touch it.
  {
    std::lock_guard<std::mutex> L(QueueM);
    F.vkQueueWaitIdle(Queue);
  }
  destroyBuffer(B);
}

VkBuf *VulkanDeviceImpl::takeStaging(size_t Bytes) {
  size_t Class = poolSizeClass(Bytes);
  {
    std::lock_guard<std::mutex> L(BufM);
    if (std::optional<VkBuf *> B = FreeStaging.take(Class))
      return *B;
  }
  return createBuffer(Class, /*ForStaging=*/true);
}

void VulkanDeviceImpl::returnStaging(VkBuf *B) {
  {
    std::lock_guard<std::mutex> L(BufM);
    if (FreeStaging.give(B, B->Capacity))
      return;
  }
  destroyBuffer(B); // its submission has finished
}

//===----------------------------------------------------------------------===//
// Submissions
//===----------------------------------------------------------------------===//

Submission *VulkanDeviceImpl::takeSubmission() {
  {
    std::lock_guard<std::mutex> L(SubM);
    if (!FreeSubmissions.empty()) {
      Submission *S = FreeSubmissions.back();
      FreeSubmissions.pop_back();
      return S;
    }
  }
  auto S = std::make_unique<Submission>();
  // Each submission has its own pool, so threads record in parallel
  // without sharing one (command pools are externally synchronised).
  VkCommandPoolCreateInfo PI{};
  PI.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  PI.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  PI.queueFamilyIndex = QueueFamily;
  VkResult R = F.vkCreateCommandPool(Dev, &PI, nullptr, &S->Pool);
  if (R == VK_SUCCESS) {
    VkCommandBufferAllocateInfo AI{};
    AI.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    AI.commandPool = S->Pool;
    AI.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    AI.commandBufferCount = 1;
    R = F.vkAllocateCommandBuffers(Dev, &AI, &S->Cmd);
  }
  if (R == VK_SUCCESS) {
    VkFenceCreateInfo FI{};
    FI.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    R = F.vkCreateFence(Dev, &FI, nullptr, &S->Fence);
  }
  if (R == VK_SUCCESS && Timestamps) {
    VkQueryPoolCreateInfo QI{};
    QI.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    QI.queryType = VK_QUERY_TYPE_TIMESTAMP;
    QI.queryCount = 2;
    R = F.vkCreateQueryPool(Dev, &QI, nullptr, &S->Queries);
  }
  if (R != VK_SUCCESS) {
    if (S->Fence)
      F.vkDestroyFence(Dev, S->Fence, nullptr);
    if (S->Pool)
      F.vkDestroyCommandPool(Dev, S->Pool, nullptr);
    check(R, "creating a command buffer");
  }
  std::lock_guard<std::mutex> L(SubM);
  Submissions.push_back(std::move(S));
  return Submissions.back().get();
}

void VulkanDeviceImpl::releaseSubmission(Submission *S) {
  if (S->Batch)
    releaseSubmission(S->Batch);
  for (VkBuf *B : S->Staging)
    returnStaging(B);
  S->Staging.clear();
  // Tickets of a launch that failed before its fence said it finished.
  for (const EagerDownloads::Ticket &T : S->Eager)
    Eager.done(T, /*Ran=*/false);
  S->Eager.clear();
  S->Batch = nullptr;
  S->Bytes = 0;
  S->Instances = 0;
  if (LoopStatus) {
    std::lock_guard<std::mutex> L(CutM);
    Unchecked.erase(std::remove(Unchecked.begin(), Unchecked.end(), S),
                    Unchecked.end());
    S->MayBeCut = false;
  }
  std::lock_guard<std::mutex> L(SubM);
  FreeSubmissions.push_back(S);
}

void VulkanDeviceImpl::begin(Submission *S) {
  check(F.vkResetCommandPool(Dev, S->Pool, 0), "vkResetCommandPool");
  VkCommandBufferBeginInfo BI{};
  BI.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  BI.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(F.vkBeginCommandBuffer(S->Cmd, &BI), "vkBeginCommandBuffer");
  S->Timed = S->Queries && Events && Events->enabled();
  if (S->Timed) {
    F.vkCmdResetQueryPool(S->Cmd, S->Queries, 0, 2);
    // Written when everything submitted before has finished: the start of
    // this submission's own work.
    F.vkCmdWriteTimestamp(S->Cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                          S->Queries, 0);
  }
}

void VulkanDeviceImpl::barrier(VkCommandBuffer Cmd, VkPipelineStageFlags Src,
                               VkAccessFlags SrcAccess,
                               VkPipelineStageFlags Dst,
                               VkAccessFlags DstAccess) {
  VkMemoryBarrier MB{};
  MB.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  MB.srcAccessMask = SrcAccess;
  MB.dstAccessMask = DstAccess;
  F.vkCmdPipelineBarrier(Cmd, Src, Dst, 0, 1, &MB, 0, nullptr, 0, nullptr);
}

// Device work is ordered by submission: each command buffer starts by
// making earlier transfer and shader writes visible to its own transfers
// and shaders, and ends by making its writes visible to the host.
constexpr VkPipelineStageFlags WorkStages =
    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkAccessFlags WorkWrites =
    VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
constexpr VkAccessFlags WorkAccess =
    WorkWrites | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT;

void VulkanDeviceImpl::submit(Submission *S) {
  if (S->Timed)
    F.vkCmdWriteTimestamp(S->Cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                          S->Queries, 1);
  barrier(S->Cmd, WorkStages, WorkWrites, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  check(F.vkEndCommandBuffer(S->Cmd), "vkEndCommandBuffer");
  check(F.vkResetFences(Dev, 1, &S->Fence), "vkResetFences");

  // The pending uploads go first, in the same submission. PendingM is held
  // until the queue has them: a launch that recorded an upload must not be
  // submitted before the batch carrying it.
  std::lock_guard<std::mutex> PL(PendingM);
  Submission *Batch = Pending;
  Pending = nullptr;
  VkCommandBuffer Cmds[2];
  uint32_t N = 0;
  if (Batch) {
    if (Batch->Timed)
      F.vkCmdWriteTimestamp(Batch->Cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                            Batch->Queries, 1);
    VkResult R = F.vkEndCommandBuffer(Batch->Cmd);
    if (R != VK_SUCCESS) {
      // The uploads are lost and coherence believes them done.
      Broken.set("vkEndCommandBuffer failed: " + vk::resultName(R));
      releaseSubmission(Batch);
      check(R, "vkEndCommandBuffer");
    }
    Cmds[N++] = Batch->Cmd;
    S->Batch = Batch;
  }
  Cmds[N++] = S->Cmd;
  VkSubmitInfo SI{};
  SI.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  SI.commandBufferCount = N;
  SI.pCommandBuffers = Cmds;
  VkResult R;
  {
    std::lock_guard<std::mutex> QL(QueueM);
    S->Submitted = nowNanos();
    R = F.vkQueueSubmit(Queue, 1, &SI, S->Fence);
  }
  if (R != VK_SUCCESS) {
    if (Batch)
      Broken.set("vkQueueSubmit failed: " + vk::resultName(R));
    check(R, "vkQueueSubmit");
  }
  NumSubmits.fetch_add(1, std::memory_order_relaxed);
}

/// Polls the fence for SpinNanos before blocking on it: a blocking wait
/// wakes the thread late (about 33 µs with NVIDIA's driver on an H100),
/// which a short kernel's launch would pay twice over.
VkResult VulkanDeviceImpl::waitFence(Submission *S) {
  if (SpinNanos) {
    uint64_t Until = nowNanos() + SpinNanos;
    do {
      VkResult R = F.vkGetFenceStatus(Dev, S->Fence);
      if (R != VK_NOT_READY)
        return R;
    } while (nowNanos() < Until);
  }
  return F.vkWaitForFences(Dev, 1, &S->Fence, VK_TRUE, UINT64_MAX);
}

void VulkanDeviceImpl::finish(Submission *S) {
  VkResult R = waitFence(S);
  // Seen done by the completion thread, if that waited first: the tighter
  // bound on when it ended.
  uint64_t Done = S->Finished ? S->Finished : nowNanos();
  S->Finished = 0;
  if (R != VK_SUCCESS) {
    // The submission may still run: its objects cannot be reused.
    Broken.set("vkWaitForFences failed: " + vk::resultName(R));
    check(R, "vkWaitForFences");
  }
  for (const EagerDownloads::Ticket &T : S->Eager)
    Eager.done(T, /*Ran=*/true);
  S->Eager.clear();
  if (S->Timed)
    traceSubmission(S, Done);
}

void VulkanDeviceImpl::traceSubmission(Submission *S, uint64_t Done) {
  // The batch and the launch ran between the submit and the fence.
  struct Span {
    Submission *Of;
    double Start, End;
  } Spans[2];
  unsigned N = 0;
  for (Submission *X : {S->Batch, S}) {
    if (!X || !X->Timed || !*X->Name)
      continue;
    uint64_t Ticks[2];
    if (F.vkGetQueryPoolResults(Dev, X->Queries, 0, 2, sizeof(Ticks), Ticks,
                                sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
      continue;
    uint64_t T0 = Ticks[0] & TimestampMask, T1 = Ticks[1] & TimestampMask;
    if (T1 < T0)
      continue; // the counter wrapped
    Spans[N++] = {X, T0 * TimestampPeriod, T1 * TimestampPeriod};
  }
  if (!N)
    return;
  int64_t Offset =
      Clock.offset(S->Submitted, Done, Spans[0].Start, Spans[N - 1].End);
  for (unsigned I = 0; I != N; ++I) {
    uint64_t Start =
        static_cast<uint64_t>(static_cast<int64_t>(Spans[I].Start) + Offset);
    uint64_t End =
        static_cast<uint64_t>(static_cast<int64_t>(Spans[I].End) + Offset);
    Events->recordDevice(Name, Spans[I].Of->Name, Start, End,
                         Spans[I].Of->Instances, Spans[I].Of->Bytes);
  }
}

void VulkanDeviceImpl::flushPending() {
  {
    std::lock_guard<std::mutex> L(PendingM);
    if (!Pending)
      return;
  }
  // An empty submission carries the batch.
  Submission *S = takeSubmission();
  try {
    begin(S);
    S->Name = ""; // carries no work of its own: not traced
    submit(S);
    finish(S);
  } catch (...) {
    if (!Broken.failed())
      releaseSubmission(S);
    throw;
  }
  releaseSubmission(S);
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

void VulkanDeviceImpl::copyFromHost(void *Dst, uint64_t Offset,
                                    const void *HostSrc, size_t Bytes) {
  Broken.checkUsable(Name);
  auto *B = static_cast<VkBuf *>(Dst);
  if (!Staging) {
    std::memcpy(static_cast<char *>(B->Mapped) + Offset, HostSrc, Bytes);
    return;
  }
  Eager.forget(B);
  const char *Src = static_cast<const char *>(HostSrc);
  for (size_t Off = 0; Off < Bytes;) {
    size_t N = std::min(StagingChunk, Bytes - Off);
    VkBuf *S = takeStaging(N);
    std::memcpy(S->Mapped, Src + Off, N);
    bool Full;
    {
      std::unique_lock<std::mutex> L(PendingM);
      if (!Pending) {
        Submission *P;
        try {
          P = takeSubmission();
        } catch (...) {
          returnStaging(S);
          throw;
        }
        try {
          begin(P);
        } catch (...) {
          releaseSubmission(P);
          returnStaging(S);
          throw;
        }
        P->Name = "upload";
        barrier(P->Cmd, WorkStages, WorkAccess, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_WRITE_BIT);
        Pending = P;
      }
      VkBufferCopy Region{0, Offset + Off, N};
      F.vkCmdCopyBuffer(Pending->Cmd, S->Buffer, B->Buffer, 1, &Region);
      Pending->Staging.push_back(S);
      Pending->Bytes += N;
      Full = Pending->Bytes >= BatchLimit;
    }
    NumStagingBytes.fetch_add(N, std::memory_order_relaxed);
    if (Full)
      flushPending();
    Off += N;
  }
}

void VulkanDeviceImpl::copyToHost(void *HostDst, const void *Src,
                                  uint64_t Offset, size_t Bytes) {
  Broken.checkUsable(Name);
  auto *B = static_cast<const VkBuf *>(Src);
  if (!Staging) {
    std::memcpy(HostDst, static_cast<const char *>(B->Mapped) + Offset, Bytes);
    return;
  }
  if (Eager.read(B, Offset, Bytes, HostDst,
                 static_cast<const char *>(EagerArena->Mapped)))
    return;
  char *Dst = static_cast<char *>(HostDst);
  for (size_t Off = 0; Off < Bytes;) {
    size_t N = std::min(StagingChunk, Bytes - Off);
    VkBuf *Stg = takeStaging(N);
    Submission *S;
    try {
      S = takeSubmission();
    } catch (...) {
      returnStaging(Stg);
      throw;
    }
    S->Staging.push_back(Stg);
    try {
      begin(S);
      S->Name = "download";
      S->Bytes = N;
      barrier(S->Cmd, WorkStages, WorkWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_TRANSFER_READ_BIT);
      VkBufferCopy Region{Offset + Off, 0, N};
      F.vkCmdCopyBuffer(S->Cmd, B->Buffer, Stg->Buffer, 1, &Region);
      submit(S);
      finish(S);
    } catch (...) {
      if (!Broken.failed())
        releaseSubmission(S);
      throw;
    }
    std::memcpy(Dst + Off, Stg->Mapped, N);
    NumStagingBytes.fetch_add(N, std::memory_order_relaxed);
    releaseSubmission(S);
    Off += N;
  }
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

bool VulkanDeviceImpl::prepare(KernelLaunch &L) {
  Broken.checkUsable(Name);
  bool Created;
  L.Prepared = &pipeline(L, &Created);
  return Created;
}

Pipeline &VulkanDeviceImpl::pipeline(const KernelLaunch &L, bool *Created) {
  // Built only for messages: launches should not allocate.
  auto Where = [&] { return "node '" + std::string(L.Path) + "': "; };
  return Pipelines.get(
      *L.Artifact, SpirvEntryModel::GLCompute, MissingCapabilities,
      [&] { return Name + ": " + Where(); },
      [&](Pipeline &P) {
        P.Handle =
            createPipeline(P, nullptr, Where() + "entry '" + P.Entry + "'");
      },
      Created);
}

/// A compute pipeline of P's module; with GroupSize (x, y, z), its
/// work-group size specialised to it (SpirvEntryInfo::SizeSpecIds).
VkPipeline VulkanDeviceImpl::createPipeline(const Pipeline &P,
                                            const uint32_t *GroupSize,
                                            const std::string &Where) {
  VkShaderModuleCreateInfo MI{};
  MI.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  MI.codeSize = P.Words.size() * 4;
  MI.pCode = P.Words.data();
  VkShaderModule Module;
  check(F.vkCreateShaderModule(Dev, &MI, nullptr, &Module),
        "vkCreateShaderModule", Where);
  VkComputePipelineCreateInfo CI{};
  CI.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  // Grids larger than maxComputeWorkGroupCount run as several
  // dispatches with base offsets.
  CI.flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
  CI.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  CI.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  CI.stage.module = Module;
  CI.stage.pName = P.Entry.c_str();
  // The loop guard's status word (lavapipe), then the work-group size.
  struct {
    uint64_t Status;
    uint32_t Size[3];
  } Data{LoopStatusAddress, {0, 0, 0}};
  VkSpecializationMapEntry Entries[4];
  uint32_t NumEntries = 0;
  if (LoopStatus)
    Entries[NumEntries++] = {SPIRVLoopStatusSpecId, 0, sizeof Data.Status};
  if (GroupSize)
    for (unsigned A = 0; A != 3; ++A) {
      Data.Size[A] = GroupSize[A];
      Entries[NumEntries++] = {
          P.Info.SizeSpecIds[A],
          static_cast<uint32_t>(offsetof(decltype(Data), Size) + 4 * A), 4};
    }
  VkSpecializationInfo Spec{NumEntries, Entries, sizeof Data, &Data};
  if (NumEntries)
    CI.stage.pSpecializationInfo = &Spec;
  CI.layout = Layout;
  VkPipeline Handle = VK_NULL_HANDLE;
  VkResult R = F.vkCreateComputePipelines(Dev, Cache, 1, &CI, nullptr, &Handle);
  F.vkDestroyShaderModule(Dev, Module, nullptr);
  check(R, "vkCreateComputePipelines", Where);
  return Handle;
}

VkPipeline VulkanDeviceImpl::sizedPipeline(Pipeline &P,
                                           const uint64_t *GroupSize,
                                           const std::string &Where) {
  std::array<uint32_t, 3> Size;
  for (unsigned A = 0; A != 3; ++A)
    Size[A] = static_cast<uint32_t>(GroupSize[A]);
  std::lock_guard<std::mutex> Lock(P.SizedM);
  VkPipeline &Handle = P.Sized[Size];
  if (!Handle)
    Handle = createPipeline(P, Size.data(), Where);
  return Handle;
}

void VulkanDeviceImpl::launch(const KernelLaunch &L, LaunchToken &T) {
  Broken.checkUsable(Name);
  const Node &Leaf = *L.Leaf;
  auto Where = [&] { return Name + ": node '" + L.Path + "': "; };
  if (L.Outs && !Leaf.Outputs.empty())
    throw RtError(HPVM_ERR_UNSUPPORTED,
                  Where() + "leaves with outputs cannot run on Vulkan (the "
                            "SPIR-V kernel ABI has no output slots)");

  // The parameter block: one 8-byte slot per parameter, then the
  // ancestors' ids (kernels read their extents from the parameters); in
  // push constants, or in memory with its address pushed.
  size_t NumParams = Leaf.Params.size();
  size_t Slots = NumParams + 3 * size_t(L.OuterLevels);
  if (std::string Why = paramsTooBig(NumParams, L.OuterLevels); !Why.empty())
    throw RtError(HPVM_ERR_DEVICE, Where() + Why);
  static_assert(SPIRVMaxParamBlockBytes <= PushLimit);
  uint64_t Push[PushLimit / 8];
  // The buffers of this device the kernel writes, once each.
  SmallArray<VkBuf *, 32> Written(NumParams);
  size_t NumWritten = 0;
  for (size_t K = 0; K != NumParams; ++K) {
    const Param &P = Leaf.Params[K];
    Push[K] = 0;
    if (!L.Args[K])
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    Where() + "the argument for parameter '" + P.Name +
                        "' is NULL");
    if (!P.isBuffer()) {
      if (P.Type == ScalarType::I1)
        Push[K] = *static_cast<const uint8_t *>(L.Args[K]) & 1;
      else
        std::memcpy(&Push[K], L.Args[K], typeSize(P.Type));
      continue;
    }
    void *Copy;
    std::memcpy(&Copy, L.Args[K], sizeof(Copy));
    bool Ours;
    {
      std::lock_guard<std::mutex> Lock(BufM);
      Ours = Live.count(static_cast<VkBuf *>(Copy)) != 0;
    }
    if (Ours) {
      auto *B = static_cast<VkBuf *>(Copy);
      Push[K] = B->Address;
      if (writes(P.Mode) &&
          std::find(Written.data(), Written.data() + NumWritten, B) ==
              Written.data() + NumWritten)
        Written[NumWritten++] = B;
      continue;
    }
    // Coherence leaves empty and null buffers alone; the kernel gets a
    // null address it must not dereference.
    if (Copy && bufferBytes(Leaf, P, L.Args))
      throw RtError(HPVM_ERR_DEVICE, Where() + "buffer '" + P.Name +
                                         "' is not in this device's memory");
  }
  for (size_t I = 0; I != 3 * size_t(L.OuterLevels); ++I)
    Push[NumParams + I] = L.OuterIds[I];

  Pipeline &P = L.Prepared ? *static_cast<Pipeline *>(L.Prepared) : pipeline(L);

  // Node dim D-1 (the innermost) is x, D-2 is y, D-3 is z.
  size_t D = Leaf.Dims.size();
  uint64_t Extent[3] = {1, 1, 1};
  for (size_t A = 0; A != std::min<size_t>(D, 3); ++A)
    Extent[A] = L.Dims[D - 1 - A];
  static const uint32_t Defaults[4][3] = {
      {1, 1, 1}, {64, 1, 1}, {8, 8, 1}, {4, 4, 4}};
  const uint32_t *Local =
      P.Info.HasLocalSize ? P.Info.LocalSize : Defaults[std::min<size_t>(D, 3)];
  // A work-group kernel's size is the group's: specialised, or checked.
  VkPipeline Handle = P.Handle;
  if (L.WorkGroup && P.Info.SpecializableSize)
    Handle = sizedPipeline(P, L.GroupDims, Where() + "entry '" + P.Entry + "'");
  else if (L.WorkGroup)
    for (unsigned A = 0; A != 3; ++A)
      if (!P.Info.HasLocalSize || P.Info.LocalSize[A] != L.GroupDims[A])
        throw RtError(HPVM_ERR_BAD_PROGRAM,
                      Where() + "the work-groups of its work-group kernel "
                                "are not the node's");
  uint64_t Groups[3];
  for (unsigned A = 0; A != 3; ++A) {
    // A work-group kernel runs one work-group per instance; its LocalSize
    // is the group the executor checked (fitsWorkGroup).
    Groups[A] = L.WorkGroup ? Extent[A] : (Extent[A] + Local[A] - 1) / Local[A];
    // Invocation ids are 32-bit in SPIR-V's GlobalInvocationId.
    if (Groups[A] * Local[A] > (uint64_t(1) << 32))
      throw RtError(HPVM_ERR_DEVICE,
                    Where() + "extent " + std::to_string(Extent[A]) +
                        " is beyond what a Vulkan dispatch can index "
                        "(32-bit invocation ids)");
  }

  Submission *S = takeSubmission();
  try {
    // With staging, the small buffers the kernel writes are copied home by
    // its own submission (EagerDownloads.h).
    if (Staging)
      for (size_t I = 0; I != NumWritten; ++I)
        S->Eager.push_back(Eager.write(Written[I], Written[I]->Capacity));
    begin(S);
    S->Name = L.Path;
    uint64_t Instances = L.Dims[0] * L.Dims[1] * L.Dims[2];
    S->Instances = Instances;
    barrier(S->Cmd, WorkStages, WorkWrites, WorkStages, WorkAccess);
    F.vkCmdBindPipeline(S->Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, Handle);
    if (Slots * 8 <= SPIRVMinPushBytes) {
      F.vkCmdPushConstants(S->Cmd, Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           static_cast<uint32_t>(Slots * 8), Push);
    } else {
      // The submission is this launch's until it has run.
      if (!S->Params)
        S->Params = createBuffer(SPIRVMaxParamBlockBytes, /*ForStaging=*/false,
                                 /*HostVisible=*/true);
      std::memcpy(S->Params->Mapped, Push, Slots * 8);
      F.vkCmdPushConstants(S->Cmd, Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           sizeof S->Params->Address, &S->Params->Address);
    }
    for (uint64_t Z = 0; Z < Groups[2]; Z += MaxGroups[2])
      for (uint64_t Y = 0; Y < Groups[1]; Y += MaxGroups[1])
        for (uint64_t X = 0; X < Groups[0]; X += MaxGroups[0]) {
          F.vkCmdDispatchBase(
              S->Cmd, static_cast<uint32_t>(X), static_cast<uint32_t>(Y),
              static_cast<uint32_t>(Z),
              static_cast<uint32_t>(
                  std::min<uint64_t>(MaxGroups[0], Groups[0] - X)),
              static_cast<uint32_t>(
                  std::min<uint64_t>(MaxGroups[1], Groups[1] - Y)),
              static_cast<uint32_t>(
                  std::min<uint64_t>(MaxGroups[2], Groups[2] - Z)));
          NumDispatches.fetch_add(1, std::memory_order_relaxed);
        }
    bool Barrier = false;
    for (size_t I = 0; I != S->Eager.size(); ++I) {
      if (!S->Eager[I].hasSlot())
        continue;
      if (!Barrier)
        barrier(S->Cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_READ_BIT);
      Barrier = true;
      VkBufferCopy Region{0, S->Eager[I].offset(), Written[I]->Capacity};
      F.vkCmdCopyBuffer(S->Cmd, Written[I]->Buffer, EagerArena->Buffer, 1,
                        &Region);
    }
    if (LoopStatus) {
      std::lock_guard<std::mutex> L(CutM);
      Unchecked.push_back(S);
    }
    submit(S);
  } catch (...) {
    releaseSubmission(S);
    throw;
  }
  T.Handle = S;
}

void VulkanDeviceImpl::wait(LaunchToken &T) {
  auto *S = static_cast<Submission *>(T.Handle);
  if (!S)
    return;
  T.Handle = nullptr;
  try {
    finish(S);
    checkLoopStatus(S);
  } catch (...) {
    releaseSubmission(S);
    throw;
  }
  releaseSubmission(S);
}

/// A kernel that ran into lavapipe's loop limit computed wrong values: its
/// launch fails. The word is one for the device and tells no launch from
/// another, so when a wait finds it set, every kernel launch that may have
/// run meanwhile (submitted and not yet checked) fails too, each at its own
/// wait: none of them returns values that may be cut.
void VulkanDeviceImpl::checkLoopStatus(Submission *S) {
  if (!LoopStatus)
    return;
  auto *Word = static_cast<std::atomic<uint32_t> *>(LoopStatus->Mapped);
  bool Cut;
  {
    std::lock_guard<std::mutex> L(CutM);
    Unchecked.erase(std::remove(Unchecked.begin(), Unchecked.end(), S),
                    Unchecked.end());
    Cut = S->MayBeCut;
    if (Word->exchange(0) != 0) {
      Cut = true;
      for (Submission *Other : Unchecked)
        Other->MayBeCut = true;
    }
  }
  if (!Cut)
    return;
  throw RtError(
      HPVM_ERR_DEVICE,
      Name + ": node '" + S->Name +
          "' (or a launch that ran beside it on this device): "
          "lavapipe (" +
          Info.Name +
          ") ended a loop of a kernel invocation early, as it does once "
          "the loops of a group of invocations have run " +
          std::to_string(SPIRVLoopLimit) +
          " iterations in all, so the results would be wrong; run the node "
          "on another device (a target() clause, another device set) or "
          "split its loops over more instances");
}

//===----------------------------------------------------------------------===//
// Discovery
//===----------------------------------------------------------------------===//

namespace {

Probe probe(const Instance &Inst, VkPhysicalDevice Handle, unsigned Index) {
  const vk::InstanceFunctions &IF = Inst.F;
  Probe P;
  P.Handle = Handle;
  VkPhysicalDeviceProperties Props;
  IF.vkGetPhysicalDeviceProperties(Handle, &Props);
  P.Info.Index = Index;
  P.Info.Name = Props.deviceName;
  P.Info.Type = typeName(Props.deviceType);
  P.Info.ApiVersion = Props.apiVersion;
  if (Props.apiVersion < VK_API_VERSION_1_2) {
    // The 1.1 and 1.2 feature structures mean nothing to it.
    P.Info.Unusable =
        "Vulkan " + versionText(Props.apiVersion) + ", hpvm-rt needs 1.2";
    return P;
  }
  P.Features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  P.Features11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  P.Features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  P.Features.pNext = &P.Features11;
  P.Features11.pNext = &P.Features12;
  IF.vkGetPhysicalDeviceFeatures2(Handle, &P.Features);
  P.Features.pNext = nullptr;
  P.Features11.pNext = nullptr;
  VkPhysicalDeviceProperties2 Props2{};
  Props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  P.Properties12.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  Props2.pNext = &P.Properties12;
  IF.vkGetPhysicalDeviceProperties2(Handle, &Props2);
  P.Properties12.pNext = nullptr;

  std::vector<std::string> Missing;
  if (!P.Features12.bufferDeviceAddress)
    Missing.push_back("no bufferDeviceAddress");
  if (!P.Features.features.shaderInt64)
    Missing.push_back("no shaderInt64");

  uint32_t NumFamilies = 0;
  IF.vkGetPhysicalDeviceQueueFamilyProperties(Handle, &NumFamilies, nullptr);
  std::vector<VkQueueFamilyProperties> Families(NumFamilies);
  IF.vkGetPhysicalDeviceQueueFamilyProperties(Handle, &NumFamilies,
                                              Families.data());
  if (std::none_of(Families.begin(), Families.end(),
                   [](const VkQueueFamilyProperties &F) {
                     return (F.queueFlags & VK_QUEUE_COMPUTE_BIT) &&
                            F.queueCount;
                   }))
    Missing.push_back("no compute queue");

  VkPhysicalDeviceMemoryProperties Mem;
  IF.vkGetPhysicalDeviceMemoryProperties(Handle, &Mem);
  const VkMemoryPropertyFlags Host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  bool HaveHost = false;
  for (uint32_t T = 0; T != Mem.memoryTypeCount; ++T)
    HaveHost |= (Mem.memoryTypes[T].propertyFlags & Host) == Host;
  if (!HaveHost)
    Missing.push_back("no host-visible coherent memory");

  for (const std::string &M : Missing)
    P.Info.Unusable += (P.Info.Unusable.empty() ? "" : ", ") + M;
  return P;
}

std::string discover(const DiscoveryContext &Ctx, const VulkanOptions &O,
                     std::vector<std::unique_ptr<Device>> &Out) {
  if (!O.Error.empty())
    return O.Error;
  std::string Why;
  std::shared_ptr<vk::Library> Lib = vk::Library::open(O.Loader, Why);
  if (!Lib)
    return Why;
  uint32_t LoaderVersion = VK_API_VERSION_1_0;
  if (Lib->vkEnumerateInstanceVersion)
    Lib->vkEnumerateInstanceVersion(&LoaderVersion);
  if (LoaderVersion < VK_API_VERSION_1_2)
    return "the Vulkan loader '" + O.Loader + "' implements Vulkan " +
           versionText(LoaderVersion) + ", hpvm-rt needs 1.2";

  auto Inst = std::make_shared<Instance>();
  Inst->Lib = Lib;
  VkApplicationInfo App{};
  App.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  App.pApplicationName = "hpvm-rt";
  App.pEngineName = "hpvm-rt";
  App.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo II{};
  II.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  II.pApplicationInfo = &App;
  VkResult R = Lib->vkCreateInstance(&II, nullptr, &Inst->Handle);
  if (R != VK_SUCCESS) {
    Inst->Handle = VK_NULL_HANDLE;
    if (R == VK_ERROR_INCOMPATIBLE_DRIVER)
      return "no Vulkan driver is installed (vkCreateInstance failed: "
             "VK_ERROR_INCOMPATIBLE_DRIVER)";
    return "vkCreateInstance failed: " + vk::resultName(R);
  }
  std::string Missing = Inst->F.load(*Lib, Inst->Handle);
  if (!Missing.empty())
    return "the Vulkan loader lacks " + Missing;

  uint32_t Count = 0;
  R = Inst->F.vkEnumeratePhysicalDevices(Inst->Handle, &Count, nullptr);
  std::vector<VkPhysicalDevice> Handles(Count);
  if (R == VK_SUCCESS && Count)
    R = Inst->F.vkEnumeratePhysicalDevices(Inst->Handle, &Count,
                                           Handles.data());
  if (R != VK_SUCCESS && R != VK_INCOMPLETE)
    return "vkEnumeratePhysicalDevices failed: " + vk::resultName(R);
  Handles.resize(Count);

  std::vector<Probe> Probes;
  std::vector<VulkanPhysicalInfo> Infos;
  for (unsigned I = 0; I != Handles.size(); ++I) {
    Probes.push_back(probe(*Inst, Handles[I], I));
    Infos.push_back(Probes.back().Info);
  }
  int Pick = chooseVulkanDevice(Infos, O.Select, Why);
  if (Pick < 0)
    return Why;
  Out.push_back(std::make_unique<VulkanDeviceImpl>(Inst, Probes[Pick], O, Ctx));

  std::string Note;
  for (const VulkanPhysicalInfo &I : Infos)
    if (!I.Unusable.empty())
      Note += (Note.empty() ? "skipped " : "; ") + std::to_string(I.Index) +
              " '" + I.Name + "' (" + I.Type + "): " + I.Unusable;
  return Note;
}

} // namespace

std::string
hpvm::rt::discoverVulkanDevices(const DiscoveryContext &Ctx,
                                const VulkanOptions &Options,
                                std::vector<std::unique_ptr<Device>> &Out) {
  return discoverSafely([&] { return discover(Ctx, Options, Out); });
}

#endif // HPVM_RT_HAVE_VULKAN
