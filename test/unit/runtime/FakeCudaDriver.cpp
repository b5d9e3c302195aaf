//===- FakeCudaDriver.cpp - A stand-in CUDA driver for tests --------------===//
//
// See FakeCudaDriver.h. It is not a GPU: it implements exactly the Driver
// API calls hpvm-rt makes, with the semantics the CUDA documentation gives
// them (stream order, asynchronous copies, events, primary contexts, JIT
// logs, parameter values copied at launch), and checks what a real driver
// would reject (copies outside allocations, grids beyond the limits, calls
// without a current context), so that the tests of the CUDA device fail
// where a GPU would.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaDriver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult OK = 0, InvalidValue = 1, NotInitialized = 3,
                   InvalidContext = 201, InvalidPtx = 218, NotFound = 500,
                   NotReady = 600, IllegalAddress = 700;

using Clock = std::chrono::steady_clock;

long envInt(const char *Name, long Default) {
  const char *V = std::getenv(Name);
  return V && *V ? std::strtol(V, nullptr, 10) : Default;
}

struct Config {
  int InitResult = 0;
  int Devices = 1;
  int RetainFails = -1;
  unsigned MaxGridYZ = 65535;
  int MaxThreads = 1024;
  // Read by the stream threads without the lock.
  std::atomic<unsigned> DelayUs{200};
} Cfg;

std::mutex M; // everything below, except what the stream threads run
std::condition_variable Progress;
bool Initialised = false;
CUresult Sticky = OK;
FakeCudaStats Stats{};
std::map<std::string, FakeCudaKernel> Kernels;
std::map<uintptr_t, size_t> DeviceAllocs, HostAllocs;
std::vector<uint64_t> LastParams;

