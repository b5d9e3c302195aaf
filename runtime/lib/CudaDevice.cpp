//===- CudaDevice.cpp - Leaves compiled to PTX, run through the CUDA driver
//===//
//
// One device per GPU, each on the GPU's primary context (the one the CUDA
// runtime and other libraries share, so hpvm-rt does not hold a second
// context's memory). Decisions, and why:
//
// * Every entry point pushes the context and pops it on the way out: the
//   calling thread is the program's, which may have a context of its own
//   current.
// * One non-blocking stream carries the copies, and four more take turns
//   with the kernels, so that independent kernels can run at once (kernels
//   that depend on each other are ordered by the executor: one is launched
//   when the other is done). A kernel's stream waits on an event recorded
//   on the copy stream when uploads were queued since its last kernel, so
//   that a kernel runs after the uploads of its inputs. launch() returns
//   once the kernel is queued; wait() waits on an event recorded after it,
//   not on a stream, so that a thread waits for its own launch only, and
//   whenDone hands that wait to one thread of the device's.
// * Copies go through pinned staging buffers (cuMemHostAlloc): an upload
//   copies the host data into one and queues an asynchronous copy from it,
//   so copyFromHost returns at once and the host buffer is free to change;
//   a download queues the copies of up to four 16 MiB pieces ahead of the
//   one being copied out. A staging buffer is reused once an event recorded
//   after its copy has completed.
// * Device memory is cuMemAlloc'ed; the pointer handed to coherence is the
//   device address itself, which is what kernels receive. Freed buffers go
//   to a pool by size class, so repeated launches of a program allocate
//   nothing (coherence frees device copies after every launch).
// * Modules are cached by a hash of the PTX and the entry point, confirmed
//   by comparing the text; a failed load reports the JIT's error log.
// * With tracing on, events around every kernel and copy become device-side
//   trace events. CUDA events have no absolute time, only differences, so
//   each is measured from an anchor event whose place on the device time
//   line is known; anchors are renewed every 10 s because differences come
//   as float milliseconds, which lose microseconds after about 16 s. Device
//   time is placed on the host's as the Vulkan device does (DeviceClock).
// * Errors that leave the context unusable (an illegal address, a failed
//   launch) make every later call fail with the first reason.
//
//===----------------------------------------------------------------------===//

#include "CompletionThread.h"
#include "CudaApi.h"
#include "DeviceSupport.h"
#include "EagerDownloads.h"
#include "PlanBuilder.h"
#include "SmallArray.h"

#include "hpvm/abi/NVPTXABI.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Cuda.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/Trace.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>

using namespace hpvm;
using namespace hpvm::rt;
using namespace hpvm::rt::cu;

namespace {

/// Largest staging buffer; bigger copies go in pieces.
constexpr size_t StagingChunk = size_t(16) << 20;
/// Upload staging in flight after which an upload waits for the oldest, so
/// that pinned memory stays bounded.
constexpr size_t InFlightLimit = size_t(64) << 20;
/// Download pieces queued ahead of the one being copied out.
constexpr unsigned DownloadWindow = 4;
/// Age after which trace events are measured from a new anchor.
constexpr uint64_t AnchorNanos = uint64_t(10) * 1000 * 1000 * 1000;
/// Hard bound on JIT log text kept in a message.
constexpr size_t ErrorLogBytes = 16384, InfoLogBytes = 4096;

/// Errors after which the context cannot be used again.
bool isSticky(CUresult R) {
  switch (R) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    return true;
  default:
    return false;
  }
}

std::string gibText(uint64_t Bytes) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.1f GiB",
                static_cast<double>(Bytes) / (1024.0 * 1024 * 1024));
  return Buf;
}

std::string dim3Text(const uint32_t D[3]) {
  return "(" + std::to_string(D[0]) + ", " + std::to_string(D[1]) + ", " +
         std::to_string(D[2]) + ")";
}

/// A pinned host buffer and the event recorded after its last copy.
struct StagingBuf {
  void *Ptr = nullptr;
  size_t Capacity = 0;
  CUevent Ready = nullptr;
};

struct Module {
  std::string Ptx;
  std::string Entry;
  CUmodule Handle = nullptr;
  CUfunction Fn = nullptr;
  int MaxThreads = 0;
};

/// An event whose time on the device's own line (ns from the first anchor)
/// is known once it has completed.
struct Anchor {
  const Library *F;
  CUevent Event = nullptr;
  double BaseNs = 0;
  uint64_t Host = 0; // nowNanos() when it was recorded
  explicit Anchor(const Library *F) : F(F) {}
  ~Anchor() {
    if (Event)
      F->cuEventDestroy(Event);
  }
};

/// One kernel or traced copy in flight; reused.
struct Record {
  /// Start and End time it when traced; Done, an event without timing
  /// (cheaper to record and wait for), marks the end of an untraced kernel.
  CUevent Start = nullptr, End = nullptr, Done = nullptr;
  std::shared_ptr<Anchor> From; // set when traced
  const char *Name = "";        // the trace event's (a node path outlives it)
  uint64_t Instances = 0, Bytes = 0, Submitted = 0;
  uint64_t Finished = 0; // when the completion thread saw End complete
  /// The slots its kernel's small results are copied into.
  std::vector<EagerDownloads::Ticket> Eager;
  /// What tells that its work has finished.
  CUevent finished() const { return From ? End : Done; }
};

/// Streams kernels take turns on.
constexpr unsigned LaunchStreams = 4;

