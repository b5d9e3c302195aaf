//===- CoherenceSchedulerTest.cpp - Memory spaces and device choice -------===//

#include "RuntimeTestSupport.h"

#include <thread>

#include "hpvm/rt/Coherence.h"
#include "hpvm/rt/Devices.h"
#include "hpvm/rt/Scheduler.h"

#include <fstream>

using namespace hpvm;
using namespace hpvm::rttest;
using rt::Coherence;
using rt::Runtime;

namespace {

constexpr int N = 1000;
constexpr int64_t Bytes = N * sizeof(int32_t);

// inc(x, y): y = x + 1
void incKernel(void *const *Args, void *const *, const uint64_t *,
               const uint64_t *, uint64_t Begin, uint64_t End) {
  const int32_t *X = buffer<int32_t>(Args, 0);
  int32_t *Y = buffer<int32_t>(Args, 1);
  for (uint64_t I = Begin; I != End; ++I)
    Y[I] = X[I] + 1;
}
// dbl(y, z): z = 2 y
void doubleKernel(void *const *Args, void *const *, const uint64_t *,
                  const uint64_t *, uint64_t Begin, uint64_t End) {
  const int32_t *Y = buffer<int32_t>(Args, 0);
  int32_t *Z = buffer<int32_t>(Args, 1);
  for (uint64_t I = Begin; I != End; ++I)
    Z[I] = 2 * Y[I];
}
// add(x, y, w): w = x + y
void addKernel(void *const *Args, void *const *, const uint64_t *,
               const uint64_t *, uint64_t Begin, uint64_t End) {
  const int32_t *X = buffer<int32_t>(Args, 0);
  const int32_t *Y = buffer<int32_t>(Args, 1);
  int32_t *W = buffer<int32_t>(Args, 2);
  for (uint64_t I = Begin; I != End; ++I)
    W[I] = X[I] + Y[I];
}

Node &addLeaf(Node &R, const char *Name, TargetMask Targets,
              std::initializer_list<std::pair<unsigned, Access>> Buffers) {
  Node &L = R.addLeaf(Name, Name);
  for (const auto &[Parent, Mode] : Buffers) {
    unsigned P =
        L.addBuffer(R.Params[Parent].Name, Mode, Extent::constant(Bytes));
    R.bind(L, P, Parent);
  }
  L.setDims({Extent::constant(N)});
  L.setTargets(Targets);
  return L;
}

TEST(Coherence, CopiesOnlyWhatIsInvalidAndWritesBack) {
  ScopedDevice Gpu(std::make_unique<FakeDevice>("fake0", HPVM_TARGET_NVPTX));
  Graph G("coh");
  Node &R = G.root();
  for (const char *Name : {"x", "y", "z", "w"})
    R.addBuffer(Name, Access::InOut, Extent::constant(Bytes));
  // a on the device, b on the CPU, c on the device again, in that order.
  Node &A = addLeaf(R, "a", TargetNVPTX, {{0, Access::In}, {1, Access::Out}});
  Node &B = addLeaf(R, "b", TargetCPU, {{1, Access::In}, {2, Access::Out}});
  Node &C = addLeaf(R, "c", TargetNVPTX,
                    {{0, Access::In}, {1, Access::In}, {3, Access::InOut}});
  R.addDependency(A, B);
  R.addDependency(B, C);
  TestProgram P({&G}, {{"coh/a", HPVM_TARGET_NVPTX, incKernel},
                       {"coh/b", HPVM_TARGET_CPU, doubleKernel},
                       {"coh/c", HPVM_TARGET_NVPTX, addKernel}});

  std::vector<int32_t> X(N), Y(N, -1), Z(N, -1), W(N, -1);
  for (int I = 0; I != N; ++I)
    X[I] = I * 3;
  int32_t *PX = X.data(), *PY = Y.data(), *PZ = Z.data(), *PW = W.data();
  Coherence &Coh = Runtime::get().coherence();

  for (int Round = 0; Round != 2; ++Round) {
    uint64_t Moved = Coh.bytesMoved(), Avoided = Coh.copiesAvoided();
    uint64_t In = Gpu->BytesIn, Out = Gpu->BytesOut;
    ASSERT_EQ(P.launch("coh", {&PX, &PY, &PZ, &PW}), HPVM_OK)
        << hpvm_error_message();
    for (int I = 0; I != N; ++I) {
      ASSERT_EQ(Y[I], X[I] + 1);
      ASSERT_EQ(Z[I], 2 * (X[I] + 1));
      ASSERT_EQ(W[I], X[I] + X[I] + 1);
    }
    // a: x and y in (y is copied in too: an `out` leaf need not write all
    // of it). b: y back to the host. c: x and y already there, w in. End of
    // launch: w back.
    EXPECT_EQ(Coh.bytesMoved() - Moved, 5 * Bytes);
    EXPECT_EQ(Coh.copiesAvoided() - Avoided, 2u);
    EXPECT_EQ(Gpu->BytesIn - In, 3 * Bytes);
    EXPECT_EQ(Gpu->BytesOut - Out, 2 * Bytes);
    // Host memory is the truth between launches; nothing is left elsewhere.
    EXPECT_TRUE(Coh.idle());
    EXPECT_EQ(Gpu->Allocations.load(), Gpu->Frees.load());
    EXPECT_EQ(Coh.state(PY, Gpu->memorySpace()), Coherence::State::Invalid);
  }
  EXPECT_EQ(Gpu->Launches.load(), 4u);
}

TEST(Coherence, AnOutBufferWrittenWholeIsNotCopiedIn) {
  ScopedDevice Gpu(std::make_unique<FakeDevice>("fake-wa", HPVM_TARGET_NVPTX));
  Graph G("whole");
  Node &R = G.root();
  for (const char *Name : {"x", "y"})
    R.addBuffer(Name, Access::InOut, Extent::constant(Bytes));
  Node &A = addLeaf(R, "a", TargetNVPTX, {{0, Access::In}, {1, Access::Out}});
  A.Params[1].WritesAll = true;
  TestProgram P({&G}, {{"whole/a", HPVM_TARGET_NVPTX, incKernel}});
  std::vector<int32_t> X(N, 5), Y(N, -1);
  int32_t *PX = X.data(), *PY = Y.data();
  uint64_t In = Gpu->BytesIn, Out = Gpu->BytesOut;
  ASSERT_EQ(P.launch("whole", {&PX, &PY}), HPVM_OK) << hpvm_error_message();
  for (int I = 0; I != N; ++I)
    ASSERT_EQ(Y[I], 6);
  // x in, y out: y's old contents are dead.
  EXPECT_EQ(Gpu->BytesIn - In, uint64_t(Bytes));
  EXPECT_EQ(Gpu->BytesOut - Out, uint64_t(Bytes));
}

// interior(grid, w): grid[(y + 1) * w + x + 1] = 7 for the (h-2) x (w-2)
// instances.
void interiorKernel(void *const *Args, void *const *, const uint64_t *Dims,
                    const uint64_t *, uint64_t Begin, uint64_t End) {
  int32_t *Grid = buffer<int32_t>(Args, 0);
  uint64_t W = value<uint64_t>(Args, 1);
  for (uint64_t Y = Begin; Y != End; ++Y)
    for (uint64_t X = 0; X != Dims[1]; ++X)
      Grid[(Y + 1) * W + X + 1] = 7;
}

TEST(Coherence, AnOutBufferWrittenInRowsGetsOnlyTheBytesAroundThem) {
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-rows", HPVM_TARGET_NVPTX));
  constexpr uint64_t H = 9, W = 13, GridBytes = H * W * 4;
  Graph G("interior", Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "interior";
  unsigned GridParam =
      R.addBuffer("grid", Access::Out, Extent::constant(GridBytes));
  R.addValue("w", ScalarType::I64);
  Param &Grid = R.Params[GridParam];
  R.setDims({Extent::constant(H - 2), Extent::constant(W - 2)});
  R.setTargets(TargetNVPTX);
  // H-2 rows of (W-2)*4 bytes every 4W, from 4W + 4: as EXTRACT finds them.
  Grid.Written = WrittenRows{DerivedExtent{Extent::param(1), 4, 4},
                             DerivedExtent{Extent::constant(0), 1, (W - 2) * 4},
                             DerivedExtent{Extent::param(1), 4, 0},
                             DerivedExtent{Extent::constant(0), 1, H - 2}};
  TestProgram P({&G}, {{"interior", HPVM_TARGET_NVPTX, interiorKernel}});
  std::vector<int32_t> Data(H * W, -1);
  int32_t *PD = Data.data();
  uint64_t Width = W;
  uint64_t In = Gpu->BytesIn;
  ASSERT_EQ(P.launch("interior", {&PD, &Width}), HPVM_OK)
      << hpvm_error_message();
  for (uint64_t Y = 0; Y != H; ++Y)
    for (uint64_t X = 0; X != W; ++X) {
      bool Border = Y == 0 || X == 0 || Y == H - 1 || X == W - 1;
      ASSERT_EQ(Data[Y * W + X], Border ? -1 : 7) << Y << "," << X;
    }
  // The border only: the first row and one element, two elements between
  // interior rows, the last element of the last interior row and the last
  // row.
  EXPECT_EQ(Gpu->BytesIn - In, (2 * W + 2 * (H - 2)) * 4);
}

/// One leaf launch's use of [Host, Host + Bytes) on D that has already
/// finished: acquired, and completed at once. Returns D's pointer.
void *use(Coherence &Coh, Coherence::LaunchSet &Launch, void *Host,
          uint64_t Bytes, rt::Device &D, Access Mode, bool TrackHost = false) {
  rt::BufferUse U;
  U.Host = Host;
  U.End = U.Extent = Bytes;
  U.Mode = Mode;
  void *Ptr = nullptr;
  Coherence::Hold H;
  Coh.acquire(Launch, &U, 1, D, &Ptr, H, TrackHost);
  Coh.complete(H);
  return Ptr;
}

rt::BufferUse whole(void *Host, uint64_t Bytes, Access Mode) {
  rt::BufferUse U;
  U.Host = Host;
  U.End = U.Extent = Bytes;
  U.Mode = Mode;
  return U;
}

TEST(Coherence, MSIStatesStepByStep) {
  rt::ThreadPool Pool(1);
  std::unique_ptr<rt::Device> Cpu = rt::makeCpuDevice(Pool);
  FakeDevice Gpu("fake-msi", HPVM_TARGET_NVPTX);
  Coherence Coh;
  std::vector<int32_t> Data(16, 7);
  void *Host = Data.data();
  uint64_t Size = Data.size() * 4;
  rt::MemorySpace S = Gpu.memorySpace();
  Coherence::LaunchSet Launch;

  // A buffer only the host has seen needs no entry at all, unless the
  // launch may put it elsewhere.
  EXPECT_EQ(use(Coh, Launch, Host, Size, *Cpu, Access::InOut), Host);
  EXPECT_TRUE(Coh.idle());
  EXPECT_EQ(Coh.bytesToAcquire(whole(Host, Size, Access::In), S), Size);

  auto *DevCopy =
      static_cast<int32_t *>(use(Coh, Launch, Host, Size, Gpu, Access::In));
  EXPECT_NE(static_cast<void *>(DevCopy), Host);
  EXPECT_EQ(DevCopy[3], 7);
  EXPECT_EQ(Coh.state(Host, S), Coherence::State::Shared);
  EXPECT_EQ(Coh.state(Host, rt::HostSpace), Coherence::State::Shared);
  EXPECT_EQ(Coh.bytesMoved(), Size);
  EXPECT_EQ(Coh.bytesToAcquire(whole(Host, Size, Access::In), S), 0u);

  // Reading again where the copy is valid moves nothing.
  EXPECT_EQ(use(Coh, Launch, Host, Size, Gpu, Access::In), DevCopy);
  EXPECT_EQ(Coh.copiesAvoided(), 1u);
  EXPECT_EQ(Coh.bytesMoved(), Size);

  // Writing on the device invalidates the host copy.
  use(Coh, Launch, Host, Size, Gpu, Access::InOut);
  DevCopy[3] = 99;
  EXPECT_EQ(Coh.state(Host, S), Coherence::State::Modified);
  EXPECT_EQ(Coh.state(Host, rt::HostSpace), Coherence::State::Invalid);
  EXPECT_EQ(Coh.bytesToAcquire(whole(Host, Size, Access::In), rt::HostSpace),
            Size);

  // The host reads: the device's copy comes back, both are shared.
  EXPECT_EQ(use(Coh, Launch, Host, Size, *Cpu, Access::In), Host);
  EXPECT_EQ(Data[3], 99);
  EXPECT_EQ(Coh.state(Host, S), Coherence::State::Shared);
  EXPECT_EQ(Coh.bytesMoved(), 2 * Size);

  // The host writes: the device copy is invalid and would be copied again.
  use(Coh, Launch, Host, Size, *Cpu, Access::Out);
  Data[3] = 5;
  EXPECT_EQ(Coh.state(Host, S), Coherence::State::Invalid);
  EXPECT_EQ(Coh.state(Host, rt::HostSpace), Coherence::State::Modified);
  EXPECT_EQ(use(Coh, Launch, Host, Size, Gpu, Access::InOut), DevCopy);
  EXPECT_EQ(DevCopy[3], 5);
  DevCopy[3] = 6;
  EXPECT_EQ(Coh.bytesMoved(), 3 * Size);

  // The end of the launch brings the modified copy home and frees it.
  Coh.release(Launch);
  EXPECT_EQ(Data[3], 6);
  EXPECT_EQ(Coh.bytesMoved(), 4 * Size);
  EXPECT_TRUE(Coh.idle());
  EXPECT_EQ(Gpu.Allocations.load(), 1u);
  EXPECT_EQ(Gpu.Frees.load(), 1u);
}

TEST(Coherence, PointersIntoOneAllocationSeeEachOthersWrites) {
  rt::ThreadPool Pool(1);
  std::unique_ptr<rt::Device> Cpu = rt::makeCpuDevice(Pool);
  FakeDevice Gpu("fake-alias", HPVM_TARGET_NVPTX);
  Coherence Coh;
  std::vector<int32_t> Data(16, 7);
  int32_t *A = Data.data(), *Y = A + 4; // y = a + 4: a's last 12 elements
  uint64_t Size = Data.size() * 4, YSize = Size - 16;
  Coherence::LaunchSet Launch;
  Coh.enterRegion(A, Size);

  // a's copy on the device, then a write through y there: a's copy of those
  // bytes is stale, and reading a again must see the write.
  auto *DevA =
      static_cast<int32_t *>(use(Coh, Launch, A, Size, Gpu, Access::In));
  auto *DevY =
      static_cast<int32_t *>(use(Coh, Launch, Y, YSize, Gpu, Access::InOut));
  EXPECT_EQ(DevY[0], 7);
  DevY[0] = 42;
  EXPECT_EQ(use(Coh, Launch, A, Size, Gpu, Access::In), DevA);
  EXPECT_EQ(DevA[4], 42);
  EXPECT_EQ(DevA[3], 7);

  // A host-space kernel writes through y: a's device copy is stale again.
  EXPECT_EQ(use(Coh, Launch, Y, YSize, *Cpu, Access::InOut), Y);
  Data[5] = 77;
  EXPECT_EQ(use(Coh, Launch, A, Size, Gpu, Access::In), DevA);
  EXPECT_EQ(DevA[5], 77);

  // a written on the device, y read on the host: y's bytes come home, and
  // nothing y held elsewhere comes back over them at the end.
  use(Coh, Launch, A, Size, Gpu, Access::InOut);
  DevA[6] = -3;
  EXPECT_EQ(use(Coh, Launch, Y, YSize, *Cpu, Access::In), Y);
  EXPECT_EQ(Data[6], -3);
  use(Coh, Launch, A, Size, Gpu, Access::InOut);
  DevA[15] = 1234;
  Coh.release(Launch);
  Coh.exitRegion(A);
  EXPECT_EQ(Data[15], 1234);
  EXPECT_EQ(Data[6], -3);
  EXPECT_EQ(Data[4], 42);
  EXPECT_TRUE(Coh.idle());
  EXPECT_EQ(Gpu.Allocations.load(), Gpu.Frees.load());
}

TEST(Coherence, OverlappingRegionsThroughTwoPointers) {
  FakeDevice Gpu("fake-overlap", HPVM_TARGET_NVPTX);
  Coherence Coh;
  std::vector<int32_t> Data(16, 1);
  int32_t *P = Data.data(), *Q = P + 4; // p[0:8] and q[0:8] share 4 elements
  uint64_t Eight = 8 * 4;
  Coh.enterRegion(P, Eight);
  Coh.enterRegion(Q, Eight);
  Coherence::LaunchSet Launch;
  auto *DevP =
      static_cast<int32_t *>(use(Coh, Launch, P, Eight, Gpu, Access::Out));
  for (int I = 0; I != 8; ++I)
    DevP[I] = 10 + I;
  auto *DevQ =
      static_cast<int32_t *>(use(Coh, Launch, Q, Eight, Gpu, Access::In));
  EXPECT_EQ(DevQ[0], 14);
  EXPECT_EQ(DevQ[3], 17);
  EXPECT_EQ(DevQ[4], 1);
  // q written: p's copy of the shared elements must not come home over it.
  use(Coh, Launch, Q, Eight, Gpu, Access::InOut);
  DevQ[1] = -5;
  EXPECT_EQ(use(Coh, Launch, P, Eight, Gpu, Access::In), DevP);
  EXPECT_EQ(DevP[5], -5);
  Coh.release(Launch);
  Coh.exitRegion(P);
  Coh.exitRegion(Q);
  EXPECT_EQ(Data[5], -5);
  EXPECT_EQ(Data[4], 14);
  EXPECT_EQ(Data[0], 10);
  EXPECT_EQ(Data[11], 1);
  EXPECT_TRUE(Coh.idle());
}

//===----------------------------------------------------------------------===//
// Scheduler policies: a leaf with a CPU and a device artifact.
//===----------------------------------------------------------------------===//

std::atomic<int> CpuDelayMs{0};

void slowIncKernel(void *const *Args, void *const *Outs, const uint64_t *Dims,
                   const uint64_t *Ids, uint64_t Begin, uint64_t End) {
  if (int Ms = CpuDelayMs.load(); Ms && Begin == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(Ms));
  incKernel(Args, Outs, Dims, Ids, Begin, End);
}

/// inc over the first Count of N elements, for the CPU and a device.
Graph twoTargetGraph(const char *Name, int Count = N) {
  Graph G(Name, Node::Kind::Leaf);
  Node &R = G.root();
  R.Function = "inc";
  R.addBuffer("x", Access::In, Extent::constant(Bytes));
  R.addBuffer("y", Access::Out, Extent::constant(Bytes));
  R.setDims({Extent::constant(Count)});
  R.setTargets(TargetCPU | TargetNVPTX);
  return G;
}

/// Launches Name (of Count instances) Times, checking every result, and
/// returns how many of those launches each device ran.
std::map<std::string, uint64_t> runTimes(TestProgram &P, const char *Name,
                                         int Times, int Count = N) {
  std::map<std::string, uint64_t> Before = launchesByDevice(Name);
  std::vector<int32_t> X(N), Y(N);
  for (int Round = 0; Round != Times; ++Round) {
    for (int I = 0; I != N; ++I) {
      X[I] = I + Round;
      Y[I] = -1;
    }
    int32_t *PX = X.data(), *PY = Y.data();
    EXPECT_EQ(P.launch(Name, {&PX, &PY}), HPVM_OK) << hpvm_error_message();
    for (int I = 0; I != Count; ++I)
      if (Y[I] != X[I] + 1) {
        ADD_FAILURE() << "wrong result at " << I << " in round " << Round;
        break;
      }
  }
  std::map<std::string, uint64_t> Delta;
  for (const auto &[Device, Count] : launchesByDevice(Name))
    if (Count != Before[Device])
      Delta[Device] = Count - Before[Device];
  return Delta;
}

TEST(Scheduler, HintTakesTheProgramsFirstArtifact) {
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-hint", HPVM_TARGET_NVPTX));
  ScopedScheduler S("hint");
  Graph G1 = twoTargetGraph("hint_gpu_first");
  Graph G2 = twoTargetGraph("hint_cpu_first");
  TestProgram P({&G1, &G2}, {{"hint_gpu_first", HPVM_TARGET_NVPTX, incKernel},
                             {"hint_gpu_first", HPVM_TARGET_CPU, incKernel},
                             {"hint_cpu_first", HPVM_TARGET_CPU, incKernel},
                             {"hint_cpu_first", HPVM_TARGET_NVPTX, incKernel}});
  auto GpuFirst = runTimes(P, "hint_gpu_first", 3);
  auto CpuFirst = runTimes(P, "hint_cpu_first", 3);
  EXPECT_EQ(GpuFirst, (std::map<std::string, uint64_t>{{"fake-hint", 3}}));
  EXPECT_EQ(CpuFirst, (std::map<std::string, uint64_t>{{"cpu", 3}}));
}

TEST(Scheduler, RoundRobinAlternates) {
  ScopedDevice Gpu(std::make_unique<FakeDevice>("fake-rr", HPVM_TARGET_NVPTX));
  ScopedScheduler S("round-robin");
  EXPECT_STREQ(Runtime::get().scheduler().name(), "round-robin");
  Graph G = twoTargetGraph("rr");
  TestProgram P({&G}, {{"rr", HPVM_TARGET_CPU, incKernel},
                       {"rr", HPVM_TARGET_NVPTX, incKernel}});
  auto Counts = runTimes(P, "rr", 6);
  EXPECT_EQ(Counts,
            (std::map<std::string, uint64_t>{{"cpu", 3}, {"fake-rr", 3}}));
}

TEST(Scheduler, HeftExploresThenPrefersTheFasterDevice) {
  ScopedScheduler S("heft");
  // heft's history is the stats; start without any (e.g. under
  // --gtest_repeat).
  Runtime::get().stats().reset();
  {
    // The device is slow: after trying each once, heft stays on the CPU.
    ScopedDevice Gpu(std::make_unique<FakeDevice>(
        "fake-slow", HPVM_TARGET_NVPTX, std::chrono::milliseconds(30)));
    Graph G = twoTargetGraph("heft_slow_gpu");
    TestProgram P({&G}, {{"heft_slow_gpu", HPVM_TARGET_CPU, incKernel},
                         {"heft_slow_gpu", HPVM_TARGET_NVPTX, incKernel}});
    auto Counts = runTimes(P, "heft_slow_gpu", 8);
    EXPECT_EQ(Counts,
              (std::map<std::string, uint64_t>{{"cpu", 7}, {"fake-slow", 1}}));
  }
  {
    // Now the CPU is slow: heft moves to the device.
    ScopedDevice Gpu(
        std::make_unique<FakeDevice>("fake-fast", HPVM_TARGET_NVPTX));
    Graph G = twoTargetGraph("heft_slow_cpu");
    TestProgram Q({&G}, {{"heft_slow_cpu", HPVM_TARGET_CPU, slowIncKernel},
                         {"heft_slow_cpu", HPVM_TARGET_NVPTX, incKernel}});
    CpuDelayMs = 30;
    auto Counts = runTimes(Q, "heft_slow_cpu", 8);
    CpuDelayMs = 0;
    EXPECT_EQ(Counts,
              (std::map<std::string, uint64_t>{{"cpu", 1}, {"fake-fast", 7}}));
  }
}

TEST(Scheduler, AThreadChoosesItsPolicyThroughTheCAbi) {
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-thread", HPVM_TARGET_NVPTX));
  ScopedScheduler S("hint"); // the runtime's: always the GPU artifact
  Graph G = twoTargetGraph("thread_policy");
  TestProgram P({&G}, {{"thread_policy", HPVM_TARGET_NVPTX, incKernel},
                       {"thread_policy", HPVM_TARGET_CPU, incKernel}});
  ASSERT_EQ(hpvm_set_thread_policy("round-robin"), HPVM_OK);
  EXPECT_EQ(runTimes(P, "thread_policy", 6),
            (std::map<std::string, uint64_t>{{"cpu", 3}, {"fake-thread", 3}}));
  // Another thread still has the runtime's policy.
  std::map<std::string, uint64_t> Other;
  std::thread([&] { Other = runTimes(P, "thread_policy", 2); }).join();
  EXPECT_EQ(Other, (std::map<std::string, uint64_t>{{"fake-thread", 2}}));
  // A bad name changes nothing; NULL goes back to the runtime's.
  EXPECT_EQ(hpvm_set_thread_policy("fastest"), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(hpvm_error_message(),
               "hpvm_set_thread_policy: unknown policy 'fastest' (known: "
               "hint, round-robin, heft, dmda, auto)");
  EXPECT_EQ(runTimes(P, "thread_policy", 2),
            (std::map<std::string, uint64_t>{{"cpu", 1}, {"fake-thread", 1}}));
  ASSERT_EQ(hpvm_set_thread_policy(nullptr), HPVM_OK);
  EXPECT_EQ(runTimes(P, "thread_policy", 2),
            (std::map<std::string, uint64_t>{{"fake-thread", 2}}));
}

/// Writes Text to a file of its own under the test's temporary directory.
std::string writeFile(const std::string &Name, const std::string &Text) {
  std::string Path = testing::TempDir() + Name;
  std::ofstream(Path) << Text;
  return Path;
}

TEST(Scheduler, DmdaAndAutoFollowTheModelsOfTheLaunchSize) {
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-model", HPVM_TARGET_NVPTX));
  rt::Stats &Stats = Runtime::get().stats();
  Stats.reset();
  // Synthetic models: for 1000 instances (size bucket 10) the device is
  // faster, for 4 (bucket 3) the CPU; nothing for 50 (bucket 6).
  std::string Models = writeFile("hpvm-models-synthetic.txt",
                                 "hpvm-perf-models 1\n"
                                 "5 1000000 10 cpu model_big\n"
                                 "5 1000 10 fake-model model_big\n"
                                 "5 10 3 cpu model_small\n"
                                 "5 1000000 3 fake-model model_small\n"
                                 "this line means nothing\n");
  EXPECT_EQ(Stats.loadModels(Models),
            "performance models '" + Models +
                "': 1 line(s) that mean nothing were skipped");
  Graph Big = twoTargetGraph("model_big", 1000);
  Graph Small = twoTargetGraph("model_small", 4);
  Graph None = twoTargetGraph("model_none", 50);
  std::vector<ArtifactSpec> Arts;
  for (const char *Name : {"model_big", "model_small", "model_none"}) {
    Arts.push_back({Name, HPVM_TARGET_CPU, incKernel});
    Arts.push_back({Name, HPVM_TARGET_NVPTX, incKernel});
  }
  TestProgram P({&Big, &Small, &None}, Arts);
  using Counts = std::map<std::string, uint64_t>;
  for (const char *Policy : {"dmda", "auto"}) {
    ScopedScheduler S(Policy);
    EXPECT_EQ(runTimes(P, "model_big", 3, 1000), (Counts{{"fake-model", 3}}))
        << Policy;
    EXPECT_EQ(runTimes(P, "model_small", 3, 4), (Counts{{"cpu", 3}})) << Policy;
  }
  {
    // No model for the size: auto keeps to the program's order (the CPU
    // artifact is listed first) and never explores.
    ScopedScheduler S("auto");
    EXPECT_EQ(runTimes(P, "model_none", 3, 50), (Counts{{"cpu", 3}}));
  }
  {
    // dmda measures the device it has no model for before comparing.
    ScopedScheduler S("dmda");
    EXPECT_EQ(runTimes(P, "model_none", 1, 50).count("fake-model"), 1u);
  }

  // The models go to a file and come back, with what this run measured.
  std::string Saved = testing::TempDir() + "hpvm-models-saved.txt";
  ASSERT_EQ(Stats.saveModels(Saved), "");
  rt::Stats Fresh;
  EXPECT_EQ(Fresh.loadModels(Saved), "");
  const rt::PerfModel &BigGpu = Fresh.entry("model_big", "fake-model").Model;
  EXPECT_EQ(BigGpu.samples(10), 5u + 6u);
  EXPECT_GT(BigGpu.predict(1000), 0.0);
  EXPECT_EQ(Fresh.entry("model_none", "fake-model").Model.samples(6), 1u);
  Stats.reset();
}

TEST(PerfModel, EverySizeHasItsOwnModelHoweverManyThereAre) {
  rt::PerfModel M;
  EXPECT_EQ(M.predict(100), 0.0);
  // Two sizes, then five more: each keeps its own mean.
  for (unsigned K = 0; K != 7; ++K)
    for (int I = 0; I != 3; ++I)
      M.learn(uint64_t(1) << (3 * K), 1000 * (K + 1));
  for (unsigned K = 0; K != 7; ++K) {
    EXPECT_EQ(M.predict(uint64_t(1) << (3 * K)), 1000.0 * (K + 1)) << K;
    EXPECT_EQ(M.samples(rt::PerfModel::bucket(uint64_t(1) << (3 * K))), 3u);
  }
  EXPECT_EQ(M.predict(uint64_t(1) << 50), 0.0);
  unsigned Listed = 0;
  M.forEach([&](unsigned, uint64_t N, double) {
    EXPECT_EQ(N, 3u);
    ++Listed;
  });
  EXPECT_EQ(Listed, 7u);
  M.set(rt::PerfModel::bucket(1), 9, 42.0);
  EXPECT_EQ(M.predict(1), 42.0);
  M.clear();
  Listed = 0;
  M.forEach([&](unsigned, uint64_t, double) { ++Listed; });
  EXPECT_EQ(Listed, 0u);
}

TEST(PerfModel, ThreadsLearningNewSizesAtOnceLoseNoSample) {
  // Four threads, each learning the same eight sizes in its own order:
  // slots and the table are claimed while others claim them too.
  rt::PerfModel M;
  std::vector<std::thread> Threads;
  for (unsigned T = 0; T != 4; ++T)
    Threads.emplace_back([&M, T] {
      for (int I = 0; I != 100; ++I)
        for (unsigned K = 0; K != 8; ++K)
          M.learn(uint64_t(1) << ((K + T) % 8 * 4), 500);
    });
  for (std::thread &T : Threads)
    T.join();
  for (unsigned K = 0; K != 8; ++K)
    EXPECT_EQ(M.samples(rt::PerfModel::bucket(uint64_t(1) << (K * 4))), 400u)
        << K;
}

TEST(Scheduler, ModelsLeaveCompileTimeOut) {
  auto Dev = std::make_unique<FakeDevice>("fake-compile", HPVM_TARGET_NVPTX);
  Dev->CompileDelay = std::chrono::milliseconds(200);
  ScopedDevice Gpu(std::move(Dev));
  ScopedScheduler S("dmda");
  Graph G = twoTargetGraph("model_compile");
  TestProgram P({&G}, {{"model_compile", HPVM_TARGET_NVPTX, incKernel},
                       {"model_compile", HPVM_TARGET_CPU, incKernel}});
  runTimes(P, "model_compile", 2);
  const rt::PerfModel &M =
      Runtime::get().stats().entry("model_compile", "fake-compile").Model;
  ASSERT_GT(M.samples(rt::PerfModel::bucket(N)), 0u);
  EXPECT_LT(M.predict(N), 100e6); // the 200 ms compile is not in it
}

TEST(Scheduler, AModelFileOfAnotherFormatIsANote) {
  std::string Path = writeFile("hpvm-models-other.txt", "models v0\n1 2 3\n");
  rt::Stats S;
  EXPECT_EQ(S.loadModels(Path),
            "performance models '" + Path +
                "' are not in this runtime's format; starting without them");
  EXPECT_EQ(S.loadModels(testing::TempDir() + "no-such-models-file"), "");
}

TEST(Scheduler, UnknownPolicyNames) {
  EXPECT_EQ(rt::makeScheduler("fifo", Runtime::get().coherence()), nullptr);
  for (const char *Name : {"hint", "round-robin", "heft", "dmda", "auto"}) {
    auto S = rt::makeScheduler(Name, Runtime::get().coherence());
    ASSERT_NE(S, nullptr);
    EXPECT_STREQ(S->name(), Name);
  }
}

TEST(Scheduler, OneCandidateNeedsNoPolicyAndOthersAreIgnored) {
  // A device of a target the leaf has no artifact for is never used.
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-unused", HPVM_TARGET_SPIRV));
  ScopedScheduler S("round-robin");
  Graph G = twoTargetGraph("single_candidate");
  TestProgram P({&G}, {{"single_candidate", HPVM_TARGET_CPU, incKernel}});
  auto Counts = runTimes(P, "single_candidate", 4);
  EXPECT_EQ(Counts, (std::map<std::string, uint64_t>{{"cpu", 4}}));
  EXPECT_EQ(Gpu->Launches.load(), 0u);
}

} // namespace
