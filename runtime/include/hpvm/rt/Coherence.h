//===- Coherence.h - Copies of buffers across memory spaces -----*- C++ -*-===//
//
// StarPU-style MSI coherence (DESIGN §6). A buffer is a host pointer and a
// byte size; each memory space holds a copy that is Invalid, Shared (valid,
// others may be too) or Modified (the only valid copy). Acquiring a buffer
// in a space copies it there only if that copy is invalid; acquiring it for
// writing invalidates every other copy.
//
// Host memory is the truth between launches: the host program may write its
// buffers between two launches without telling anyone. So a launch is the
// unit of coherence: at its end every buffer it wrote elsewhere is copied
// back, and copies outside host memory are dropped once no running launch
// uses the buffer. Within a launch, copies avoided are real savings.
//
// Buffers used only by host-space devices never enter the table: the host
// copy is the only one, so a CPU-only launch does no coherence work.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_COHERENCE_H
#define HPVM_RT_COHERENCE_H

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/Device.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace hpvm::rt {

class Coherence {
public:
  enum class State { Invalid, Shared, Modified };
  struct Buffer;

  /// The buffers one launch has acquired; released together at its end.
  class LaunchSet {
  public:
    LaunchSet() = default;
    LaunchSet(const LaunchSet &) = delete;
    LaunchSet &operator=(const LaunchSet &) = delete;
    bool empty() const { return Buffers.empty(); }

  private:
    friend class Coherence;
    std::mutex M;
    std::vector<Buffer *> Buffers;
  };

  Coherence();
  Coherence(const Coherence &) = delete;
  Coherence &operator=(const Coherence &) = delete;
  ~Coherence();

  /// Makes D's copy of [Host, Host + Bytes) valid for Mode and returns its
  /// address in D's memory space. Throws RtError if D fails.
  void *acquire(LaunchSet &Launch, void *Host, uint64_t Bytes, Device &D,
                Access Mode);

  /// The end of a launch: copies back what it left modified outside host
  /// memory, and frees copies no other running launch uses.
  void release(LaunchSet &Launch);

  /// True when no buffer has a copy outside host memory, so host-space
  /// devices may use host pointers without looking anything up.
  bool idle() const { return NumBuffers.load(std::memory_order_acquire) == 0; }

  /// Bytes that acquiring the buffer in Space would copy now (heft's
  /// transfer estimate).
  uint64_t bytesToAcquire(void *Host, uint64_t Bytes, MemorySpace Space) const;

  /// The state of Space's copy; a buffer not in the table is Shared in
  /// host memory and Invalid elsewhere.
  State state(void *Host, MemorySpace Space) const;

  /// Frees every copy held by D (for removing a device).
  void dropDevice(const Device &D);

  uint64_t bytesMoved() const { return BytesMoved.load(); }
  uint64_t copiesAvoided() const { return CopiesAvoided.load(); }
  void resetCounters() {
    BytesMoved = 0;
    CopiesAvoided = 0;
  }

private:
  mutable std::mutex TableM;
  std::unordered_map<void *, std::unique_ptr<Buffer>> Table;
  std::atomic<size_t> NumBuffers{0};
  std::atomic<uint64_t> BytesMoved{0};
  std::atomic<uint64_t> CopiesAvoided{0};

  Buffer *enter(LaunchSet &Launch, void *Host);
  void makeHostValid(Buffer &B);
  void copyIn(Buffer &B, MemorySpace Space, Device &D);
};

} // namespace hpvm::rt

#endif // HPVM_RT_COHERENCE_H
