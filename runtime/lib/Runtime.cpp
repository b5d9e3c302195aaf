//===- Runtime.cpp - The process-wide runtime behind the C ABI ------------===//
//
// The runtime is created on first use and deliberately never destroyed:
// worker threads, devices and cached programs must outlive every static
// destructor that might still launch, and the exit-time trace and stats are
// written from an atexit handler instead.
//
//===----------------------------------------------------------------------===//

#include "hpvm/rt/Runtime.h"
#include "AsyncLaunches.h"
#include "Env.h"
#include "Executor.h"
#include "LaunchSites.h"
#include "Program.h"
#include "Stream.h"

#include "hpvm/rt/Cuda.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/OpenCL.h"
#include "hpvm/rt/Vulkan.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace hpvm;
using namespace hpvm::rt;

namespace {

bool envFlag(const char *Name) {
  const char *V = env(Name);
  return V && std::strcmp(V, "0") != 0;
}

void atExit() {
  Runtime &RT = Runtime::get();
  // Frames still running need the process: they stop first.
  RT.closeStream(nullptr);
  try {
    RT.trace().flush();
  } catch (const std::exception &E) {
    std::fprintf(stderr, "hpvm-rt: %s\n", E.what());
  }
  std::string Unsaved = RT.savePerfModels();
  if (!Unsaved.empty())
    std::fprintf(stderr, "hpvm-rt: %s\n", Unsaved.c_str());
  if (envFlag("HPVM_STATS"))
    std::fputs(RT.statsText().c_str(), stderr);
}

} // namespace

/// The process's runtime once made (launch sites are armed for it only).
static std::atomic<Runtime *> ProcessRuntime{nullptr};
static std::atomic<unsigned> RequestedThreads{0};

bool Runtime::requestProcessThreads(unsigned Threads) {
  if (Threads < 1 || Threads > 4096 || ProcessRuntime.load())
    return false;
  RequestedThreads.store(Threads);
  return true;
}

Runtime &Runtime::get() {
  static Runtime *RT = [] {
    RuntimeConfig Config = RuntimeConfig::fromEnvironment();
    if (unsigned Threads = RequestedThreads.load())
      Config.Threads = Threads;
    auto *R = new Runtime(Config);
    if (R->trace().enabled() || envFlag("HPVM_STATS") ||
        !R->PerfModelsPath.empty())
      std::atexit(atExit);
    ProcessRuntime.store(R, std::memory_order_release);
    return R;
  }();
  return *RT;
}

RuntimeConfig RuntimeConfig::fromEnvironment() {
  RuntimeConfig C;
  // The first bad setting is the one reported; fixing it reveals the next.
  auto Bad = [&](std::string Message) {
    if (C.Error.empty() && !Message.empty())
      C.Error = std::move(Message);
  };
  Bad(envNumber<unsigned>("HPVM_NUM_THREADS", "threads", 1, 4096, C.Threads));
  Bad(envNumber<unsigned>("HPVM_SPIN_US", "microseconds", 0, 1000000,
                          C.SpinMicros));
  if (const char *V = env("HPVM_SCHEDULER")) {
    if (isSchedulerName(V))
      C.Scheduler = V;
    else
      Bad(std::string("HPVM_SCHEDULER='") + V +
          "' is not a scheduling policy (known: " + schedulerNames() + ")");
  }
  if (const char *V = env("HPVM_TRACE"))
    C.TracePath = V;
  if (const char *V = env("HPVM_PERF_MODELS"))
    C.PerfModelsPath = V;
  if (const char *V = env("HPVM_DEVICES"))
    C.Devices = V;
  C.DevicesStrict = envFlag("HPVM_DEVICES_STRICT");
  // Read now whether or not Vulkan or CUDA is ever looked for, like every
  // HPVM_* setting: a bad value fails every launch, and a kind discovered
  // later still sees the settings the process started with.
  C.Vulkan = VulkanOptions::fromEnvironment();
  C.OpenCL = OpenCLOptions::fromEnvironment();
  C.Cuda = CudaOptions::fromEnvironment();
  C.Cpu = CpuOptions::fromEnvironment();
  return C;
}

