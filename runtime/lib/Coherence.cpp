//===- Coherence.cpp - Copies of buffers across memory spaces -------------===//
//
// One mutex guards the whole directory: the table, every buffer's ranges
// and the launch sets. Transfers run outside it; while one runs, its
// destination range is marked Filling, which keeps every other launch off
// that range until it is done (so the source cannot change under it and
// nobody reads a half-filled copy). Launches that must wait sleep on one
// condition variable, signalled whenever something in flight ends.
//
//===----------------------------------------------------------------------===//

#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/Stats.h"
#include "hpvm/rt/Trace.h"

#include "SmallArray.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include <sys/mman.h>
#include <unistd.h>

using namespace hpvm;
using namespace hpvm::rt;

struct Coherence::Buffer {
  /// One memory space's view of one byte range.
  struct Slot {
    State S = State::Invalid;
    /// Launches in flight using this copy of the range, and how many of
    /// them write it.
    uint32_t Users = 0, Writers = 0;
    /// A transfer into this copy of the range is running.
    bool Filling = false;
    bool operator==(const Slot &O) const {
      return S == O.S && Users == O.Users && Writers == O.Writers &&
             Filling == O.Filling;
    }
  };
  /// Bytes [Begin, the next segment's Begin or Size), by memory space.
  struct Segment {
    uint64_t Begin;
    std::vector<Slot> Slots;
  };
  struct Copy {
    void *Ptr = nullptr;
    Device *Dev = nullptr; // who allocated Ptr
  };

  void *Host;
  uint64_t Size;
  std::string Name;     // for statistics and the trace (may outlive a program)
  unsigned Users = 0;   // launch sets and data regions holding it
  unsigned Regions = 0; // data regions holding it
  std::vector<Copy> Copies;      // by memory space; [HostSpace] unused
  std::vector<Segment> Segments; // sorted; the first begins at 0

  Buffer(void *Host, uint64_t Size) : Host(Host), Size(Size) { reset(1); }

  /// One range, valid in host memory only.
  void reset(size_t Spaces) {
    Segments.assign(1, Segment{0, std::vector<Slot>(Spaces)});
    Segments[0].Slots[HostSpace].S = State::Shared;
  }
  size_t numSpaces() const { return Segments[0].Slots.size(); }
  void addSpace(MemorySpace S) {
    if (S < numSpaces())
      return;
    for (Segment &G : Segments)
      G.Slots.resize(S + 1);
    Copies.resize(S + 1);
  }
  uint64_t end(size_t I) const {
    return I + 1 < Segments.size() ? Segments[I + 1].Begin : Size;
  }
  char *host(uint64_t Offset) const {
    return static_cast<char *>(Host) + Offset;
  }

  /// The first segment that ends after At.
  size_t find(uint64_t At) const {
    auto It = std::upper_bound(
        Segments.begin(), Segments.end(), At,
        [](uint64_t V, const Segment &G) { return V < G.Begin; });
    return static_cast<size_t>(It - Segments.begin()) - 1;
  }
  /// The index of the segment that begins at At, splitting one if needed.
  size_t splitAt(uint64_t At) {
    if (At >= Size)
      return Segments.size();
    size_t I = find(At);
    if (Segments[I].Begin == At)
      return I;
    Segments.insert(Segments.begin() + I + 1, Segment{At, Segments[I].Slots});
    return I + 1;
  }
  /// Segments [First, Last) cover exactly [Begin, End).
  std::pair<size_t, size_t> split(uint64_t Begin, uint64_t End) {
    size_t First = splitAt(Begin);
    return {First, splitAt(End)};
  }
  void coalesce() {
    size_t Out = 0;
    for (size_t I = 1; I < Segments.size(); ++I) {
      if (Segments[I].Slots == Segments[Out].Slots)
        continue;
      if (++Out != I)
        Segments[Out] = std::move(Segments[I]);
    }
    Segments.resize(Out + 1);
  }
  template <typename Fn>
  void forEachOverlapping(uint64_t B, uint64_t E, Fn F) const {
    for (size_t I = find(B); I < Segments.size() && Segments[I].Begin < E; ++I)
      F(Segments[I], std::max(B, Segments[I].Begin), std::min(E, end(I)));
  }
  bool busy() const {
    for (const Segment &G : Segments)
      for (const Slot &Sl : G.Slots)
        if (Sl.Users || Sl.Filling)
          return true;
    return false;
  }
};

