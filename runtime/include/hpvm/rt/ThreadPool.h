//===- ThreadPool.h - Worker threads for CPU launches and tasks -*- C++ -*-===//
//
// A pool of size() threads counting the caller: size() - 1 workers plus
// whichever thread is waiting on the pool, which always takes part. That is
// what lets tasks start parallel loops and wait for other tasks without
// deadlock, however deep they nest: a waiting thread runs pending work
// instead of blocking while there is any.
//
// Work is a list of jobs. A job is a parallel loop (any number of threads
// join it and take chunks until none are left) or a one-shot task. Idle
// workers spin briefly, then park on a condition variable.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_THREADPOOL_H
#define HPVM_RT_THREADPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace hpvm::rt {

class ThreadPool {
public:
  using ChunkFn = void (*)(void *Ctx, uint64_t Begin, uint64_t End);

  /// Work for the pool. A one-shot task is Fn(Ctx, 0, 1); the submitter
  /// keeps it alive until it has run.
  struct Job {
    ChunkFn Fn = nullptr;
    void *Ctx = nullptr;
    uint64_t Size = 1, Grain = 1;
    bool OneShot = true;
    std::atomic<uint64_t> Next{0};   // first unclaimed index
    std::atomic<unsigned> Active{0}; // helpers inside a parallel loop
    Job *Prev = nullptr, *After = nullptr;
    bool Listed = false;
  };

  /// NumThreads counts the caller (at least 1); SpinMicros is how long an
  /// idle thread polls for work before parking.
  explicit ThreadPool(unsigned NumThreads, unsigned SpinMicros = 100);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned size() const { return NumThreads; }

  /// Calls Fn(Ctx, B, E) for chunks [B, E) of Grain indices covering
  /// [0, Size) and returns when all have run; the caller runs chunks too.
  void parallelFor(uint64_t Size, uint64_t Grain, ChunkFn Fn, void *Ctx);

  template <typename Body>
  void parallelFor(uint64_t Size, uint64_t Grain, Body &&B) {
    parallelFor(
        Size, Grain,
        [](void *Ctx, uint64_t Begin, uint64_t End) {
          (*static_cast<std::remove_reference_t<Body> *>(Ctx))(Begin, End);
        },
        &B);
  }

  /// Queues a one-shot task (J.Fn, J.Ctx set; the rest is reset here).
  void submit(Job &J);

  /// Returns once Counter == Target, running queued work meanwhile. Whoever
  /// makes Counter reach Target calls notifyWaiters() afterwards.
  void waitFor(const std::atomic<unsigned> &Counter, unsigned Target);
  void notifyWaiters();

private:
  unsigned NumThreads;
  unsigned SpinMicros;
  std::mutex M;
  std::condition_variable WorkCV; // idle workers
  std::condition_variable WaitCV; // threads in waitFor or parallelFor
  Job *Head = nullptr, *Tail = nullptr;
  std::atomic<unsigned> NumListed{0};
  unsigned Sleepers = 0;
  std::atomic<unsigned> Waiters{0};
  bool Stop = false;
  std::vector<std::thread> Workers;

  void workerLoop();
  /// With M held: runs (a share of) the first job, if any. Returns with M
  /// held again; false if there was no job.
  bool runOne(std::unique_lock<std::mutex> &L);
  static void runChunks(Job &J);
  void link(Job &J);
  void unlink(Job &J);
  struct Wakeup {
    unsigned Workers = 0;
    bool All = false;
    bool Waiters = false;
  };
  /// With M held: whom to wake for Helpers more threads' worth of work.
  Wakeup planWake(unsigned Helpers) const;
  void wake(const Wakeup &W);
  /// Polls Ready for up to SpinMicros; true if it became true.
  template <typename Pred> bool spin(Pred Ready) const;
};

} // namespace hpvm::rt

#endif // HPVM_RT_THREADPOOL_H