namespace {
/// Every runtime that exists, for releaseEverywhere; never destroyed, as
/// runtimes may outlive static destructors (the process's is never freed).
struct LiveRuntimes {
  std::mutex M;
  std::vector<Runtime *> All;
};
LiveRuntimes &live() {
  static auto *L = new LiveRuntimes;
  return *L;
}
thread_local Runtime *Current = nullptr;
} // namespace

Runtime::Runtime(const RuntimeConfig &Config) {
  static std::atomic<uint64_t> NextSerial{1};
  Serial = NextSerial.fetch_add(1, std::memory_order_relaxed);
  Coh.observe(&TheStats, &TheTrace);
  Coh.onBusy(&LaunchSites::disarmAll);
  LaunchSites::hold();
  configure(Config);
  std::lock_guard<std::mutex> L(live().M);
  live().All.push_back(this);
}

Runtime::~Runtime() {
  // Launches and frames still in flight need everything below.
  stopStreams(nullptr);
  Async.reset();
  // (The process's runtime is never destroyed: it saves at exit.)
  savePerfModels();
  LaunchSites::release();
  std::lock_guard<std::mutex> L(live().M);
  auto &All = live().All;
  All.erase(std::remove(All.begin(), All.end(), this), All.end());
}

std::string Runtime::savePerfModels() {
  return PerfModelsPath.empty() ? "" : TheStats.saveModels(PerfModelsPath);
}

Runtime &Runtime::current() { return Current ? *Current : get(); }

