//===- RuntimeTestSupport.h - Programs, devices, JSON for tests -*- C++ -*-===//
//
// Tests build graphs with the builder, write them with writeGraphText and
// pair them with hand-written kernels, exactly as hpvm-clang's output and
// the Python binding do, then go through the C ABI.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_RUNTIME_SUPPORT_H
#define HPVM_TEST_RUNTIME_SUPPORT_H

#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphText.h"
#include "hpvm/rt/Device.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/Runtime.h"
#include "hpvm/rt/hpvm_rt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace hpvm::rttest {

/// Typed access to kernel arguments, following the ABI's convention that
/// args[i] points to the value (for a buffer: to its data pointer).
template <typename T> T *buffer(void *const *Args, unsigned I) {
  return *static_cast<T *const *>(Args[I]);
}
template <typename T> T value(void *const *Args, unsigned I) {
  T V;
  std::memcpy(&V, Args[I], sizeof(T));
  return V;
}

/// A one-leaf graph over a float buffer "x" (inout), whose byte size is
/// parameter 1 and whose instance count is parameter 2 ("n"); the leaf's
/// kernel is Function.
inline Graph inOutLeafGraph(const std::string &Name,
                            const std::string &Function) {
  Graph G(Name, Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = Function;
  R.addBuffer("x", Access::InOut, Extent::param(1));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  R.setDims({Extent::param(2)});
  return G;
}

/// The kernel of an inOutLeafGraph that adds 1 to each element of x.
inline void addOneKernel(void *const *Args, void *const *, const uint64_t *,
                         const uint64_t *, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] += 1.0f;
}

/// Makes RT the C ABI's runtime on this thread for a scope.
struct CurrentRuntime {
  explicit CurrentRuntime(rt::Runtime &RT) { rt::Runtime::setCurrent(&RT); }
  ~CurrentRuntime() { rt::Runtime::setCurrent(nullptr); }
};

struct ArtifactSpec {
  std::string Node;
  uint32_t Target;
  hpvm_cpu_kernel_fn Fn;
  /// For devices that read code (PTX, SPIR-V bytes); empty gives a
  /// placeholder that only fake devices accept.
  std::string Code = "";
  std::string Entry = "main";
};

/// A program descriptor with everything it points to.
class TestProgram {
public:
  TestProgram(const std::vector<const Graph *> &Graphs,
              std::vector<ArtifactSpec> Specs)
      : TestProgram(writeGraphText(Graphs), std::move(Specs), 0) {}

  TestProgram(const char *Text, std::vector<ArtifactSpec> Specs)
      : TestProgram(std::string(Text), std::move(Specs), 0) {}

private:
  // The int only tells this constructor apart: a braced list of two graph
  // pointers would otherwise also make a std::string.
  TestProgram(std::string Text, std::vector<ArtifactSpec> Specs, int)
      : Text(std::move(Text)), Specs(std::move(Specs)) {
    for (const ArtifactSpec &S : this->Specs) {
      hpvm_artifact A{};
      A.node = S.Node.c_str();
      A.target = S.Target;
      A.cpu_fn = S.Fn;
      // Only devices of other targets read code; the fake device does not.
      A.code = S.Target == HPVM_TARGET_CPU ? nullptr : "fake code";
      A.code_size = A.code ? 9 : 0;
      if (!S.Code.empty()) {
        A.code = S.Code.c_str();
        A.code_size = S.Code.size();
      }
      A.entry = S.Entry.c_str();
      Artifacts.push_back(A);
    }
    Desc.abi_version = HPVM_RT_ABI_VERSION;
    Desc.graphs = this->Text.c_str();
    Desc.num_artifacts = static_cast<uint32_t>(Artifacts.size());
    Desc.artifacts = Artifacts.data();
  }

public:
  ~TestProgram() { hpvm_release_program(&Desc); }
  TestProgram(const TestProgram &) = delete;
  TestProgram &operator=(const TestProgram &) = delete;

  int launch(const char *Graph, std::vector<void *> Args) {
    return hpvm_launch(&Desc, Graph, Args.empty() ? nullptr : Args.data());
  }

