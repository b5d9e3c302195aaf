//===- StreamTest.cpp - hpvm_stream_*: graphs over a stream of frames -----===//
//
// A three-stage pipeline over a frame buffer x of n floats:
//
//   decode(x, k) -> scale ==stream==> filter(x, scale) -> reduce(x, sum)
//
// decode fills x for frame k and produces scale = k % 3 + 1 on a streaming
// edge, filter multiplies x by it (n instances, dims n x m x m so that a
// huge m makes it fail), reduce sums x into sum. Every frame is checked
// against the same computation in scalar C. Hooks in the kernels let tests
// see how far stages run ahead of each other and whether stages of
// different frames run at the same time.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include <atomic>
#include <thread>

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

// Root parameters.
enum : unsigned { PX, PBytes, PN, PK, PSum, PM, NumRootParams };

/// What the kernels let tests observe and control.
struct Hooks {
  std::atomic<int64_t> DecodeStarted{0}, FilterDone{0};
  /// The most frames decode was ahead of filter when it started one.
  std::atomic<int64_t> MaxAhead{0};
  std::chrono::milliseconds FilterDelay{0};
  /// Set by decode of frame 1; reduce of frame 0 waits for it (up to a
  /// few seconds) and records whether it came: stages of two frames at
  /// the same time.
  std::atomic<bool> WaitInReduce{false}, Decode1Started{false},
      Overlapped{false};
};
Hooks *H = nullptr;

void decodeKernel(void *const *Args, void *const *Outs, const uint64_t *,
                  const uint64_t *, uint64_t, uint64_t) {
  float *X = buffer<float>(Args, 0);
  int64_t N = value<int64_t>(Args, 2), K = value<int64_t>(Args, 3);
  int64_t Started = H->DecodeStarted.fetch_add(1) + 1;
  int64_t Ahead = Started - H->FilterDone.load();
  for (int64_t Max = H->MaxAhead.load();
       Ahead > Max && !H->MaxAhead.compare_exchange_weak(Max, Ahead);)
    ;
  if (K == 1)
    H->Decode1Started = true;
  for (int64_t I = 0; I != N; ++I)
    X[I] = static_cast<float>(K) + 0.5f * static_cast<float>(I);
  int64_t Scale = K % 3 + 1;
  std::memcpy(Outs[0], &Scale, sizeof(Scale));
}

void filterKernel(void *const *Args, void *const *, const uint64_t *,
                  const uint64_t *, uint64_t Begin, uint64_t End) {
  float *X = buffer<float>(Args, 0);
  float Scale = static_cast<float>(value<int64_t>(Args, 3));
  if (Begin == 0)
    std::this_thread::sleep_for(H->FilterDelay);
  for (uint64_t I = Begin; I != End; ++I)
    X[I] *= Scale;
  // (One instance range per launch on the CPU device with small n.)
  H->FilterDone.fetch_add(Begin == 0 ? 1 : 0);
}

void reduceKernel(void *const *Args, void *const *, const uint64_t *,
                  const uint64_t *, uint64_t, uint64_t) {
  const float *X = buffer<float>(Args, 0);
  double *Sum = buffer<double>(Args, 3);
  int64_t N = value<int64_t>(Args, 2);
  if (H->WaitInReduce.exchange(false)) {
    auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!H->Decode1Started && std::chrono::steady_clock::now() < Until)
      std::this_thread::yield();
    H->Overlapped = H->Decode1Started.load();
  }
  double S = 0;
  for (int64_t I = 0; I != N; ++I)
    S += X[I];
  *Sum = S;
}

/// What frame K's sum must be, in scalar C.
double reference(int64_t K, int64_t N) {
  double S = 0;
  float Scale = static_cast<float>(K % 3 + 1);
  for (int64_t I = 0; I != N; ++I)
    S += (static_cast<float>(K) + 0.5f * static_cast<float>(I)) * Scale;
  return S;
}

