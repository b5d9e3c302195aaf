//===- Device.h - What the runtime needs from a device ----------*- C++ -*-===//
//
// The one interface every device implements: the CPU now, CUDA,
// Vulkan and OpenCL later. A device runs artifacts of one target, owns memory
// in one memory space and moves bytes between that space and the host. It
// knows nothing about graphs, coherence or scheduling; the executor decides
// what runs where and which copies are needed.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_DEVICE_H
#define HPVM_RT_DEVICE_H

#include "hpvm/rt/hpvm_rt.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace hpvm {
class Node;
} // namespace hpvm

namespace hpvm::rt {

/// Identifies where a copy of a buffer lives. Devices that can dereference
/// host pointers report HostSpace; every other device gets its own id from
/// Runtime::newMemorySpace() (devices sharing memory may share one).
using MemorySpace = unsigned;
constexpr MemorySpace HostSpace = 0;

/// One launch of a leaf's artifact.
struct KernelLaunch {
  /// The leaf: parameter kinds and types, for devices that marshal them.
  const Node *Leaf = nullptr;
  const char *Path = "";
  const hpvm_artifact *Artifact = nullptr;
  /// As in hpvm_cpu_kernel_fn, except that buffer parameters already point
  /// to this device's copy (so they are device addresses off the host).
  void *const *Args = nullptr;
  /// Where output k is written; null for replicated leaves.
  void *const *Outs = nullptr;
  /// Extents, outermost first, missing ones 1.
  uint64_t Dims[3] = {1, 1, 1};
  /// Instance ids of the ancestors as in hpvm_cpu_kernel_fn; OuterLevels of
  /// them (0 and null for a root leaf).
  const uint64_t *OuterIds = nullptr;
  unsigned OuterLevels = 0;
  /// A grid launch: this one launch runs the leaf for every instance of its
  /// replicated parent, whose extents ParentDims are (outermost first,
  /// missing ones 1); Dims, Args and the outer ids above level 1 are the
  /// same for every parent instance. The level-1 ids in OuterIds are 0: the
  /// device gives each parent instance its own. Only issued to devices
  /// whose canLaunchGrid accepted it.
  bool Grid = false;
  uint64_t ParentDims[3] = {1, 1, 1};
  /// A work-group launch: Artifact is the leaf's work-group kernel
  /// (hpvm_rt.h, HPVM_WORK_GROUP_ENTRY_SUFFIX), one device work-group of
  /// GroupDims work-items (along x, y, z: the group's last extent is x,
  /// missing ones 1) per instance.
  /// Only issued to devices whose fitsWorkGroup accepted the group.
  bool WorkGroup = false;
  uint64_t GroupDims[3] = {1, 1, 1};
  /// The bytes of all the leaf's buffer arguments; set only for a leaf with
  /// a streaming-store variant, for useStreamingVariant.
  uint64_t FootprintBytes = 0;
  /// How long the launch would take on one thread, as far as the leaf's
  /// earlier launches tell (0: not known). A device that shares launches
  /// among host threads runs small ones on the calling thread alone.
  uint64_t SerialNanos = 0;
  /// What prepare() found or made for Artifact (the device's own object),
  /// so that launch() need not look it up again; null if not prepared.
  void *Prepared = nullptr;
};

/// A device's handle on an in-flight launch; what the fields mean is up to
/// the device. Lives in the caller's frame, so launching allocates nothing.
struct LaunchToken {
  void *Handle = nullptr;
  uint64_t Value = 0;
  /// Set by devices that run launches on host threads: how many threads
  /// shared this one, so that the executor can learn from its run time
  /// what it would cost on one (KernelLaunch::SerialNanos).
  unsigned HostThreads = 0;
  /// Set by such devices when they timed the pieces of a launch shared
  /// among threads: their run times summed, the launch's work on one
  /// thread without what sharing cost (0: not timed).
  uint64_t HostWorkNanos = 0;
};

/// Devices report failure by throwing RtError (Error.h), normally with
/// HPVM_ERR_DEVICE and a message naming the device and what failed.
class Device {
public:
  virtual ~Device();

  /// Unique among the runtime's devices: "cpu", "cuda:0", "vulkan:1".
  virtual const std::string &name() const = 0;
  /// The one enum hpvm_target whose artifacts this device runs.
  virtual uint32_t target() const = 0;
  virtual MemorySpace memorySpace() const = 0;