namespace {

std::string describe(const void *Host) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%p", Host);
  return Buf;
}

using Slot = Coherence::Buffer::Slot;
using Segment = Coherence::Buffer::Segment;
using State = Coherence::State;

bool valid(const Slot &Sl) { return Sl.S != State::Invalid; }

/// Where a range's contents come from: host memory if it is valid there
/// (one copy, no detour), else the space that has it.
MemorySpace sourceOf(const Segment &G) {
  if (valid(G.Slots[HostSpace]))
    return HostSpace;
  for (MemorySpace S = 1; S < G.Slots.size(); ++S)
    if (valid(G.Slots[S]))
      return S;
  // Unreachable while "some copy is valid" holds; keep host memory as the
  // truth rather than lose the buffer.
  return HostSpace;
}

/// How many bytes from P on are in memory the process has mapped, up to
/// Bytes. Copying a buffer to a device reads all of it: a size larger than
/// its array (a section counted in bytes instead of elements) would fault
/// inside the copy, where it can only be a crash.
uint64_t mappedBytes(const void *P, uint64_t Bytes) {
  static const uint64_t Page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uintptr_t Begin = reinterpret_cast<uintptr_t>(P);
  uintptr_t First = Begin / Page * Page;
  uint64_t Pages = (Begin - First + Bytes + Page - 1) / Page;
  // mincore fails with ENOMEM where a page of the range is not mapped;
  // chunks of pages narrow down where.
  static thread_local std::vector<unsigned char> Residency;
  for (uint64_t Done = 0, Chunk = 1u << 16; Done < Pages;) {
    uint64_t Count = std::min(Chunk, Pages - Done);
    Residency.resize(Count);
    void *At = reinterpret_cast<void *>(First + Done * Page);
    if (mincore(At, Count * Page, Residency.data()) == 0) {
      Done += Count;
      continue;
    }
    if (errno != ENOMEM)
      return Bytes; // not something mincore can tell: assume mapped
    if (Count == 1) {
      uint64_t Mapped = First + Done * Page - Begin;
      return Done == 0 ? 0 : std::min(Mapped, Bytes);
    }
    Chunk = std::max<uint64_t>(1, Count / 16);
  }
  return Bytes;
}

bool anyFilling(const Segment &G) {
  for (const Slot &Sl : G.Slots)
    if (Sl.Filling)
      return true;
  return false;
}

} // namespace

/// One copy of a range between two memory spaces, planned under the lock
/// and run outside it.
struct Coherence::Transfer {
  Buffer *B;
  uint64_t Begin, End;
  MemorySpace From, To;
  Buffer::Copy Src, Dst; // the device copies (null for host memory)
  NodeStats *Node;       // counted for it
  /// When Skip.Count is set, the rows that are not copied (a kernel is
  /// about to write them): only the bytes around them are.
  Rows Skip = {};
};

Coherence::Coherence() = default;

Coherence::~Coherence() {
  // Only reached for coherence objects of tests; the runtime's lives on.
  for (auto &Entry : Table)
    freeCopiesLocked(*Entry.second);
}

void Coherence::freeCopiesLocked(Buffer &B) {
  for (size_t S = 1; S < B.Copies.size(); ++S)
    if (Buffer::Copy &C = B.Copies[S]; C.Ptr) {
      C.Dev->free(C.Ptr);
      C = Buffer::Copy();
    }
}

void Coherence::noteNewBuffer(uint64_t Size) {
  LargestBuffer = std::max(LargestBuffer, Size);
  if (NumBuffers.fetch_add(1, std::memory_order_release) == 0 && OnBusy)
    OnBusy();
}

Coherence::Buffer *Coherence::enterLocked(LaunchSet &Launch,
                                          const BufferUse &U) {
  std::unique_ptr<Buffer> &Slot = Table[U.Host];
  if (!Slot) {
    Slot = std::make_unique<Buffer>(U.Host, std::max(U.End, U.Extent));
    noteNewBuffer(Slot->Size);
  }
  Buffer *B = Slot.get();
  if (B->Name.empty() && U.Name)
    B->Name = *U.Name;
  holdLocked(Launch, *B);
  return B;
}

void Coherence::holdLocked(LaunchSet &Launch, Buffer &B) {
  if (std::find(Launch.Buffers.begin(), Launch.Buffers.end(), &B) ==
      Launch.Buffers.end()) {
    Launch.Buffers.push_back(&B);
    ++B.Users;
  }
}