/// The pipeline; Filter and Reduce may run on the targets given.
Graph pipelineGraph(const char *Name, unsigned Capacity,
                    TargetMask FilterTargets = TargetCPU,
                    TargetMask ReduceTargets = TargetCPU) {
  Graph G(Name);
  Node &R = G.root();
  R.addBuffer("x", Access::InOut, Extent::param(PBytes));
  R.addValue("bytes", ScalarType::I64);
  R.addValue("n", ScalarType::I64);
  R.addValue("k", ScalarType::I64);
  R.addBuffer("sum", Access::Out, Extent::constant(8));
  R.addValue("m", ScalarType::I64);
  auto Common = [&](Node &L) {
    L.addBuffer("x", Access::InOut, Extent::param(1));
    L.addValue("bytes", ScalarType::I64);
    L.addValue("n", ScalarType::I64);
    R.bind(L, 0, PX);
    R.bind(L, 1, PBytes);
    R.bind(L, 2, PN);
  };
  Node &Decode = R.addLeaf("decode", "decode");
  Common(Decode);
  Decode.addValue("k", ScalarType::I64);
  R.bind(Decode, 3, PK);
  Decode.addOutput("scale", ScalarType::I64);
  Decode.setTargets(TargetCPU);
  Node &Filter = R.addLeaf("filter", "filter");
  Common(Filter);
  Filter.addValue("scale", ScalarType::I64);
  Filter.addValue("m", ScalarType::I64);
  R.bind(Filter, 4, PM);
  Filter.setDims({Extent::param(2), Extent::param(4), Extent::param(4)});
  Filter.setTargets(FilterTargets);
  Node &Reduce = R.addLeaf("reduce", "reduce");
  Common(Reduce);
  Reduce.addBuffer("sum", Access::Out, Extent::constant(8));
  R.bind(Reduce, 3, PSum);
  Reduce.setTargets(ReduceTargets);
  R.addStreamingEdge(Decode, 0, Filter, 3, Capacity);
  R.addDependency(Filter, Reduce);
  return G;
}

std::vector<ArtifactSpec> pipelineArtifacts(const std::string &Name,
                                            bool OnFake = false) {
  // On the fake device: filter there or on the CPU, reduce there only.
  std::vector<ArtifactSpec> A = {
      {Name + "/decode", HPVM_TARGET_CPU, decodeKernel},
      {Name + "/filter", HPVM_TARGET_CPU, filterKernel}};
  if (OnFake)
    A.push_back({Name + "/filter", HPVM_TARGET_NVPTX, filterKernel});
  A.push_back({Name + "/reduce", OnFake ? HPVM_TARGET_NVPTX : HPVM_TARGET_CPU,
               reduceKernel});
  return A;
}

/// Frame buffers and arguments for a ring of Slots frames.
struct Frames {
  Frames(size_t Slots, int64_t N) : N(N), Bytes(N * 4), X(Slots), Sums(Slots) {
    for (auto &B : X)
      B.assign(N, -1.0f);
  }
  /// The arguments of frame K in slot K % slots (pointers to copies that
  /// the push takes its own copy of).
  std::vector<void *> args(int64_t K, int64_t MValue = 1) {
    size_t S = static_cast<size_t>(K) % X.size();
    Sums[S] = -1.0;
    XPtr = X[S].data();
    SumPtr = &Sums[S];
    this->K = K;
    M = MValue;
    return {&XPtr, &Bytes, &this->N, &this->K, &SumPtr, &M};
  }
  double sum(int64_t K) const {
    return Sums[static_cast<size_t>(K) % X.size()];
  }

  int64_t N, Bytes, K = 0, M = 1;
  float *XPtr = nullptr;
  double *SumPtr = nullptr;
  std::vector<std::vector<float>> X;
  std::vector<double> Sums;
};

/// A runtime of its own with the CPU alone and Threads threads, current
/// on this thread for the scope: stages need threads to overlap.
struct CpuRuntime {
  explicit CpuRuntime(unsigned Threads) : RT(config(Threads)), Scope(RT) {}
  static rt::RuntimeConfig config(unsigned Threads) {
    rt::RuntimeConfig Config;
    Config.Threads = Threads;
    Config.Devices = "cpu";
    return Config;
  }
  rt::Runtime RT;
  CurrentRuntime Scope;
};

class StreamTest : public testing::Test {
protected:
  void SetUp() override { H = &Hooks_; }
  void TearDown() override { H = nullptr; }
  Hooks Hooks_;
};