  /// Memory in this device's space. Never called for HostSpace devices: the
  /// host pointer is their copy.
  virtual void *allocate(size_t Bytes) = 0;
  virtual void free(void *Ptr) = 0;
  /// Copies Bytes between host memory and bytes [Offset, Offset + Bytes)
  /// of the allocation Dev (what allocate returned).
  virtual void copyFromHost(void *Dev, uint64_t Offset, const void *HostSrc,
                            size_t Bytes) = 0;
  virtual void copyToHost(void *HostDst, const void *Dev, uint64_t Offset,
                          size_t Bytes) = 0;
  /// Copies Rows rows of RowBytes bytes, Stride bytes apart, from host
  /// memory at HostSrc to the allocation Dev from Offset on (the bytes
  /// around what a kernel is about to write). By default one copyFromHost
  /// per row; devices with strided copies do better.
  virtual void copyRowsFromHost(void *Dev, uint64_t Offset, const void *HostSrc,
                                uint64_t RowBytes, uint64_t Stride,
                                uint64_t Rows);

  /// Compiles or loads L's artifact for this device, unless that was done
  /// before (devices cache them), and may leave the result in L.Prepared;
  /// true if it compiled now. The executor calls it before launch() and
  /// times it as compilation, apart from the run time (statistics, heft's
  /// history). Devices that run host code have nothing to do.
  virtual bool prepare(KernelLaunch &L) { return false; }

  /// Starts L and may return before it has finished; wait(T) returns when it
  /// has. Everything L points to stays valid until wait returns.
  virtual void launch(const KernelLaunch &L, LaunchToken &T) = 0;
  virtual void wait(LaunchToken &T) = 0;

  /// Arranges for Done(Ctx) to be called once, from a thread of the
  /// device's, when the launch behind T has finished on the device (or
  /// failed); returns false, having arranged nothing, when the device
  /// cannot, and then the caller calls wait(T) itself. Done must be quick
  /// and must not call the device: it hands the rest of the launch on, and
  /// that calls wait(T), which then returns at once (or reports the
  /// failure). Devices that offer it have consumed everything L points to
  /// by the time launch() returns, so that the caller's thread is free
  /// while the kernel runs and several launches can be in flight.
  virtual bool whenDone(LaunchToken &T, void (*Done)(void *Ctx), void *Ctx) {
    return false;
  }

  /// Why this device can never run Leaf (a node OuterLevels deep), or ""
  /// if it can: a limit of the device that no launch of the leaf fits
  /// (Vulkan's push-constant bytes). The runtime then does not offer the
  /// device for the leaf, and says why when no other device can run it.
  virtual std::string cannotRun(const Node &Leaf, unsigned OuterLevels) const {
    return "";
  }

  /// Whether launch() can run a grid launch (Grid set) as one launch.
  /// The executor asks before it moves any data; when the answer is no, it
  /// launches the leaf once per parent instance instead.
  virtual bool canLaunchGrid(const KernelLaunch &) const { return false; }

  /// Whether launch() can run a work-group kernel (KernelLaunch::WorkGroup)
  /// whose work-groups have GroupDims work-items (along x, y, z, as
  /// KernelLaunch::GroupDims): within the device's work-group limits. When not,
  /// the executor launches the leaf's other artifact, a thread per group.
  virtual bool fitsWorkGroup(const uint64_t *GroupDims) const { return false; }

  /// Whether L should run its leaf's streaming-store variant (hpvm_rt.h,
  /// HPVM_CPU_STREAMING_ENTRY) instead of L.Artifact; asked only for a CPU
  /// artifact that has one. The executor then launches the variant.
  virtual bool useStreamingVariant(const KernelLaunch &) const { return false; }

  /// The most instances of a leaf whose one-thread cost per instance is
  /// NanosPerInstance (0: not known) that launch() would run on the
  /// calling thread alone, start to end, with no other work; 0 if none.
  /// Launch sites (hpvm_launch_site) then run such launches themselves.
  virtual uint64_t callingThreadInstances(double NanosPerInstance) const {
    return 0;
  }

  /// Host<->device bandwidth in bytes per second, for the transfer
  /// estimates of the heft, dmda and auto policies, if the device knows it;
  /// 0 (the default): measured once instead (Link.h).
  virtual double bytesPerSecond() const { return 0; }
  /// One line for the stats header ("cpu (16 threads)").
  virtual std::string description() const { return name(); }
};

} // namespace hpvm::rt

#endif // HPVM_RT_DEVICE_H