unsigned Runtime::processThreads() {
  if (Current)
    return Current->pool().size();
  if (Runtime *R = ProcessRuntime.load())
    return R->pool().size();
  if (unsigned Threads = RequestedThreads.load())
    return Threads;
  // What get() would start with (Runtime::configure).
  RuntimeConfig Config = RuntimeConfig::fromEnvironment();
  if (Config.Threads >= 1 && Config.Threads <= 4096)
    return Config.Threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

void Runtime::setCurrent(Runtime *RT) {
  // A thread with a runtime of its own must not take the process's
  // launch sites.
  if (bool(RT) != bool(Current))
    RT ? LaunchSites::hold() : LaunchSites::release();
  Current = RT;
}

void Runtime::releaseEverywhere(const hpvm_program_desc *Program) {
  std::lock_guard<std::mutex> L(live().M);
  for (Runtime *RT : live().All)
    RT->releaseProgram(Program);
}

void Runtime::fail(hpvm_status Code, std::string Message) {
  // The first bad setting is the one reported; fixing it reveals the next.
  if (ConfigCode == HPVM_OK) {
    ConfigCode = Code;
    ConfigError = std::move(Message);
  }
}

void Runtime::configure(const RuntimeConfig &Config) {
  if (!Config.Error.empty())
    fail(HPVM_ERR_CONFIG, Config.Error);
  unsigned Threads = Config.Threads;
  if (Threads > 4096) {
    fail(HPVM_ERR_CONFIG,
         "RuntimeConfig::Threads = " + std::to_string(Threads) +
             " is not a thread count from 1 to 4096");
    Threads = 0;
  }
  if (Threads == 0)
    Threads = std::max(1u, std::thread::hardware_concurrency());
  unsigned SpinMicros = std::min(Config.SpinMicros, 1000000u);
  Pool = std::make_unique<ThreadPool>(Threads, SpinMicros);

  Sched = makeScheduler(Config.Scheduler, Coh);
  if (!Sched) {
    fail(HPVM_ERR_CONFIG,
         "scheduler '" + Config.Scheduler +
             "' is not a scheduling policy (known: " + schedulerNames() + ")");
    Sched = makeScheduler("hint", Coh);
  }

  if (!Config.TracePath.empty()) {
    // A trace asked for must be written: a place it cannot go fails every
    // launch now, rather than a message when the process ends.
    std::string Probe = Config.TracePath + ".tmp";
    if (std::FILE *F = std::fopen(Probe.c_str(), "w")) {
      std::fclose(F);
      std::remove(Probe.c_str());
      TheTrace.enable(Config.TracePath);
    } else {
      fail(HPVM_ERR_CONFIG, "HPVM_TRACE='" + Config.TracePath +
                                "': the trace file cannot be written there (" +
                                std::strerror(errno) + ")");
    }
  }
  PerfModelsPath = Config.PerfModelsPath;
  if (!PerfModelsPath.empty())
    if (std::string Note = TheStats.loadModels(PerfModelsPath); !Note.empty())
      Notes.push_back(std::move(Note));

  VulkanSettings = std::make_unique<VulkanOptions>(Config.Vulkan);
  OpenCLSettings = std::make_unique<OpenCLOptions>(Config.OpenCL);
  CudaSettings = std::make_unique<CudaOptions>(Config.Cuda);
  CpuSettings = std::make_unique<CpuOptions>(Config.Cpu);
  if (!CpuSettings->Error.empty())
    fail(HPVM_ERR_CONFIG, CpuSettings->Error);

  // Kinds that Devices names are discovered now, so that strict mode
  // reports a missing one at once; with nothing named, only the CPU is,
  // and the others wait for a program that needs them (program()).
  DevicesStrict = Config.DevicesStrict;
  Discovery Found = discoverDevices(discoveryContext(), Config.Devices,
                                    Config.DevicesStrict, /*Lazy=*/true);
  Devices = std::move(Found.Devices);
  Notes = std::move(Found.Notes);
  PendingKinds = std::move(Found.Deferred);
  uint32_t Targets = 0;
  for (const DeviceKind *K : PendingKinds)
    Targets |= K->Targets;
  PendingTargets.store(Targets, std::memory_order_release);
  if (!Found.Error.empty())
    fail(HPVM_ERR_NO_DEVICE, Found.Error);
  if (!VulkanSettings->Error.empty())
    fail(HPVM_ERR_CONFIG, VulkanSettings->Error);

  Exec = std::make_unique<Executor>(*this);
  Async = std::make_unique<AsyncLaunches>(*this);
  watchForExit();
}

DiscoveryContext Runtime::discoveryContext() {
  DiscoveryContext DC{
      *Pool,
      [](void *Self) { return static_cast<Runtime *>(Self)->newMemorySpace(); },
      this, &TheTrace};
  DC.Vulkan = VulkanSettings.get();
  DC.OpenCL = OpenCLSettings.get();
  DC.Cuda = CudaSettings.get();
  DC.Cpu = CpuSettings.get();
  return DC;
}

std::vector<std::string> Runtime::pendingDeviceKinds() const {
  std::lock_guard<std::mutex> L(DiscoveryM);
  std::vector<std::string> Names;
  for (const DeviceKind *K : PendingKinds)
    Names.push_back(K->Name);
  return Names;
}

void Runtime::discoverDevicesFor(uint32_t Targets) {
  // Every launch's first load in a thread comes here: a CPU-only program,
  // or one whose kinds are found already, must not contend for a lock.
  if (!(PendingTargets.load(std::memory_order_acquire) & Targets))
    return;
  // Held while drivers load (tens of ms): a second thread that needs the
  // same kind must wait until its devices exist, not launch without them.
  std::lock_guard<std::mutex> DL(DiscoveryM);
  uint32_t Left = 0;
  for (auto It = PendingKinds.begin(); It != PendingKinds.end();) {
    const DeviceKind &K = **It;
    if (!(K.Targets & Targets)) {
      Left |= K.Targets;
      ++It;
      continue;
    }
    Discovery Found = discoverKind(discoveryContext(), K);
    {
      std::lock_guard<std::mutex> L(DevicesM);
      for (std::unique_ptr<Device> &D : Found.Devices)
        Devices.push_back(std::move(D));
      Notes.insert(Notes.end(), Found.Notes.begin(), Found.Notes.end());
      // Appended, so every existing index stays valid; graphs of programs
      // loaded earlier recompute their candidates and find them unchanged
      // (those programs have no artifact for this kind), which is what
      // makes adding devices safe while they launch (prepare()).
      if (!Found.Devices.empty())
        DeviceGeneration.fetch_add(1, std::memory_order_acq_rel);
    }
    if (!Found.Devices.empty())
      watchForExit();
    It = PendingKinds.erase(It);
  }
  // Cleared only now that the devices are in place: whoever sees the bits
  // gone without taking the lock also sees the devices.
  PendingTargets.store(Left, std::memory_order_release);
}

std::vector<std::string> Runtime::notes() const {
  std::lock_guard<std::mutex> L(DevicesM);
  return Notes;
}

size_t Runtime::numDevices() const {
  std::lock_guard<std::mutex> L(DevicesM);
  return Devices.size();
}

Device &Runtime::device(size_t Index) const {
  std::lock_guard<std::mutex> L(DevicesM);
  return *Devices.at(Index);
}

unsigned Runtime::addDevice(std::unique_ptr<Device> D) {
  std::lock_guard<std::mutex> L(DevicesM);
  Devices.push_back(std::move(D));
  DeviceGeneration.fetch_add(1, std::memory_order_acq_rel);
  LaunchSites::disarmAll(); // a leaf may have a second candidate now
  return static_cast<unsigned>(Devices.size() - 1);
}

std::unique_ptr<Device> Runtime::removeDevice(const Device &D) {
  std::lock_guard<std::mutex> L(DevicesM);
  for (auto It = Devices.begin(); It != Devices.end(); ++It) {
    if (It->get() != &D)
      continue;
    Coh.dropDevice(D);
    HostLinks.erase(&D);
    std::unique_ptr<Device> Removed = std::move(*It);
    Devices.erase(It);
    DeviceGeneration.fetch_add(1, std::memory_order_acq_rel);
    LaunchSites::disarmAll();
    return Removed;
  }
  return nullptr;
}

MemorySpace Runtime::newMemorySpace() {
  return NextSpace.fetch_add(1, std::memory_order_relaxed);
}

void Runtime::setScheduler(std::unique_ptr<Scheduler> S) {
  if (S)
    Sched = std::move(S);
}

Program &Runtime::program(const hpvm_program_desc &D) {
  // Launches of one program from one thread, the common case, skip the
  // shared table.
  // The thread's last program belongs to one runtime: several may exist,
  // and a new one may take a destroyed one's address, hence serials.
  thread_local uint64_t LastRuntime = 0;
  thread_local const hpvm_program_desc *LastDesc = nullptr;
  thread_local Program *LastProgram = nullptr;
  thread_local uint64_t LastEpoch = 0;
  uint64_t Epoch = ProgramEpoch.load(std::memory_order_acquire);
  if (LastRuntime == Serial && LastDesc == &D && LastEpoch == Epoch &&
      LastProgram->describes(D))
    return *LastProgram;

  std::unique_lock<std::mutex> L(ProgramsM);
  std::unique_ptr<Program> &Slot = Programs[&D];
  if (Slot && !Slot->describes(D)) {
    // Another descriptor now lives at this address.
    Slot.reset();
    ProgramEpoch.fetch_add(1, std::memory_order_acq_rel);
  }
  if (!Slot)
    Slot = Program::load(D, TheStats, NextLeafId);
  Program *P = Slot.get();
  uint64_t LoadedEpoch = ProgramEpoch.load(std::memory_order_acquire);
  uint32_t Targets = P->artifactTargets();
  L.unlock();

  // Before this thread caches the program, and so before any launch of it:
  // the kinds that can run its artifacts must be there when its candidates
  // are first computed. Outside ProgramsM, so that loading a CPU-only
  // program elsewhere does not wait for a driver.
  discoverDevicesFor(Targets);
  LastRuntime = Serial;
  LastDesc = &D;
  LastProgram = P;
  LastEpoch = LoadedEpoch;
  return *P;
}

// Copies a region makes are counted under one pseudo-node of their own.
static NodeStats &regionStats(Stats &S) {
  return S.entry("(data regions)", "host");
}

/// What a data-region call does to [Ptr, Ptr + Bytes) as far as ordering
/// with asynchronous launches goes (Bytes 0: to the end of memory, for a
/// call that does not say how far it reaches).
static BufferRange hostRange(void *Ptr, uint64_t Bytes, bool Writes) {
  auto Begin = reinterpret_cast<uintptr_t>(Ptr);
  uintptr_t End =
      !Bytes || Bytes > UINTPTR_MAX - Begin ? UINTPTR_MAX : Begin + Bytes;
  return BufferRange{Begin, End, Writes};
}

void Runtime::dataEnter(void *Ptr, uint64_t Bytes) {
  if (ConfigCode != HPVM_OK)
    throw RtError(ConfigCode, ConfigError);
  if (!Ptr)
    throw RtError(HPVM_ERR_INVALID_ARGUMENT, "hpvm_data_enter: ptr is NULL");
  BufferRange Range = hostRange(Ptr, Bytes, true);
  Async->waitForConflicts(&Range, 1);
  Coh.enterRegion(Ptr, Bytes);
}

void Runtime::dataExit(void *Ptr) {
  if (!Ptr)
    throw RtError(HPVM_ERR_INVALID_ARGUMENT, "hpvm_data_exit: ptr is NULL");
  BufferRange Range = hostRange(Ptr, 0, true);
  Async->waitForConflicts(&Range, 1);
  Coh.exitRegion(Ptr, &regionStats(TheStats));
}

void Runtime::dataRequest(void *Ptr, uint64_t Bytes) {
  if (!Ptr)
    return;
  BufferRange Range = hostRange(Ptr, Bytes, false);
  Async->waitForConflicts(&Range, 1);
  Coh.requestHost(Ptr, Bytes, &regionStats(TheStats));
}

void Runtime::dataUpdate(void *Ptr, uint64_t Bytes) {
  if (!Ptr)
    return;
  BufferRange Range = hostRange(Ptr, Bytes, true);
  Async->waitForConflicts(&Range, 1);
  Coh.hostWrote(Ptr, Bytes);
}

void Runtime::releaseProgram(const hpvm_program_desc *D) {
  // Launches and streams in flight may be running its graphs.
  stopStreams(D);
  Async->waitForEverything();
  // Armed sites count for its nodes' statistics.
  LaunchSites::disarmAll();
  std::lock_guard<std::mutex> L(ProgramsM);
  if (Programs.erase(D))
    ProgramEpoch.fetch_add(1, std::memory_order_acq_rel);
}

namespace {

bool sameCandidates(const std::vector<Candidate> &A,
                    const std::vector<Candidate> &B) {
  return std::equal(A.begin(), A.end(), B.begin(), B.end(),
                    [](const Candidate &X, const Candidate &Y) {
                      return X.Dev == Y.Dev && X.DeviceIndex == Y.DeviceIndex &&
                             X.Artifact == Y.Artifact &&
                             X.History == Y.History && X.HostLink == Y.HostLink;
                    });
}

} // namespace

void Runtime::prepare(GraphPlan &G) {
  uint64_t Gen = DeviceGeneration.load(std::memory_order_acquire);
  if (G.Generation.load(std::memory_order_acquire) == Gen &&
      G.Runnable.load(std::memory_order_relaxed))
    return;
  std::lock_guard<std::mutex> GL(G.CandidatesM);
  if (G.Generation.load(std::memory_order_relaxed) != Gen) {
    std::lock_guard<std::mutex> DL(DevicesM);
    std::string NoDevice;
    std::string Available;
    for (size_t I = 0; I != Devices.size(); ++I)
      Available += (I ? ", " : "") + Devices[I]->name();
    if (Available.empty())
      Available = "none";
    // Why the devices that are not there are not (a kind named in
    // HPVM_DEVICES whose driver is missing, a device skipped).
    std::string Why;
    for (const std::string &N : Notes)
      Why += (Why.empty() ? "; discovery: " : "; ") + N;
    std::vector<Candidate> Found;
    bool OffHost = false;
    for (NodePlan *Leaf : G.Leaves) {
      Found.clear();
      std::string Refused; // devices with the artifact that cannot run it
      for (const hpvm_artifact *A : Leaf->Artifacts)
        for (size_t I = 0; I != Devices.size(); ++I) {
          if (Devices[I]->target() != A->target)
            continue;
          std::string Why = Devices[I]->cannotRun(*Leaf->N, Leaf->Depth);
          if (!Why.empty()) {
            Refused += "; " + Devices[I]->name() + " cannot run it: " + Why;
            continue;
          }
          std::unique_ptr<Link> &HostLink = HostLinks[Devices[I].get()];
          if (!HostLink)
            HostLink = std::make_unique<Link>(*Devices[I], TheStats);
          Found.push_back(Candidate{
              Devices[I].get(), static_cast<unsigned>(I), A,
              &TheStats.entry(Leaf->Path, Devices[I]->name()), HostLink.get()});
        }
      // Lazy discovery bumps the generation while other threads may be
      // running this graph and reading the candidates; it never changes
      // them (see discoverDevicesFor), and an unchanged list is not
      // rewritten, so those reads do not race.
      if (!sameCandidates(Found, Leaf->Candidates))
        Leaf->Candidates = Found;
      if (Refused != Leaf->Refused)
        Leaf->Refused = Refused;
      for (const Candidate &C : Found)
        OffHost |= C.Dev->memorySpace() != HostSpace;
      if (!Found.empty() || !NoDevice.empty())
        continue;
      std::string Targets;
      for (const hpvm_artifact *A : Leaf->Artifacts)
        Targets +=
            (Targets.empty() ? "" : ", ") + artifactTargetName(A->target);
      std::string LeftOut;
      for (const hpvm_artifact *A : Leaf->LeftOut)
        LeftOut += "; the compiler left its " +
                   std::string(artifactTargetName(A->target)) + " kernel out" +
                   (A->entry && *A->entry ? std::string(": ") + A->entry : "");
      NoDevice =
          "no device can run node '" + Leaf->Path + "': " +
          (Targets.empty() ? std::string("the program has no artifact for it")
                           : "it has artifacts for " + Targets) +
          LeftOut + "; available devices: " + Available + Refused + Why;
    }
    G.NoDevice = std::move(NoDevice);
    G.OffHost.store(OffHost, std::memory_order_relaxed);
    G.Runnable.store(G.NoDevice.empty(), std::memory_order_relaxed);
    G.Generation.store(Gen, std::memory_order_release);
  }
  if (!G.NoDevice.empty())
    throw RtError(HPVM_ERR_NO_DEVICE, G.NoDevice);
}

namespace {
thread_local const LaunchOptions *ThreadOptions = nullptr;
} // namespace

void hpvm::rt::setThreadLaunchOptions(const LaunchOptions *Options) {
  // Launch sites would skip the devices the options allow. A policy alone
  // changes nothing for the leaves sites run: they have one candidate.
  thread_local bool Holding = false;
  bool Hold = Options && (!Options->Devices.empty() || Options->Strict);
  if (Hold != Holding)
    Hold ? LaunchSites::hold() : LaunchSites::release();
  Holding = Hold;
  ThreadOptions = Options;
}
const LaunchOptions *hpvm::rt::threadLaunchOptions() { return ThreadOptions; }

void Runtime::applyLaunchOptions(const LaunchOptions &O, LaunchContext &Ctx) {
  if (!O.Scheduler.empty()) {
    std::lock_guard<std::mutex> L(PoliciesM);
    std::unique_ptr<Scheduler> &Policy = Policies[O.Scheduler];
    if (!Policy)
      Policy = makeScheduler(O.Scheduler, Coh);
    if (!Policy) {
      Policies.erase(O.Scheduler);
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    "unknown scheduler '" + O.Scheduler +
                        "' (known: " + schedulerNames() + ")");
    }
    Ctx.Sched = Policy.get();
  }
  Ctx.Strict = O.Strict;
  Ctx.Fallbacks = O.Fallbacks;
  if (O.Devices.empty())
    return;
  std::vector<bool> Matched(O.Devices.size(), false);
  std::string Present;
  for (size_t I = 0, N = numDevices(); I < N; ++I) {
    std::string Name = device(I).name();
    std::string Kind = Name.substr(0, Name.find(':'));
    bool Allowed = false;
    for (size_t K = 0; K < O.Devices.size(); ++K)
      if (O.Devices[K] == Name || O.Devices[K] == Kind)
        Allowed = Matched[K] = true;
    Ctx.Allowed.push_back(Allowed);
    Present += (I ? ", " : "") + Name;
  }
  for (size_t K = 0; K < O.Devices.size(); ++K) {
    Ctx.AllowedText += (K ? ", " : "") + O.Devices[K];
    if (Matched[K])
      continue;
    std::string Message =
        "no device '" + O.Devices[K] + "' here (devices: " + Present + ")";
    if (O.Strict)
      throw RtError(HPVM_ERR_NO_DEVICE, Message);
    if (O.Fallbacks)
      O.Fallbacks->push_back(Message);
  }
}