  hpvm_program_desc Desc{};
  std::string Text;

private:
  std::vector<ArtifactSpec> Specs;
  std::vector<hpvm_artifact> Artifacts;
};

/// A device with its own memory space whose "device memory" is malloc'ed
/// and whose launches run the artifact's cpu_fn on the calling thread over
/// the device copies. Results come out right only if coherence moves the
/// data both ways, which is what tests want to see.
class FakeDevice final : public rt::Device {
public:
  FakeDevice(std::string Name, uint32_t Target,
             std::chrono::milliseconds Delay = std::chrono::milliseconds(0))
      : Name(std::move(Name)), Target(Target),
        Space(rt::Runtime::get().newMemorySpace()), Delay(Delay) {}
  ~FakeDevice() override {
    {
      std::lock_guard<std::mutex> L(DoneM);
      Stopping = true;
    }
    DoneCV.notify_all();
    if (Reporter.joinable())
      Reporter.join();
  }

  const std::string &name() const override { return Name; }
  uint32_t target() const override { return Target; }
  rt::MemorySpace memorySpace() const override { return Space; }
  std::string cannotRun(const Node &Leaf, unsigned) const override {
    return Leaf.name() == RefuseLeaf ? "refuses leaves called " + RefuseLeaf
                                     : "";
  }
  void *allocate(size_t Bytes) override {
    ++Allocations;
    return std::malloc(Bytes ? Bytes : 1);
  }
  void free(void *P) override {
    ++Frees;
    std::free(P);
  }
  void copyFromHost(void *Dst, uint64_t Offset, const void *Src,
                    size_t Bytes) override {
    BytesIn += Bytes;
    slowLink(Bytes);
    std::memcpy(static_cast<char *>(Dst) + Offset, Src, Bytes);
  }
  void copyToHost(void *Dst, const void *Src, uint64_t Offset,
                  size_t Bytes) override {
    BytesOut += Bytes;
    slowLink(Bytes);
    std::memcpy(Dst, static_cast<const char *>(Src) + Offset, Bytes);
  }
  /// "Compiles" each artifact once, taking CompileDelay.
  bool prepare(rt::KernelLaunch &L) override {
    {
      std::lock_guard<std::mutex> Lock(CompiledM);
      if (!Compiled.insert(L.Artifact).second)
        return false;
    }
    std::this_thread::sleep_for(CompileDelay);
    return true;
  }
  /// Work-groups of at most MaxGroupItems work-items fit (0: none).
  bool fitsWorkGroup(const uint64_t *Group) const override {
    return Group[0] * Group[1] * Group[2] <= MaxGroupItems;
  }
  void launch(const rt::KernelLaunch &L, rt::LaunchToken &T) override {
    ++Launches;
    LastWorkGroup = L.WorkGroup;
    std::copy(L.GroupDims, L.GroupDims + 3, LastGroupDims);
    T.Value = 42;
    L.Artifact->cpu_fn(L.Args, L.Outs, L.Dims, L.OuterIds, 0, L.Dims[0]);
    if (Delay.count())
      std::this_thread::sleep_for(Delay);
  }
  void wait(rt::LaunchToken &T) override {
    EXPECT_EQ(T.Value, 42u);
    if (FailWaits)
      throw rt::RtError(HPVM_ERR_DEVICE, Name + ": the kernel failed");
  }
  /// With ReportsDone, the device says itself when launches end
  /// (Device::whenDone), from a thread of its own, and holds them "running"
  /// until HoldUntil launches are in flight at once (or 2 s have passed:
  /// HeldTooLong). The kernel itself has run in launch().
  bool whenDone(rt::LaunchToken &, void (*Done)(void *), void *Ctx) override {
    if (!ReportsDone)
      return false;
    std::lock_guard<std::mutex> L(DoneM);
    Pending.push_back({Done, Ctx});
    MaxInFlight = std::max<uint64_t>(MaxInFlight, Pending.size());
    if (!Reporter.joinable())
      Reporter = std::thread([this] { report(); });
    DoneCV.notify_all();
    return true;
  }
  // Fast transfers, so that heft's choices depend on run times alone,
  // unless a test sets another figure (0: measure the link).
  double bytesPerSecond() const override { return StatedBytesPerSecond; }