/// Pushes Count frames through a stream of capacity Capacity, popping as
/// room runs out, and checks every frame's sum and order.
void runFrames(hpvm_stream *S, Frames &F, int64_t Count, unsigned Capacity) {
  int64_t Popped = 0;
  auto PopOne = [&] {
    uint64_t Index = ~0ull;
    ASSERT_EQ(hpvm_stream_pop(S, &Index), HPVM_OK) << hpvm_error_message();
    ASSERT_EQ(Index, static_cast<uint64_t>(Popped));
    ASSERT_EQ(F.sum(Popped), reference(Popped, F.N)) << "frame " << Popped;
    ++Popped;
  };
  for (int64_t K = 0; K != Count; ++K) {
    if (K - Popped == static_cast<int64_t>(Capacity))
      PopOne();
    std::vector<void *> Args = F.args(K);
    ASSERT_EQ(hpvm_stream_push(S, Args.data()), HPVM_OK)
        << hpvm_error_message();
  }
  ASSERT_EQ(hpvm_stream_end(S), HPVM_OK);
  while (Popped != Count)
    PopOne();
  uint64_t Index = 77;
  EXPECT_EQ(hpvm_stream_pop(S, &Index), HPVM_END_OF_STREAM);
  EXPECT_EQ(Index, 77u); // untouched at the end
  EXPECT_EQ(hpvm_stream_pop(S, nullptr), HPVM_END_OF_STREAM); // and again
}

