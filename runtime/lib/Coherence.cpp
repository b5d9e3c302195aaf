//===- Coherence.cpp - Copies of buffers across memory spaces -------------===//
//
// Locking: TableM guards the table and each buffer's user count; a buffer's
// own mutex guards its copies and is held across the copies it makes, so two
// leaves acquiring one buffer never both copy it. TableM is taken before a
// buffer's mutex, never after.
//
//===----------------------------------------------------------------------===//

#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Error.h"

#include <algorithm>

using namespace hpvm;
using namespace hpvm::rt;

struct Coherence::Buffer {
  struct Copy {
    State S = State::Invalid;
    void *Ptr = nullptr;
    Device *Dev = nullptr; // who allocated Ptr; null for the host copy
  };

  void *Host;
  uint64_t Bytes = 0;
  unsigned Users = 0; // launches holding it; under TableM
  std::mutex M;
  std::vector<Copy> Copies; // by memory space; [HostSpace] is Host itself

  explicit Buffer(void *Host) : Host(Host) {
    Copies.resize(1);
    Copies[HostSpace].S = State::Shared;
    Copies[HostSpace].Ptr = Host;
  }

  Copy &copy(MemorySpace Space) {
    if (Space >= Copies.size())
      Copies.resize(Space + 1);
    return Copies[Space];
  }
};

Coherence::Coherence() = default;

Coherence::~Coherence() {
  // Only reached for coherence objects of tests; the runtime's lives on.
  for (auto &Entry : Table)
    for (size_t S = 1; S < Entry.second->Copies.size(); ++S)
      if (Buffer::Copy &C = Entry.second->Copies[S]; C.Ptr && C.Dev)
        C.Dev->free(C.Ptr);
}

Coherence::Buffer *Coherence::enter(LaunchSet &Launch, void *Host) {
  std::lock_guard<std::mutex> TL(TableM);
  std::unique_ptr<Buffer> &Slot = Table[Host];
  if (!Slot) {
    Slot = std::make_unique<Buffer>(Host);
    NumBuffers.fetch_add(1, std::memory_order_release);
  }
  Buffer *B = Slot.get();
  std::lock_guard<std::mutex> LL(Launch.M);
  if (std::find(Launch.Buffers.begin(), Launch.Buffers.end(), B) ==
      Launch.Buffers.end()) {
    Launch.Buffers.push_back(B);
    ++B->Users;
  }
  return B;
}

void Coherence::makeHostValid(Buffer &B) {
  Buffer::Copy &H = B.Copies[HostSpace];
  if (H.S != State::Invalid)
    return;
  for (size_t S = 1; S < B.Copies.size(); ++S) {
    Buffer::Copy &C = B.Copies[S];
    if (C.S == State::Invalid)
      continue;
    C.Dev->copyToHost(B.Host, C.Ptr, B.Bytes);
    BytesMoved.fetch_add(B.Bytes, std::memory_order_relaxed);
    C.S = State::Shared;
    H.S = State::Shared;
    return;
  }
  // Unreachable while the invariant "some copy is valid" holds; keep the
  // host copy as the truth rather than lose the buffer.
  H.S = State::Shared;
}

void Coherence::copyIn(Buffer &B, MemorySpace Space, Device &D) {
  makeHostValid(B);
  if (Space == HostSpace)
    return;
  Buffer::Copy &C = B.copy(Space);
  if (!C.Ptr) {
    C.Ptr = D.allocate(B.Bytes);
    C.Dev = &D;
  }
  C.Dev->copyFromHost(C.Ptr, B.Host, B.Bytes);
  BytesMoved.fetch_add(B.Bytes, std::memory_order_relaxed);
  C.S = State::Shared;
}

