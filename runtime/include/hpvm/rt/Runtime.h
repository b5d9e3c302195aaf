//===- Runtime.h - hpvm-rt as an object -------------------------*- C++ -*-===//
//
// The C++ face of hpvm-rt, for devices that plug in, for tests, tools and
// the Python binding: a thread pool, devices, coherence, scheduler, stats
// and trace. Runtime::get() is the process's, which the C ABI uses: created
// on first use from the HPVM_* environment variables (docs/runtime.md) and
// living until the process ends. Others are made from a RuntimeConfig.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_RUNTIME_H
#define HPVM_RT_RUNTIME_H

#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Device.h"
#include "hpvm/rt/Link.h"
#include "hpvm/rt/RuntimeConfig.h"
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

class AsyncLaunches;
class Executor;
class Stream;
class Program;
struct DeviceKind;
struct DiscoveryContext;
struct GraphPlan;
struct LaunchContext;

/// Choices for the launches of one thread that override the runtime's
/// configuration (HPVM_DEVICES, HPVM_SCHEDULER) for them: the Python
/// binding's devices=, scheduler= and strict= (docs/runtime.md §6.1).
struct LaunchOptions {
  /// Device kinds ("cpu", "vulkan") or names ("vulkan:0") the leaves may
  /// run on, in no particular order; empty: any device.
  std::vector<std::string> Devices;
  /// A policy (makeScheduler's names) for these launches; empty: the
  /// runtime's.
  std::string Scheduler;
  /// Whether a leaf none of Devices can run, or a name in Devices that
  /// matches no device, fails the launch (HPVM_ERR_NO_DEVICE). Otherwise
  /// the leaf runs where it can and Fallbacks says so.
  bool Strict = false;
  /// Appended to (under the launch's lock) with what fell back, if set.
  std::vector<std::string> *Fallbacks = nullptr;
};

/// Makes Options (null: none) apply to the launches this thread starts,
/// until the next call; the caller keeps Options alive meanwhile.
void setThreadLaunchOptions(const LaunchOptions *Options);
const LaunchOptions *threadLaunchOptions();

class Runtime {
public:
  static Runtime &get();
  /// Makes the process's runtime (get) start with Threads CPU threads,
  /// whatever HPVM_NUM_THREADS says (OpenMP's omp_set_num_threads). False,
  /// changing nothing, once it has started or for a count outside 1..4096.
  static bool requestProcessThreads(unsigned Threads);
  /// The CPU threads of this thread's runtime (current()), or of the
  /// process's, or those the process's will start with, without starting
  /// it.
  static unsigned processThreads();

  ThreadPool &pool() { return *Pool; }
  /// HPVM_DEVICES_STRICT (RuntimeConfig::DevicesStrict): a device that
  /// fails a leaf fails the launch, rather than another device running it.
  bool devicesStrict() const { return DevicesStrict; }
  Coherence &coherence() { return Coh; }
  Stats &stats() { return TheStats; }
  Trace &trace() { return TheTrace; }

  // --- Devices: change them only while no launch runs. ---------------------
  // (Lazy discovery adds devices while launches run: it only ever adds
  // devices that no program loaded so far has an artifact for.)
  size_t numDevices() const;
  Device &device(size_t Index) const;
  /// Registers D after the devices found so far; returns its index.
  unsigned addDevice(std::unique_ptr<Device> D);
  /// Unregisters D, dropping its copies of buffers; null if it is not ours.
  std::unique_ptr<Device> removeDevice(const Device &D);
  /// A memory space id no device has used yet.
  MemorySpace newMemorySpace();

  /// The device kinds not looked for yet. With HPVM_DEVICES unset only the
  /// CPU is found at start-up; any other kind is discovered when the first
  /// program with an artifact it can run is loaded, so that CPU-only
  /// programs never load a GPU driver. Empty when HPVM_DEVICES is set
  /// (unnamed kinds are never used then).
  std::vector<std::string> pendingDeviceKinds() const;
  /// Discovers now every pending kind whose devices run one of Targets
  /// (hpvm_target bits), as loading a program with such artifacts does.
  /// Returns once they are discovered, also when another thread is the one
  /// discovering them.
  void discoverDevicesFor(uint32_t Targets);