class CudaDeviceImpl final : public CudaDevice {
public:
  CudaDeviceImpl(std::shared_ptr<Library> Lib, int Ordinal, int DriverVersion,
                 const DiscoveryContext &Ctx);
  ~CudaDeviceImpl() override;

  const std::string &name() const override { return Name; }
  uint32_t target() const override { return HPVM_TARGET_NVPTX; }
  MemorySpace memorySpace() const override { return Space; }
  void *allocate(size_t Bytes) override;
  void free(void *Ptr) override;
  void copyFromHost(void *Dst, uint64_t Offset, const void *HostSrc,
                    size_t Bytes) override;
  void copyToHost(void *HostDst, const void *Src, uint64_t Offset,
                  size_t Bytes) override;
  bool prepare(KernelLaunch &L) override;
  void launch(const KernelLaunch &L, LaunchToken &T) override;
  void wait(LaunchToken &T) override;
  bool whenDone(LaunchToken &T, void (*Done)(void *), void *Ctx) override {
    return T.Handle && Completions.add(T.Handle, Done, Ctx);
  }
  bool canLaunchGrid(const KernelLaunch &L) const override;
  bool fitsWorkGroup(const uint64_t *Group) const override {
    // CUDA's block limits: x and y at most 1024, z at most 64.
    static const uint64_t MaxSize[3] = {1024, 1024, 64};
    return fitsWorkGroupLimits(Group, uint64_t(MaxBlockThreads), MaxSize);
  }
  // Pinned copies over PCIe 4 x16, about what staging sustains.
  std::string description() const override;

  Counters counters() const override;
  const std::string &deviceName() const override { return DevName; }
  unsigned computeCapability() const override { return CC; }
  uint64_t totalMemory() const override { return TotalMem; }
  const CudaGridLimits &gridLimits() const override { return Limits; }

private:
  friend class ScopedContext;
  std::shared_ptr<Library> Lib;
  const Library &F;
  std::string Name;
  MemorySpace Space;
  Trace *Events;
  int DriverVersion;
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  bool Retained = false;
  CUstream Stream = nullptr; // the copies
  CUstream Launches[LaunchStreams] = {};
  std::string DevName;
  unsigned CC = 0;
  int SMs = 0;
  uint64_t TotalMem = 0;
  CudaGridLimits Limits;
  int MaxBlockThreads = 1024;

  StickyFailure Broken;

  // BufM, StgM, RecM, CopyM, ModM, ClockM are each taken alone.
  std::mutex BufM;
  std::unordered_map<CUdeviceptr, size_t> Live; // address -> capacity
  BufferPool<CUdeviceptr> FreeBuffers{BufferPoolLimit};

  std::mutex StgM;
  BufferPool<StagingBuf *> FreeStaging{StagingPoolLimit};
  std::deque<StagingBuf *> InFlight; // in the order their copies were queued
  size_t InFlightBytes = 0;
  std::vector<std::unique_ptr<StagingBuf>> AllStaging;

  std::mutex RecM;
  std::vector<std::unique_ptr<Record>> Records;
  std::vector<Record *> FreeRecords;
  std::mutex CopyM;
  std::vector<Record *> TracedUploads; // until their end event completes

  std::mutex ModM;
  std::unordered_map<uint64_t, std::vector<std::unique_ptr<Module>>> Modules;

  /// Small buffers a kernel writes, copied home after it on its stream
  /// into slots of EagerArena (pinned; EagerDownloads.h).
  EagerDownloads Eager;
  void *EagerArena = nullptr;

  std::mutex ClockM; // the anchors; the clock keeps its own lock
  std::shared_ptr<Anchor> Current, Next;
  DeviceClock Clock;

  // Uploads counts the uploads queued so far; a kernel stream has waited
  // for the first Synced[k] of them (through UploadsDone[k]).
  std::mutex SyncM;
  uint64_t Uploads = 0;
  uint64_t Synced[LaunchStreams] = {};
  CUevent UploadsDone[LaunchStreams] = {};
  std::atomic<unsigned> NextLaunch{0};

  // Kernels in flight for whenDone, waited for oldest first.
  CompletionThread Completions{[this](void *H) {
    auto *R = static_cast<Record *>(H);
    if (F.cuCtxPushCurrent(Ctx) != CUDA_SUCCESS)
      return; // wait() will say why
    F.cuEventSynchronize(R->finished());
    R->Finished = nowNanos();
    CUcontext Popped;
    F.cuCtxPopCurrent(&Popped);
  }};

  std::atomic<uint64_t> NumModules{0}, NumHits{0}, NumLaunches{0},
      NumGridLaunches{0}, NumStagingBytes{0}, NumStagingAllocs{0},
      NumAllocations{0};

  [[noreturn]] void fail(const std::string &What,
                         hpvm_status Code = HPVM_ERR_DEVICE) const {
    throw RtError(Code, Name + ": " + What);
  }
  void check(CUresult R, const char *Call, const std::string &What = "") {
    if (R == CUDA_SUCCESS)
      return;
    std::string Text = std::string(Call) + " failed: " + F.describe(R) +
                       (What.empty() ? "" : " (" + What + ")");
    if (isSticky(R))
      Broken.set(Text);
    fail(Text);
  }
  bool tracing() const { return Events && Events->enabled(); }

