//===- OpenCLDevice.cpp - Leaves compiled to SPIR-V, run through OpenCL ---===//
//
// One cl_context, one in-order command queue with profiling. Decisions, and
// why:
//
// * Only devices that ingest SPIR-V are usable: the SPIR-V backend's OpenCL
//   flavour is the only code this device runs (no OpenCL C, no compiler of
//   ours at run time). Every other device is listed with the reason, so a
//   user with PoCL or Rusticl built without SPIR-V sees why it is not used.
// * Buffers are cl_mem objects; kernels receive them as `global uchar *`
//   arguments, one per buffer parameter, and every other slot of the
//   push-constant layout as a scalar argument (SPIRVABI.h). The handle
//   allocate() returns is the device's own record of the cl_mem, which
//   launch() recognises in the arguments.
// * Copies are blocking: the coherence directory treats a copy as done
//   when it returns, and the host may write the source right after.
// * Freed buffers go to a pool (by size class), as on Vulkan, since
//   coherence frees device copies at the end of every launch.
// * Programs are built once per device from the module's words, cached by
//   a hash of the words and the entry point (confirmed by comparing the
//   words); a failed build reports the driver's build log.
// * Arguments are set and the kernel enqueued under the program's lock:
//   cl_kernel argument state is not safe to share between threads, and
//   OpenCL captures the values at enqueue.
// * Profiling events of launches and copies become device-side trace
//   events, placed on the host time line like Vulkan's timestamps.
//
//===----------------------------------------------------------------------===//

#include "CompletionThread.h"
#include "DeviceSupport.h"
#include "Env.h"
#include "OpenCLApi.h"
#include "PlanBuilder.h"
#include "SmallArray.h"
#include "SpirvModuleCache.h"
#include "VulkanSpirv.h"

#include "hpvm/ir/Graph.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/OpenCL.h"
#include "hpvm/rt/Trace.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

using namespace hpvm;
using namespace hpvm::rt;