bool Coherence::readyLocked(Buffer &B, const BufferUse &U,
                            MemorySpace S) const {
  if (!aliasesReadyLocked(B, U))
    return false;
  // A larger view than the copies hold: they are rebuilt, which needs the
  // buffer quiet.
  if (U.End > B.Size)
    return !B.busy();
  bool Needs = U.needsContents(), Writes = writes(U.Mode);
  bool Ready = true;
  B.forEachOverlapping(
      U.Begin, U.End, [&](const Segment &G, uint64_t, uint64_t) {
        if (!Ready || anyFilling(G)) {
          Ready = false;
          return;
        }
        const Slot &D = G.Slots[S];
        if (!valid(D)) {
          // This copy is about to be overwritten (by a transfer or by the
          // kernel): not under a kernel still reading what it held.
          if (D.Users) {
            Ready = false;
            return;
          }
          if (Needs) {
            MemorySpace Src = sourceOf(G);
            const Slot &H = G.Slots[HostSpace];
            if (G.Slots[Src].Writers ||
                (Src != HostSpace && S != HostSpace && H.Users)) {
              Ready = false;
              return;
            }
          }
        }
        // A range is written in one memory space at a time.
        if (Writes)
          for (MemorySpace O = 0; O < G.Slots.size(); ++O)
            if (O != S && G.Slots[O].Writers) {
              Ready = false;
              return;
            }
      });
  return Ready;
}

void Coherence::planLocked(Buffer &B, const BufferUse &U, MemorySpace S,
                           std::vector<Transfer> &Out, Hold &H,
                           NodeStats *Node) {
  auto [First, Last] = B.split(U.Begin, U.End);
  bool Needs = U.needsContents(), Writes = writes(U.Mode);
  bool Copied = false;
  // An out section written in rows, held only in host memory: the device
  // gets the bytes around the rows, and the kernel writes the rest.
  bool AroundRows =
      U.HasRows && U.Mode == Access::Out && S != HostSpace &&
      std::all_of(B.Segments.begin() + First, B.Segments.begin() + Last,
                  [&](const Segment &G) {
                    return !valid(G.Slots[S]) && valid(G.Slots[HostSpace]);
                  });
  if (AroundRows) {
    Out.push_back(Transfer{
        &B, U.Begin, U.End, HostSpace, S, B.Copies[HostSpace], B.Copies[S],
        Node, Rows{U.RowsStart, U.RowBytes, U.RowStride, U.RowCount}});
    for (size_t I = First; I != Last; ++I)
      B.Segments[I].Slots[S].Filling = true;
    Needs = false;
    Copied = true;
  }
  auto AddTransfer = [&](uint64_t Begin, uint64_t End, MemorySpace From,
                         MemorySpace To) {
    if (!Out.empty()) {
      Transfer &T = Out.back();
      if (T.B == &B && T.End == Begin && T.From == From && T.To == To &&
          !T.Skip.Count) {
        T.End = End;
        return;
      }
    }
    Out.push_back(
        Transfer{&B, Begin, End, From, To, B.Copies[From], B.Copies[To], Node});
  };
  if (Writes)
    for (size_t I = First; I != Last; ++I) {
      Hold::Before Was{&B, B.Segments[I].Begin, B.end(I), {}};
      for (const Slot &Sl : B.Segments[I].Slots)
        Was.States.push_back(Sl.S);
      H.Written.push_back(std::move(Was));
    }
  for (size_t I = First; I != Last; ++I) {
    Segment &G = B.Segments[I];
    Slot &D = G.Slots[S];
    if (!valid(D) && Needs) {
      MemorySpace Src = sourceOf(G);
      Slot &H = G.Slots[HostSpace];
      if (Src != HostSpace && S != HostSpace) {
        // Devices exchange data through host memory.
        AddTransfer(G.Begin, B.end(I), Src, HostSpace);
        H.S = State::Shared;
        H.Filling = true;
        Src = HostSpace;
      }
      AddTransfer(G.Begin, B.end(I), Src, S);
      Slot &From = G.Slots[Src];
      if (From.S == State::Modified)
        From.S = State::Shared;
      D.S = State::Shared;
      D.Filling = true;
      Copied = true;
    }
    ++D.Users;
    if (Writes) {
      ++D.Writers;
      for (Slot &O : G.Slots)
        if (&O != &D)
          O.S = State::Invalid;
      D.S = State::Modified;
    }
  }
  if (!Copied && S != HostSpace)
    CopiesAvoided.fetch_add(1, std::memory_order_relaxed);
  H.Entries.push_back(Hold::Entry{&B, U.Begin, U.End, Writes});
}