void Runtime::launch(const hpvm_program_desc *D, const char *GraphName,
                     void *const *Args) {
  GraphPlan &G = plan("hpvm_launch", D, GraphName, Args);
  Async->waitForConflicts(G, Args);
  run(G, Args, threadLaunchOptions());
}

/// The root leaf's cost per instance now, if it has one candidate.
static double rootCost(const GraphPlan &G) {
  const std::vector<Candidate> &Cands = G.Root->Candidates;
  return Cands.size() == 1 ? Cands[0].History->SerialNanosPerInstance.load(
                                 std::memory_order_relaxed)
                           : 0;
}

void Runtime::launchAtSite(hpvm_launch_site &Site, const hpvm_program_desc *D,
                           const char *GraphName, void *const *Args) {
  GraphPlan &G = plan("hpvm_launch", D, GraphName, Args);
  Async->waitForConflicts(G, Args);
  double Before = rootCost(G);
  run(G, Args, threadLaunchOptions());
  uint64_t Dims[3];
  armSite(Site, G, Before, evalDims(*G.Root, Args, Dims));
}

hpvm_handle Runtime::launchAsyncAtSite(hpvm_launch_site &Site,
                                       const hpvm_program_desc *D,
                                       const char *GraphName,
                                       void *const *Args) {
  GraphPlan &G = plan("hpvm_launch_async", D, GraphName, Args);
  double Before = rootCost(G);
  hpvm_handle H = Async->submit(G, Args, threadLaunchOptions());
  // Armed only if the launch has finished already (it ran on this
  // thread): a direct launch then does the same.
  uint64_t Dims[3];
  armSite(Site, G, Before, evalDims(*G.Root, Args, Dims));
  return H;
}