namespace {

/// Smaller is better: the devices most likely to be fast first.
int typeRank(const std::string &Type) {
  static const char *Order[] = {"gpu", "accelerator", "cpu"};
  for (int I = 0; I != 3; ++I)
    if (Type == Order[I])
      return I;
  return 3;
}

/// "OpenCL 2.1 foo" -> 21; 0 when the text does not say.
unsigned clVersion(const std::string &Text) {
  unsigned Major = 0, Minor = 0;
  if (std::sscanf(Text.c_str(), "OpenCL %u.%u", &Major, &Minor) != 2)
    return 0;
  return Major * 10 + Minor;
}

bool hasWord(const std::string &List, const char *Word) {
  size_t N = std::strlen(Word);
  for (size_t At = List.find(Word); At != std::string::npos;
       At = List.find(Word, At + 1)) {
    bool Starts = At == 0 || List[At - 1] == ' ';
    bool Ends = At + N == List.size() || List[At + N] == ' ';
    if (Starts && Ends)
      return true;
  }
  return false;
}

/// Whether an IL version list ("SPIR-V_1.0 SPIR-V_1.2") has SPIR-V 1.0 or
/// later, which is what the backend emits.
bool listsSpirv(const std::string &ILs) {
  for (size_t At = ILs.find("SPIR-V_"); At != std::string::npos;
       At = ILs.find("SPIR-V_", At + 1)) {
    unsigned Major = 0;
    if (std::sscanf(ILs.c_str() + At, "SPIR-V_%u", &Major) == 1 && Major >= 1)
      return true;
  }
  return false;
}

std::string trimmed(std::string S) {
  while (!S.empty() && (S.back() == ' ' || S.back() == '\0'))
    S.pop_back();
  size_t First = S.find_first_not_of(' ');
  return First == std::string::npos ? "" : S.substr(First);
}

/// The text of a clGet*Info query, up to its NUL; "" where the driver
/// would not say. Query(Size, Data, SizeRet) makes the call, asked first
/// for the size, then for the bytes.
template <class QueryFn> std::string queryText(QueryFn Query) {
  size_t Size = 0;
  if (Query(0, nullptr, &Size) != cl::Success || !Size)
    return "";
  std::string S(Size, '\0');
  if (Query(Size, S.data(), nullptr) != cl::Success)
    return "";
  S.resize(std::strlen(S.c_str()));
  return S;
}

std::string platformString(const cl::Library &CL, cl::PlatformId P,
                           cl::Uint Param) {
  return trimmed(queryText([&](size_t Size, void *Data, size_t *SizeRet) {
    return CL.clGetPlatformInfo(P, Param, Size, Data, SizeRet);
  }));
}

std::string deviceString(const cl::Library &CL, cl::DeviceId D,
                         cl::Uint Param) {
  return trimmed(queryText([&](size_t Size, void *Data, size_t *SizeRet) {
    return CL.clGetDeviceInfo(D, Param, Size, Data, SizeRet);
  }));
}

template <typename T>
T deviceValue(const cl::Library &CL, cl::DeviceId D, cl::Uint Param,
              T Default) {
  T V{};
  if (CL.clGetDeviceInfo(D, Param, sizeof(V), &V, nullptr) != cl::Success)
    return Default;
  return V;
}

/// What discovery learnt about a device, with the handles to open it.
struct Probe {
  cl::PlatformId Platform = nullptr;
  cl::DeviceId Device = nullptr;
  OpenCLDeviceInfo Info;
  unsigned PlatformVersion = 0, DeviceVersion = 0;
  std::string Extensions;
  bool FP64 = false;
  uint64_t MaxAlloc = 0;
  /// The largest work-group: work-items in all, and along x, y, z; and
  /// whether the device runs work-group kernels (OpenCLOptions).
  uint64_t MaxGroupItems = 0, MaxGroupSize[3] = {0, 0, 0};
  bool WorkGroups = false;
  /// clCreateProgramWithIL, or the platform's clCreateProgramWithILKHR.
  cl::CreateProgramWithILFn CreateWithIL = nullptr;
};

/// The SPIR-V versions the device lists, from CL_DEVICE_IL_VERSION or,
/// where that is empty, CL_DEVICE_ILS_WITH_VERSION (OpenCL 3.0).
std::string ilVersions(const cl::Library &CL, cl::DeviceId D) {
  std::string ILs = deviceString(CL, D, cl::DeviceIlVersion);
  if (!ILs.empty())
    return ILs;
  size_t Size = 0;
  if (CL.clGetDeviceInfo(D, cl::DeviceIlsWithVersion, 0, nullptr, &Size) !=
          cl::Success ||
      Size < sizeof(cl::NameVersion))
    return "";
  std::vector<cl::NameVersion> List(Size / sizeof(cl::NameVersion));
  if (CL.clGetDeviceInfo(D, cl::DeviceIlsWithVersion,
                         List.size() * sizeof(cl::NameVersion), List.data(),
                         nullptr) != cl::Success)
    return "";
  for (const cl::NameVersion &V : List) {
    std::string Name(V.Name, strnlen(V.Name, sizeof(V.Name)));
    // The packed version: major in the top 10 bits, minor in the next 10.
    unsigned Major = V.Version >> 22, Minor = (V.Version >> 12) & 0x3ff;
    ILs += (ILs.empty() ? "" : " ") + Name + "_" + std::to_string(Major) + "." +
           std::to_string(Minor);
  }
  return ILs;
}

Probe probe(const cl::Library &CL, cl::PlatformId P,
            const std::string &PlatformName, unsigned PlatformVersion,
            cl::DeviceId D, unsigned Index) {
  Probe R;
  R.Platform = P;
  R.Device = D;
  R.PlatformVersion = PlatformVersion;
  OpenCLDeviceInfo &I = R.Info;
  I.Index = Index;
  I.Platform = PlatformName;
  I.Name = deviceString(CL, D, cl::DeviceName);
  if (I.Name.empty())
    I.Name = "unnamed device";
  cl::Bitfield Type = deviceValue<cl::Bitfield>(CL, D, cl::DeviceType, 0);
  I.Type = Type & cl::DeviceTypeGpu           ? "gpu"
           : Type & cl::DeviceTypeAccelerator ? "accelerator"
           : Type & cl::DeviceTypeCpu         ? "cpu"
                                              : "other";
  I.Version = deviceString(CL, D, cl::DeviceVersion);
  R.DeviceVersion = clVersion(I.Version);
  R.Extensions = deviceString(CL, D, cl::DeviceExtensions);
  R.FP64 = deviceValue<cl::Bitfield>(CL, D, cl::DeviceDoubleFpConfig, 0) != 0;
  R.MaxAlloc = deviceValue<cl::Ulong>(CL, D, cl::DeviceMaxMemAllocSize, 0);
  R.MaxGroupItems = deviceValue<size_t>(CL, D, cl::DeviceMaxWorkGroupSize, 0);
  if (deviceValue<cl::Uint>(CL, D, cl::DeviceMaxWorkItemDimensions, 0) >= 3) {
    size_t Sizes[3] = {0, 0, 0};
    if (CL.clGetDeviceInfo(D, cl::DeviceMaxWorkItemSizes, sizeof Sizes, Sizes,
                           nullptr) == cl::Success)
      std::copy(Sizes, Sizes + 3, R.MaxGroupSize);
  }
  I.ILVersions = ilVersions(CL, D);

  std::vector<std::string> Missing;
  if (!deviceValue<cl::Bool>(CL, D, cl::DeviceAvailable, 0))
    Missing.push_back("not available");
  if (!deviceValue<cl::Bool>(CL, D, cl::DeviceCompilerAvailable, 0))
    Missing.push_back("no compiler available");
  if (I.ILVersions.empty())
    Missing.push_back("no SPIR-V IL support (CL_DEVICE_IL_VERSION is empty)");
  else if (!listsSpirv(I.ILVersions))
    Missing.push_back("no SPIR-V IL support (CL_DEVICE_IL_VERSION is '" +
                      I.ILVersions + "')");
  cl::Uint Bits = deviceValue<cl::Uint>(CL, D, cl::DeviceAddressBits, 0);
  if (Bits != 64)
    Missing.push_back(std::to_string(Bits) +
                      "-bit addresses (the kernels use 64-bit pointers)");
  if (deviceString(CL, D, cl::DeviceProfile) == "EMBEDDED_PROFILE" &&
      !hasWord(R.Extensions, "cles_khr_int64"))
    Missing.push_back("an embedded profile without cles_khr_int64 (the "
                      "kernels use 64-bit integers)");
  if (Missing.empty()) {
    // Core since 2.1; before, only as the platform's extension function.
    if (PlatformVersion >= 21 && R.DeviceVersion >= 21)
      R.CreateWithIL = CL.clCreateProgramWithIL;
    if (!R.CreateWithIL && hasWord(R.Extensions, "cl_khr_il_program"))
      R.CreateWithIL = reinterpret_cast<cl::CreateProgramWithILFn>(
          CL.clGetExtensionFunctionAddressForPlatform(
              P, "clCreateProgramWithILKHR"));
    if (!R.CreateWithIL)
      Missing.push_back("no clCreateProgramWithIL (OpenCL " +
                        std::to_string(R.DeviceVersion / 10) + "." +
                        std::to_string(R.DeviceVersion % 10) +
                        " without cl_khr_il_program)");
  }
  for (const std::string &M : Missing)
    I.Unusable += (I.Unusable.empty() ? "" : ", ") + M;
  return R;
}

/// What allocate() hands out.
struct ClBuf {
  cl::Mem Mem = nullptr;
  size_t Capacity = 0;
  /// The commands that wrote it since the last one that waited for all the
  /// others (retained; under the device's BufM). A command that uses the
  /// buffer waits for them: that is how OpenCL makes one queue's changes
  /// to a buffer visible to another. Kernels of sibling instances that
  /// write their own rows of one buffer add themselves side by side.
  std::vector<cl::Event> Writers;
};

/// One built module: its program and the kernel of its entry point.
struct Built : SpirvModule {
  cl::Program Prog = nullptr;
  cl::Kernel Kern = nullptr;
  /// What the driver says the kernel takes (~0u if it would not say).
  cl::Uint NumArgs = ~0u;
  /// Held while setting arguments and enqueueing.
  std::mutex ArgsM;
};

/// A launch between launch() and wait(); reused.
struct InFlight {
  cl::Event Ev = nullptr;
  cl::CommandQueue Queue = nullptr;
  const char *Name = "";
  uint64_t Instances = 0;
  uint64_t Submitted = 0;
  /// whenDone's callback, and when the event's callback saw the kernel end.
  void (*Done)(void *) = nullptr;
  void *DoneCtx = nullptr;
  uint64_t Finished = 0;
  class OpenCLDeviceImpl *Dev = nullptr;
};

/// Queues launches go to in turn, so that as many kernels can run at once:
/// launches that depend on each other are ordered by the executor (one
/// starts when the other is done) and copies are blocking; what crosses
/// queues is the state of buffers, through ClBuf::Writers.
constexpr unsigned LaunchQueues = 4;

class OpenCLDeviceImpl final : public OpenCLDevice {
public:
  OpenCLDeviceImpl(std::shared_ptr<cl::Library> Lib, const Probe &P,
                   const DiscoveryContext &Ctx);
  ~OpenCLDeviceImpl() override;