void Coherence::runTransfers(std::unique_lock<std::mutex> &L,
                             std::vector<Transfer> &Ts) {
  if (Ts.empty())
    return;
  size_t Done = 0;
  std::exception_ptr Failure;
  L.unlock();
  try {
    for (; Done != Ts.size(); ++Done) {
      const Transfer &T = Ts[Done];
      uint64_t Bytes = T.End - T.Begin;
      uint64_t Start = nowNanos();
      if (T.Skip.Count)
        Bytes = copyAroundRows(T);
      else if (T.From == HostSpace)
        T.Dst.Dev->copyFromHost(T.Dst.Ptr, T.Begin, T.B->host(T.Begin), Bytes);
      else
        T.Src.Dev->copyToHost(T.B->host(T.Begin), T.Src.Ptr, T.Begin, Bytes);
      count(T, Bytes, Start, nowNanos());
    }
  } catch (...) {
    Failure = std::current_exception();
  }
  L.lock();
  for (size_t I = 0; I != Ts.size(); ++I) {
    Transfer &T = Ts[I];
    auto [First, Last] = T.B->split(T.Begin, T.End);
    for (size_t K = First; K != Last; ++K) {
      std::vector<Slot> &Slots = T.B->Segments[K].Slots;
      Slots[T.To].Filling = false;
      if (I < Done)
        continue;
      // Not copied: the destination holds nothing, and the source, which
      // was only read, is the copy to keep if no other is valid.
      Slots[T.To].S = State::Invalid;
      if (std::none_of(Slots.begin(), Slots.end(), valid))
        Slots[T.From].S = State::Modified;
    }
    T.B->coalesce();
  }
  Changed.notify_all();
  if (Failure)
    std::rethrow_exception(Failure);
}

uint64_t Coherence::copyAroundRows(const Transfer &T) {
  // [Begin, first row), the gaps between rows, [after the last row, End).
  const Rows &R = T.Skip;
  Device &D = *T.Dst.Dev;
  uint64_t Moved = 0;
  auto Copy = [&](uint64_t From, uint64_t To) {
    if (To > From) {
      D.copyFromHost(T.Dst.Ptr, From, T.B->host(From), To - From);
      Moved += To - From;
    }
  };
  uint64_t First = T.Begin + R.Start;
  uint64_t LastEnd = First + (R.Count - 1) * R.Stride + R.Bytes;
  Copy(T.Begin, First);
  if (R.Count > 1 && R.Stride > R.Bytes) {
    uint64_t Gap = R.Stride - R.Bytes;
    D.copyRowsFromHost(T.Dst.Ptr, First + R.Bytes, T.B->host(First + R.Bytes),
                       Gap, R.Stride, R.Count - 1);
    Moved += Gap * (R.Count - 1);
  }
  Copy(LastEnd, T.End);
  return Moved;
}

void Coherence::count(const Transfer &T, uint64_t Bytes, uint64_t Start,
                      uint64_t End) {
  BytesMoved.fetch_add(Bytes, std::memory_order_relaxed);
  bool Up = T.From == HostSpace;
  if (T.Node)
    T.Node->BytesIn.fetch_add(Bytes, std::memory_order_relaxed);
  if (TheStats && !T.B->Name.empty()) {
    BufferStats &S = TheStats->buffer(T.B->Name);
    (Up ? S.ToDevices : S.ToHost).fetch_add(Bytes, std::memory_order_relaxed);
  }
  if (TheTrace && TheTrace->enabled())
    TheTrace->recordCopy(
        Up ? "upload" : "download", (Up ? T.Dst : T.Src).Dev->name(),
        T.Node ? T.Node->Path : std::string(), T.B->Name, Start, End, Bytes);
}

