//===- ThreadPoolTest.cpp - Parallel loops, tasks and helping waits -------===//

#include "hpvm/rt/ThreadPool.h"
#include "hpvm/rt/Devices.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

using namespace hpvm::rt;

namespace {

TEST(ThreadPool, ParallelForCoversEveryIndexOnce) {
  for (unsigned Threads : {1u, 2u, 5u}) {
    ThreadPool Pool(Threads);
    EXPECT_EQ(Pool.size(), Threads);
    for (uint64_t Size : {0ull, 1ull, 2ull, 17ull, 1000ull, 100003ull}) {
      for (uint64_t Grain : {1ull, 3ull, 64ull, 1000000ull}) {
        std::vector<std::atomic<int>> Hits(Size);
        Pool.parallelFor(Size, Grain, [&](uint64_t Begin, uint64_t End) {
          ASSERT_LT(Begin, End);
          ASSERT_LE(End, Size);
          for (uint64_t I = Begin; I != End; ++I)
            Hits[I].fetch_add(1);
        });
        for (uint64_t I = 0; I != Size; ++I)
          ASSERT_EQ(Hits[I].load(), 1)
              << "threads " << Threads << " size " << Size << " grain " << Grain
              << " index " << I;
      }
    }
  }
}

TEST(ThreadPool, NestedParallelForsDoNotDeadlock) {
  ThreadPool Pool(3);
  std::atomic<uint64_t> Sum{0};
  Pool.parallelFor(40, 1, [&](uint64_t Begin, uint64_t End) {
    for (uint64_t I = Begin; I != End; ++I)
      Pool.parallelFor(100, 7, [&](uint64_t B, uint64_t E) {
        for (uint64_t J = B; J != E; ++J)
          Sum.fetch_add(J, std::memory_order_relaxed);
      });
  });
  EXPECT_EQ(Sum.load(), 40u * (99u * 100u / 2));
}

struct CountingTask {
  ThreadPool::Job Job;
  std::atomic<unsigned> *Done;
  ThreadPool *Pool;
};

void runCountingTask(void *Ctx, uint64_t, uint64_t) {
  auto &T = *static_cast<CountingTask *>(Ctx);
  // Tasks may start loops themselves.
  std::atomic<int> Inner{0};
  T.Pool->parallelFor(50, 5, [&](uint64_t B, uint64_t E) {
    Inner.fetch_add(static_cast<int>(E - B));
  });
  EXPECT_EQ(Inner.load(), 50);
  ThreadPool &Pool = *T.Pool;
  T.Done->fetch_add(1);
  Pool.notifyWaiters();
}

TEST(ThreadPool, SubmittedTasksRunAndWaitForHelps) {
  // With one thread there are no workers: only the waiting thread can run
  // the tasks, which waitFor must do.
  for (unsigned Threads : {1u, 4u}) {
    ThreadPool Pool(Threads);
    for (int Round = 0; Round != 20; ++Round) {
      std::atomic<unsigned> Done{0};
      std::vector<CountingTask> Tasks(16);
      for (CountingTask &T : Tasks) {
        T.Job.Fn = runCountingTask;
        T.Job.Ctx = &T;
        T.Done = &Done;
        T.Pool = &Pool;
        Pool.submit(T.Job);
      }
      Pool.waitFor(Done, 16);
      EXPECT_EQ(Done.load(), 16u);
    }
  }
}

TEST(Devices, DiscoveryHonoursRequestsAndStrictness) {
  ThreadPool Pool(1);
  DiscoveryContext Ctx{Pool, [](void *) { return MemorySpace(1); }, nullptr};

  // Other kinds (vulkan) find devices or not depending on the machine.
  Discovery All = discoverDevices(Ctx, "", false);
  ASSERT_GE(All.Devices.size(), 1u);
  EXPECT_EQ(All.Devices[0]->name(), "cpu");
  EXPECT_EQ(All.Devices[0]->target(), HPVM_TARGET_CPU);
  EXPECT_EQ(All.Devices[0]->memorySpace(), HostSpace);
  EXPECT_TRUE(All.Error.empty());

  Discovery Lenient = discoverDevices(Ctx, " cpu , fpga", false);
  EXPECT_EQ(Lenient.Devices.size(), 1u);
  ASSERT_EQ(Lenient.Notes.size(), 1u);
  EXPECT_NE(
      Lenient.Notes[0].find("'fpga' is not a device kind of this "
                            "hpvm-rt (it has: cpu, cuda, vulkan, opencl)"),
      std::string::npos)
      << Lenient.Notes[0];
  EXPECT_TRUE(Lenient.Error.empty());

  Discovery Strict = discoverDevices(Ctx, "cpu,fpga,cuda", true);
  EXPECT_EQ(Strict.Devices.size(), 1u);
  EXPECT_NE(Strict.Error.find("'fpga'"), std::string::npos) << Strict.Error;
  EXPECT_NE(Strict.Error.find("'cuda'"), std::string::npos) << Strict.Error;
  EXPECT_EQ(Strict.Error.find("'cpu'"), std::string::npos) << Strict.Error;

  // Requesting only kinds that are not there leaves no device at all.
  Discovery NoCpu = discoverDevices(Ctx, "fpga", false);
  EXPECT_TRUE(NoCpu.Devices.empty());

  // Every kind is one registry entry; the CPU is the first.
  ASSERT_FALSE(deviceKinds().empty());
  EXPECT_STREQ(deviceKinds()[0].Name, "cpu");
}

} // namespace