bool Runtime::timesEveryLaunch() const {
  return TheTrace.enabled() || !PerfModelsPath.empty();
}

void Runtime::armSite(hpvm_launch_site &Site, const GraphPlan &G,
                      double NanosBefore, uint64_t Instances) {
  // What a direct launch does: call the root leaf's CPU function on the
  // calling thread for all its instances, with no outputs, on host
  // pointers, telling nobody. The same as this runtime's launch when the
  // leaf can run on the host CPU only, the device would run it alone on
  // the calling thread, and nothing else looks: no copies elsewhere, no
  // launch in flight, no trace, no performance models to save. (The
  // statistics count direct launches apart: LaunchSites.)
  const NodePlan &Root = *G.Root;
  uint64_t Limit = 0;
  if (Root.N->isLeaf() && Root.N->Outputs.empty() &&
      Root.Candidates.size() == 1) {
    const Candidate &C = Root.Candidates[0];
    KernelLaunch Small;
    if (C.Dev->memorySpace() == HostSpace &&
        C.Artifact->target == HPVM_TARGET_CPU && C.Artifact->cpu_fn &&
        !(Root.StreamingVariant && C.Dev->useStreamingVariant(Small)))
      Limit = LaunchSites::inPlaceLimit(*C.History, *C.Dev, NanosBefore);
  }
  // Launches larger than a site runs (most of a site's launches through
  // the runtime, for a leaf with much work) leave it as it is, without the
  // sites' lock: an armed site stays right until something disarms it.
  if (Limit ? Instances > Limit
            : __atomic_load_n(&Site.limit, __ATOMIC_RELAXED) == 0)
    return;
  const Candidate *C = Limit ? &Root.Candidates[0] : nullptr;
  uint64_t Each = C ? C->History->serialNanos(Instances) : 0;
  LaunchSites::arm(Site, C ? C->History : nullptr,
                   C ? C->Artifact->cpu_fn : nullptr, Limit,
                   LaunchSites::budget(Each), [&] {
                     return this == ProcessRuntime.load() &&
                            LaunchSites::holds() == 1 && !timesEveryLaunch() &&
                            Async->idle() && Coh.idle() &&
                            !G.OffHost.load(std::memory_order_relaxed);
                   });
}