void Coherence::growLocked(Buffer &B, uint64_t Size) {
  // Gather the buffer in host memory and start over at the new size.
  std::vector<Transfer> Ts;
  planWriteBackLocked(B, 0, B.Size, Ts, nullptr);
  for (Transfer &T : Ts) {
    uint64_t Start = nowNanos();
    T.Src.Dev->copyToHost(B.host(T.Begin), T.Src.Ptr, T.Begin, T.End - T.Begin);
    count(T, T.End - T.Begin, Start, nowNanos());
  }
  freeCopiesLocked(B);
  B.Size = Size;
  LargestBuffer = std::max(LargestBuffer, Size);
  B.reset(B.numSpaces());
}

void Coherence::acquire(LaunchSet &Launch, const BufferUse *Uses, size_t N,
                        Device &D, void **Ptrs, Hold &H, bool TrackHost,
                        NodeStats *Node) {
  MemorySpace S = D.memorySpace();
  H.Space = S;
  H.Written.clear();
  SmallArray<Buffer *, 8> Bufs(N);
  std::unique_lock<std::mutex> L(M);
  for (size_t I = 0; I != N; ++I) {
    const BufferUse &U = Uses[I];
    Ptrs[I] = U.Host;
    Bufs[I] = nullptr;
    // Nothing to keep coherent in an empty or absent section.
    if (!U.Host || U.End <= U.Begin)
      continue;
    // Host memory is every host-space kernel's copy: only what other
    // spaces hold of the section concerns it.
    if (S == HostSpace && !TrackHost &&
        overlapsLocked(static_cast<char *>(U.Host) + U.Begin, U.bytes())
            .empty())
      continue;
    Bufs[I] = enterLocked(Launch, U);
    Bufs[I]->addSpace(S);
  }
  Changed.wait(L, [&] {
    for (size_t I = 0; I != N; ++I)
      if (Bufs[I] && !readyLocked(*Bufs[I], Uses[I], S))
        return false;
    return true;
  });
  // Nothing is registered yet: a failure here leaves no trace.
  for (size_t I = 0; I != N; ++I)
    if (Bufs[I] && Uses[I].End > Bufs[I]->Size)
      growLocked(*Bufs[I], std::max(Uses[I].End, Uses[I].Extent));
  if (S != HostSpace)
    for (size_t I = 0; I != N; ++I)
      if (Buffer *B = Bufs[I]; B && !B->Copies[S].Ptr) {
        if (uint64_t Mapped = mappedBytes(B->Host, B->Size); Mapped < B->Size)
          throw RtError(HPVM_ERR_BAD_VALUE,
                        "buffer '" +
                            (B->Name.empty() ? describe(B->Host) : B->Name) +
                            "' is declared " + std::to_string(B->Size) +
                            " bytes long, but only " + std::to_string(Mapped) +
                            " bytes from " + describe(B->Host) +
                            " are memory of the process: is a section or size "
                            "counted in bytes where elements were meant?");
        B->Copies[S] = Buffer::Copy{D.allocate(B->Size), &D};
      }

  // Other buffers' bytes of the sections first: their transfers home run
  // before the ones that read host memory.
  std::vector<Transfer> Ts;
  for (size_t I = 0; I != N; ++I)
    if (Bufs[I])
      reconcileAliasesLocked(Launch, *Bufs[I], Uses[I], Ts, Node);
  for (size_t I = 0; I != N; ++I)
    if (Bufs[I]) {
      planLocked(*Bufs[I], Uses[I], S, Ts, H, Node);
      if (S != HostSpace)
        Ptrs[I] = Bufs[I]->Copies[S].Ptr;
    }
  runTransfers(L, Ts);
}

void Coherence::complete(Hold &H) {
  if (H.Entries.empty())
    return;
  {
    std::lock_guard<std::mutex> L(M);
    for (const Hold::Entry &E : H.Entries) {
      auto [First, Last] = E.B->split(E.Begin, E.End);
      for (size_t I = First; I != Last; ++I) {
        Slot &D = E.B->Segments[I].Slots[H.Space];
        --D.Users;
        if (E.Writes)
          --D.Writers;
      }
      E.B->coalesce();
    }
  }
  H.Entries.clear();
  Changed.notify_all();
}

