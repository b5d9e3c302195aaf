//===- SpirvModuleCache.h - SPIR-V modules a device made --*- C++ -*-===//
//
// The Vulkan and OpenCL devices both turn SPIR-V artifacts into driver
// objects (pipelines, programs) once and reuse them: keyed by moduleHash of
// the words and the entry point, a hit confirmed by comparing the words.
// Before a module reaches the driver its structure is checked and its
// capabilities are compared with what the device lacks (VulkanSpirv.h), so
// that a bad module is an error naming the node, never a driver crash.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_SPIRVMODULECACHE_H
#define HPVM_RT_LIB_SPIRVMODULECACHE_H

#include "DeviceSupport.h"
#include "VulkanSpirv.h"

#include "hpvm/rt/Error.h"
#include "hpvm/rt/hpvm_rt.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hpvm::rt {

/// What every cached module holds besides the device's own objects.
struct SpirvModule {
  /// The words, copied: drivers want them aligned, the artifact need not be.
  std::vector<uint32_t> Words;
  std::string Entry;
  SpirvEntryInfo Info;
};

/// Capabilities the device lacks, with the feature's name for messages.
using MissingCapabilityList = std::vector<std::pair<uint32_t, std::string>>;

/// Module derives from SpirvModule and adds the device's objects.
template <class Module> class SpirvModuleCache {
public:
  /// The module of artifact A: the cached one, or a new one that is read
  /// and checked here and finished by Make(Module &) (which creates the
  /// driver's objects, or throws) before it is kept. Prefix() starts every
  /// message ("vulkan:0: node 'x': "); it is only called on failure, so that
  /// a launch does not allocate. Throws RtError: HPVM_ERR_BAD_PROGRAM for a
  /// malformed module, HPVM_ERR_DEVICE for a capability in Missing. Sets
  /// *Created (if given) to whether this call made the module.
  template <class PrefixFn, class MakeFn>
  Module &get(const hpvm_artifact &A, SpirvEntryModel Model,
              const MissingCapabilityList &Missing, PrefixFn Prefix,
              MakeFn Make, bool *Created = nullptr) {
    if (Created)
      *Created = false;
    if (!A.code || A.code_size == 0 || A.code_size % 4 != 0)
      throw RtError(HPVM_ERR_BAD_PROGRAM,
                    Prefix() + "the SPIR-V artifact's code_size (" +
                        std::to_string(A.code_size) +
                        ") is not a positive multiple of 4");
    const char *Entry = A.entry ? A.entry : "";
    uint64_t Hash = moduleHash(A.code, A.code_size, Entry);

    std::lock_guard<std::mutex> Lock(M);
    std::vector<std::unique_ptr<Module>> &Bucket = Modules[Hash];
    for (const auto &Cached : Bucket)
      if (Cached->Entry == Entry && Cached->Words.size() * 4 == A.code_size &&
          std::memcmp(Cached->Words.data(), A.code, A.code_size) == 0) {
        Hits.fetch_add(1, std::memory_order_relaxed);
        return *Cached;
      }

    auto New = std::make_unique<Module>();
    New->Entry = Entry;
    New->Words.resize(A.code_size / 4);
    std::memcpy(New->Words.data(), A.code, A.code_size);
    std::string Why = inspectSpirv(New->Words.data(), New->Words.size(),
                                   New->Entry, New->Info, Model);
    if (!Why.empty())
      throw RtError(HPVM_ERR_BAD_PROGRAM, Prefix() + Why);
    for (uint32_t Cap : New->Info.Capabilities)
      for (const auto &Lacking : Missing)
        if (Lacking.first == Cap)
          throw RtError(HPVM_ERR_DEVICE,
                        Prefix() + "the module needs the SPIR-V capability " +
                            Lacking.second);
    Make(*New);
    Made.fetch_add(1, std::memory_order_relaxed);
    if (Created)
      *Created = true;
    Bucket.push_back(std::move(New));
    return *Bucket.back();
  }

  /// Calls Release(Module &) on every module and forgets them all (the
  /// device's teardown, once nothing runs).
  template <class ReleaseFn> void clear(ReleaseFn Release) {
    std::lock_guard<std::mutex> Lock(M);
    for (auto &Bucket : Modules)
      for (auto &Cached : Bucket.second)
        Release(*Cached);
    Modules.clear();
  }

  uint64_t made() const { return Made.load(); }
  uint64_t hits() const { return Hits.load(); }

private:
  std::mutex M;
  std::unordered_map<uint64_t, std::vector<std::unique_ptr<Module>>> Modules;
  std::atomic<uint64_t> Made{0}, Hits{0};
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_SPIRVMODULECACHE_H