  const std::string &name() const override { return Name; }
  uint32_t target() const override { return HPVM_TARGET_OPENCL; }
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
  bool whenDone(LaunchToken &T, void (*Done)(void *), void *Ctx) override;
  std::string description() const override;
  bool fitsWorkGroup(const uint64_t *Group) const override {
    return P.WorkGroups &&
           fitsWorkGroupLimits(Group, P.MaxGroupItems, P.MaxGroupSize);
  }

  Counters counters() const override;
  const OpenCLDeviceInfo &info() const override { return P.Info; }
  bool hasProfiling() const override { return Profiling; }

private:
  std::shared_ptr<cl::Library> Lib;
  const cl::Library &CL;
  Probe P;
  std::string Name;
  MemorySpace Space;
  Trace *Events;
  cl::Context Ctx = nullptr;
  /// Queues[0] also carries the copies.
  cl::CommandQueue Queues[LaunchQueues] = {};
  cl::CommandQueue &Queue = Queues[0];
  std::atomic<unsigned> NextQueue{0};
  bool Profiling = false;
  DeviceClock Clock;
  /// SPIR-V capabilities the device lacks, with the end of the message
  /// saying so.
  MissingCapabilityList MissingCapabilities;

  // BufM, FlightM are taken alone.
  std::mutex BufM;
  std::unordered_set<ClBuf *> Live;
  BufferPool<ClBuf *> FreeBuffers{BufferPoolLimit};
  SpirvModuleCache<Built> Programs;
  std::mutex FlightM;
  std::vector<std::unique_ptr<InFlight>> Flights;
  std::vector<InFlight *> FreeFlights;

  std::atomic<uint64_t> NumLaunches{0}, NumAllocations{0};
  /// Runs whenDone's callbacks, posted by the event callbacks.
  CompletionThread Completions;

  [[noreturn]] void fail(const std::string &What) const {
    throw RtError(HPVM_ERR_DEVICE, Name + ": " + What);
  }
  void check(cl::Int R, const char *Call, const std::string &What = "") const {
    if (R != cl::Success)
      fail(std::string(Call) + " failed: " + cl::errorName(R) +
           (What.empty() ? "" : " (" + What + ")"));
  }
  bool tracing() const { return Profiling && Events && Events->enabled(); }
  /// Appends B's writers to Wait, retained for the caller to release.
  void writersOf(ClBuf *B, std::vector<cl::Event> &Wait);
  /// Ev, which waited for Waited, wrote B: it replaces those of B's
  /// writers it waited for.
  void wrote(ClBuf *B, const std::vector<cl::Event> &Waited, cl::Event Ev);
  void releaseAll(std::vector<cl::Event> &Events);
  /// A copy of B that returns once done; Enqueue(NumWait, WaitList, Event *)
  /// makes the call, after B's last writer.
  template <class EnqueueFn>
  void blockingCopy(const char *What, const char *Call, ClBuf *B, bool Writes,
                    size_t Bytes, EnqueueFn Enqueue);
  Built &program(const KernelLaunch &L, bool *Created = nullptr);
  std::string buildLog(cl::Program Prog) const;
  void traceEvent(cl::Event Ev, const char *What, uint64_t Submitted,
                  uint64_t Done, uint64_t Instances, uint64_t Bytes);
  InFlight *takeFlight();
  void releaseFlight(InFlight *F);
  void init();
  void destroy();
};

} // namespace

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

OpenCLDeviceImpl::OpenCLDeviceImpl(std::shared_ptr<cl::Library> L,
                                   const Probe &Pr, const DiscoveryContext &DC)
    : Lib(std::move(L)), CL(*Lib), P(Pr),
      Name("opencl:" + std::to_string(Pr.Info.Index)),
      Space(DC.NewSpace(DC.Cookie)), Events(DC.Events) {
  // A constructor that throws runs no destructor: undo by hand.
  try {
    init();
  } catch (...) {
    destroy();
    throw;
  }
}