bool Coherence::discard(Hold &H) {
  complete(H);
  bool Intact = true;
  {
    std::lock_guard<std::mutex> L(M);
    for (const Hold::Before &Was : H.Written) {
      bool Elsewhere = false;
      for (MemorySpace O = 0; O < Was.States.size(); ++O)
        Elsewhere |= O != H.Space && Was.States[O] != State::Invalid;
      if (!Elsewhere) {
        Intact = false;
        continue; // its contents are gone; the failed copy is all there is
      }
      auto [First, Last] = Was.B->split(Was.Begin, Was.End);
      for (size_t I = First; I != Last; ++I) {
        std::vector<Slot> &Slots = Was.B->Segments[I].Slots;
        for (MemorySpace O = 0; O < Slots.size() && O < Was.States.size(); ++O)
          Slots[O].S = O == H.Space ? State::Invalid : Was.States[O];
      }
      Was.B->coalesce();
    }
  }
  H.Written.clear();
  Changed.notify_all();
  return Intact;
}

bool Coherence::hostReadyLocked(Buffer &B, uint64_t Begin, uint64_t End) const {
  bool Ready = true;
  B.forEachOverlapping(Begin, End, [&](const Segment &G, uint64_t, uint64_t) {
    if (valid(G.Slots[HostSpace]))
      return;
    if (anyFilling(G) || G.Slots[HostSpace].Users ||
        G.Slots[sourceOf(G)].Writers)
      Ready = false;
  });
  return Ready;
}

void Coherence::planWriteBackLocked(Buffer &B, uint64_t Begin, uint64_t End,
                                    std::vector<Transfer> &Out,
                                    NodeStats *Node) {
  auto [First, Last] = B.split(Begin, End);
  for (size_t I = First; I != Last; ++I) {
    Segment &G = B.Segments[I];
    Slot &H = G.Slots[HostSpace];
    if (valid(H))
      continue;
    MemorySpace Src = sourceOf(G);
    if (Src == HostSpace)
      continue;
    uint64_t From = G.Begin, To = B.end(I);
    if (!Out.empty() && Out.back().B == &B && Out.back().End == From &&
        Out.back().From == Src)
      Out.back().End = To;
    else
      Out.push_back(Transfer{&B, From, To, Src, HostSpace, B.Copies[Src],
                             Buffer::Copy(), Node});
    if (G.Slots[Src].S == State::Modified)
      G.Slots[Src].S = State::Shared;
    H.S = State::Shared;
    H.Filling = true;
  }
}

void Coherence::writeBackLocked(std::unique_lock<std::mutex> &L, Buffer &B,
                                uint64_t Begin, uint64_t End, NodeStats *Node) {
  Changed.wait(L, [&] { return hostReadyLocked(B, Begin, End); });
  std::vector<Transfer> Ts;
  planWriteBackLocked(B, Begin, End, Ts, Node);
  runTransfers(L, Ts);
}

void Coherence::dropLocked(Buffer &B) {
  freeCopiesLocked(B);
  Table.erase(B.Host);
  NumBuffers.fetch_sub(1, std::memory_order_release);
}

void Coherence::release(LaunchSet &Launch, NodeStats *End) {
  // Keep going after a failed copy so that every buffer is accounted for;
  // report the first failure.
  std::exception_ptr First;
  std::unique_lock<std::mutex> L(M);
  for (Buffer *B : Launch.Buffers) {
    // Inside a data region the device copies stay; the region's end brings
    // them home.
    if (!B->Regions) {
      try {
        writeBackLocked(L, *B, 0, B->Size, End);
      } catch (...) {
        if (!First)
          First = std::current_exception();
      }
    }
    if (!--B->Users)
      dropLocked(*B);
  }
  Launch.Buffers.clear();
  L.unlock();
  Changed.notify_all();
  if (First)
    std::rethrow_exception(First);
}

void Coherence::enterRegion(void *Host, uint64_t Bytes) {
  if (!Host)
    return;
  std::unique_lock<std::mutex> L(M);
  if (!Bytes) {
    ++EmptyRegions[Host];
    return;
  }
  std::unique_ptr<Buffer> &Slot = Table[Host];
  if (!Slot) {
    Slot = std::make_unique<Buffer>(Host, Bytes);
    noteNewBuffer(Bytes);
  }
  Buffer &B = *Slot;
  ++B.Regions;
  ++B.Users;
  if (Bytes > B.Size) {
    Changed.wait(L, [&] { return !B.busy(); });
    growLocked(B, Bytes);
  }
}