hpvm_handle Runtime::launchAsync(const hpvm_program_desc *D,
                                 const char *GraphName, void *const *Args) {
  GraphPlan &G = plan("hpvm_launch_async", D, GraphName, Args);
  return Async->submit(G, Args, threadLaunchOptions());
}

hpvm_status Runtime::wait(hpvm_handle H, std::string &Message) {
  return Async->wait(H, Message);
}

bool Runtime::finished(hpvm_handle H) { return Async->finished(H); }

hpvm_status Runtime::waitAll(std::string &Message, bool AllThreads) {
  return Async->waitAll(Message, AllThreads);
}

GraphPlan &Runtime::plan(const char *Call, const hpvm_program_desc *D,
                         const char *GraphName, void *const *Args) {
  GraphPlan &G = plan(Call, D, GraphName);
  requireArguments(Call, G, Args);
  return G;
}

GraphPlan &Runtime::plan(const char *Call, const hpvm_program_desc *D,
                         const char *GraphName) {
  if (!D)
    throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                  std::string(Call) + ": program is NULL");
  if (!GraphName)
    throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                  std::string(Call) + ": graph is NULL");
  if (ConfigCode != HPVM_OK)
    throw RtError(ConfigCode, ConfigError);

  Program &P = program(*D);
  if (!P.loadError().empty())
    throw RtError(HPVM_ERR_BAD_PROGRAM, P.loadError());
  GraphPlan *G = P.find(GraphName);
  if (!G)
    throw RtError(HPVM_ERR_UNKNOWN_GRAPH,
                  std::string("unknown graph '") + GraphName +
                      "'; the program has: " + P.graphNames());
  if (!G->Unsupported.empty())
    throw RtError(HPVM_ERR_UNSUPPORTED, G->Unsupported);
  prepare(*G);
  return *G;
}