void OpenCLDeviceImpl::init() {
  const intptr_t Props[] = {cl::ContextPlatform,
                            reinterpret_cast<intptr_t>(P.Platform), 0};
  cl::Int R = cl::Success;
  Ctx = CL.clCreateContext(Props, 1, &P.Device, nullptr, nullptr, &R);
  if (!Ctx || R != cl::Success) {
    Ctx = nullptr;
    check(R == cl::Success ? -6 : R, "clCreateContext");
  }
  // Profiling where the queue allows it; without, launches still run.
  auto NewQueue = [&](bool Profile) {
    cl::Bitfield Flags = Profile ? cl::QueueProfilingEnable : 0;
    cl::CommandQueue Q;
    if (P.DeviceVersion >= 20 && P.PlatformVersion >= 20 &&
        CL.clCreateCommandQueueWithProperties) {
      const cl::Bitfield QueueProps[] = {cl::QueueProperties, Flags, 0};
      Q = CL.clCreateCommandQueueWithProperties(Ctx, P.Device, QueueProps, &R);
    } else {
      Q = CL.clCreateCommandQueue(Ctx, P.Device, Flags, &R);
    }
    return R == cl::Success ? Q : nullptr;
  };
  Profiling = (Queue = NewQueue(true)) != nullptr;
  if (!Queue)
    Queue = NewQueue(false);
  for (unsigned Q = 1; Queue && Q != LaunchQueues; ++Q)
    if (!(Queues[Q] = NewQueue(Profiling)))
      break;
  for (cl::CommandQueue Q : Queues)
    if (!Q)
      check(R == cl::Success ? -6 : R, "clCreateCommandQueue");

  // What a module may not ask for here (SPIR-V capability numbers from the
  // specification's Capability table); the rest OpenCL devices have.
  const struct {
    uint32_t Capability;
    const char *Name;
    bool Has;
    const char *Lacks;
  } Needs[] = {
      {9, "Float16", hasWord(P.Extensions, "cl_khr_fp16"), "lacks cl_khr_fp16"},
      {10, "Float64", P.FP64,
       "has no double precision (CL_DEVICE_DOUBLE_FP_CONFIG is 0)"},
      {12, "Int64Atomics", hasWord(P.Extensions, "cl_khr_int64_base_atomics"),
       "lacks cl_khr_int64_base_atomics"},
  };
  for (const auto &N : Needs)
    if (!N.Has)
      MissingCapabilities.push_back(
          {N.Capability,
           std::string(N.Name) + ", but " + P.Info.Name + " " + N.Lacks});
}

OpenCLDeviceImpl::~OpenCLDeviceImpl() { destroy(); }

void OpenCLDeviceImpl::destroy() {
  Completions.stop();
  // Whatever is still queued must finish before its objects go.
  for (cl::CommandQueue Q : Queues)
    if (Q)
      CL.clFinish(Q);
  Programs.clear([&](Built &B) {
    if (B.Kern)
      CL.clReleaseKernel(B.Kern);
    if (B.Prog)
      CL.clReleaseProgram(B.Prog);
  });
  auto Release = [&](ClBuf *B) {
    releaseAll(B->Writers);
    CL.clReleaseMemObject(B->Mem);
    delete B;
  };
  for (ClBuf *B : Live)
    Release(B);
  Live.clear();
  for (ClBuf *B : FreeBuffers.drain())
    Release(B);
  for (auto &F : Flights)
    if (F->Ev)
      CL.clReleaseEvent(F->Ev);
  Flights.clear();
  for (cl::CommandQueue &Q : Queues) {
    if (Q)
      CL.clReleaseCommandQueue(Q);
    Q = nullptr;
  }
  if (Ctx)
    CL.clReleaseContext(Ctx);
  Ctx = nullptr;
}

std::string OpenCLDeviceImpl::description() const {
  return Name + " (" + P.Info.Name + "; " + P.Info.Platform + "; " +
         P.Info.Type + "; " + P.Info.Version + "; " + P.Info.ILVersions + ")";
}

OpenCLDevice::Counters OpenCLDeviceImpl::counters() const {
  Counters C;
  C.ProgramsBuilt = Programs.made();
  C.ProgramCacheHits = Programs.hits();
  C.Launches = NumLaunches.load();
  C.MemoryAllocations = NumAllocations.load();
  C.PooledAllocations = FreeBuffers.reused();
  return C;
}

//===----------------------------------------------------------------------===//
// Memory and copies
//===----------------------------------------------------------------------===//

void *OpenCLDeviceImpl::allocate(size_t Bytes) {
  size_t Class = poolSizeClass(Bytes);
  {
    std::lock_guard<std::mutex> L(BufM);
    if (std::optional<ClBuf *> B = FreeBuffers.take(Class)) {
      Live.insert(*B);
      return *B;
    }
  }
  if (P.MaxAlloc && Class > P.MaxAlloc)
    fail("a buffer of " + std::to_string(Bytes) +
         " bytes is larger than the device allows in one allocation "
         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
         std::to_string(P.MaxAlloc) + ")");
  cl::Int R = cl::Success;
  cl::Mem M = CL.clCreateBuffer(Ctx, cl::MemReadWrite, Class, nullptr, &R);
  if (!M || R != cl::Success)
    check(R == cl::Success ? -4 : R, "clCreateBuffer",
          std::to_string(Bytes) + " bytes");
  NumAllocations.fetch_add(1, std::memory_order_relaxed);
  auto *B = new ClBuf{M, Class};
  std::lock_guard<std::mutex> L(BufM);
  Live.insert(B);
  return B;
}