  void init();
  void destroy();
  void releasePool();
  StagingBuf *takeStaging(size_t Bytes);
  void retireStaging(StagingBuf *S);
  void returnStaging(StagingBuf *S);
  // With StgM held.
  void reapStaging();
  void poolStaging(StagingBuf *S);
  Record *takeRecord();
  void releaseRecord(Record *R);
  void beginTraced(Record *R, CUstream On);
  void traceRecord(Record *R, uint64_t Done);
  void drainTracedUploads();
  Module &module(const KernelLaunch &L, bool *Created = nullptr);
};

/// Makes the device's context current for the scope and restores the
/// thread's own afterwards.
class ScopedContext {
public:
  explicit ScopedContext(CudaDeviceImpl &D) : D(D) {
    D.check(D.F.cuCtxPushCurrent(D.Ctx), "cuCtxPushCurrent_v2");
  }
  ~ScopedContext() {
    CUcontext Popped;
    D.F.cuCtxPopCurrent(&Popped);
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  CudaDeviceImpl &D;
};

} // namespace

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

CudaDeviceImpl::CudaDeviceImpl(std::shared_ptr<Library> L, int Ordinal,
                               int DriverVersion, const DiscoveryContext &DC)
    : Lib(std::move(L)), F(*Lib), Name("cuda:" + std::to_string(Ordinal)),
      Space(DC.NewSpace(DC.Cookie)), Events(DC.Events),
      DriverVersion(DriverVersion) {
  check(F.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet");
  // A constructor that throws runs no destructor: undo by hand.
  try {
    init();
  } catch (...) {
    destroy();
    throw;
  }
}

void CudaDeviceImpl::init() {
  char Buf[256] = {};
  check(F.cuDeviceGetName(Buf, sizeof(Buf) - 1, Dev), "cuDeviceGetName");
  DevName = Buf;
  size_t Mem = 0;
  check(F.cuDeviceTotalMem(&Mem, Dev), "cuDeviceTotalMem_v2");
  TotalMem = Mem;
  auto Attribute = [&](int A, const char *What) {
    int V = 0;
    check(F.cuDeviceGetAttribute(&V, A, Dev), "cuDeviceGetAttribute", What);
    return V;
  };
  int Major = Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                        "compute capability");
  int Minor = Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                        "compute capability");
  CC = static_cast<unsigned>(Major * 10 + Minor);
  SMs = Attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  MaxBlockThreads =
      Attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads per block");
  const int GridAttrs[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                            CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                            CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  for (unsigned C = 0; C != 3; ++C) {
    int V = Attribute(GridAttrs[C], "grid size");
    // What NVPTXABI.h promises kernels, whatever a device would allow.
    Limits.Max[C] =
        std::min(Limits.Max[C], static_cast<uint32_t>(std::max(V, 1)));
  }

  check(F.cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain");
  Retained = true;
  ScopedContext C(*this);
  check(F.cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  for (unsigned K = 0; K != LaunchStreams; ++K) {
    check(F.cuStreamCreate(&Launches[K], CU_STREAM_NON_BLOCKING),
          "cuStreamCreate");
    check(F.cuEventCreate(&UploadsDone[K], CU_EVENT_DISABLE_TIMING),
          "cuEventCreate");
  }
  check(F.cuMemHostAlloc(&EagerArena,
                         EagerDownloads::NumSlots * EagerDownloads::SlotBytes,
                         0),
        "cuMemHostAlloc", "the slots of small results");
}

CudaDeviceImpl::~CudaDeviceImpl() { destroy(); }

void CudaDeviceImpl::destroy() {
  if (!Retained)
    return;
  Completions.stop();
  // Nothing here may throw; failures leave memory to the context's end.
  if (F.cuCtxPushCurrent(Ctx) == CUDA_SUCCESS) {
    for (CUstream S : Launches)
      if (S)
        F.cuStreamSynchronize(S);
    if (Stream)
      F.cuStreamSynchronize(Stream);
    Current.reset();
    Next.reset();
    for (auto &R : Records) {
      R->From.reset();
      F.cuEventDestroy(R->Start);
      F.cuEventDestroy(R->End);
      F.cuEventDestroy(R->Done);
    }
    for (auto &S : AllStaging) {
      F.cuMemFreeHost(S->Ptr);
      F.cuEventDestroy(S->Ready);
    }
    if (EagerArena)
      F.cuMemFreeHost(EagerArena);
    EagerArena = nullptr;
    for (auto &Entry : Live)
      F.cuMemFree(Entry.first);
    for (CUdeviceptr P : FreeBuffers.drain())
      F.cuMemFree(P);
    for (auto &Bucket : Modules)
      for (auto &M : Bucket.second)
        F.cuModuleUnload(M->Handle);
    for (unsigned K = 0; K != LaunchStreams; ++K) {
      if (Launches[K])
        F.cuStreamDestroy(Launches[K]);
      if (UploadsDone[K])
        F.cuEventDestroy(UploadsDone[K]);
      Launches[K] = nullptr;
      UploadsDone[K] = nullptr;
    }
    if (Stream)
      F.cuStreamDestroy(Stream);
    CUcontext Popped;
    F.cuCtxPopCurrent(&Popped);
  }
  Records.clear();
  AllStaging.clear();
  Live.clear();
  Modules.clear();
  Stream = nullptr;
  F.cuDevicePrimaryCtxRelease(Dev);
  Retained = false;
}

std::string CudaDeviceImpl::description() const {
  return Name + " (" + DevName + "; sm_" + std::to_string(CC) + "; " +
         gibText(TotalMem) + "; " + std::to_string(SMs) + " SMs; driver " +
         std::to_string(DriverVersion / 1000) + "." +
         std::to_string(DriverVersion % 1000 / 10) + ")";
}

CudaDevice::Counters CudaDeviceImpl::counters() const {
  Counters C;
  C.ModulesLoaded = NumModules.load();
  C.ModuleCacheHits = NumHits.load();
  C.Launches = NumLaunches.load();
  C.GridLaunches = NumGridLaunches.load();
  C.StagingBytes = NumStagingBytes.load();
  C.StagingAllocations = NumStagingAllocs.load();
  C.EagerDownloadBytes = Eager.served();
  C.MemoryAllocations = NumAllocations.load();
  C.PooledAllocations = FreeBuffers.reused();
  return C;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void *CudaDeviceImpl::allocate(size_t Bytes) {
  Broken.checkUsable(Name);
  size_t Class = poolSizeClass(Bytes);
  {
    std::lock_guard<std::mutex> L(BufM);
    if (std::optional<CUdeviceptr> P = FreeBuffers.take(Class)) {
      Live.emplace(*P, Class);
      return reinterpret_cast<void *>(static_cast<uintptr_t>(*P));
    }
  }
  ScopedContext C(*this);
  CUdeviceptr P = 0;
  CUresult R = F.cuMemAlloc(&P, Class);
  if (R == CUDA_ERROR_OUT_OF_MEMORY) {
    // Pooled buffers of other sizes may be what is missing.
    releasePool();
    R = F.cuMemAlloc(&P, Class);
  }
  check(R, "cuMemAlloc_v2", std::to_string(Bytes) + " bytes");
  NumAllocations.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> L(BufM);
  Live.emplace(P, Class);
  return reinterpret_cast<void *>(static_cast<uintptr_t>(P));
}

void CudaDeviceImpl::free(void *Ptr) {
  CUdeviceptr P = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(Ptr));
  {
    std::lock_guard<std::mutex> L(BufM);
    auto It = Live.find(P);
    if (It == Live.end())
      return; // not ours
    size_t Class = It->second;
    Live.erase(It);
    Eager.forget(Ptr);
    // Reuse is safe even while queued copies still use the buffer: its
    // kernels have finished (coherence frees copies after them), the next
    // user's copies queue behind those, and its kernels wait for them.
    if (FreeBuffers.give(P, Class))
      return;
  }
  // Over the pool's bound: freed once nothing queued can touch it.
  if (F.cuCtxPushCurrent(Ctx) != CUDA_SUCCESS)
    return;
  F.cuStreamSynchronize(Stream);
  F.cuMemFree(P);
  CUcontext Popped;
  F.cuCtxPopCurrent(&Popped);
}

void CudaDeviceImpl::releasePool() {
  std::vector<CUdeviceptr> Pool;
  {
    std::lock_guard<std::mutex> L(BufM);
    Pool = FreeBuffers.drain();
  }
  if (Pool.empty())
    return;
  F.cuStreamSynchronize(Stream);
  for (CUdeviceptr P : Pool)
    F.cuMemFree(P);
}

void CudaDeviceImpl::reapStaging() {
  // Copies complete in queue order: stop at the first that has not.
  while (!InFlight.empty()) {
    StagingBuf *S = InFlight.front();
    if (F.cuEventQuery(S->Ready) != CUDA_SUCCESS)
      break;
    InFlight.pop_front();
    InFlightBytes -= S->Capacity;
    poolStaging(S);
  }
}

void CudaDeviceImpl::poolStaging(StagingBuf *S) {
  if (FreeStaging.give(S, S->Capacity))
    return;
  // Over the bound: give the pinned memory back (its copy is done).
  F.cuMemFreeHost(S->Ptr);
  F.cuEventDestroy(S->Ready);
  for (auto It = AllStaging.begin(); It != AllStaging.end(); ++It)
    if (It->get() == S) {
      AllStaging.erase(It);
      break;
    }
}

StagingBuf *CudaDeviceImpl::takeStaging(size_t Bytes) {
  size_t Class = poolSizeClass(Bytes);
  {
    std::unique_lock<std::mutex> L(StgM);
    reapStaging();
    while (InFlightBytes > InFlightLimit) {
      StagingBuf *Oldest = InFlight.front();
      L.unlock();
      CUresult R = F.cuEventSynchronize(Oldest->Ready);
      L.lock();
      if (R != CUDA_SUCCESS) {
        L.unlock();
        check(R, "cuEventSynchronize", "waiting for a staged upload");
      }
      reapStaging();
    }
    if (std::optional<StagingBuf *> S = FreeStaging.take(Class))
      return *S;
  }
  auto S = std::make_unique<StagingBuf>();
  S->Capacity = Class;
  check(F.cuMemHostAlloc(&S->Ptr, Class, 0), "cuMemHostAlloc",
        std::to_string(Class) + " bytes of staging");
  CUresult R = F.cuEventCreate(&S->Ready, CU_EVENT_DISABLE_TIMING);
  if (R != CUDA_SUCCESS) {
    F.cuMemFreeHost(S->Ptr);
    check(R, "cuEventCreate");
  }
  NumStagingAllocs.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> L(StgM);
  AllStaging.push_back(std::move(S));
  return AllStaging.back().get();
}

void CudaDeviceImpl::retireStaging(StagingBuf *S) {
  std::lock_guard<std::mutex> L(StgM);
  InFlight.push_back(S);
  InFlightBytes += S->Capacity;
}

void CudaDeviceImpl::returnStaging(StagingBuf *S) {
  std::lock_guard<std::mutex> L(StgM);
  poolStaging(S);
}

//===----------------------------------------------------------------------===//
// Records and trace events
//===----------------------------------------------------------------------===//

Record *CudaDeviceImpl::takeRecord() {
  {
    std::lock_guard<std::mutex> L(RecM);
    if (!FreeRecords.empty()) {
      Record *R = FreeRecords.back();
      FreeRecords.pop_back();
      return R;
    }
  }
  auto R = std::make_unique<Record>();
  check(F.cuEventCreate(&R->Start, CU_EVENT_DEFAULT), "cuEventCreate");
  CUresult E = F.cuEventCreate(&R->End, CU_EVENT_DEFAULT);
  if (E == CUDA_SUCCESS)
    E = F.cuEventCreate(&R->Done, CU_EVENT_DISABLE_TIMING);
  if (E != CUDA_SUCCESS) {
    F.cuEventDestroy(R->Start);
    if (R->End)
      F.cuEventDestroy(R->End);
    check(E, "cuEventCreate");
  }
  std::lock_guard<std::mutex> L(RecM);
  Records.push_back(std::move(R));
  return Records.back().get();
}

void CudaDeviceImpl::releaseRecord(Record *R) {
  R->From.reset();
  R->Name = "";
  R->Instances = R->Bytes = R->Submitted = 0;
  // Tickets of a launch that failed before its event said it finished.
  for (const EagerDownloads::Ticket &Ticket : R->Eager)
    Eager.done(Ticket, /*Ran=*/false);
  R->Eager.clear();
  std::lock_guard<std::mutex> L(RecM);
  FreeRecords.push_back(R);
}

void CudaDeviceImpl::beginTraced(Record *R, CUstream On) {
  std::lock_guard<std::mutex> L(ClockM);
  uint64_t Now = nowNanos();
  auto NewAnchor = [&] {
    auto A = std::make_shared<Anchor>(&F);
    check(F.cuEventCreate(&A->Event, CU_EVENT_DEFAULT), "cuEventCreate");
    check(F.cuEventRecord(A->Event, Stream), "cuEventRecord");
    A->Host = Now;
    return A;
  };
  if (!Current)
    Current = NewAnchor();
  else if (!Next && Now - Current->Host > AnchorNanos)
    Next = NewAnchor(); // its base is learnt once it has completed
  // Measured from the anchor whose base is known, recorded before it.
  R->From = Current;
  // Read before the start is queued: the work cannot start earlier.
  R->Submitted = nowNanos();
  check(F.cuEventRecord(R->Start, On), "cuEventRecord");
}

void CudaDeviceImpl::traceRecord(Record *R, uint64_t Done) {
  float StartMs = 0, EndMs = 0;
  double Base;
  int64_t Offset;
  {
    std::lock_guard<std::mutex> L(ClockM);
    if (Next && F.cuEventQuery(Next->Event) == CUDA_SUCCESS) {
      float Ms = 0;
      if (F.cuEventElapsedTime(&Ms, Current->Event, Next->Event) ==
          CUDA_SUCCESS) {
        Next->BaseNs = Current->BaseNs + double(Ms) * 1e6;
        Current = std::move(Next);
      }
      Next.reset();
    }
    if (F.cuEventElapsedTime(&StartMs, R->From->Event, R->Start) !=
            CUDA_SUCCESS ||
        F.cuEventElapsedTime(&EndMs, R->From->Event, R->End) != CUDA_SUCCESS)
      return;
    Base = R->From->BaseNs;
  }
  Offset = Clock.offset(R->Submitted, Done, Base + double(StartMs) * 1e6,
                        Base + double(EndMs) * 1e6);
  auto Host = [&](float Ms) {
    return static_cast<uint64_t>(static_cast<int64_t>(Base + double(Ms) * 1e6) +
                                 Offset);
  };
  Events->recordDevice(Name, R->Name, Host(StartMs), Host(EndMs), R->Instances,
                       R->Bytes);
}

void CudaDeviceImpl::drainTracedUploads() {
  std::vector<Record *> Done;
  {
    std::lock_guard<std::mutex> L(CopyM);
    if (TracedUploads.empty())
      return;
    auto It = TracedUploads.begin();
    for (; It != TracedUploads.end(); ++It)
      if (F.cuEventQuery((*It)->End) != CUDA_SUCCESS)
        break;
    Done.assign(TracedUploads.begin(), It);
    TracedUploads.erase(TracedUploads.begin(), It);
  }
  // Seen complete only now: a looser bound than a wait, but a true one.
  uint64_t Now = nowNanos();
  for (Record *R : Done) {
    traceRecord(R, Now);
    releaseRecord(R);
  }
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

void CudaDeviceImpl::copyFromHost(void *Dst, uint64_t Offset,
                                  const void *HostSrc, size_t Bytes) {
  Broken.checkUsable(Name);
  Eager.forget(Dst);
  ScopedContext C(*this);
  CUdeviceptr D =
      static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(Dst)) + Offset;
  const char *Src = static_cast<const char *>(HostSrc);
  Record *R = nullptr;
  try {
    if (tracing()) {
      R = takeRecord();
      R->Name = "upload";
      R->Bytes = Bytes;
      beginTraced(R, Stream);
    }
    for (size_t Off = 0; Off < Bytes;) {
      size_t N = std::min(StagingChunk, Bytes - Off);
      StagingBuf *S = takeStaging(N);
      std::memcpy(S->Ptr, Src + Off, N);
      CUresult E = F.cuMemcpyHtoDAsync(D + Off, S->Ptr, N, Stream);
      if (E == CUDA_SUCCESS)
        E = F.cuEventRecord(S->Ready, Stream);
      retireStaging(S);
      check(E, "cuMemcpyHtoDAsync_v2", std::to_string(N) + " bytes");
      NumStagingBytes.fetch_add(N, std::memory_order_relaxed);
      Off += N;
    }
    {
      // The next kernel on each stream waits for this upload.
      std::lock_guard<std::mutex> L(SyncM);
      ++Uploads;
    }
    if (R) {
      check(F.cuEventRecord(R->End, Stream), "cuEventRecord");
      std::lock_guard<std::mutex> L(CopyM);
      TracedUploads.push_back(R);
    }
  } catch (...) {
    if (R)
      releaseRecord(R);
    throw;
  }
}

void CudaDeviceImpl::copyToHost(void *HostDst, const void *Src, uint64_t Offset,
                                size_t Bytes) {
  Broken.checkUsable(Name);
  if (Eager.read(Src, Offset, Bytes, HostDst,
                 static_cast<const char *>(EagerArena)))
    return;
  ScopedContext C(*this);
  CUdeviceptr From =
      static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(Src)) + Offset;
  char *Dst = static_cast<char *>(HostDst);
  struct Piece {
    StagingBuf *S;
    size_t Off, N;
  } Window[DownloadWindow];
  unsigned Head = 0, Count = 0;
  Record *R = nullptr;
  try {
    if (tracing()) {
      R = takeRecord();
      R->Name = "download";
      R->Bytes = Bytes;
      beginTraced(R, Stream);
    }
    size_t Issued = 0;
    while (Issued < Bytes || Count) {
      while (Count < DownloadWindow && Issued < Bytes) {
        size_t N = std::min(StagingChunk, Bytes - Issued);
        StagingBuf *S = takeStaging(N);
        Window[(Head + Count) % DownloadWindow] = {S, Issued, N};
        ++Count;
        check(F.cuMemcpyDtoHAsync(S->Ptr, From + Issued, N, Stream),
              "cuMemcpyDtoHAsync_v2", std::to_string(N) + " bytes");
        check(F.cuEventRecord(S->Ready, Stream), "cuEventRecord");
        Issued += N;
      }
      Piece &P = Window[Head];
      check(F.cuEventSynchronize(P.S->Ready), "cuEventSynchronize",
            "waiting for a download");
      std::memcpy(Dst + P.Off, P.S->Ptr, P.N);
      NumStagingBytes.fetch_add(P.N, std::memory_order_relaxed);
      StagingBuf *Done = P.S;
      Head = (Head + 1) % DownloadWindow;
      --Count;
      returnStaging(Done);
    }
    if (R) {
      check(F.cuEventRecord(R->End, Stream), "cuEventRecord");
      check(F.cuEventSynchronize(R->End), "cuEventSynchronize");
      traceRecord(R, nowNanos());
      releaseRecord(R);
      R = nullptr;
    }
  } catch (...) {
    // Pieces still queued are reused once their events say so.
    for (; Count; --Count, Head = (Head + 1) % DownloadWindow)
      retireStaging(Window[Head].S);
    if (R)
      releaseRecord(R);
    throw;
  }
  drainTracedUploads();
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

bool CudaDeviceImpl::prepare(KernelLaunch &L) {
  Broken.checkUsable(Name);
  bool Created;
  L.Prepared = &module(L, &Created);
  return Created;
}

Module &CudaDeviceImpl::module(const KernelLaunch &L, bool *Created) {
  if (Created)
    *Created = false;
  const hpvm_artifact &A = *L.Artifact;
  // Built only for messages: launches should not allocate.
  auto Where = [&] { return "node '" + std::string(L.Path) + "': "; };
  if (!A.code || A.code_size == 0)
    fail(Where() + "the PTX artifact has no code", HPVM_ERR_BAD_PROGRAM);
  if (!A.entry || !*A.entry)
    fail(Where() + "the PTX artifact names no entry point",
         HPVM_ERR_BAD_PROGRAM);
  // The text ends at code_size or at a NUL, whichever comes first.
  const char *Text = static_cast<const char *>(A.code);
  size_t Size = strnlen(Text, A.code_size);
  uint64_t Hash = moduleHash(Text, Size, A.entry);

  std::lock_guard<std::mutex> Lock(ModM);
  std::vector<std::unique_ptr<Module>> &Bucket = Modules[Hash];
  for (const auto &M : Bucket)
    if (M->Entry == A.entry && M->Ptx.size() == Size &&
        std::memcmp(M->Ptx.data(), Text, Size) == 0) {
      NumHits.fetch_add(1, std::memory_order_relaxed);
      return *M;
    }

  auto M = std::make_unique<Module>();
  M->Ptx.assign(Text, Size); // NUL-terminated, as the driver wants it
  M->Entry = A.entry;
  std::vector<char> ErrorLog(ErrorLogBytes, '\0'), InfoLog(InfoLogBytes, '\0');
  int Options[4] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                    CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *Values[4] = {
      ErrorLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(ErrorLogBytes - 1)),
      InfoLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(InfoLogBytes - 1))};
  ScopedContext C(*this);
  CUresult R =
      F.cuModuleLoadDataEx(&M->Handle, M->Ptx.c_str(), 4, Options, Values);
  if (R != CUDA_SUCCESS) {
    auto Trimmed = [](const std::vector<char> &Log) {
      std::string S(Log.data());
      while (!S.empty() && (S.back() == '\n' || S.back() == ' '))
        S.pop_back();
      return S;
    };
    std::string Log = Trimmed(ErrorLog);
    if (Log.empty())
      Log = Trimmed(InfoLog);
    // A module the JIT rejects is the program's fault; one the driver
    // cannot take (too new a PTX version, no JIT) is the machine's.
    bool BadModule = R == CUDA_ERROR_INVALID_PTX ||
                     R == CUDA_ERROR_INVALID_IMAGE ||
                     R == CUDA_ERROR_NO_BINARY_FOR_GPU;
    std::string Text = Where() + "loading the PTX of entry '" + M->Entry +
                       "' failed: cuModuleLoadDataEx returned " + F.describe(R);
    if (R == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      Text += "; the driver is older than the PTX";
    if (isSticky(R))
      Broken.set(Text);
    fail(Log.empty() ? Text + " (the JIT left no log)"
                     : Text + "; JIT log:\n" + Log,
         BadModule ? HPVM_ERR_BAD_PROGRAM : HPVM_ERR_DEVICE);
  }
  R = F.cuModuleGetFunction(&M->Fn, M->Handle, M->Entry.c_str());
  if (R != CUDA_SUCCESS) {
    F.cuModuleUnload(M->Handle);
    if (R == CUDA_ERROR_NOT_FOUND)
      fail(Where() + "the PTX has no entry point '" + M->Entry + "'",
           HPVM_ERR_BAD_PROGRAM);
    check(R, "cuModuleGetFunction", Where() + "entry '" + M->Entry + "'");
  }
  if (F.cuFuncGetAttribute(&M->MaxThreads,
                           CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                           M->Fn) != CUDA_SUCCESS)
    M->MaxThreads = MaxBlockThreads;
  NumModules.fetch_add(1, std::memory_order_relaxed);
  Bucket.push_back(std::move(M));
  if (Created)
    *Created = true;
  return *Bucket.back();
}

bool CudaDeviceImpl::canLaunchGrid(const KernelLaunch &L) const {
  if (!L.Leaf || !nvptxHasGridForm(*L.Leaf))
    return false;
  CudaLaunchShape Shape;
  return cudaGridMappedShape(L.Leaf->Dims.size(), L.Leaf->parent()->Dims.size(),
                             L.ParentDims, Limits, Shape)
      .empty();
}

void CudaDeviceImpl::launch(const KernelLaunch &L, LaunchToken &T) {
  Broken.checkUsable(Name);
  const Node &Leaf = *L.Leaf;
  auto Where = [&] { return "node '" + std::string(L.Path) + "': "; };
  if (L.Outs && !Leaf.Outputs.empty())
    fail(Where() + "leaves with outputs cannot run on CUDA (the NVPTX "
                   "kernel interface has no output slots)",
         HPVM_ERR_UNSUPPORTED);

  CudaLaunchShape Shape;
  const Node *Parent = Leaf.parent();
  std::string Why =
      L.Grid        ? cudaGridMappedShape(Leaf.Dims.size(),
                                   Parent ? Parent->Dims.size() : 0,
                                          L.ParentDims, Limits, Shape)
      : L.WorkGroup ? cudaWorkGroupShape(Leaf.Dims.size(), L.Dims, L.GroupDims,
                                         Limits, Shape)
                    : cudaFlatShape(Leaf.Dims.size(), L.Dims, Limits, Shape);
  if (!Why.empty())
    fail(Where() + Why);

  size_t NumSlots = cudaKernelParamCount(Leaf, L.OuterLevels);
  SmallArray<uint64_t, 32> Slots(NumSlots);
  SmallArray<void *, 32> Ptrs(NumSlots);
  Why = cudaMarshalParams(Leaf, L.Args, L.OuterIds, L.OuterLevels,
                          L.Grid ? CudaLaunchForm::GridMapped
                                 : CudaLaunchForm::Flat,
                          Slots.data(), Ptrs.data());
  if (!Why.empty())
    fail(Where() + Why, HPVM_ERR_INVALID_ARGUMENT);
  // The buffers the kernel writes, once each, with their sizes.
  SmallArray<CUdeviceptr, 32> Written(NumSlots);
  SmallArray<size_t, 32> WrittenBytes(NumSlots);
  size_t NumWritten = 0;
  for (size_t K = 0, E = Leaf.Params.size(); K != E; ++K) {
    const Param &P = Leaf.Params[K];
    if (!P.isBuffer() || !Slots[K])
      continue;
    size_t Capacity = 0;
    {
      std::lock_guard<std::mutex> Lock(BufM);
      auto It = Live.find(Slots[K]);
      if (It != Live.end())
        Capacity = It->second;
    }
    if (Capacity) {
      if (writes(P.Mode) &&
          std::find(Written.data(), Written.data() + NumWritten, Slots[K]) ==
              Written.data() + NumWritten) {
        WrittenBytes[NumWritten] = Capacity;
        Written[NumWritten++] = Slots[K];
      }
      continue;
    }
    // Coherence leaves empty buffers alone: the kernel gets a null address
    // it must not dereference.
    if (bufferBytes(Leaf, P, L.Args))
      fail(Where() + "buffer '" + P.Name + "' is not in this device's memory");
    Slots[K] = 0;
  }

  Module &M = L.Prepared ? *static_cast<Module *>(L.Prepared) : module(L);
  uint32_t Threads = Shape.Block[0] * Shape.Block[1] * Shape.Block[2];
  if (Threads > static_cast<uint32_t>(M.MaxThreads))
    fail(Where() + "kernel '" + M.Entry + "' can run at most " +
         std::to_string(M.MaxThreads) +
         " threads per block on this device (registers or shared memory), "
         "but NVPTXABI.h launches it with " +
         std::to_string(Threads));

  ScopedContext C(*this);
  Record *R = takeRecord();
  try {
    R->Name = L.Path;
    R->Instances = L.Dims[0] * L.Dims[1] * L.Dims[2];
    if (L.Grid)
      R->Instances *= L.ParentDims[0] * L.ParentDims[1] * L.ParentDims[2];
    unsigned K =
        NextLaunch.fetch_add(1, std::memory_order_relaxed) % LaunchStreams;
    CUstream On = Launches[K];
    {
      std::lock_guard<std::mutex> Sync(SyncM);
      if (Synced[K] != Uploads) {
        check(F.cuEventRecord(UploadsDone[K], Stream), "cuEventRecord");
        check(F.cuStreamWaitEvent(On, UploadsDone[K], 0), "cuStreamWaitEvent");
        Synced[K] = Uploads;
      }
    }
    if (tracing())
      beginTraced(R, On);
    check(F.cuLaunchKernel(M.Fn, Shape.Grid[0], Shape.Grid[1], Shape.Grid[2],
                           Shape.Block[0], Shape.Block[1], Shape.Block[2], 0,
                           On, Ptrs.data(), nullptr),
          "cuLaunchKernel",
          Where() + "entry '" + M.Entry + "', grid " + dim3Text(Shape.Grid) +
              ", block " + dim3Text(Shape.Block));
    // The small buffers the kernel writes are copied home after it, on
    // its stream (EagerDownloads.h).
    for (size_t I = 0; I != NumWritten; ++I) {
      R->Eager.push_back(Eager.write(
          reinterpret_cast<void *>(static_cast<uintptr_t>(Written[I])),
          WrittenBytes[I]));
      if (R->Eager.back().hasSlot())
        check(F.cuMemcpyDtoHAsync(static_cast<char *>(EagerArena) +
                                      R->Eager.back().offset(),
                                  Written[I], WrittenBytes[I], On),
              "cuMemcpyDtoHAsync_v2", "a small result");
    }
    check(F.cuEventRecord(R->finished(), On), "cuEventRecord");
  } catch (...) {
    releaseRecord(R);
    throw;
  }
  NumLaunches.fetch_add(1, std::memory_order_relaxed);
  if (L.Grid)
    NumGridLaunches.fetch_add(1, std::memory_order_relaxed);
  T.Handle = R;
}

void CudaDeviceImpl::wait(LaunchToken &T) {
  auto *R = static_cast<Record *>(T.Handle);
  if (!R)
    return;
  T.Handle = nullptr;
  ScopedContext C(*this);
  CUresult E = F.cuEventSynchronize(R->finished());
  uint64_t Done = R->Finished ? R->Finished : nowNanos();
  R->Finished = 0;
  if (E != CUDA_SUCCESS) {
    std::string Path = R->Name;
    // Its events may still be pending: the record is not reused.
    check(E, "cuEventSynchronize",
          "node '" + Path + "': waiting for its kernel");
  }
  for (const EagerDownloads::Ticket &Ticket : R->Eager)
    Eager.done(Ticket, /*Ran=*/true);
  R->Eager.clear();
  if (R->From)
    traceRecord(R, Done);
  releaseRecord(R);
  drainTracedUploads();
}

//===----------------------------------------------------------------------===//
// Discovery
//===----------------------------------------------------------------------===//

namespace {

std::string discover(const DiscoveryContext &Ctx, const CudaOptions &O,
                     std::vector<std::unique_ptr<Device>> &Out) {
  std::string Why;
  std::shared_ptr<Library> Lib = Library::open(O.Driver, Why);
  if (!Lib)
    return Why;
  CUresult R = Lib->cuInit(0);
  if (R != CUDA_SUCCESS)
    return "cuInit failed: " + Lib->describe(R);
  int Version = 0;
  Lib->cuDriverGetVersion(&Version);
  int Count = 0;
  R = Lib->cuDeviceGetCount(&Count);
  if (R != CUDA_SUCCESS)
    return "cuDeviceGetCount failed: " + Lib->describe(R);
  if (Count <= 0)
    return "the CUDA driver reports no devices";

  size_t Before = Out.size();
  std::string Skipped;
  for (int I = 0; I != Count; ++I) {
    try {
      Out.push_back(std::make_unique<CudaDeviceImpl>(Lib, I, Version, Ctx));
    } catch (const std::exception &E) {
      Skipped += (Skipped.empty() ? "" : "; ") + std::string(E.what());
    }
  }
  if (Out.size() == Before)
    return "no usable CUDA device (" + Skipped + ")";
  return Skipped.empty() ? "" : "skipped " + Skipped;
}

} // namespace

std::string
hpvm::rt::discoverCudaDevices(const DiscoveryContext &Ctx,
                              const CudaOptions &Options,
                              std::vector<std::unique_ptr<Device>> &Out) {
  return discoverSafely([&] { return discover(Ctx, Options, Out); });
}
