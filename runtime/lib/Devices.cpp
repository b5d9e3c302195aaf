//===- Devices.cpp - Finding the devices of this machine ------------------===//

#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Cuda.h"
#include "hpvm/rt/OpenCL.h"
#include "hpvm/rt/Vulkan.h"

#include <algorithm>

using namespace hpvm::rt;

Device::~Device() = default;

void Device::copyRowsFromHost(void *Dev, uint64_t Offset, const void *HostSrc,
                              uint64_t RowBytes, uint64_t Stride,
                              uint64_t Rows) {
  const char *Src = static_cast<const char *>(HostSrc);
  for (uint64_t K = 0; K != Rows; ++K)
    copyFromHost(Dev, Offset + K * Stride, Src + K * Stride, RowBytes);
}

namespace {

std::string discoverCpu(const DiscoveryContext &Ctx,
                        std::vector<std::unique_ptr<Device>> &Out) {
  Out.push_back(makeCpuDevice(
      Ctx.Pool, Ctx.Cpu ? *Ctx.Cpu : CpuOptions::fromEnvironment()));
  return "";
}

std::vector<std::string> splitList(const std::string &Text) {
  std::vector<std::string> Items;
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t Comma = std::min(Text.find(',', Start), Text.size());
    std::string Item = Text.substr(Start, Comma - Start);
    Item.erase(0, Item.find_first_not_of(" \t"));
    Item.erase(Item.find_last_not_of(" \t") + 1);
    if (!Item.empty() &&
        std::find(Items.begin(), Items.end(), Item) == Items.end())
      Items.push_back(Item);
    Start = Comma + 1;
  }
  return Items;
}

} // namespace

const std::vector<DeviceKind> &hpvm::rt::deviceKinds() {
  // One line per kind; OpenCL registers here when it lands. Only the
  // CPU is eager: the others load drivers that CPU-only programs must not
  // pay for.
  static const std::vector<DeviceKind> Kinds = {
      {"cpu", HPVM_TARGET_CPU, /*Eager=*/true, discoverCpu},
      {"cuda", HPVM_TARGET_NVPTX, /*Eager=*/false,
       [](const DiscoveryContext &Ctx,
          std::vector<std::unique_ptr<Device>> &Out) {
         return discoverCudaDevices(
             Ctx, Ctx.Cuda ? *Ctx.Cuda : CudaOptions::fromEnvironment(), Out);
       }},
      {"vulkan", HPVM_TARGET_SPIRV, /*Eager=*/false,
       [](const DiscoveryContext &Ctx,
          std::vector<std::unique_ptr<Device>> &Out) {
         return discoverVulkanDevices(
             Ctx, Ctx.Vulkan ? *Ctx.Vulkan : VulkanOptions::fromEnvironment(),
             Out);
       }},
      {"opencl", HPVM_TARGET_OPENCL, /*Eager=*/false,
       [](const DiscoveryContext &Ctx,
          std::vector<std::unique_ptr<Device>> &Out) {
         return discoverOpenCLDevices(
             Ctx, Ctx.OpenCL ? *Ctx.OpenCL : OpenCLOptions::fromEnvironment(),
             Out);
       }},
  };
  return Kinds;
}

Discovery hpvm::rt::discoverKind(const DiscoveryContext &Ctx,
                                 const DeviceKind &K) {
  Discovery D;
  std::string Why = K.Discover(Ctx, D.Devices);
  // Found some, and has something to say (devices it skipped).
  if (!D.Devices.empty() && !Why.empty())
    D.Notes.push_back(std::string(K.Name) + ": " + Why);
  return D;
}

Discovery hpvm::rt::discoverDevices(const DiscoveryContext &Ctx,
                                    const std::string &Requested, bool Strict,
                                    bool Lazy) {
  Discovery D;
  std::vector<std::string> Wanted = splitList(Requested);
  std::string KnownNames;
  for (const DeviceKind &K : deviceKinds())
    KnownNames += (KnownNames.empty() ? "" : ", ") + std::string(K.Name);

  std::vector<std::string> Missing;
  for (const std::string &Name : Wanted) {
    bool Known =
        std::any_of(deviceKinds().begin(), deviceKinds().end(),
                    [&](const DeviceKind &K) { return Name == K.Name; });
    if (!Known)
      Missing.push_back("'" + Name + "' is not a device kind of this hpvm-rt " +
                        "(it has: " + KnownNames + ")");
  }
  for (const DeviceKind &K : deviceKinds()) {
    if (!Wanted.empty() &&
        std::find(Wanted.begin(), Wanted.end(), K.Name) == Wanted.end())
      continue;
    if (Wanted.empty() && Lazy && !K.Eager) {
      D.Deferred.push_back(&K);
      continue;
    }
    size_t Before = D.Devices.size();
    std::string Why = K.Discover(Ctx, D.Devices);
    if (D.Devices.size() != Before) {
      // Found some, and has something to say (devices it skipped).
      if (!Why.empty())
        D.Notes.push_back(std::string(K.Name) + ": " + Why);
      continue;
    }
    if (Wanted.empty())
      continue;
    Missing.push_back("'" + std::string(K.Name) + "' has no device" +
                      (Why.empty() ? std::string() : ": " + Why));
  }

  for (const std::string &M : Missing) {
    if (Strict)
      D.Error += (D.Error.empty() ? "" : "; ") + M;
    else
      D.Notes.push_back("HPVM_DEVICES: " + M);
  }
  if (!D.Error.empty())
    D.Error = "HPVM_DEVICES_STRICT: requested devices are missing: " + D.Error;
  return D;
}