  // --- Scheduler: change it only while no launch runs. ---------------------
  Scheduler &scheduler() { return *Sched; }
  void setScheduler(std::unique_ptr<Scheduler> S);

  /// What start-up and discovery reported: notes (a requested device kind
  /// that is not there, non-strict; devices a kind skipped) and the
  /// configuration error that makes every launch fail (empty if none).
  std::vector<std::string> notes() const;
  const std::string &configError() const { return ConfigError; }

  /// hpvm_launch without the C wrapping: throws RtError.
  void launch(const hpvm_program_desc *Program, const char *Graph,
              void *const *Args);
  /// The same launch from a launch site (hpvm_launch_site_or_exit), which
  /// it then arms or disarms (docs/runtime.md, "Launch sites").
  void launchAtSite(hpvm_launch_site &Site, const hpvm_program_desc *Program,
                    const char *Graph, void *const *Args);
  /// launchAsync from a `nowait` launch's site, which it then arms or
  /// disarms; returns the launch's handle.
  hpvm_handle launchAsyncAtSite(hpvm_launch_site &Site,
                                const hpvm_program_desc *Program,
                                const char *Graph, void *const *Args);
  /// hpvm_launch_async, hpvm_wait, hpvm_test and hpvm_wait_all without the
  /// C wrapping. launchAsync and finished throw RtError; wait and waitAll
  /// return the launch's status and put its message in Message.
  hpvm_handle launchAsync(const hpvm_program_desc *Program, const char *Graph,
                          void *const *Args);
  hpvm_status wait(hpvm_handle Handle, std::string &Message);
  bool finished(hpvm_handle Handle);
  hpvm_status waitAll(std::string &Message, bool AllThreads = false);
  /// hpvm_stream_open and hpvm_stream_close: a stream the caller owns
  /// until it closes it (it must, before the runtime goes).
  Stream *openStream(const hpvm_program_desc *Program, const char *Graph,
                     unsigned Capacity);
  /// hpvm_stream_create: a stream of no graph yet, which the first frame
  /// pushed by pushFrame binds.
  Stream *createStream(unsigned Capacity);
  /// A frame of Graph of Program with Args into S.
  void pushFrame(Stream &S, const hpvm_program_desc *Program, const char *Graph,
                 void *const *Args);
  void closeStream(Stream *S);
  void releaseProgram(const hpvm_program_desc *Program);
  /// The data-region calls of hpvm_rt.h without the C wrapping (they
  /// throw RtError).
  void dataEnter(void *Ptr, uint64_t Bytes);
  void dataExit(void *Ptr);
  void dataRequest(void *Ptr, uint64_t Bytes);
  void dataUpdate(void *Ptr, uint64_t Bytes);
  /// The text hpvm_print_stats writes.
  std::string statsText();
  /// Writes the performance models to RuntimeConfig::PerfModelsPath now,
  /// as the end of the runtime does; returns why it could not, or "".
  std::string savePerfModels();

  /// A runtime of its own, set up by Config alone (no environment): its
  /// own threads, devices, coherence, policy, statistics and trace.
  /// Programs launched on it load into it; nothing may be running on it
  /// when it is destroyed. get() is the process's, which the C ABI uses.
  explicit Runtime(const RuntimeConfig &Config);
  ~Runtime();
  /// The runtime the C ABI's calls on this thread act on: the one given
  /// to setCurrent (null: none), else get().
  static Runtime &current();
  static void setCurrent(Runtime *RT);
  /// Forgets Program in every runtime that exists (hpvm_release_program:
  /// its memory is going away, whichever runtimes loaded it).
  static void releaseEverywhere(const hpvm_program_desc *Program);
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

private:
  friend class AsyncLaunches;
  friend class Stream;
  void applyLaunchOptions(const LaunchOptions &O, LaunchContext &Ctx);
  /// The checked, prepared plan of a launch (Call names the C function in
  /// messages); throws RtError.
  GraphPlan &plan(const char *Call, const hpvm_program_desc *Program,
                  const char *Graph, void *const *Args);
  /// The same without arguments to check (a stream gets them per frame).
  GraphPlan &plan(const char *Call, const hpvm_program_desc *Program,
                  const char *Graph);
  /// Runs a plan under Options (null: none); throws RtError.
  void run(GraphPlan &G, void *const *Args, const LaunchOptions *Options);
  /// After a launch of G through Site: arms Site if a direct launch would
  /// do what this runtime does, else disarms it. NanosBefore is the root
  /// leaf's cost per instance before the launch, Instances the launch's.
  void armSite(hpvm_launch_site &Site, const GraphPlan &G, double NanosBefore,
               uint64_t Instances);
  /// Whether something wants every launch timed (a trace, a performance
  /// model file), so that none may run in place untimed.
  bool timesEveryLaunch() const;