Stream *Runtime::openStream(const hpvm_program_desc *D, const char *GraphName,
                            unsigned Capacity) {
  GraphPlan &G = plan("hpvm_stream_open", D, GraphName);
  std::unique_ptr<Stream> S(createStream(Capacity));
  try {
    S->bind(G, D);
  } catch (...) {
    closeStream(S.release());
    throw;
  }
  return S.release();
}

Stream *Runtime::createStream(unsigned Capacity) {
  auto S = std::make_unique<Stream>(*this, Capacity, threadLaunchOptions());
  std::lock_guard<std::mutex> L(StreamsM);
  OpenStreams.push_back(S.get());
  return S.release();
}

void Runtime::pushFrame(Stream &S, const hpvm_program_desc *D,
                        const char *GraphName, void *const *Args) {
  S.bind(plan("hpvm_stream_push", D, GraphName, Args), D);
  S.push(Args);
}

void Runtime::closeStream(Stream *S) {
  if (!S) { // every stream: the process is ending
    stopStreams(nullptr);
    return;
  }
  std::unique_ptr<Stream> Owned(S);
  {
    std::lock_guard<std::mutex> L(StreamsM);
    OpenStreams.erase(std::remove(OpenStreams.begin(), OpenStreams.end(), S),
                      OpenStreams.end());
  }
  S->cancel();
  S->drain();
  std::string Summary = S->summary();
  std::lock_guard<std::mutex> L(StreamsM);
  if (!Summary.empty())
    StreamSummaries.push_back(std::move(Summary));
}

