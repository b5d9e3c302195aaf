//===- Coherence.h - Copies of buffers across memory spaces -----*- C++ -*-===//
//
// StarPU-style MSI coherence, kept per byte range. A buffer is a
// host pointer and a byte size; each memory space may hold a copy of it,
// and every byte range of that copy is Invalid, Shared (valid, others may
// be too) or Modified (the only valid copy). A leaf launch names the
// sections it touches; acquiring them in a space copies there only the
// ranges that are invalid, and a section acquired for writing invalidates
// the other copies of that range.
//
// Launches in flight: a section a running kernel uses is registered (readers
// and writers per range and space) until the kernel completes, and nothing
// overwrites or invalidates-and-refills a copy under it. A launch whose
// sections conflict with ones in flight waits before it moves any data; it
// takes all its sections at once, so launches never wait on each other in
// a cycle. Two rules make every schedule compute what the sequential
// program computes (docs/runtime.md §5):
//   * a range is written in at most one memory space at a time;
//   * a copy is never written (by a kernel or a transfer) while a kernel
//     that started reading it when it was valid may still be reading it,
//     unless it stays valid (kernels of one space share their copy).
//
// Buffers are named by the pointer a kernel indexes from, and several may
// hold bytes of one allocation (`a` and `a + 1`, overlapping sections named
// through different pointers). Each has copies of its own, so the bytes
// they share are kept coherent through host memory: a launch first brings
// home what another buffer holds modified of its section elsewhere, and a
// launch that writes its section invalidates the other buffers' copies of
// those bytes outside host memory. Of two buffers sharing bytes, at most one
// then holds them modified outside host memory (docs/runtime.md §5.3).
//
// Host memory is the truth between launches: the host program may write its
// buffers between two launches without telling anyone. So a launch is the
// unit of coherence: at its end every range it wrote elsewhere is copied
// back, and copies outside host memory are dropped once no running launch
// uses the buffer. Within a launch, copies avoided are real savings.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_COHERENCE_H
#define HPVM_RT_COHERENCE_H

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/Device.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace hpvm::rt {

class Stats;
class Trace;
struct NodeStats;

/// One buffer argument of a leaf launch.
struct BufferUse {
  /// The buffer's host pointer: what the kernel indexes from.
  void *Host = nullptr;
  /// The section the launch touches: bytes [Begin, End) from Host.
  uint64_t Begin = 0;
  uint64_t End = 0;
  Access Mode = Access::In;
  /// The launch writes every byte of the section before reading any, so
  /// the bytes there before need not be copied in (an out section the
  /// compiler proved dense).
  bool WritesAll = false;
  /// The buffer's size as the outermost node naming it declares it (what a
  /// device copy holds); at least End.
  uint64_t Extent = 0;
  /// "<graph>:<root parameter>", for statistics and the trace; may be null.
  const std::string *Name = nullptr;
  /// An out section the launch writes in rows (the interior of a grid):
  /// RowCount rows of RowBytes bytes, RowStride apart, the first RowsStart
  /// bytes into the section. Only the bytes around them need copying in.
  uint64_t RowsStart = 0, RowBytes = 0, RowStride = 0, RowCount = 0;
  bool HasRows = false;

  uint64_t bytes() const { return End - Begin; }
  /// Whether the launch needs the bytes that are there before it runs.
  bool needsContents() const { return reads(Mode) || !WritesAll; }
};

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
    std::vector<Buffer *> Buffers; // under the coherence lock
  };

  /// The sections one leaf launch has in flight, from acquire until
  /// complete (its kernel has finished).
  class Hold {
  public:
    Hold() = default;
    Hold(const Hold &) = delete;
    Hold &operator=(const Hold &) = delete;
    bool empty() const { return Entries.empty(); }

  private:
    friend class Coherence;
    struct Entry {
      Buffer *B;
      uint64_t Begin, End;
      bool Writes;
    };
    /// What a written range was before the launch took it: the state of
    /// every space's copy, for discard. Kept after complete.
    struct Before {
      Buffer *B;
      uint64_t Begin, End;
      std::vector<State> States;
    };
    MemorySpace Space = HostSpace;
    std::vector<Entry> Entries;
    std::vector<Before> Written;
  };

  Coherence();
  Coherence(const Coherence &) = delete;
  Coherence &operator=(const Coherence &) = delete;
  ~Coherence();

  /// Makes D's copies of the sections of Uses[0, N) valid for their modes
  /// and sets Ptrs[I] to the address of Uses[I].Host's copy in D's memory
  /// space, waiting first while a launch in flight conflicts. The sections
  /// stay registered in H until complete(H). A host-space use of a buffer
  /// no other space has seen is left alone unless TrackHost (a launch that
  /// may put it elsewhere concurrently must register it). The bytes copied
  /// count for Node (if any). Throws RtError if D fails, or if a buffer to
  /// copy reaches past the memory the process has mapped (a size counted in
  /// bytes for elements); H then holds what
  /// must still be completed.
  void acquire(LaunchSet &Launch, const BufferUse *Uses, size_t N, Device &D,
               void **Ptrs, Hold &H, bool TrackHost, NodeStats *Node = nullptr);

  /// The kernel that used H has finished.
  void complete(Hold &H);

  /// The kernel that used H failed, before or after complete(H): what it
  /// may have written in its space is dropped, and the ranges it wrote get
  /// back the copies they had elsewhere before (nothing has used those
  /// ranges since: launches are ordered by what they write). Returns
  /// whether that left every range it wrote valid somewhere else, so that
  /// the leaf may run again on another device; false when its space held
  /// the only valid copy of one (its old contents are lost).
  bool discard(Hold &H);

  /// The end of a launch: copies back what it left modified outside host
  /// memory (counted for End, if any), and frees copies no other running
  /// launch uses.
  void release(LaunchSet &Launch, NodeStats *End = nullptr);

  /// Where copies are counted and traced (per node and buffer) besides the
  /// totals here; either may be null.
  void observe(Stats *S, Trace *T) {
    TheStats = S;
    TheTrace = T;
  }
  /// Calls Fn (null: nothing) whenever a buffer gets an entry while none
  /// had one, i.e. idle() turns false: after the change, with coherence's lock
  /// held (Fn must not call back).
  void onBusy(void (*Fn)()) { OnBusy = Fn; }

  /// Data regions (OpenMP's `target data`, HPVM's track/untrack): while a
  /// buffer is in one, launches leave its device copies in place at their
  /// end instead of copying it home, so a sequence of launches moves it up
  /// once and down once. Regions nest; Bytes from Host is what copies hold
  /// at least. A region of no bytes keeps nothing, but its exit is valid.
  void enterRegion(void *Host, uint64_t Bytes);
  /// Leaves one region the buffer at Host is in; leaving the last copies
  /// home every range modified elsewhere (counted for Node, if any).
  /// Throws RtError (HPVM_ERR_INVALID_ARGUMENT) if it is in none.
  void exitRegion(void *Host, NodeStats *Node = nullptr);
  /// The host is about to read [Host, Host + Bytes), which may lie inside a
  /// buffer: copies home what is modified elsewhere, once no launch in
  /// flight writes it.
  void requestHost(void *Host, uint64_t Bytes, NodeStats *Node = nullptr);
  /// The host has written [Host, Host + Bytes): the copies elsewhere are
  /// stale from now on.
  void hostWrote(void *Host, uint64_t Bytes);
  /// How many regions the buffer at Host is in.
  unsigned regions(void *Host) const;

  /// True when no buffer has a copy outside host memory, so host-space
  /// devices may use host pointers without looking anything up.
  bool idle() const { return NumBuffers.load(std::memory_order_acquire) == 0; }

  /// Bytes that acquiring U in Space would copy now (heft's transfer
  /// estimate).
  uint64_t bytesToAcquire(const BufferUse &U, MemorySpace Space) const;

  /// The state of Space's copy of the buffer at Host: Invalid if any range
  /// is, Modified if all are, else Shared. A buffer not in the table is
  /// Shared in host memory and Invalid elsewhere.
  State state(void *Host, MemorySpace Space) const;

  /// Frees every copy held by D (for removing a device; nothing may run).
  void dropDevice(const Device &D);

  uint64_t bytesMoved() const { return BytesMoved.load(); }
  uint64_t copiesAvoided() const { return CopiesAvoided.load(); }
  void resetCounters() {
    BytesMoved = 0;
    CopiesAvoided = 0;
  }