void Coherence::exitRegion(void *Host, NodeStats *Node) {
  std::unique_lock<std::mutex> L(M);
  auto It = Table.find(Host);
  if (It == Table.end() || !It->second->Regions) {
    auto Empty = EmptyRegions.find(Host);
    if (Empty != EmptyRegions.end()) {
      if (--Empty->second == 0)
        EmptyRegions.erase(Empty);
      return;
    }
    throw RtError(HPVM_ERR_INVALID_ARGUMENT, "hpvm_data_exit: the buffer at " +
                                                 describe(Host) +
                                                 " is in no data region");
  }
  Buffer &B = *It->second;
  std::exception_ptr Failure;
  if (--B.Regions == 0) {
    try {
      writeBackLocked(L, B, 0, B.Size, Node);
    } catch (...) {
      Failure = std::current_exception();
    }
  }
  if (!--B.Users)
    dropLocked(B);
  L.unlock();
  Changed.notify_all();
  if (Failure)
    std::rethrow_exception(Failure);
}

template <typename Fn>
void Coherence::forEachOverlapLocked(const void *Host, uint64_t Bytes,
                                     const Buffer *Except, Fn F) const {
  uintptr_t Begin = reinterpret_cast<uintptr_t>(Host), End = Begin + Bytes;
  if (Begin == End || Table.empty())
    return;
  // Only buffers that begin less than the largest size below Begin can
  // reach it.
  uintptr_t Lowest = Begin > LargestBuffer ? Begin - LargestBuffer : 0;
  for (auto It = Table.lower_bound(reinterpret_cast<void *>(Lowest));
       It != Table.end() && reinterpret_cast<uintptr_t>(It->first) < End;
       ++It) {
    uintptr_t Base = reinterpret_cast<uintptr_t>(It->first);
    uintptr_t Top = Base + It->second->Size;
    if (Begin < Top && It->second.get() != Except)
      F(Overlap{It->second.get(), std::max(Begin, Base) - Base,
                std::min(End, Top) - Base});
  }
}

std::vector<Coherence::Overlap>
Coherence::overlapsLocked(const void *Host, uint64_t Bytes,
                          const Buffer *Except) const {
  std::vector<Overlap> Found;
  forEachOverlapLocked(Host, Bytes, Except,
                       [&](const Overlap &O) { Found.push_back(O); });
  return Found;
}

bool Coherence::aliasesReadyLocked(const Buffer &B, const BufferUse &U) const {
  bool Writes = writes(U.Mode), Quiet = true;
  forEachOverlapLocked(B.host(U.Begin), U.bytes(), &B, [&](const Overlap &O) {
    O.B->forEachOverlapping(
        O.Begin, O.End, [&](const Segment &G, uint64_t, uint64_t) {
          for (const Slot &Sl : G.Slots)
            Quiet &= !Sl.Writers && !Sl.Filling && !(Writes && Sl.Users);
        });
  });
  return Quiet;
}

void Coherence::reconcileAliasesLocked(LaunchSet &Launch, Buffer &B,
                                       const BufferUse &U,
                                       std::vector<Transfer> &Out,
                                       NodeStats *Node) {
  for (const Overlap &O : overlapsLocked(B.host(U.Begin), U.bytes(), &B)) {
    // The launch holds the other buffer too, so that its copies outlive
    // the transfers home.
    holdLocked(Launch, *O.B);
    planWriteBackLocked(*O.B, O.Begin, O.End, Out, Node);
    if (!writes(U.Mode))
      continue;
    // Host memory holds these bytes now (or will, once Out has run); the
    // copies elsewhere are about to be stale.
    auto [First, Last] = O.B->split(O.Begin, O.End);
    for (size_t I = First; I != Last; ++I) {
      std::vector<Slot> &Slots = O.B->Segments[I].Slots;
      for (MemorySpace Sp = 0; Sp < Slots.size(); ++Sp)
        if (Sp != HostSpace)
          Slots[Sp].S = State::Invalid;
    }
    O.B->coalesce();
  }
}

std::vector<Coherence::Overlap> Coherence::holdOverlapsLocked(void *Host,
                                                              uint64_t Bytes) {
  std::vector<Overlap> Found = overlapsLocked(Host, Bytes);
  for (const Overlap &O : Found)
    ++O.B->Users;
  return Found;
}

void Coherence::unholdLocked(const std::vector<Overlap> &Held) {
  // A launch that released one meanwhile wrote it home (it saw this hold):
  // the last holder drops it.
  for (const Overlap &O : Held)
    if (!--O.B->Users)
      dropLocked(*O.B);
}

