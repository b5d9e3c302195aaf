//===- Runtime.h - The process-wide runtime behind the C ABI ----*- C++ -*-===//
//
// The C++ face of hpvm-rt, for devices that plug in, for tests and for tools:
// the thread pool, devices, coherence, scheduler, stats and trace of the
// process. It is created on first use from the HPVM_* environment variables
// (docs/runtime.md) and lives until the process ends.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_RUNTIME_H
#define HPVM_RT_RUNTIME_H

#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Device.h"
#include "hpvm/rt/Scheduler.h"
#include "hpvm/rt/Stats.h"
#include "hpvm/rt/ThreadPool.h"
#include "hpvm/rt/Trace.h"
#include "hpvm/rt/hpvm_rt.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace hpvm::rt {

class Executor;
class Program;
struct GraphPlan;

class Runtime {
public:
  static Runtime &get();

  ThreadPool &pool() { return *Pool; }
  Coherence &coherence() { return Coh; }
  Stats &stats() { return TheStats; }
  Trace &trace() { return TheTrace; }

  // --- Devices: change them only while no launch runs. ---------------------
  size_t numDevices() const;
  Device &device(size_t Index) const;
  /// Registers D after the devices found at start-up; returns its index.
  unsigned addDevice(std::unique_ptr<Device> D);
  /// Unregisters D, dropping its copies of buffers; null if it is not ours.
  std::unique_ptr<Device> removeDevice(const Device &D);
  /// A memory space id no device has used yet.
  MemorySpace newMemorySpace();

  // --- Scheduler: change it only while no launch runs. ---------------------
  Scheduler &scheduler() { return *Sched; }
  void setScheduler(std::unique_ptr<Scheduler> S);

  /// What start-up reported about the environment: notes (a requested
  /// device kind that is not there, non-strict) and the configuration error
  /// that makes every launch fail (empty if none).
  const std::vector<std::string> &notes() const { return Notes; }
  const std::string &configError() const { return ConfigError; }

  /// hpvm_launch without the C wrapping: throws RtError.
  void launch(const hpvm_program_desc *Program, const char *Graph,
              void *const *Args);
  void releaseProgram(const hpvm_program_desc *Program);
  /// The text hpvm_print_stats writes.
  std::string statsText();

private:
  Runtime();
  ~Runtime();

  std::unique_ptr<ThreadPool> Pool;
  Coherence Coh;
  Stats TheStats;
  Trace TheTrace;
  std::unique_ptr<Scheduler> Sched;
  std::unique_ptr<Executor> Exec;

  mutable std::mutex DevicesM;
  std::vector<std::unique_ptr<Device>> Devices;
  std::atomic<uint64_t> DeviceGeneration{1};
  std::atomic<MemorySpace> NextSpace{1};

  std::vector<std::string> Notes;
  std::string ConfigError;
  hpvm_status ConfigCode = HPVM_OK;

  std::mutex ProgramsM;
  std::unordered_map<const hpvm_program_desc *, std::unique_ptr<Program>>
      Programs;
  /// Bumped whenever a cached program goes away, so that per-thread caches
  /// of the last program used notice.
  std::atomic<uint64_t> ProgramEpoch{1};
  std::atomic<unsigned> NextLeafId{0};

  Program &program(const hpvm_program_desc &D);
  void prepare(GraphPlan &G);
  void configure();
  void fail(hpvm_status Code, std::string Message);
};

} // namespace hpvm::rt

#endif // HPVM_RT_RUNTIME_H