private:
  struct Transfer;
  /// The bytes of [Begin, End) that rows (as in BufferUse) leave out.
  struct Rows {
    uint64_t Start = 0, Bytes = 0, Stride = 0, Count = 0;
  };

  mutable std::mutex M;
  std::condition_variable Changed; // in-flight sections ended
  /// By host address, so that the buffers sharing bytes with a range are
  /// found without visiting the others.
  std::map<void *, std::unique_ptr<Buffer>, std::less<>> Table;
  /// The largest size a buffer in Table has had: a buffer beginning more
  /// than this below a range cannot reach it.
  uint64_t LargestBuffer = 0;
  /// Regions of no bytes, by pointer: nothing to keep, but each is exited.
  std::unordered_map<void *, unsigned> EmptyRegions;
  std::atomic<size_t> NumBuffers{0};
  std::atomic<uint64_t> BytesMoved{0};
  std::atomic<uint64_t> CopiesAvoided{0};
  Stats *TheStats = nullptr;
  Trace *TheTrace = nullptr;
  void (*OnBusy)() = nullptr;
  /// With M held: one more buffer in Table, of Size bytes.
  void noteNewBuffer(uint64_t Size);

  Buffer *enterLocked(LaunchSet &Launch, const BufferUse &U);
  bool readyLocked(Buffer &B, const BufferUse &U, MemorySpace S) const;
  void planLocked(Buffer &B, const BufferUse &U, MemorySpace S,
                  std::vector<Transfer> &Out, Hold &H, NodeStats *Node);
  bool hostReadyLocked(Buffer &B, uint64_t Begin, uint64_t End) const;
  void planWriteBackLocked(Buffer &B, uint64_t Begin, uint64_t End,
                           std::vector<Transfer> &Out, NodeStats *Node);
  void writeBackLocked(std::unique_lock<std::mutex> &L, Buffer &B,
                       uint64_t Begin, uint64_t End, NodeStats *Node);
  void dropLocked(Buffer &B);
  /// The buffers with bytes in [Host, Host + Bytes), with the part of the
  /// range each holds.
  struct Overlap {
    Buffer *B;
    uint64_t Begin, End;
  };
  std::vector<Overlap> overlapsLocked(const void *Host, uint64_t Bytes,
                                      const Buffer *Except = nullptr) const;
  /// overlapsLocked, each buffer held (Users) so that none is dropped while
  /// the caller waits; unholdLocked lets them go.
  std::vector<Overlap> holdOverlapsLocked(void *Host, uint64_t Bytes);
  void unholdLocked(const std::vector<Overlap> &Held);
  /// Whether a launch's use U of B may start as far as the other buffers
  /// holding bytes of its section go: none writes them or fills them, and
  /// none uses them at all if U writes.
  bool aliasesReadyLocked(const Buffer &B, const BufferUse &U) const;
  /// Before U's section of B is acquired: what other buffers hold modified
  /// of it outside host memory comes home (planned into Out), and if U
  /// writes, their copies of it outside host memory are stale from now on.
  void reconcileAliasesLocked(LaunchSet &Launch, Buffer &B, const BufferUse &U,
                              std::vector<Transfer> &Out, NodeStats *Node);
  /// Fn(Overlap) for each buffer but Except with bytes in
  /// [Host, Host + Bytes).
  template <typename Fn>
  void forEachOverlapLocked(const void *Host, uint64_t Bytes,
                            const Buffer *Except, Fn F) const;
  /// Launch holds B until its release.
  void holdLocked(LaunchSet &Launch, Buffer &B);
  void count(const Transfer &T, uint64_t Bytes, uint64_t Start, uint64_t End);
  uint64_t copyAroundRows(const Transfer &T);
  void runTransfers(std::unique_lock<std::mutex> &L, std::vector<Transfer> &Ts);
  void growLocked(Buffer &B, uint64_t Size);
  void freeCopiesLocked(Buffer &B);
};

} // namespace hpvm::rt

#endif // HPVM_RT_COHERENCE_H