struct Context {
  int Device;
  unsigned Retains = 0;
};
Context Contexts[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
thread_local std::vector<Context *> CtxStack;

bool haveContext() {
  if (!CtxStack.empty() && CtxStack.back())
    return true;
  ++Stats.CallsWithoutContext;
  return false;
}

struct Stream {
  std::deque<std::function<void()>> Queue;
  bool Busy = false, Stop = false;
  std::condition_variable Work;
  std::thread Worker;

  Stream() : Worker([this] { run(); }) {}
  void run() {
    std::unique_lock<std::mutex> L(M);
    while (true) {
      Work.wait(L, [&] { return Stop || !Queue.empty(); });
      if (Queue.empty())
        return;
      std::function<void()> Op = std::move(Queue.front());
      Queue.pop_front();
      Busy = true;
      L.unlock();
      // Late enough that reading a buffer before its copy is done, or
      // reusing a staging buffer too early, shows.
      std::this_thread::sleep_for(
          std::chrono::microseconds(Cfg.DelayUs.load()));
      Op();
      L.lock();
      Busy = false;
      Progress.notify_all();
    }
  }
  bool idle() const { return Queue.empty() && !Busy; }
};

struct Event {
  unsigned Generation = 0;
  unsigned Completed = 0; // the latest generation whose record has run
  bool Done = true;       // never recorded: complete
  Clock::time_point When{};
};

struct Module {
  struct Entry {
    std::string Name;
    std::vector<unsigned> ParamSizes;
  };
  std::vector<Entry> Entries;
};

struct Function {
  std::string Name;
  std::vector<unsigned> ParamSizes;
};

void enqueue(Stream *S, std::function<void()> Op) {
  S->Queue.push_back(std::move(Op));
  S->Work.notify_one();
}

/// Whether [P, P + N) lies inside one allocation of Allocs.
bool inside(const std::map<uintptr_t, size_t> &Allocs, uintptr_t P, size_t N) {
  auto It = Allocs.upper_bound(P);
  if (It == Allocs.begin())
    return false;
  --It;
  return P >= It->first && P + N <= It->first + It->second;
}

unsigned typeBytes(const std::string &Type) {
  if (Type.size() < 2)
    return 0;
  int Bits = std::atoi(Type.c_str() + 1); // "u64", "f32", "b16"
  return Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64 ? Bits / 8 : 0;
}

/// The entries of a PTX text and their parameters' sizes: ".entry name(
/// .param .u64 a, .param .u32 b )".
std::vector<Module::Entry> parseEntries(const std::string &Text) {
  std::vector<Module::Entry> Entries;
  size_t Pos = 0;
  while ((Pos = Text.find(".entry", Pos)) != std::string::npos) {
    Pos += 6;
    size_t Open = Text.find('(', Pos);
    size_t Close = Text.find(')', Open);
    if (Open == std::string::npos || Close == std::string::npos)
      break;
    Module::Entry E;
    size_t B = Text.find_first_not_of(" \t\n", Pos);
    size_t End = Text.find_first_of(" \t\n(", B);
    E.Name = Text.substr(B, End - B);
    std::string Params = Text.substr(Open + 1, Close - Open - 1);
    size_t P = 0;
    while ((P = Params.find(".param", P)) != std::string::npos) {
      P += 6;
      size_t T = Params.find('.', P);
      size_t TEnd = Params.find_first_of(" \t\n", T);
      E.ParamSizes.push_back(typeBytes(Params.substr(T + 1, TEnd - T - 1)));
    }
    Entries.push_back(std::move(E));
    Pos = Close;
  }
  return Entries;
}

const char *errorName(CUresult R) {
  switch (R) {
  case OK:
    return "CUDA_SUCCESS";
  case InvalidValue:
    return "CUDA_ERROR_INVALID_VALUE";
  case 2:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case NotInitialized:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case 100:
    return "CUDA_ERROR_NO_DEVICE";
  case InvalidContext:
    return "CUDA_ERROR_INVALID_CONTEXT";
  case InvalidPtx:
    return "CUDA_ERROR_INVALID_PTX";
  case NotFound:
    return "CUDA_ERROR_NOT_FOUND";
  case NotReady:
    return "CUDA_ERROR_NOT_READY";
  case IllegalAddress:
    return "CUDA_ERROR_ILLEGAL_ADDRESS";
  default:
    return nullptr;
  }
}

const char *errorText(CUresult R) {
  switch (R) {
  case 100:
    return "no CUDA-capable device is detected";
  case InvalidPtx:
    return "a PTX JIT compilation failed";
  case IllegalAddress:
    return "an illegal memory access was encountered";
  default:
    return "fake driver error";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// What the tests call
//===----------------------------------------------------------------------===//

FAKE_EXPORT void hpvmFakeCudaRegisterKernel(const char *Entry,
                                            FakeCudaKernel Fn) {
  std::lock_guard<std::mutex> L(M);
  Kernels[Entry] = Fn;
}

FAKE_EXPORT void hpvmFakeCudaStats(FakeCudaStats *Out) {
  std::lock_guard<std::mutex> L(M);
  *Out = Stats;
  Out->LiveDeviceAllocations = DeviceAllocs.size();
}

FAKE_EXPORT void hpvmFakeCudaReset() {
  std::lock_guard<std::mutex> L(M);
  Sticky = OK;
  Stats = FakeCudaStats{};
}

FAKE_EXPORT size_t hpvmFakeCudaLastParams(uint64_t *Out, size_t Max) {
  std::lock_guard<std::mutex> L(M);
  std::copy_n(LastParams.begin(), std::min(Max, LastParams.size()), Out);
  return LastParams.size();
}

//===----------------------------------------------------------------------===//
// The Driver API
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuInit(unsigned) {
  std::lock_guard<std::mutex> L(M);
  Cfg.InitResult = static_cast<int>(envInt("HPVM_FAKE_CUDA_INIT_RESULT", 0));
  Cfg.Devices = static_cast<int>(envInt("HPVM_FAKE_CUDA_DEVICES", 1));
  Cfg.RetainFails = static_cast<int>(envInt("HPVM_FAKE_CUDA_RETAIN_FAILS", -1));
  Cfg.MaxGridYZ =
      static_cast<unsigned>(envInt("HPVM_FAKE_CUDA_MAX_GRID_Y", 65535));
  Cfg.MaxThreads = static_cast<int>(envInt("HPVM_FAKE_CUDA_MAX_THREADS", 1024));
  Cfg.DelayUs = static_cast<unsigned>(envInt("HPVM_FAKE_CUDA_DELAY_US", 200));
  Initialised = Cfg.InitResult == OK;
  return Cfg.InitResult;
}

FAKE_EXPORT CUresult cuDriverGetVersion(int *V) {
  *V = 12080;
  return OK;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult R, const char **Name) {
  *Name = errorName(R);
  return *Name ? OK : InvalidValue;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult R, const char **Text) {
  *Text = errorName(R) ? errorText(R) : nullptr;
  return *Text ? OK : InvalidValue;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *N) {
  if (!Initialised)
    return NotInitialized;
  *N = std::min(Cfg.Devices, 8);
  return OK;
}

FAKE_EXPORT CUresult cuDeviceGet(int *D, int Ordinal) {
  if (Ordinal < 0 || Ordinal >= Cfg.Devices)
    return InvalidValue;
  *D = Ordinal;
  return OK;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *Out, int Len, int D) {
  std::string Name = "HPVM Fake GPU " + std::to_string(D);
  std::strncpy(Out, Name.c_str(), static_cast<size_t>(Len));
  return OK;
}

FAKE_EXPORT CUresult cuDeviceTotalMem_v2(size_t *Bytes, int) {
  *Bytes = size_t(1) << 30;
  return OK;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *V, int Attr, int) {
  switch (Attr) {
  case 1: // max threads per block
    *V = 1024;
    return OK;
  case 5: // grid x
    *V = 2147483647;
    return OK;
  case 6: // grid y
  case 7: // grid z
    *V = static_cast<int>(Cfg.MaxGridYZ);
    return OK;
  case 16: // SMs
    *V = 4;
    return OK;
  case 75: // compute capability
    *V = 8;
    return OK;
  case 76:
    *V = 6;
    return OK;
  default:
    return InvalidValue;
  }
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(void **Ctx, int D) {
  if (D == Cfg.RetainFails)
    return 46; // CUDA_ERROR_DEVICE_UNAVAILABLE: another process has it
  std::lock_guard<std::mutex> L(M);
  ++Contexts[D].Retains;
  *Ctx = &Contexts[D];
  return OK;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int D) {
  std::lock_guard<std::mutex> L(M);
  if (!Contexts[D].Retains)
    return InvalidContext;
  --Contexts[D].Retains;
  return OK;
}

FAKE_EXPORT CUresult cuCtxPushCurrent_v2(void *Ctx) {
  if (!Ctx)
    return InvalidContext;
  CtxStack.push_back(static_cast<Context *>(Ctx));
  return OK;
}

FAKE_EXPORT CUresult cuCtxPopCurrent_v2(void **Ctx) {
  if (CtxStack.empty())
    return InvalidContext;
  if (Ctx)
    *Ctx = CtxStack.back();
  CtxStack.pop_back();
  return OK;
}

FAKE_EXPORT CUresult cuModuleLoadDataEx(void **Mod, const void *Image,
                                        unsigned NumOptions, int *Options,
                                        void **Values) {
  std::lock_guard<std::mutex> L(M);
  if (!haveContext())
    return InvalidContext;
  ++Stats.ModuleLoads;
  std::string Text(static_cast<const char *>(Image));
  if (Text.find("HPVM_FAKE_JIT_ERROR") != std::string::npos) {
    const char *Log = "ptxas application ptx input, line 3; error   : "
                      "Unknown symbol 'HPVM_FAKE_JIT_ERROR'\n";
    for (unsigned I = 0; I != NumOptions; ++I)
      if (Options[I] == 5) { // CU_JIT_ERROR_LOG_BUFFER
        size_t Size = 0;
        for (unsigned J = 0; J != NumOptions; ++J)
          if (Options[J] == 6)
            Size = reinterpret_cast<uintptr_t>(Values[J]);
        if (Size) {
          std::strncpy(static_cast<char *>(Values[I]), Log, Size - 1);
          static_cast<char *>(Values[I])[Size - 1] = '\0';
        }
      }
    return InvalidPtx;
  }
  auto *Mo = new Module();
  Mo->Entries = parseEntries(Text);
  *Mod = Mo;
  return OK;
}

FAKE_EXPORT CUresult cuModuleGetFunction(void **Fn, void *Mod,
                                         const char *Name) {
  for (const Module::Entry &E : static_cast<Module *>(Mod)->Entries)
    if (E.Name == Name) {
      *Fn = new Function{E.Name, E.ParamSizes};
      return OK;
    }
  return NotFound;
}

FAKE_EXPORT CUresult cuModuleUnload(void *Mod) {
  delete static_cast<Module *>(Mod);
  return OK;
}

FAKE_EXPORT CUresult cuFuncGetAttribute(int *V, int Attr, void *) {
  if (Attr != 0)
    return InvalidValue;
  *V = Cfg.MaxThreads;
  return OK;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *P, size_t Bytes) {
  std::lock_guard<std::mutex> L(M);
  if (!haveContext())
    return InvalidContext;
  if (!Bytes)
    return InvalidValue;
  void *Mem = std::aligned_alloc(256, (Bytes + 255) / 256 * 256);
  DeviceAllocs[reinterpret_cast<uintptr_t>(Mem)] = Bytes;
  ++Stats.DeviceAllocations;
  *P = reinterpret_cast<uintptr_t>(Mem);
  return OK;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr P) {
  std::lock_guard<std::mutex> L(M);
  if (!DeviceAllocs.erase(static_cast<uintptr_t>(P)))
    return InvalidValue;
  std::free(reinterpret_cast<void *>(static_cast<uintptr_t>(P)));
  return OK;
}

FAKE_EXPORT CUresult cuMemHostAlloc(void **P, size_t Bytes, unsigned) {
  std::lock_guard<std::mutex> L(M);
  if (!haveContext())
    return InvalidContext;
  *P = std::aligned_alloc(4096, (Bytes + 4095) / 4096 * 4096);
  HostAllocs[reinterpret_cast<uintptr_t>(*P)] = Bytes;
  ++Stats.HostAllocations;
  return OK;
}

FAKE_EXPORT CUresult cuMemFreeHost(void *P) {
  std::lock_guard<std::mutex> L(M);
  if (!HostAllocs.erase(reinterpret_cast<uintptr_t>(P)))
    return InvalidValue;
  std::free(P);
  return OK;
}

namespace {

CUresult copyAsync(void *Dst, const void *Src, size_t N, uintptr_t Device,
                   const void *Host, void *S) {
  std::lock_guard<std::mutex> L(M);
  if (Sticky)
    return Sticky;
  if (!haveContext())
    return InvalidContext;
  if (!inside(DeviceAllocs, Device, N))
    return InvalidValue;
  if (inside(HostAllocs, reinterpret_cast<uintptr_t>(Host), N))
    ++Stats.PinnedCopies;
  else
    ++Stats.PageableCopies;
  enqueue(static_cast<Stream *>(S), [=] { std::memcpy(Dst, Src, N); });
  return OK;
}

} // namespace

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr Dst, const void *Src,
                                          size_t N, void *S) {
  void *D = reinterpret_cast<void *>(static_cast<uintptr_t>(Dst));
  return copyAsync(D, Src, N, static_cast<uintptr_t>(Dst), Src, S);
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *Dst, CUdeviceptr Src, size_t N,
                                          void *S) {
  const void *From =
      reinterpret_cast<const void *>(static_cast<uintptr_t>(Src));
  return copyAsync(Dst, From, N, static_cast<uintptr_t>(Src), Dst, S);
}

FAKE_EXPORT CUresult cuStreamCreate(void **S, unsigned) {
  {
    std::lock_guard<std::mutex> L(M);
    if (!haveContext())
      return InvalidContext;
  }
  *S = new Stream();
  return OK;
}

FAKE_EXPORT CUresult cuStreamSynchronize(void *SP) {
  auto *S = static_cast<Stream *>(SP);
  std::unique_lock<std::mutex> L(M);
  Progress.wait(L, [&] { return S->idle(); });
  return Sticky;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(void *SP) {
  auto *S = static_cast<Stream *>(SP);
  {
    std::unique_lock<std::mutex> L(M);
    Progress.wait(L, [&] { return S->idle(); });
    S->Stop = true;
    S->Work.notify_one();
  }
  S->Worker.join();
  delete S;
  return OK;
}

FAKE_EXPORT CUresult cuEventCreate(void **E, unsigned) {
  std::lock_guard<std::mutex> L(M);
  if (!haveContext())
    return InvalidContext;
  *E = new Event();
  return OK;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(void *) {
  // A queued record of it may still run, so the event is never freed (a
  // test process makes few).
  return OK;
}

FAKE_EXPORT CUresult cuEventRecord(void *EP, void *S) {
  auto *E = static_cast<Event *>(EP);
  std::lock_guard<std::mutex> L(M);
  if (Sticky)
    return Sticky;
  unsigned Gen = ++E->Generation;
  E->Done = false;
  enqueue(static_cast<Stream *>(S), [E, Gen] {
    std::lock_guard<std::mutex> L(M);
    E->Completed = Gen;
    if (E->Generation == Gen) {
      E->When = Clock::now();
      E->Done = true;
    }
  });
  return OK;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(void *S, void *EP, unsigned) {
  auto *E = static_cast<Event *>(EP);
  std::lock_guard<std::mutex> L(M);
  if (Sticky)
    return Sticky;
  ++Stats.StreamWaits;
  // Work queued on S after this waits for the event's latest record.
  unsigned Gen = E->Generation;
  enqueue(static_cast<Stream *>(S), [E, Gen] {
    std::unique_lock<std::mutex> L(M);
    Progress.wait(L, [&] { return E->Completed >= Gen || Sticky != OK; });
  });
  return OK;
}

FAKE_EXPORT CUresult cuEventQuery(void *E) {
  std::lock_guard<std::mutex> L(M);
  if (Sticky)
    return Sticky;
  return static_cast<Event *>(E)->Done ? OK : NotReady;
}

FAKE_EXPORT CUresult cuEventSynchronize(void *EP) {
  auto *E = static_cast<Event *>(EP);
  std::unique_lock<std::mutex> L(M);
  Progress.wait(L, [&] { return E->Done || Sticky != OK; });
  return Sticky;
}

FAKE_EXPORT CUresult cuEventElapsedTime(float *Ms, void *A, void *B) {
  std::lock_guard<std::mutex> L(M);
  auto *Start = static_cast<Event *>(A), *End = static_cast<Event *>(B);
  if (!Start->Done || !End->Done)
    return NotReady;
  *Ms =
      std::chrono::duration<float, std::milli>(End->When - Start->When).count();
  return OK;
}

FAKE_EXPORT CUresult cuLaunchKernel(void *FnP, unsigned GX, unsigned GY,
                                    unsigned GZ, unsigned BX, unsigned BY,
                                    unsigned BZ, unsigned, void *S,
                                    void **Params, void **) {
  auto *Fn = static_cast<Function *>(FnP);
  std::lock_guard<std::mutex> L(M);
  if (Sticky)
    return Sticky;
  if (!haveContext())
    return InvalidContext;
  if (!GX || !GY || !GZ || GY > Cfg.MaxGridYZ || GZ > Cfg.MaxGridYZ ||
      uint64_t(BX) * BY * BZ > 1024 || !BX || !BY || !BZ)
    return InvalidValue;
  if (uint64_t(BX) * BY * BZ > unsigned(Cfg.MaxThreads))
    return 701; // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
  auto K = Kernels.find(Fn->Name);
  if (K == Kernels.end())
    return NotFound;
  // The driver reads the values now; the caller may reuse its storage.
  auto Values = std::make_shared<std::vector<uint64_t>>();
  LastParams.clear();
  for (unsigned Size : Fn->ParamSizes) {
    uint64_t V = 0;
    std::memcpy(&V, Params[Values->size()], Size);
    Values->push_back(V);
    LastParams.push_back(V);
  }
  ++Stats.Launches;
  unsigned Grid[3] = {GX, GY, GZ}, Block[3] = {BX, BY, BZ};
  std::copy_n(Grid, 3, Stats.LastGrid);
  std::copy_n(Block, 3, Stats.LastBlock);
  FakeCudaKernel Kernel = K->second;
  enqueue(static_cast<Stream *>(S), [=] {
    std::vector<void *> Ptrs;
    for (uint64_t &V : *Values)
      Ptrs.push_back(&V);
    FakeCudaThread T{};
    T.Params = Ptrs.data();
    T.NumParams = static_cast<unsigned>(Ptrs.size());
    std::copy_n(Grid, 3, T.Grid);
    std::copy_n(Block, 3, T.Block);
    int Fault = OK;
    for (T.BlockId[2] = 0; T.BlockId[2] != GZ; ++T.BlockId[2])
      for (T.BlockId[1] = 0; T.BlockId[1] != GY; ++T.BlockId[1])
        for (T.BlockId[0] = 0; T.BlockId[0] != GX; ++T.BlockId[0])
          for (T.ThreadId[2] = 0; T.ThreadId[2] != BZ; ++T.ThreadId[2])
            for (T.ThreadId[1] = 0; T.ThreadId[1] != BY; ++T.ThreadId[1])
              for (T.ThreadId[0] = 0; T.ThreadId[0] != BX; ++T.ThreadId[0])
                if (int R = Kernel(&T); R != OK && Fault == OK)
                  Fault = R;
    if (Fault != OK) {
      std::lock_guard<std::mutex> L(M);
      Sticky = Fault;
    }
  });
  return OK;
}