TEST_F(StreamTest, EveryFrameRunsInOrderAndMatchesTheReference) {
  Graph G = pipelineGraph("stream_basic", 2);
  TestProgram P({&G}, pipelineArtifacts("stream_basic"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_basic", 4, &S), HPVM_OK)
      << hpvm_error_message();
  Frames F(4, 1001);
  runFrames(S, F, 25, 4);
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
}

TEST_F(StreamTest, StagesOfDifferentFramesRunAtTheSameTime) {
  // reduce of frame 0 waits until decode of frame 1 has started: it can
  // only come while reduce runs, from another thread.
  CpuRuntime Own(3);
  Hooks_.WaitInReduce = true;
  Graph G = pipelineGraph("stream_overlap", 2);
  TestProgram P({&G}, pipelineArtifacts("stream_overlap"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_overlap", 4, &S), HPVM_OK)
      << hpvm_error_message();
  Frames F(4, 100);
  runFrames(S, F, 4, 4);
  EXPECT_TRUE(Hooks_.Overlapped.load());
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
  EXPECT_NE(Own.RT.statsText().find("stream 'stream_overlap': 4 frames"),
            std::string::npos)
      << Own.RT.statsText();
}

TEST_F(StreamTest, AStreamingEdgeBoundsHowFarItsSourceRunsAhead) {
  CpuRuntime Own(4);
  Hooks_.FilterDelay = std::chrono::milliseconds(3);
  for (unsigned Cap : {1u, 2u}) {
    Hooks_.DecodeStarted = 0;
    Hooks_.FilterDone = 0;
    Hooks_.MaxAhead = 0;
    std::string Name = "stream_edge" + std::to_string(Cap);
    Graph G = pipelineGraph(Name.c_str(), Cap);
    TestProgram P({&G}, pipelineArtifacts(Name));
    hpvm_stream *S = nullptr;
    ASSERT_EQ(hpvm_stream_open(&P.Desc, Name.c_str(), 8, &S), HPVM_OK);
    Frames F(8, 64);
    runFrames(S, F, 24, 8);
    EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
    // Frames decoded and not yet filtered, counting the one starting.
    EXPECT_LE(Hooks_.MaxAhead.load(), static_cast<int64_t>(Cap))
        << "capacity " << Cap;
    EXPECT_GE(Hooks_.MaxAhead.load(), 1);
  }
}

TEST_F(StreamTest, ASlowConsumerHoldsTheProducerBack) {
  Graph G = pipelineGraph("stream_slow", 1);
  TestProgram P({&G}, pipelineArtifacts("stream_slow"));
  hpvm_stream *S = nullptr;
  constexpr unsigned Capacity = 2;
  constexpr int64_t Count = 12;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_slow", Capacity, &S), HPVM_OK);
  // A slot per frame: no buffer is reused while the consumer checks it.
  Frames F(Count, 50);
  std::atomic<int64_t> Pushed{0}, Popped{0}, MostUnpopped{0};
  std::mutex ArgsM; // F.args writes shared scratch
  auto Start = std::chrono::steady_clock::now();
  std::thread Producer([&] {
    for (int64_t K = 0; K != Count; ++K) {
      std::vector<void *> Args;
      {
        std::lock_guard<std::mutex> L(ArgsM);
        Args = F.args(K);
      }
      ASSERT_EQ(hpvm_stream_push(S, Args.data()), HPVM_OK)
          << hpvm_error_message();
      int64_t Unpopped = ++Pushed - Popped.load();
      for (int64_t Max = MostUnpopped.load();
           Unpopped > Max &&
           !MostUnpopped.compare_exchange_weak(Max, Unpopped);)
        ;
    }
    ASSERT_EQ(hpvm_stream_end(S), HPVM_OK);
  });
  for (int64_t K = 0;; ++K) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    uint64_t Index;
    int Code = hpvm_stream_pop(S, &Index);
    if (Code == HPVM_END_OF_STREAM) {
      EXPECT_EQ(K, Count);
      break;
    }
    // (EXPECT, not ASSERT: the producer must be joined.)
    EXPECT_EQ(Code, HPVM_OK) << hpvm_error_message();
    EXPECT_EQ(Index, static_cast<uint64_t>(K));
    {
      std::lock_guard<std::mutex> L(ArgsM);
      EXPECT_EQ(F.sum(K), reference(K, F.N)) << "frame " << K;
    }
    ++Popped;
    if (Code != HPVM_OK || K > Count)
      break;
  }
  Producer.join();
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  // (+1: a pop that returned and is not counted yet.)
  EXPECT_LE(MostUnpopped.load(), static_cast<int64_t>(Capacity) + 1);
  // The producer could push all 12 in well under a millisecond; held back,
  // it waits for the consumer's pops, 10 ms apart.
  EXPECT_GE(Ms, 100.0);
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
}

TEST_F(StreamTest, AFailingStageFailsItsFrameOnly) {
  Graph G = pipelineGraph("stream_fail", 1);
  TestProgram P({&G}, pipelineArtifacts("stream_fail"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_fail", 8, &S), HPVM_OK);
  Frames F(8, 40);
  for (int64_t K = 0; K != 8; ++K) {
    // Frame 3's filter has 40 * 2^32 * 2^32 instances: too many to count.
    std::vector<void *> Args = F.args(K, K == 3 ? int64_t(1) << 32 : 1);
    ASSERT_EQ(hpvm_stream_push(S, Args.data()), HPVM_OK);
  }
  hpvm_stream_end(S);
  for (int64_t K = 0; K != 8; ++K) {
    uint64_t Index;
    int Code = hpvm_stream_pop(S, &Index);
    EXPECT_EQ(Index, static_cast<uint64_t>(K));
    if (K == 3) {
      EXPECT_EQ(Code, HPVM_ERR_BAD_VALUE);
      std::string Message = hpvm_error_message();
      EXPECT_NE(Message.find("frame 3"), std::string::npos) << Message;
      EXPECT_NE(Message.find("overflows"), std::string::npos) << Message;
      EXPECT_EQ(F.sum(K), -1.0) << "reduce ran after its frame failed";
    } else {
      EXPECT_EQ(Code, HPVM_OK) << hpvm_error_message();
      EXPECT_EQ(F.sum(K), reference(K, F.N)) << "frame " << K;
    }
  }
  EXPECT_EQ(hpvm_stream_pop(S, nullptr), HPVM_END_OF_STREAM);
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
}

TEST_F(StreamTest, CancelDropsTheFramesNotStarted) {
  Hooks_.FilterDelay = std::chrono::milliseconds(20);
  Graph G = pipelineGraph("stream_cancel", 1);
  TestProgram P({&G}, pipelineArtifacts("stream_cancel"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_cancel", 8, &S), HPVM_OK);
  Frames F(8, 30);
  for (int64_t K = 0; K != 8; ++K) {
    std::vector<void *> Args = F.args(K);
    ASSERT_EQ(hpvm_stream_push(S, Args.data()), HPVM_OK);
  }
  ASSERT_EQ(hpvm_stream_cancel(S), HPVM_OK);
  std::vector<void *> Args = F.args(8);
  EXPECT_EQ(hpvm_stream_push(S, Args.data()), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hpvm_error_message()).find("cancelled"),
            std::string::npos)
      << hpvm_error_message();
  // Frames that started finish and are right; the rest are dropped, and
  // every dropped frame comes after every finished one.
  int64_t Finished = 0, Dropped = 0;
  for (int64_t K = 0; K != 8; ++K) {
    uint64_t Index;
    int Code = hpvm_stream_pop(S, &Index);
    EXPECT_EQ(Index, static_cast<uint64_t>(K));
    if (Code == HPVM_OK) {
      EXPECT_EQ(Dropped, 0) << "frame " << K << " ran after a dropped one";
      EXPECT_EQ(F.sum(K), reference(K, F.N));
      ++Finished;
    } else {
      EXPECT_EQ(Code, HPVM_ERR_CANCELLED);
      EXPECT_EQ(F.sum(K), -1.0);
      ++Dropped;
    }
  }
  EXPECT_GE(Finished, 1); // frame 0 had started: decode runs at once
  EXPECT_GE(Dropped, 1);  // 7 filters of 20 ms cannot all have started
  EXPECT_EQ(hpvm_stream_pop(S, nullptr), HPVM_END_OF_STREAM);
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
}

TEST_F(StreamTest, FramesOnOneBufferRunOneAfterAnother) {
  CpuRuntime Own(4);
  Hooks_.FilterDelay = std::chrono::milliseconds(2);
  Graph G = pipelineGraph("stream_shared", 4);
  TestProgram P({&G}, pipelineArtifacts("stream_shared"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_shared", 6, &S), HPVM_OK);
  // One x for every frame, a sum each.
  int64_t N = 300, Bytes = N * 4, M = 1;
  std::vector<float> X(N);
  std::vector<double> Sums(12, -1.0);
  float *PX = X.data();
  for (int64_t K = 0; K != 12; ++K) {
    if (K >= 6) {
      ASSERT_EQ(hpvm_stream_pop(S, nullptr), HPVM_OK) << hpvm_error_message();
    }
    double *PSum = &Sums[K];
    std::vector<void *> Args{&PX, &Bytes, &N, &K, &PSum, &M};
    ASSERT_EQ(hpvm_stream_push(S, Args.data()), HPVM_OK);
  }
  hpvm_stream_end(S);
  while (hpvm_stream_pop(S, nullptr) == HPVM_OK)
    ;
  for (int64_t K = 0; K != 12; ++K)
    EXPECT_EQ(Sums[K], reference(K, N)) << "frame " << K;
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
}

TEST_F(StreamTest, ALaunchIsAStreamOfOneFrame) {
  Graph G = pipelineGraph("stream_launch", 1);
  TestProgram P({&G}, pipelineArtifacts("stream_launch"));
  Frames F(1, 333);
  for (int64_t K : {4, 5}) {
    ASSERT_EQ(P.launch("stream_launch", F.args(K)), HPVM_OK)
        << hpvm_error_message();
    EXPECT_EQ(F.sum(K), reference(K, F.N));
  }
}

TEST_F(StreamTest, ALeafGraphStreamsToo) {
  Graph G = inOutLeafGraph("stream_leaf", "stream_leaf");
  TestProgram P({&G}, {{"stream_leaf", HPVM_TARGET_CPU,
                        [](void *const *Args, void *const *, const uint64_t *,
                           const uint64_t *, uint64_t B, uint64_t E) {
                          float *X = buffer<float>(Args, 0);
                          for (uint64_t I = B; I != E; ++I)
                            X[I] += 1.0f;
                        }}});
  hpvm_stream *S = nullptr;
  // Capacity 0 means 4: the fifth push waits for a pop.
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_leaf", 0, &S), HPVM_OK);
  std::vector<std::vector<float>> X(4, std::vector<float>(77, 2.0f));
  int64_t N = 77, Bytes = N * 4;
  for (auto &B : X) {
    float *PX = B.data();
    std::vector<void *> Args{&PX, &Bytes, &N};
    ASSERT_EQ(hpvm_stream_push(S, Args.data()), HPVM_OK);
  }
  for (uint64_t K = 0; K != 4; ++K) {
    uint64_t Index;
    ASSERT_EQ(hpvm_stream_pop(S, &Index), HPVM_OK);
    EXPECT_EQ(Index, K);
  }
  for (auto &B : X)
    for (float V : B)
      ASSERT_EQ(V, 3.0f);
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK); // not ended: close ends it
}

TEST_F(StreamTest, NoWaitLaunchesBecomeFramesOfTheThreadsStream) {
  // What hpvm-clang's `nowait` launches call, with a stream set: frames.
  Graph G = pipelineGraph("stream_nowait", 2);
  TestProgram P({&G}, pipelineArtifacts("stream_nowait"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_create(3, &S), HPVM_OK);
  Frames F(3, 64);
  std::vector<void *> Args = F.args(0);
  EXPECT_EQ(hpvm_stream_push(S, Args.data()), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hpvm_error_message()).find("no graph yet"),
            std::string::npos)
      << hpvm_error_message();
  ASSERT_EQ(hpvm_set_thread_stream(S), HPVM_OK);
  for (int64_t K = 0; K != 9; ++K) {
    if (K >= 3) {
      uint64_t Index;
      ASSERT_EQ(hpvm_stream_pop(S, &Index), HPVM_OK) << hpvm_error_message();
      ASSERT_EQ(Index, static_cast<uint64_t>(K - 3));
      ASSERT_EQ(F.sum(K - 3), reference(K - 3, F.N));
    }
    Args = F.args(K);
    hpvm_launch_nowait_or_exit(&P.Desc, "stream_nowait", Args.data());
  }
  ASSERT_EQ(hpvm_stream_end(S), HPVM_OK);
  for (int64_t K = 6; K != 9; ++K) {
    ASSERT_EQ(hpvm_stream_pop(S, nullptr), HPVM_OK);
    EXPECT_EQ(F.sum(K), reference(K, F.N));
  }
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK); // and the thread's stream unset
  // Back to asynchronous launches.
  Args = F.args(20);
  hpvm_launch_nowait_or_exit(&P.Desc, "stream_nowait", Args.data());
  ASSERT_EQ(hpvm_wait_all(), HPVM_OK);
  EXPECT_EQ(F.sum(20), reference(20, F.N));
}

/// Pushes a frame of stream_a, then a `nowait` launch of stream_b while the
/// stream is still set: the second exits.
void nowaitOfAnotherGraph() {
  Hooks Local;
  H = &Local;
  Graph A = pipelineGraph("stream_a", 1);
  Graph B = pipelineGraph("stream_b", 1);
  std::vector<ArtifactSpec> Arts = pipelineArtifacts("stream_a");
  for (ArtifactSpec &X : pipelineArtifacts("stream_b"))
    Arts.push_back(X);
  TestProgram P({&A, &B}, Arts);
  hpvm_stream *S = nullptr;
  hpvm_stream_create(2, &S);
  hpvm_set_thread_stream(S);
  Frames F(2, 8);
  std::vector<void *> Args = F.args(0);
  hpvm_launch_nowait_or_exit(&P.Desc, "stream_a", Args.data());
  Args = F.args(1);
  hpvm_launch_nowait_or_exit(&P.Desc, "stream_b", Args.data());
}

TEST(StreamDeathTest, ANoWaitLaunchOfAnotherGraphExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(nowaitOfAnotherGraph(), testing::ExitedWithCode(1),
              "the stream runs graph 'stream_a'; a frame of graph 'stream_b' "
              "cannot join it");
}

TEST_F(StreamTest, BadCallsAreErrorsWithMessages) {
  Graph G = pipelineGraph("stream_bad", 1);
  TestProgram P({&G}, pipelineArtifacts("stream_bad"));
  hpvm_stream *S = nullptr;
  EXPECT_EQ(hpvm_stream_open(&P.Desc, "stream_bad", 2, nullptr),
            HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_stream_open(nullptr, "stream_bad", 2, &S),
            HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_stream_open(&P.Desc, "nope", 2, &S), HPVM_ERR_UNKNOWN_GRAPH);
  EXPECT_EQ(S, nullptr);
  for (auto Call : {+[] { return hpvm_stream_push(nullptr, nullptr); },
                    +[] { return hpvm_stream_pop(nullptr, nullptr); },
                    +[] { return hpvm_stream_end(nullptr); },
                    +[] { return hpvm_stream_cancel(nullptr); },
                    +[] { return hpvm_stream_close(nullptr); }}) {
    EXPECT_EQ(Call(), HPVM_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(hpvm_error_message()).find("stream is NULL"),
              std::string::npos);
  }
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_bad", 2, &S), HPVM_OK);
  EXPECT_EQ(hpvm_stream_push(S, nullptr), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hpvm_error_message()).find("args is NULL"),
            std::string::npos);
  Frames F(1, 10);
  std::vector<void *> Args = F.args(0);
  Args[PK] = nullptr;
  EXPECT_EQ(hpvm_stream_push(S, Args.data()), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hpvm_error_message()).find("parameter 'k'"),
            std::string::npos)
      << hpvm_error_message();
  ASSERT_EQ(hpvm_stream_end(S), HPVM_OK);
  Args = F.args(0);
  EXPECT_EQ(hpvm_stream_push(S, Args.data()), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hpvm_error_message()).find("ended"), std::string::npos)
      << hpvm_error_message();
  EXPECT_EQ(hpvm_stream_pop(S, nullptr), HPVM_END_OF_STREAM);
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);

  // A replicated root has no stages.
  Graph Grid("stream_grid");
  Grid.root().addBuffer("x", Access::InOut, Extent::constant(8));
  Grid.root().setDims({Extent::constant(2)});
  Node &L = Grid.root().addLeaf("l", "l");
  L.addBuffer("x", Access::InOut, Extent::constant(8));
  Grid.root().bind(L, 0, 0);
  TestProgram PG({&Grid}, {{"stream_grid/l", HPVM_TARGET_CPU, filterKernel}});
  EXPECT_EQ(hpvm_stream_open(&PG.Desc, "stream_grid", 2, &S),
            HPVM_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(hpvm_error_message()).find("replicated root"),
            std::string::npos)
      << hpvm_error_message();
}

TEST_F(StreamTest, HandlesAreCheckedNotTrusted) {
  Graph G = pipelineGraph("stream_handles", 1);
  TestProgram P({&G}, pipelineArtifacts("stream_handles"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_handles", 2, &S), HPVM_OK);
  ASSERT_EQ(hpvm_stream_close(S), HPVM_OK);
  // Closed: every call on it says so (a use after free before).
  for (int K = 0; K != 2; ++K) {
    EXPECT_EQ(hpvm_stream_close(S), HPVM_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(hpvm_error_message()).find("not an open stream"),
              std::string::npos)
        << hpvm_error_message();
  }
  EXPECT_EQ(hpvm_stream_pop(S, nullptr), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_stream_end(S), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_set_thread_stream(S), HPVM_ERR_INVALID_ARGUMENT);
  // A new stream in the same slot is not named by the old handle.
  hpvm_stream *T = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_handles", 2, &T), HPVM_OK);
  EXPECT_NE(T, S);
  EXPECT_EQ(hpvm_stream_end(S), HPVM_ERR_INVALID_ARGUMENT);
  // Something that never was a stream.
  int NotAStream = 0;
  EXPECT_EQ(hpvm_stream_end(reinterpret_cast<hpvm_stream *>(&NotAStream)),
            HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hpvm_stream_close(T), HPVM_OK);

  // A pop on a stream that has no graph and no frame would wait forever.
  ASSERT_EQ(hpvm_stream_create(2, &S), HPVM_OK);
  EXPECT_EQ(hpvm_stream_pop(S, nullptr), HPVM_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hpvm_error_message()).find("no graph and no frame"),
            std::string::npos)
      << hpvm_error_message();
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
}

TEST_F(StreamTest, AStreamClosedByAnotherThreadStopsItsProducer) {
  Graph G = pipelineGraph("stream_race", 2);
  TestProgram P({&G}, pipelineArtifacts("stream_race"));
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_race", 2, &S), HPVM_OK);
  Frames F(64, 257);
  std::atomic<bool> Stopped{false};
  std::atomic<int> Pushed{0};
  // The producer pushes until the stream refuses (it never pops, so it
  // soon waits for room); this thread closes the stream under it.
  std::thread Producer([&] {
    for (int64_t K = 0; K != 64; ++K) {
      std::vector<void *> Args = F.args(K);
      if (hpvm_stream_push(S, Args.data()) != HPVM_OK) {
        Stopped = true;
        return;
      }
      ++Pushed;
    }
  });
  while (Pushed.load() < 2)
    std::this_thread::yield();
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK) << hpvm_error_message();
  Producer.join();
  EXPECT_TRUE(Stopped.load());
  EXPECT_EQ(hpvm_stream_close(S), HPVM_ERR_INVALID_ARGUMENT);
}

/// A thread's `nowait` launches go into a stream that another thread
/// closes: the next one ends the program with a message, not a crash.
void nowaitIntoAClosedStream() {
  Hooks Local;
  H = &Local;
  Graph G = pipelineGraph("stream_closed", 1);
  TestProgram P({&G}, pipelineArtifacts("stream_closed"));
  hpvm_stream *S = nullptr;
  hpvm_stream_create(2, &S);
  hpvm_set_thread_stream(S);
  std::thread([S] { hpvm_stream_close(S); }).join();
  Frames F(2, 8);
  std::vector<void *> Args = F.args(0);
  hpvm_launch_nowait_or_exit(&P.Desc, "stream_closed", Args.data());
}

TEST(StreamDeathTest, ANoWaitLaunchIntoAStreamClosedElsewhereExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(nowaitIntoAClosedStream(), testing::ExitedWithCode(1),
              "the stream this thread pushes its frames into "
              "\\(hpvm_set_thread_stream\\) was closed");
}

extern "C" void *__hpvm__pop(void *Graph); // HPVM-C's hpvm.h

/// HPVM-C: a pop from a streaming launch after its __hpvm__wait.
void popAfterWait() {
  void *Graph = hpvmc_stream_begin();
  hpvmc_stream_end(Graph);
  __hpvm__pop(Graph);
}

TEST(StreamDeathTest, AnHPVMCHandleUsedAfterItsWaitExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(popAfterWait(), testing::ExitedWithCode(1),
              "__hpvm__pop: .* is not the handle of a streaming launch");
}

// Across devices: filter and reduce run on a fake device with memory of
// its own or on the CPU, decode on the CPU, frames overlapping, under
// every policy: each frame's buffers move between memory spaces in its
// own order while other frames use theirs.
class StreamMixed : public testing::TestWithParam<const char *> {
protected:
  void SetUp() override { H = &Hooks_; }
  void TearDown() override { H = nullptr; }
  Hooks Hooks_;
};

TEST_P(StreamMixed, FramesAreRightWhereverTheirStagesRun) {
  ScopedDevice Fake(std::make_unique<FakeDevice>("fake-gpu", HPVM_TARGET_NVPTX,
                                                 std::chrono::milliseconds(1)));
  Graph G =
      pipelineGraph("stream_mixed", 2, TargetCPU | TargetNVPTX, TargetNVPTX);
  TestProgram P({&G}, pipelineArtifacts("stream_mixed", /*OnFake=*/true));
  ASSERT_EQ(hpvm_set_thread_policy(GetParam()), HPVM_OK);
  hpvm_stream *S = nullptr;
  ASSERT_EQ(hpvm_stream_open(&P.Desc, "stream_mixed", 3, &S), HPVM_OK)
      << hpvm_error_message();
  hpvm_set_thread_policy(nullptr);
  Frames F(3, 2000);
  runFrames(S, F, 15, 3);
  EXPECT_EQ(hpvm_stream_close(S), HPVM_OK);
  EXPECT_GE(Fake->Launches.load(), 15u); // every reduce at least
}

INSTANTIATE_TEST_SUITE_P(Policies, StreamMixed,
                         testing::Values("hint", "round-robin", "heft", "dmda",
                                         "auto"));

} // namespace