void OpenCLDeviceImpl::free(void *Ptr) {
  auto *B = static_cast<ClBuf *>(Ptr);
  {
    std::lock_guard<std::mutex> L(BufM);
    if (!Live.erase(B))
      return; // not ours; never dereference it
    if (FreeBuffers.give(B, B->Capacity))
      return;
  }
  // OpenCL keeps the memory until the commands using it have finished.
  releaseAll(B->Writers);
  CL.clReleaseMemObject(B->Mem);
  delete B;
}

void OpenCLDeviceImpl::writersOf(ClBuf *B, std::vector<cl::Event> &Wait) {
  std::lock_guard<std::mutex> L(BufM);
  for (cl::Event E : B->Writers) {
    CL.clRetainEvent(E);
    Wait.push_back(E);
  }
}

void OpenCLDeviceImpl::wrote(ClBuf *B, const std::vector<cl::Event> &Waited,
                             cl::Event Ev) {
  CL.clRetainEvent(Ev);
  std::vector<cl::Event> Done;
  {
    std::lock_guard<std::mutex> L(BufM);
    auto WasWaitedFor = [&](cl::Event E) {
      return std::find(Waited.begin(), Waited.end(), E) != Waited.end();
    };
    for (cl::Event E : B->Writers)
      if (WasWaitedFor(E))
        Done.push_back(E);
    B->Writers.erase(
        std::remove_if(B->Writers.begin(), B->Writers.end(), WasWaitedFor),
        B->Writers.end());
    B->Writers.push_back(Ev);
  }
  releaseAll(Done);
}

void OpenCLDeviceImpl::releaseAll(std::vector<cl::Event> &Events) {
  for (cl::Event E : Events)
    CL.clReleaseEvent(E);
  Events.clear();
}

template <class EnqueueFn>
void OpenCLDeviceImpl::blockingCopy(const char *What, const char *Call,
                                    ClBuf *B, bool Writes, size_t Bytes,
                                    EnqueueFn Enqueue) {
  if (!Bytes)
    return;
  std::vector<cl::Event> Wait;
  writersOf(B, Wait);
  cl::Event Ev = nullptr;
  uint64_t Submitted = nowNanos();
  cl::Int R = Enqueue(static_cast<cl::Uint>(Wait.size()),
                      Wait.empty() ? nullptr : Wait.data(), &Ev);
  if (R == cl::Success && Writes)
    wrote(B, Wait, Ev);
  releaseAll(Wait);
  check(R, Call, std::to_string(Bytes) + " bytes");
  if (tracing())
    traceEvent(Ev, What, Submitted, nowNanos(), 0, Bytes);
  else
    CL.clReleaseEvent(Ev);
}

void OpenCLDeviceImpl::copyFromHost(void *Dst, uint64_t Offset,
                                    const void *HostSrc, size_t Bytes) {
  auto *B = static_cast<ClBuf *>(Dst);
  blockingCopy("upload", "clEnqueueWriteBuffer", B, /*Writes=*/true, Bytes,
               [&](cl::Uint NumWait, const cl::Event *Wait, cl::Event *Ev) {
                 return CL.clEnqueueWriteBuffer(Queue, B->Mem, /*blocking=*/1,
                                                Offset, Bytes, HostSrc, NumWait,
                                                Wait, Ev);
               });
}

void OpenCLDeviceImpl::copyToHost(void *HostDst, const void *Src,
                                  uint64_t Offset, size_t Bytes) {
  auto *B = static_cast<ClBuf *>(const_cast<void *>(Src));
  blockingCopy("download", "clEnqueueReadBuffer", B, /*Writes=*/false, Bytes,
               [&](cl::Uint NumWait, const cl::Event *Wait, cl::Event *Ev) {
                 return CL.clEnqueueReadBuffer(Queue, B->Mem, /*blocking=*/1,
                                               Offset, Bytes, HostDst, NumWait,
                                               Wait, Ev);
               });
}

void OpenCLDeviceImpl::traceEvent(cl::Event Ev, const char *What,
                                  uint64_t Submitted, uint64_t Done,
                                  uint64_t Instances, uint64_t Bytes) {
  cl::Ulong Start = 0, End = 0;
  bool Ok =
      CL.clGetEventProfilingInfo(Ev, cl::ProfilingCommandStart, sizeof(Start),
                                 &Start, nullptr) == cl::Success &&
      CL.clGetEventProfilingInfo(Ev, cl::ProfilingCommandEnd, sizeof(End), &End,
                                 nullptr) == cl::Success &&
      End >= Start;
  CL.clReleaseEvent(Ev);
  if (!Ok)
    return;
  int64_t Offset = Clock.offset(Submitted, Done, static_cast<double>(Start),
                                static_cast<double>(End));
  Events->recordDevice(
      Name, What, static_cast<uint64_t>(static_cast<int64_t>(Start) + Offset),
      static_cast<uint64_t>(static_cast<int64_t>(End) + Offset), Instances,
      Bytes);
}

//===----------------------------------------------------------------------===//
// Programs and launches
//===----------------------------------------------------------------------===//

std::string OpenCLDeviceImpl::buildLog(cl::Program Prog) const {
  std::string Log = queryText([&](size_t Size, void *Data, size_t *SizeRet) {
    return CL.clGetProgramBuildInfo(Prog, P.Device, cl::ProgramBuildLog, Size,
                                    Data, SizeRet);
  });
  while (!Log.empty() && (Log.back() == '\n' || Log.back() == ' '))
    Log.pop_back();
  return Log;
}

bool OpenCLDeviceImpl::prepare(KernelLaunch &L) {
  bool Created;
  L.Prepared = &program(L, &Created);
  return Created;
}