  std::atomic<uint64_t> Launches{0}, Allocations{0}, Frees{0};
  uint64_t MaxGroupItems = 0;
  /// What the last launch said of work-groups (KernelLaunch::WorkGroup).
  bool LastWorkGroup = false;
  uint64_t LastGroupDims[3] = {0, 0, 0};
  bool ReportsDone = false;
  size_t HoldUntil = 1;
  bool FailWaits = false;
  /// The most launches in flight at once, and whether one was held 2 s.
  std::atomic<uint64_t> MaxInFlight{0};
  std::atomic<bool> HeldTooLong{false};
  std::atomic<uint64_t> BytesIn{0}, BytesOut{0};
  /// Leaves of this name the device says it cannot run (Device::cannotRun).
  std::string RefuseLeaf;
  std::chrono::milliseconds CompileDelay{0};
  double StatedBytesPerSecond = 1e15;
  /// Copies of a MiB or more take this much longer per MiB.
  std::chrono::microseconds DelayPerMiB{0};

private:
  void report() {
    std::unique_lock<std::mutex> L(DoneM);
    while (true) {
      bool Full = DoneCV.wait_for(L, std::chrono::seconds(2), [&] {
        return Stopping || Pending.size() >= HoldUntil;
      });
      if (Pending.empty()) {
        if (Stopping)
          return;
        continue;
      }
      if (!Full)
        HeldTooLong = true;
      // Once released, everything in flight ends.
      HoldUntil = 1;
      auto [Done, Ctx] = Pending.front();
      Pending.erase(Pending.begin());
      L.unlock();
      Done(Ctx);
      L.lock();
    }
  }
  std::mutex DoneM;
  std::condition_variable DoneCV;
  std::vector<std::pair<void (*)(void *), void *>> Pending;
  bool Stopping = false;
  std::thread Reporter;

  void slowLink(size_t Bytes) {
    if (DelayPerMiB.count() && Bytes >= (size_t(1) << 20))
      std::this_thread::sleep_for(DelayPerMiB * (Bytes >> 20));
  }
  std::mutex CompiledM;
  std::set<const hpvm_artifact *> Compiled;
  std::string Name;
  uint32_t Target;
  rt::MemorySpace Space;
  std::chrono::milliseconds Delay;
};

/// Registers a device for the scope of a test.
class ScopedDevice {
public:
  explicit ScopedDevice(std::unique_ptr<FakeDevice> D) : Dev(D.get()) {
    rt::Runtime::get().addDevice(std::move(D));
  }
  ~ScopedDevice() { rt::Runtime::get().removeDevice(*Dev); }
  FakeDevice &operator*() const { return *Dev; }
  FakeDevice *operator->() const { return Dev; }

private:
  FakeDevice *Dev;
};

/// Selects a scheduling policy for the scope of a test.
class ScopedScheduler {
public:
  explicit ScopedScheduler(const char *Name) {
    rt::Runtime &RT = rt::Runtime::get();
    RT.setScheduler(rt::makeScheduler(Name, RT.coherence()));
  }
  ~ScopedScheduler() { // back to the default
    rt::Runtime &RT = rt::Runtime::get();
    RT.setScheduler(
        rt::makeScheduler(rt::RuntimeConfig().Scheduler, RT.coherence()));
  }
};