  /// Unique among the runtimes of the process, ever.
  uint64_t Serial = 0;
  bool DevicesStrict = false;
  std::unique_ptr<ThreadPool> Pool;
  Coherence Coh;
  Stats TheStats;
  Trace TheTrace;
  std::unique_ptr<Scheduler> Sched;
  /// Policies LaunchOptions asked for by name, made on first use and kept
  /// (they learn from every launch, as the runtime's own does).
  std::mutex PoliciesM;
  std::unordered_map<std::string, std::unique_ptr<Scheduler>> Policies;
  std::unique_ptr<Executor> Exec;
  /// hpvm_launch_async's launches; reset first when the runtime goes.
  std::unique_ptr<AsyncLaunches> Async;
  /// Streams open, and what the statistics say of those closed.
  std::mutex StreamsM;
  std::vector<Stream *> OpenStreams;
  std::vector<std::string> StreamSummaries;
  /// Cancels the open streams (of Program; null: all) and waits for
  /// their frames.
  void stopStreams(const hpvm_program_desc *Program);

  mutable std::mutex DevicesM;
  std::vector<std::unique_ptr<Device>> Devices;
  /// Each device's link from the host, made with its first candidate
  /// (guarded by DevicesM).
  std::unordered_map<const Device *, std::unique_ptr<Link>> HostLinks;
  std::atomic<uint64_t> DeviceGeneration{1};
  std::atomic<MemorySpace> NextSpace{1};
  /// Guarded by DevicesM: lazy discovery adds to them.
  std::vector<std::string> Notes;

  /// Kinds left for lazy discovery, guarded by DiscoveryM, which is held
  /// for the whole of a kind's discovery so that it happens once and other
  /// loaders needing it wait for it. PendingTargets, the union of their
  /// targets, lets a program that needs none of them skip the lock.
  mutable std::mutex DiscoveryM;
  std::vector<const DeviceKind *> PendingKinds;
  std::atomic<uint32_t> PendingTargets{0};
  /// HPVM_VULKAN_* as read at start-up, for a discovery that comes later.
  std::unique_ptr<VulkanOptions> VulkanSettings;
  std::unique_ptr<OpenCLOptions> OpenCLSettings;
  /// HPVM_CUDA_* likewise.
  std::unique_ptr<CudaOptions> CudaSettings;
  /// HPVM_STREAMING_STORES and the cache size, for the CPU device.
  std::unique_ptr<CpuOptions> CpuSettings;

  std::string ConfigError;
  hpvm_status ConfigCode = HPVM_OK;
  std::string PerfModelsPath;

  std::mutex ProgramsM;
  std::unordered_map<const hpvm_program_desc *, std::unique_ptr<Program>>
      Programs;
  /// Bumped whenever a cached program goes away, so that per-thread caches
  /// of the last program used notice.
  std::atomic<uint64_t> ProgramEpoch{1};
  std::atomic<unsigned> NextLeafId{0};

  Program &program(const hpvm_program_desc &D);
  void prepare(GraphPlan &G);
  DiscoveryContext discoveryContext();
  void configure(const RuntimeConfig &Config);
  void fail(hpvm_status Code, std::string Message);
};

} // namespace hpvm::rt

#endif // HPVM_RT_RUNTIME_H