void Runtime::stopStreams(const hpvm_program_desc *Program) {
  std::vector<Stream *> Stop;
  {
    std::lock_guard<std::mutex> L(StreamsM);
    for (Stream *S : OpenStreams)
      if (!Program || S->program() == Program)
        Stop.push_back(S);
  }
  for (Stream *S : Stop) {
    S->cancel();
    S->drain();
  }
}

void Runtime::run(GraphPlan &G, void *const *Args, const LaunchOptions *O) {
  LaunchContext Ctx;
  Ctx.TrackHost = G.OffHost.load(std::memory_order_relaxed);
  Ctx.MayUntime = !timesEveryLaunch();
  if (O)
    applyLaunchOptions(*O, Ctx);
  Exec->run(G, Args, Ctx);
  if (!Ctx.Buffers.empty()) {
    try {
      Coh.release(Ctx.Buffers, G.EndStats);
    } catch (const RtError &E) {
      Ctx.fail(E.code(), E.what());
    }
  }
  if (Ctx.Code != HPVM_OK)
    throw RtError(Ctx.Code, Ctx.Message);
}

std::string Runtime::statsText() {
  // The direct launches of armed sites count from now.
  LaunchSites::disarmAll();
  std::string Header = "hpvm-rt stats: scheduler " + std::string(Sched->name());
  {
    std::lock_guard<std::mutex> L(DevicesM);
    Header += "; devices:";
    for (const auto &D : Devices)
      Header += " " + D->description();
    if (Devices.empty())
      Header += " none";
    for (const std::string &N : Notes)
      Header += "\nnote: " + N;
  }
  std::string Text = TheStats.format(Header, Coh);
  std::lock_guard<std::mutex> L(StreamsM);
  for (const std::string &Line : StreamSummaries)
    Text += Line + "\n";
  for (const Stream *S : OpenStreams)
    if (std::string Line = S->summary(); !Line.empty())
      Text += Line + " (open)\n";
  return Text;
}