/// Host memory for N elements of T that ends exactly where an inaccessible
/// page begins. The runtime copies a buffer's declared bytes each way; a
/// declared size larger than the memory behind it then faults on the spot,
/// where a std::vector would have its neighbour's heap header overwritten
/// and glibc abort at some later, unrelated free.
template <typename T> class GuardedArray {
  static_assert(std::is_trivially_copyable_v<T>);

public:
  GuardedArray(size_t N, T Fill) : N(N) {
    size_t Page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t Bytes = N * sizeof(T);
    Length = (Bytes + Page - 1) / Page * Page + Page;
    void *M = mmap(nullptr, Length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (M == MAP_FAILED)
      throw std::runtime_error("GuardedArray: mmap failed");
    Base = static_cast<char *>(M);
    char *Guard = Base + Length - Page;
    if (mprotect(Guard, Page, PROT_NONE) != 0) {
      munmap(Base, Length);
      throw std::runtime_error("GuardedArray: mprotect failed");
    }
    // A whole number of elements before a page boundary: aligned for T.
    Data = reinterpret_cast<T *>(Guard - Bytes);
    for (size_t I = 0; I != N; ++I)
      Data[I] = Fill;
  }
  ~GuardedArray() { munmap(Base, Length); }
  GuardedArray(const GuardedArray &) = delete;
  GuardedArray &operator=(const GuardedArray &) = delete;

  T *data() { return Data; }
  size_t size() const { return N; }
  size_t bytes() const { return N * sizeof(T); }
  T &operator[](size_t I) { return Data[I]; }

private:
  size_t N, Length;
  char *Base;
  T *Data;
};

/// Launches of Path per device, from the runtime's stats.
std::map<std::string, uint64_t> launchesByDevice(const std::string &Path);

/// Where vadd's two values follow its buffers: the CPU and SPIR-V kernels
/// of the tests take (bytes, n), the PTX one takes (n, bytes).
enum class VaddValues { BytesThenCount, CountThenBytes };

/// vadd(a, b, c, and the two values), a root leaf over n: c = a + b on
/// floats, every buffer n * 4 bytes.
inline Graph vaddGraph(const std::string &Name,
                       VaddValues Order = VaddValues::BytesThenCount) {
  bool BytesFirst = Order == VaddValues::BytesThenCount;
  unsigned BytesSlot = BytesFirst ? 3 : 4, CountSlot = BytesFirst ? 4 : 3;
  Graph G(Name, Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "vadd";
  R.addBuffer("a", Access::In, Extent::param(BytesSlot));
  R.addBuffer("b", Access::In, Extent::param(BytesSlot));
  R.addBuffer("c", Access::Out, Extent::param(BytesSlot));
  R.addValue(BytesFirst ? "bytes" : "n", ScalarType::I64);
  R.addValue(BytesFirst ? "n" : "bytes", ScalarType::I64);
  R.setDims({Extent::param(CountSlot)});
  return G;
}

/// Expects a launch to have returned Expected with a message that holds
/// Fragment.
void expectError(int Code, int Expected, const std::string &Fragment);

/// The whole of a file; empty if it cannot be read.
std::string readFile(const std::string &Path);

/// $TMPDIR/Stem-<pid>.json (/tmp without TMPDIR): a trace file of this
/// process alone, since ctest runs test processes side by side.
std::string tempPath(const char *Stem);

/// A minimal JSON reader, enough to check that traces are well formed and
/// to look inside them.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } K = Null;
  bool B = false;
  double Num = 0;
  std::string Str;
  std::vector<Json> Items;
  std::vector<std::pair<std::string, Json>> Members;

  const Json *get(const std::string &Key) const {
    for (const auto &M : Members)
      if (M.first == Key)
        return &M.second;
    return nullptr;
  }
};

/// Parses Text; on malformed input returns false with Error set.
bool parseJson(const std::string &Text, Json &Out, std::string &Error);

/// One device's part of a trace: the launches of one node on the host's
/// clock and on the device's, the copies on the device's clock, and
/// whether the device's clock has its own named track. The pointers are
/// into Root.
struct DeviceTrace {
  std::string Text;
  Json Root;
  std::vector<const Json *> Hosts, Kernels, Uploads, Downloads;
  bool TrackNamed = false;

  /// The bytes of Copies (Uploads or Downloads) together.
  static double bytes(const std::vector<const Json *> &Copies);
};

/// Traces Run (which builds and launches its programs) to a file of its
/// own, reads the trace back and picks out Device's events for the node
/// Kernel into Out; fails the test if the trace is not written or not
/// well formed.
void traceDevice(const char *Stem, const std::string &Device,
                 const std::string &Kernel, const std::function<void()> &Run,
                 DeviceTrace &Out);

/// Expects a launch's device-clock event to lie inside its host-clock
/// event (times are printed to the nanosecond).
void expectInsideHostSpan(const Json &Host, const Json &Kernel,
                          const std::string &Text);

} // namespace hpvm::rttest

#endif // HPVM_TEST_RUNTIME_SUPPORT_H