Built &OpenCLDeviceImpl::program(const KernelLaunch &L, bool *Created) {
  // Built only for messages: launches should not allocate.
  auto Where = [&] { return "node '" + std::string(L.Path) + "': "; };
  return Programs.get(
      *L.Artifact, SpirvEntryModel::Kernel, MissingCapabilities,
      [&] { return Name + ": " + Where(); },
      [&](Built &B) {
        cl::Int R = cl::Success;
        B.Prog = P.CreateWithIL(Ctx, B.Words.data(), B.Words.size() * 4, &R);
        if (!B.Prog || R != cl::Success) {
          B.Prog = nullptr;
          check(R == cl::Success ? -44 : R, "clCreateProgramWithIL",
                Where() + "entry '" + B.Entry + "'");
        }
        // The same build options OpenCL C would get by default: none.
        R = CL.clBuildProgram(B.Prog, 1, &P.Device, "", nullptr, nullptr);
        if (R != cl::Success) {
          std::string Log = buildLog(B.Prog);
          CL.clReleaseProgram(B.Prog);
          fail("clBuildProgram failed: " + cl::errorName(R) + " (" + Where() +
               "entry '" + B.Entry + "')" +
               (Log.empty() ? std::string("; the build log is empty")
                            : "; build log:\n" + Log));
        }
        B.Kern = CL.clCreateKernel(B.Prog, B.Entry.c_str(), &R);
        if (!B.Kern || R != cl::Success) {
          CL.clReleaseProgram(B.Prog);
          check(R == cl::Success ? -46 : R, "clCreateKernel",
                Where() + "entry '" + B.Entry + "'");
        }
        if (CL.clGetKernelInfo(B.Kern, cl::KernelNumArgs, sizeof(B.NumArgs),
                               &B.NumArgs, nullptr) != cl::Success)
          B.NumArgs = ~0u;
      },
      Created);
}

InFlight *OpenCLDeviceImpl::takeFlight() {
  std::lock_guard<std::mutex> L(FlightM);
  if (!FreeFlights.empty()) {
    InFlight *F = FreeFlights.back();
    FreeFlights.pop_back();
    return F;
  }
  Flights.push_back(std::make_unique<InFlight>());
  return Flights.back().get();
}

void OpenCLDeviceImpl::releaseFlight(InFlight *F) {
  F->Ev = nullptr;
  std::lock_guard<std::mutex> L(FlightM);
  FreeFlights.push_back(F);
}

