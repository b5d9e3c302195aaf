//===- VulkanOptions.cpp - Settings and device choice for Vulkan ----------===//
//
// Kept apart from the device itself because it needs no Vulkan headers:
// the choice among physical devices is plain data, testable without a
// driver.
//
//===----------------------------------------------------------------------===//

#include "Env.h"

#include "hpvm/rt/Vulkan.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

using namespace hpvm::rt;

namespace {

/// Smaller is better: the order discrete > integrated > virtual >
/// cpu, anything else last.
int typeRank(const std::string &Type) {
  static const char *Order[] = {"discrete", "integrated", "virtual", "cpu"};
  for (int I = 0; I != 4; ++I)
    if (Type == Order[I])
      return I;
  return 4;
}

std::string describe(const VulkanPhysicalInfo &D) {
  return std::to_string(D.Index) + " '" + D.Name + "' (" + D.Type + ")";
}

} // namespace

VulkanOptions VulkanOptions::fromEnvironment() {
  VulkanOptions O;
  if (const char *V = env("HPVM_VULKAN_LOADER"))
    O.Loader = V;
  if (const char *V = env("HPVM_VULKAN_DEVICE"))
    O.Select = V;
  O.Error = envAutoAlwaysNever("HPVM_VULKAN_STAGING", O.StagingMode);
  unsigned Spin = 0;
  if (O.Error.empty() && env("HPVM_VULKAN_SPIN_US")) {
    O.Error = envNumber<unsigned>("HPVM_VULKAN_SPIN_US", "microseconds", 0,
                                  1000000, Spin);
    if (O.Error.empty())
      O.SpinMicros = static_cast<int>(Spin);
  }
  return O;
}

int hpvm::rt::chooseVulkanDevice(const std::vector<VulkanPhysicalInfo> &Devices,
                                 const std::string &Select, std::string &Why) {
  std::vector<const VulkanPhysicalInfo *> Matches;
  bool ByIndex =
      !Select.empty() && std::all_of(Select.begin(), Select.end(), [](char C) {
        return std::isdigit(static_cast<unsigned char>(C));
      });
  for (const VulkanPhysicalInfo &D : Devices) {
    bool Match =
        Select.empty() ||
        (ByIndex ? std::strtoull(Select.c_str(), nullptr, 10) == D.Index
                 : lower(D.Name).find(lower(Select)) != std::string::npos);
    if (Match)
      Matches.push_back(&D);
  }

  const VulkanPhysicalInfo *Best = nullptr;
  for (const VulkanPhysicalInfo *D : Matches)
    if (D->Unusable.empty() &&
        (!Best || typeRank(D->Type) < typeRank(Best->Type)))
      Best = D;
  if (Best)
    return static_cast<int>(Best - Devices.data());

  if (Devices.empty()) {
    Why = "the Vulkan driver reports no physical devices";
    return -1;
  }
  std::string List;
  for (const VulkanPhysicalInfo &D : Devices)
    List += (List.empty() ? "" : "; ") + describe(D) +
            (D.Unusable.empty() ? std::string() : ": " + D.Unusable);
  if (Select.empty())
    Why = "no usable Vulkan device (" + List + ")";
  else if (Matches.empty())
    Why =
        "HPVM_VULKAN_DEVICE='" + Select + "' matches no device (" + List + ")";
  else
    Why = "HPVM_VULKAN_DEVICE='" + Select + "' selects no usable device (" +
          List + ")";
  return -1;
}