void Coherence::requestHost(void *Host, uint64_t Bytes, NodeStats *Node) {
  std::unique_lock<std::mutex> L(M);
  // Held: writing home waits, and a launch may release them meanwhile.
  std::vector<Overlap> Held = holdOverlapsLocked(Host, Bytes);
  try {
    for (const Overlap &O : Held)
      writeBackLocked(L, *O.B, O.Begin, O.End, Node);
  } catch (...) {
    unholdLocked(Held);
    throw;
  }
  unholdLocked(Held);
}

void Coherence::hostWrote(void *Host, uint64_t Bytes) {
  std::unique_lock<std::mutex> L(M);
  std::vector<Overlap> Held = holdOverlapsLocked(Host, Bytes);
  for (const Overlap &O : Held) {
    Buffer &B = *O.B;
    // What a kernel in flight writes elsewhere would come back over the
    // host's bytes: wait for it.
    Changed.wait(L, [&] {
      bool Quiet = true;
      B.forEachOverlapping(O.Begin, O.End,
                           [&](const Segment &G, uint64_t, uint64_t) {
                             for (const Slot &Sl : G.Slots)
                               Quiet &= !Sl.Writers && !Sl.Filling;
                           });
      return Quiet;
    });
    auto [First, Last] = B.split(O.Begin, O.End);
    for (size_t I = First; I != Last; ++I)
      for (MemorySpace S = 0; S < B.Segments[I].Slots.size(); ++S)
        B.Segments[I].Slots[S].S =
            S == HostSpace ? State::Modified : State::Invalid;
    B.coalesce();
  }
  unholdLocked(Held);
}

unsigned Coherence::regions(void *Host) const {
  std::lock_guard<std::mutex> L(M);
  auto It = Table.find(Host);
  return It == Table.end() ? 0 : It->second->Regions;
}

uint64_t Coherence::bytesToAcquire(const BufferUse &U,
                                   MemorySpace Space) const {
  if (!U.Host || U.End <= U.Begin || !U.needsContents())
    return 0;
  std::lock_guard<std::mutex> L(M);
  auto It = Table.find(U.Host);
  if (It == Table.end())
    return Space == HostSpace ? 0 : U.bytes();
  const Buffer &B = *It->second;
  uint64_t Bytes = U.End > B.Size ? U.End - std::max(B.Size, U.Begin) : 0;
  B.forEachOverlapping(U.Begin, std::min(U.End, B.Size),
                       [&](const Segment &G, uint64_t Begin, uint64_t End) {
                         if (Space < G.Slots.size() && valid(G.Slots[Space]))
                           return;
                         bool Direct =
                             Space == HostSpace || valid(G.Slots[HostSpace]);
                         Bytes += (End - Begin) * (Direct ? 1 : 2);
                       });
  return Bytes;
}

Coherence::State Coherence::state(void *Host, MemorySpace Space) const {
  std::lock_guard<std::mutex> L(M);
  auto It = Table.find(Host);
  if (It == Table.end())
    return Space == HostSpace ? State::Shared : State::Invalid;
  const Buffer &B = *It->second;
  bool AllModified = true;
  for (const Segment &G : B.Segments) {
    State S = Space < G.Slots.size() ? G.Slots[Space].S : State::Invalid;
    if (S == State::Invalid)
      return State::Invalid;
    AllModified &= S == State::Modified;
  }
  return AllModified ? State::Modified : State::Shared;
}

void Coherence::dropDevice(const Device &D) {
  std::lock_guard<std::mutex> L(M);
  MemorySpace S = D.memorySpace();
  for (auto &Entry : Table) {
    Buffer &B = *Entry.second;
    if (S >= B.Copies.size() || B.Copies[S].Dev != &D)
      continue;
    Buffer::Copy C = B.Copies[S];
    for (size_t I = 0; I != B.Segments.size(); ++I) {
      std::vector<Slot> &Slots = B.Segments[I].Slots;
      if (Slots[S].S == State::Modified) {
        uint64_t Begin = B.Segments[I].Begin, Bytes = B.end(I) - Begin;
        C.Dev->copyToHost(B.host(Begin), C.Ptr, Begin, Bytes);
        BytesMoved.fetch_add(Bytes, std::memory_order_relaxed);
        Slots[HostSpace].S = State::Shared;
      }
      Slots[S].S = State::Invalid;
    }
    B.coalesce();
    C.Dev->free(C.Ptr);
    B.Copies[S] = Buffer::Copy();
  }
}