void OpenCLDeviceImpl::launch(const KernelLaunch &L, LaunchToken &T) {
  const Node &Leaf = *L.Leaf;
  auto Where = [&] { return Name + ": node '" + L.Path + "': "; };
  if (L.Outs && !Leaf.Outputs.empty())
    throw RtError(HPVM_ERR_UNSUPPORTED,
                  Where() + "leaves with outputs cannot run on OpenCL (the "
                            "SPIR-V kernel ABI has no output slots)");
  for (size_t K = 0; K != Leaf.Params.size(); ++K)
    if (!L.Args[K])
      throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                    Where() + "the argument for parameter '" +
                        Leaf.Params[K].Name + "' is NULL");

  Built &B = L.Prepared ? *static_cast<Built *>(L.Prepared) : program(L);
  // A kernel built for another node shape would read the wrong slots; the
  // driver would only say "invalid argument index".
  size_t Slots = Leaf.Params.size() + 3 * size_t(L.OuterLevels);
  if (B.NumArgs != ~0u && B.NumArgs != Slots)
    throw RtError(HPVM_ERR_BAD_PROGRAM,
                  Where() + "the kernel '" + B.Entry + "' takes " +
                      std::to_string(B.NumArgs) + " arguments, but the node " +
                      "has " + std::to_string(Slots) + " slots (" +
                      std::to_string(Leaf.Params.size()) + " parameters and " +
                      std::to_string(L.OuterLevels) +
                      " ancestor levels of 3 ids)");

  // Node dim D-1 (the innermost) is x, D-2 is y, D-3 is z; the global size
  // is the extent rounded up to the work-group size the module requires.
  size_t D = Leaf.Dims.size();
  static const uint32_t Defaults[4][3] = {
      {1, 1, 1}, {64, 1, 1}, {8, 8, 1}, {4, 4, 4}};
  const uint32_t *Local =
      B.Info.HasLocalSize ? B.Info.LocalSize : Defaults[std::min<size_t>(D, 3)];
  size_t Global[3], LocalSize[3];
  uint64_t Instances = L.Dims[0] * L.Dims[1] * L.Dims[2];
  for (unsigned A = 0; A != 3; ++A) {
    uint64_t Extent = A < D ? L.Dims[D - 1 - A] : 1;
    LocalSize[A] = Local[A];
    // A work-group kernel runs one work-group per instance, of the group
    // the executor checked (fitsWorkGroup): the one the module requires,
    // or, where it requires none, the enqueue's.
    if (L.WorkGroup && !B.Info.HasLocalSize)
      LocalSize[A] = L.GroupDims[A];
    else if (L.WorkGroup && Local[A] != L.GroupDims[A])
      throw RtError(HPVM_ERR_BAD_PROGRAM,
                    Where() + "the work-groups of its work-group kernel are "
                              "not the node's");
    Global[A] = static_cast<size_t>(L.WorkGroup ? Extent * LocalSize[A]
                                                : (Extent + Local[A] - 1) /
                                                      Local[A] * Local[A]);
  }
  if (!Instances)
    return; // nothing to run; T.Handle stays null

  InFlight *F = takeFlight();
  F->Name = L.Path;
  F->Instances = Instances;
  // The buffers' writers, to wait for (a list kept per thread, so that
  // launching does not allocate), and the buffers it writes.
  thread_local std::vector<cl::Event> Wait;
  Wait.clear();
  SmallArray<ClBuf *, 16> Writes(Leaf.Params.size());
  cl::Uint NumWrites = 0;
  auto ReleaseWait = [&] { releaseAll(Wait); };
  cl::Int R;
  try {
    std::lock_guard<std::mutex> Lock(B.ArgsM);
    // One argument per slot of the push-constant layout (SPIRVABI.h):
    // buffers as cl_mem, values in their slot's type, then the ancestors'
    // ids as ulongs.
    cl::Uint Arg = 0;
    for (const Param &Par : Leaf.Params) {
      const void *V = L.Args[Arg];
      if (Par.isBuffer()) {
        void *Copy;
        std::memcpy(&Copy, V, sizeof(Copy));
        cl::Mem M = nullptr;
        bool Ours;
        {
          std::lock_guard<std::mutex> BL(BufM);
          Ours = Live.count(static_cast<ClBuf *>(Copy)) != 0;
        }
        if (Ours) {
          auto *Buf = static_cast<ClBuf *>(Copy);
          M = Buf->Mem;
          writersOf(Buf, Wait);
          if (writes(Par.Mode))
            Writes[NumWrites++] = Buf;
        } else {
          // Coherence leaves empty and null buffers alone; the kernel gets
          // a null pointer it must not dereference.
          if (Copy && bufferBytes(Leaf, Par, L.Args))
            throw RtError(HPVM_ERR_DEVICE,
                          Where() + "buffer '" + Par.Name +
                              "' is not in this device's memory");
        }
        check(CL.clSetKernelArg(B.Kern, Arg, sizeof(M), &M), "clSetKernelArg",
              "parameter '" + Par.Name + "'");
        ++Arg;
        continue;
      }
      uint64_t Slot = 0;
      size_t Size = 4;
      switch (Par.Type) {
      case ScalarType::I1:
        Slot = *static_cast<const uint8_t *>(V) & 1;
        break;
      case ScalarType::I8:
      case ScalarType::I16:
      case ScalarType::I32:
      case ScalarType::F16:
      case ScalarType::F32:
        std::memcpy(&Slot, V, typeSize(Par.Type));
        break;
      case ScalarType::I64:
      case ScalarType::F64:
      case ScalarType::Ptr:
        std::memcpy(&Slot, V, 8);
        Size = 8;
        break;
      }
      check(CL.clSetKernelArg(B.Kern, Arg, Size, &Slot), "clSetKernelArg",
            "parameter '" + Par.Name + "'");
      ++Arg;
    }
    for (size_t I = 0; I != 3 * size_t(L.OuterLevels); ++I, ++Arg) {
      cl::Ulong Id = L.OuterIds[I];
      check(CL.clSetKernelArg(B.Kern, Arg, sizeof(Id), &Id), "clSetKernelArg",
            "ancestor ids");
    }
    F->Queue = Queues[NextQueue.fetch_add(1, std::memory_order_relaxed) %
                      LaunchQueues];
    F->Submitted = nowNanos();
    R = CL.clEnqueueNDRangeKernel(F->Queue, B.Kern, 3, nullptr, Global,
                                  LocalSize, static_cast<cl::Uint>(Wait.size()),
                                  Wait.empty() ? nullptr : Wait.data(), &F->Ev);
  } catch (...) {
    ReleaseWait();
    releaseFlight(F);
    throw;
  }
  if (R != cl::Success) {
    ReleaseWait();
    releaseFlight(F);
    check(R, "clEnqueueNDRangeKernel", std::string("node '") + L.Path + "'");
  }
  for (cl::Uint I = 0; I != NumWrites; ++I)
    wrote(Writes[I], Wait, F->Ev);
  ReleaseWait();
  NumLaunches.fetch_add(1, std::memory_order_relaxed);
  T.Handle = F;
}

void OpenCLDeviceImpl::wait(LaunchToken &T) {
  auto *F = static_cast<InFlight *>(T.Handle);
  if (!F)
    return;
  T.Handle = nullptr;
  cl::Int R = CL.clWaitForEvents(1, &F->Ev);
  uint64_t Done = F->Finished ? F->Finished : nowNanos();
  F->Finished = 0;
  if (R != cl::Success) {
    CL.clReleaseEvent(F->Ev);
    std::string Path = F->Name;
    releaseFlight(F);
    fail("node '" + Path + "': the kernel failed: clWaitForEvents returned " +
         cl::errorName(R));
  }
  if (tracing())
    traceEvent(F->Ev, F->Name, F->Submitted, Done, F->Instances, 0);
  else
    CL.clReleaseEvent(F->Ev);
  releaseFlight(F);
}

bool OpenCLDeviceImpl::whenDone(LaunchToken &T, void (*Done)(void *),
                                void *Ctx) {
  auto *F = static_cast<InFlight *>(T.Handle);
  if (!F)
    return false;
  if (!Completions.start())
    return false;
  F->Done = Done;
  F->DoneCtx = Ctx;
  F->Dev = this;
  // Called on the platform's thread once the kernel is complete, or has
  // failed (a negative status, which wait() then reports).
  auto Callback = [](cl::Event, cl::Int, void *P) {
    auto *F = static_cast<InFlight *>(P);
    F->Finished = nowNanos();
    F->Dev->Completions.post(F->Done, F->DoneCtx);
  };
  if (CL.clSetEventCallback(F->Ev, /*CL_COMPLETE*/ 0, Callback, F) !=
      cl::Success)
    return false;
  // Without a wait to push it, the command must be sent to the device.
  CL.clFlush(F->Queue);
  return true;
}