void *Coherence::acquire(LaunchSet &Launch, void *Host, uint64_t Bytes,
                         Device &D, Access Mode) {
  MemorySpace Space = D.memorySpace();
  // Nothing to keep coherent in an empty or absent buffer.
  if (!Host || Bytes == 0)
    return Host;

  Buffer *B;
  if (Space == HostSpace) {
    if (idle())
      return Host;
    // A buffer no other space has seen needs no bookkeeping here.
    {
      std::lock_guard<std::mutex> TL(TableM);
      if (!Table.count(Host))
        return Host;
    }
    B = enter(Launch, Host);
  } else {
    B = enter(Launch, Host);
  }

  std::lock_guard<std::mutex> BL(B->M);
  if (Bytes > B->Bytes) {
    // A larger view of the buffer than seen so far: gather it in host
    // memory and start over with copies of the new size.
    if (B->Bytes) {
      makeHostValid(*B);
      for (size_t S = 1; S < B->Copies.size(); ++S) {
        Buffer::Copy &C = B->Copies[S];
        if (C.Ptr)
          C.Dev->free(C.Ptr);
        C = Buffer::Copy();
      }
    }
    B->Bytes = Bytes;
  }

  Buffer::Copy &C = B->copy(Space);
  if (C.S == State::Invalid)
    copyIn(*B, Space, D);
  else if (Space != HostSpace)
    CopiesAvoided.fetch_add(1, std::memory_order_relaxed);

  if (writes(Mode)) {
    for (size_t S = 0; S < B->Copies.size(); ++S)
      B->Copies[S].S = State::Invalid;
    B->Copies[Space].S = State::Modified;
  }
  return Space == HostSpace ? Host : B->Copies[Space].Ptr;
}

void Coherence::release(LaunchSet &Launch) {
  // Keep going after a failed copy so that every buffer is accounted for;
  // report the first failure.
  std::string FirstError;
  hpvm_status FirstCode = HPVM_OK;
  for (Buffer *B : Launch.Buffers) {
    try {
      std::lock_guard<std::mutex> BL(B->M);
      makeHostValid(*B);
    } catch (const RtError &E) {
      if (FirstCode == HPVM_OK) {
        FirstCode = E.code();
        FirstError = E.what();
      }
    }
    std::lock_guard<std::mutex> TL(TableM);
    if (--B->Users)
      continue;
    {
      std::lock_guard<std::mutex> BL(B->M);
      for (size_t S = 1; S < B->Copies.size(); ++S)
        if (Buffer::Copy &C = B->Copies[S]; C.Ptr)
          C.Dev->free(C.Ptr);
    }
    Table.erase(B->Host);
    NumBuffers.fetch_sub(1, std::memory_order_release);
  }
  Launch.Buffers.clear();
  if (FirstCode != HPVM_OK)
    throw RtError(FirstCode, FirstError);
}

uint64_t Coherence::bytesToAcquire(void *Host, uint64_t Bytes,
                                   MemorySpace Space) const {
  if (!Host || Bytes == 0)
    return 0;
  std::lock_guard<std::mutex> TL(TableM);
  auto It = Table.find(Host);
  if (It == Table.end())
    return Space == HostSpace ? 0 : Bytes;
  Buffer &B = *It->second;
  std::lock_guard<std::mutex> BL(B.M);
  Bytes = std::max(Bytes, B.Bytes);
  if (Space < B.Copies.size() && B.Copies[Space].S != State::Invalid)
    return 0;
  bool HostValid = B.Copies[HostSpace].S != State::Invalid;
  if (Space == HostSpace || HostValid)
    return Bytes;
  return 2 * Bytes; // through host memory
}

Coherence::State Coherence::state(void *Host, MemorySpace Space) const {
  std::lock_guard<std::mutex> TL(TableM);
  auto It = Table.find(Host);
  if (It == Table.end())
    return Space == HostSpace ? State::Shared : State::Invalid;
  Buffer &B = *It->second;
  std::lock_guard<std::mutex> BL(B.M);
  return Space < B.Copies.size() ? B.Copies[Space].S : State::Invalid;
}

void Coherence::dropDevice(const Device &D) {
  std::lock_guard<std::mutex> TL(TableM);
  for (auto &Entry : Table) {
    Buffer &B = *Entry.second;
    std::lock_guard<std::mutex> BL(B.M);
    for (size_t S = 1; S < B.Copies.size(); ++S) {
      Buffer::Copy &C = B.Copies[S];
      if (C.Dev != &D)
        continue;
      if (C.S == State::Modified)
        makeHostValid(B);
      C.Dev->free(C.Ptr);
      C = Buffer::Copy();
    }
  }
}
