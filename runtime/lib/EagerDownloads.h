//===- EagerDownloads.h - Small results copied home by their launch -===//
//-*-===//
//
// On a discrete GPU, copying a buffer home after a launch costs a round
// trip of its own (a submission and a fence wait on Vulkan, a copy and an
// event wait on CUDA), as long as the launch itself when the kernel is
// small. So a device that copies through staging memory has each launch
// copy the small buffers its kernel writes into host memory right after
// the kernel, in the same submission or stream: a slot of this table. When
// coherence then asks for such a buffer (Device::copyToHost), the bytes are
// already there.
//
// A slot holds a buffer's contents as one launch that wrote it left them.
// It stands for the buffer's contents only while no other launch has
// written the buffer since, and only if no other launch was writing it
// when its own started (on CUDA, kernels on other streams run alongside,
// and the copy would miss their writes). So every launch reports each
// buffer it writes, claimed slot or not (write()), and reports when it has
// finished (done()); uploads into a buffer and freeing it end its slot
// (forget()). A slot is read only after its launch has finished, and is
// given to another launch only then, so a copy in flight never lands in a
// slot another buffer owns. Reads copy out under the table's lock, and
// claims take the lock before the device queues the copy.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_EAGERDOWNLOADS_H
#define HPVM_RT_LIB_EAGERDOWNLOADS_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace hpvm::rt {

class EagerDownloads {
public:
  /// Buffers up to this size are copied home by their launch.
  static constexpr size_t SlotBytes = size_t(64) << 10;
  /// How many buffers can have such a copy at once (2 MiB of host memory).
  static constexpr unsigned NumSlots = 32;
  static constexpr unsigned NoSlot = ~0u;

  /// One buffer a launch writes: the slot the launch copies it into, if
  /// any, and which write it was.
  struct Ticket {
    const void *Buffer;
    uint64_t Write;
    unsigned Slot;
    bool hasSlot() const { return Slot != NoSlot; }
    size_t offset() const { return size_t(Slot) * SlotBytes; }
  };

  /// A launch is about to write Buffer, Bytes long (before its kernel is
  /// queued). The ticket has a slot when the buffer is small, no other
  /// launch is writing it, and a slot is free; the launch then copies the
  /// buffer into it after the kernel. Every ticket must be given to done().
  Ticket write(const void *Buffer, size_t Bytes) {
    std::lock_guard<std::mutex> L(M);
    Writes &W = Buffers[Buffer];
    Ticket T{Buffer, ++LastWrite, NoSlot};
    W.Last = T.Write;
    if (++W.InFlight == 1 && Bytes <= SlotBytes)
      T.Slot = claimLocked(T, Bytes);
    return T;
  }

  /// T's launch has finished (Ran), or was never submitted.
  void done(const Ticket &T, bool Ran) {
    std::lock_guard<std::mutex> L(M);
    auto It = Buffers.find(T.Buffer);
    if (It != Buffers.end() && It->second.InFlight)
      --It->second.InFlight;
    if (!T.hasSlot())
      return;
    Slot &S = Slots[T.Slot];
    if (S.Write != T.Write)
      return; // given to another launch (cannot be while T is in flight)
    S.Filling = false;
    if (!Ran)
      S.Owner = nullptr;
  }

  /// The host uploads into Buffer, or frees it: its slot, if any, is stale.
  void forget(const void *Buffer) {
    std::lock_guard<std::mutex> L(M);
    auto It = Buffers.find(Buffer);
    if (It == Buffers.end())
      return;
    It->second.Last = ++LastWrite;
    if (!It->second.InFlight)
      Buffers.erase(It);
  }

  /// Copies bytes [Offset, Offset + Bytes) of Buffer to Dst from its slot
  /// (Base is the host address of slot 0) if a finished launch left the
  /// buffer's current contents there; false if not.
  bool read(const void *Buffer, uint64_t Offset, size_t Bytes, void *Dst,
            const char *Base) {
    std::lock_guard<std::mutex> L(M);
    auto It = Buffers.find(Buffer);
    if (It == Buffers.end() || It->second.InFlight)
      return false;
    for (unsigned I = 0; I != Slots.size(); ++I) {
      const Slot &S = Slots[I];
      if (S.Owner != Buffer || S.Filling || S.Write != It->second.Last)
        continue;
      if (Offset > S.Bytes || Bytes > S.Bytes - Offset)
        return false;
      std::memcpy(Dst, Base + I * SlotBytes + Offset, Bytes);
      Served += Bytes;
      return true;
    }
    return false;
  }

  /// Bytes that read() served.
  uint64_t served() const {
    std::lock_guard<std::mutex> L(M);
    return Served;
  }

private:
  struct Writes {
    uint64_t Last = 0;     // the latest write (or upload) of the buffer
    unsigned InFlight = 0; // launches writing it that have not finished
  };
  struct Slot {
    const void *Owner = nullptr;
    uint64_t Write = 0;
    size_t Bytes = 0;
    bool Filling = false; // its launch has not finished
  };

  /// A slot whose launch has finished (stale contents are dropped), taken
  /// in turn so that the most recent ones stay longest.
  unsigned claimLocked(const Ticket &T, size_t Bytes) {
    if (Slots.empty())
      Slots.resize(NumSlots);
    for (unsigned K = 0; K != NumSlots; ++K) {
      unsigned I = (Next + K) % NumSlots;
      Slot &S = Slots[I];
      if (S.Filling)
        continue;
      Next = (I + 1) % NumSlots;
      S = Slot{T.Buffer, T.Write, Bytes, /*Filling=*/true};
      return I;
    }
    return NoSlot;
  }

  mutable std::mutex M;
  std::unordered_map<const void *, Writes> Buffers;
  std::vector<Slot> Slots;
  unsigned Next = 0;
  uint64_t LastWrite = 0;
  uint64_t Served = 0;
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_EAGERDOWNLOADS_H
