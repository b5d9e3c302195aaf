//===- ThreadPool.cpp - Worker threads for CPU launches and tasks ---------===//
//
// One mutex guards the job list and the sleep/wake protocol; chunks are
// claimed with an atomic counter so that a parallel loop takes the lock only
// when a thread joins or leaves it, not per chunk.
//
//===----------------------------------------------------------------------===//

#include "hpvm/rt/ThreadPool.h"

#include <algorithm>
#include <chrono>

using namespace hpvm::rt;

namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

} // namespace

ThreadPool::ThreadPool(unsigned NumThreads, unsigned SpinMicros)
    : NumThreads(std::max(1u, NumThreads)), SpinMicros(SpinMicros) {
  Workers.reserve(this->NumThreads - 1);
  for (unsigned I = 1; I < this->NumThreads; ++I)
    Workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> L(M);
    Stop = true;
  }
  WorkCV.notify_all();
  for (std::thread &T : Workers)
    T.join();
}

template <typename Pred> bool ThreadPool::spin(Pred Ready) const {
  if (Ready())
    return true;
  if (SpinMicros == 0)
    return false;
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(SpinMicros);
  while (true) {
    // Reading the clock costs far more than a poll; look at it rarely.
    for (int I = 0; I < 64; ++I) {
      if (Ready())
        return true;
      cpuRelax();
    }
    if (std::chrono::steady_clock::now() >= Deadline)
      return Ready();
  }
}

void ThreadPool::link(Job &J) {
  J.Prev = Tail;
  J.After = nullptr;
  if (Tail)
    Tail->After = &J;
  else
    Head = &J;
  Tail = &J;
  J.Listed = true;
  NumListed.fetch_add(1, std::memory_order_release);
}

void ThreadPool::unlink(Job &J) {
  if (J.Prev)
    J.Prev->After = J.After;
  else
    Head = J.After;
  if (J.After)
    J.After->Prev = J.Prev;
  else
    Tail = J.Prev;
  J.Listed = false;
  NumListed.fetch_sub(1, std::memory_order_relaxed);
}

ThreadPool::Wakeup ThreadPool::planWake(unsigned Helpers) const {
  // Parked workers first; threads in waitFor help only when none are.
  Wakeup W;
  W.Workers = std::min(Helpers, Sleepers);
  W.All = W.Workers && W.Workers == Sleepers;
  W.Waiters = !Sleepers && Waiters.load(std::memory_order_relaxed);
  return W;
}

void ThreadPool::wake(const Wakeup &W) {
  // Called with M unlocked, so that woken threads do not block on it.
  if (W.All)
    WorkCV.notify_all();
  else
    for (unsigned I = 0; I < W.Workers; ++I)
      WorkCV.notify_one();
  if (W.Waiters)
    WaitCV.notify_all();
}

void ThreadPool::runChunks(Job &J) {
  while (true) {
    uint64_t Begin = J.Next.fetch_add(J.Grain, std::memory_order_relaxed);
    if (Begin >= J.Size)
      return;
    J.Fn(J.Ctx, Begin, std::min(J.Size, Begin + J.Grain));
  }
}

bool ThreadPool::runOne(std::unique_lock<std::mutex> &L) {
  Job *J = Head;
  if (!J)
    return false;
  if (J->OneShot) {
    unlink(*J);
    L.unlock();
    // J may be gone once Fn returns (it completes its submitter's work).
    J->Fn(J->Ctx, 0, 1);
    L.lock();
    return true;
  }
  J->Active.fetch_add(1, std::memory_order_relaxed);
  L.unlock();
  runChunks(*J);
  L.lock();
  // Every chunk is claimed: stop others joining. The owner may be waiting
  // for us to leave, after which J is gone.
  if (J->Listed)
    unlink(*J);
  if (J->Active.fetch_sub(1, std::memory_order_release) == 1 &&
      Waiters.load(std::memory_order_relaxed))
    WaitCV.notify_all();
  return true;
}

void ThreadPool::workerLoop() {
  std::unique_lock<std::mutex> L(M);
  while (!Stop) {
    if (runOne(L))
      continue;
    L.unlock();
    spin([&] { return NumListed.load(std::memory_order_relaxed) != 0; });
    L.lock();
    if (Head || Stop)
      continue;
    ++Sleepers;
    WorkCV.wait(L, [&] { return Head || Stop; });
    --Sleepers;
  }
}

void ThreadPool::parallelFor(uint64_t Size, uint64_t Grain, ChunkFn Fn,
                             void *Ctx) {
  if (Size == 0)
    return;
  Grain = std::max<uint64_t>(Grain, 1);
  uint64_t Chunks = (Size - 1) / Grain + 1;
  if (Chunks == 1 || NumThreads == 1) {
    Fn(Ctx, 0, Size);
    return;
  }

  Job J;
  J.Fn = Fn;
  J.Ctx = Ctx;
  J.Size = Size;
  J.Grain = Grain;
  J.OneShot = false;
  Wakeup W;
  {
    std::lock_guard<std::mutex> L(M);
    link(J);
    W = planWake(
        static_cast<unsigned>(std::min<uint64_t>(Chunks - 1, NumThreads - 1)));
  }
  wake(W);
  runChunks(J);

  std::unique_lock<std::mutex> L(M);
  if (J.Listed)
    unlink(J);
  if (J.Active.load(std::memory_order_acquire) == 0)
    return;
  // Helpers are finishing their last chunk; that is usually quick.
  L.unlock();
  // A helper touches J only before its decrement of Active, so J may go as
  // soon as Active is 0.
  if (spin([&] { return J.Active.load(std::memory_order_acquire) == 0; }))
    return;
  L.lock();
  Waiters.fetch_add(1);
  WaitCV.wait(L, [&] { return J.Active.load() == 0; });
  Waiters.fetch_sub(1);
}

void ThreadPool::submit(Job &J) {
  J.OneShot = true;
  J.Size = 1;
  J.Grain = 1;
  Wakeup W;
  {
    std::lock_guard<std::mutex> L(M);
    link(J);
    W = planWake(1);
  }
  wake(W);
}

void ThreadPool::notifyWaiters() {
  // Pairs with the increment of Waiters in waitFor: either the waiter sees
  // the new Counter or we see it waiting (both are sequentially consistent).
  if (Waiters.load() == 0)
    return;
  std::lock_guard<std::mutex> L(M);
  WaitCV.notify_all();
}

void ThreadPool::waitFor(const std::atomic<unsigned> &Counter,
                         unsigned Target) {
  while (true) {
    if (Counter.load(std::memory_order_acquire) == Target)
      return;
    if (NumListed.load(std::memory_order_relaxed)) {
      std::unique_lock<std::mutex> L(M);
      if (runOne(L))
        continue;
    }
    if (spin([&] {
          return Counter.load(std::memory_order_acquire) == Target ||
                 NumListed.load(std::memory_order_relaxed) != 0;
        }))
      continue;
    std::unique_lock<std::mutex> L(M);
    Waiters.fetch_add(1);
    WaitCV.wait(L, [&] { return Counter.load() == Target || Head; });
    Waiters.fetch_sub(1);
  }
}