//===----------------------------------------------------------------------===//
// Options, choice and discovery
//===----------------------------------------------------------------------===//

OpenCLOptions OpenCLOptions::fromEnvironment() {
  OpenCLOptions O;
  if (const char *V = env("HPVM_OPENCL_LOADER"))
    O.Loader = V;
  if (const char *V = env("HPVM_OPENCL_DEVICE"))
    O.Select = V;
  if (const char *V = env("HPVM_OPENCL_CPU_WORK_GROUPS"))
    O.CpuWorkGroups = std::string(V) == "1";
  return O;
}

std::string hpvm::rt::describeOpenCLDevice(const OpenCLDeviceInfo &D) {
  return std::to_string(D.Index) + " '" + D.Name + "' (" + D.Platform + "; " +
         D.Type + ")";
}

int hpvm::rt::chooseOpenCLDevice(const std::vector<OpenCLDeviceInfo> &Devices,
                                 const std::string &Select, std::string &Why) {
  bool ByIndex =
      !Select.empty() && std::all_of(Select.begin(), Select.end(), [](char C) {
        return std::isdigit(static_cast<unsigned char>(C));
      });
  const OpenCLDeviceInfo *Best = nullptr;
  bool Matched = false;
  for (const OpenCLDeviceInfo &D : Devices) {
    bool Match =
        Select.empty() ||
        (ByIndex
             ? std::strtoull(Select.c_str(), nullptr, 10) == D.Index
             : lower(D.Name).find(lower(Select)) != std::string::npos ||
                   lower(D.Platform).find(lower(Select)) != std::string::npos);
    Matched |= Match;
    if (Match && D.Unusable.empty() &&
        (!Best || typeRank(D.Type) < typeRank(Best->Type)))
      Best = &D;
  }
  if (Best)
    return static_cast<int>(Best - Devices.data());

  if (Devices.empty()) {
    Why = "the OpenCL platforms report no devices";
    return -1;
  }
  std::string List;
  for (const OpenCLDeviceInfo &D : Devices)
    List += (List.empty() ? "" : "; ") + describeOpenCLDevice(D) +
            (D.Unusable.empty() ? std::string() : ": " + D.Unusable);
  if (Select.empty())
    Why = "no usable OpenCL device (" + List + ")";
  else if (!Matched)
    Why =
        "HPVM_OPENCL_DEVICE='" + Select + "' matches no device (" + List + ")";
  else
    Why = "HPVM_OPENCL_DEVICE='" + Select + "' selects no usable device (" +
          List + ")";
  return -1;
}

namespace {

std::string discover(const DiscoveryContext &Ctx, const OpenCLOptions &O,
                     std::vector<std::unique_ptr<Device>> &Out) {
  std::string Why;
  std::shared_ptr<cl::Library> Lib = cl::Library::open(O.Loader, Why);
  if (!Lib)
    return Why;
  const cl::Library &CL = *Lib;
  cl::Uint NumPlatforms = 0;
  cl::Int R = CL.clGetPlatformIDs(0, nullptr, &NumPlatforms);
  // The ICD loader's answer when no vendor file names a driver.
  if (R == cl::PlatformNotFoundKhr || (R == cl::Success && !NumPlatforms))
    return "no OpenCL platform is installed (the ICD loader found no "
           "driver)";
  if (R != cl::Success)
    return "clGetPlatformIDs failed: " + cl::errorName(R);
  std::vector<cl::PlatformId> Platforms(NumPlatforms);
  R = CL.clGetPlatformIDs(NumPlatforms, Platforms.data(), &NumPlatforms);
  if (R != cl::Success)
    return "clGetPlatformIDs failed: " + cl::errorName(R);
  Platforms.resize(NumPlatforms);

  std::vector<Probe> Probes;
  std::vector<OpenCLDeviceInfo> Infos;
  for (cl::PlatformId P : Platforms) {
    std::string PlatformName = platformString(CL, P, cl::PlatformName);
    unsigned PlatformVersion =
        clVersion(platformString(CL, P, cl::PlatformVersion));
    cl::Uint NumDevices = 0;
    if (CL.clGetDeviceIDs(P, cl::DeviceTypeAll, 0, nullptr, &NumDevices) !=
            cl::Success ||
        !NumDevices)
      continue; // CL_DEVICE_NOT_FOUND: a platform without devices here
    std::vector<cl::DeviceId> Devices(NumDevices);
    if (CL.clGetDeviceIDs(P, cl::DeviceTypeAll, NumDevices, Devices.data(),
                          &NumDevices) != cl::Success)
      continue;
    Devices.resize(NumDevices);
    for (cl::DeviceId D : Devices) {
      Probes.push_back(probe(CL, P, PlatformName, PlatformVersion, D,
                             static_cast<unsigned>(Probes.size())));
      Infos.push_back(Probes.back().Info);
    }
  }
  int Pick = chooseOpenCLDevice(Infos, O.Select, Why);
  if (Pick < 0)
    return Why;
  Probes[Pick].WorkGroups = Probes[Pick].Info.Type != "cpu" || O.CpuWorkGroups;
  Out.push_back(std::make_unique<OpenCLDeviceImpl>(Lib, Probes[Pick], Ctx));

  std::string Note;
  for (const OpenCLDeviceInfo &I : Infos)
    if (!I.Unusable.empty())
      Note += (Note.empty() ? "skipped " : "; ") + describeOpenCLDevice(I) +
              ": " + I.Unusable;
  return Note;
}

} // namespace

std::string
hpvm::rt::discoverOpenCLDevices(const DiscoveryContext &Ctx,
                                const OpenCLOptions &Options,
                                std::vector<std::unique_ptr<Device>> &Out) {
  return discoverSafely([&] { return discover(Ctx, Options, Out); });
}
