//===- CApiFuzzer.cpp - libFuzzer target: sequences of C ABI calls -------===//
//
// The input is a sequence of calls on hpvm_rt.h, each a byte choosing the
// call and bytes choosing its arguments: a valid two-stage program's graph
// or names that are not, buffers in an arena or NULL, stream and launch
// handles that were returned, closed already, or never were, data regions
// entered and left in any order. Every call must return a status (with a
// message unless HPVM_OK), never crash, hang or touch freed memory; at the
// end the input's streams are closed and its launches waited for, and the
// arena is checked against the results of the launches that succeeded.
//
//===----------------------------------------------------------------------===//
#include "RuntimeFuzzing.h"
#include "hpvm/rt/hpvm_rt.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

namespace {

constexpr int64_t N = 64;

// stage 1: y[i] = x[i] + 1; stage 2: z[i] = 2 y[i], modulo 2^32 (the arena
// keeps its values from launch to launch).
void inc(void *const *Args, void *const *, const uint64_t *, const uint64_t *,
         uint64_t Begin, uint64_t End) {
  const uint32_t *X = *static_cast<uint32_t *const *>(Args[0]);
  uint32_t *Y = *static_cast<uint32_t *const *>(Args[1]);
  for (uint64_t I = Begin; I != End; ++I)
    Y[I] = X[I] + 1;
}
void twice(void *const *Args, void *const *, const uint64_t *, const uint64_t *,
           uint64_t Begin, uint64_t End) {
  const uint32_t *Y = *static_cast<uint32_t *const *>(Args[0]);
  uint32_t *Z = *static_cast<uint32_t *const *>(Args[1]);
  for (uint64_t I = Begin; I != End; ++I)
    Z[I] = 2 * Y[I];
}

const char *const GraphText = R"(hpvm-graphs 1
graph internal "pipe"
  targets cpu
  param buffer "x" in 256
  param buffer "y" inout 256
  param buffer "z" out 256
  node leaf "inc"
    function "inc"
    dims 64
    param buffer "x" in 256
    param buffer "y" out 256
  end
  node leaf "twice"
    function "twice"
    dims 64
    param buffer "y" in 256
    param buffer "z" out 256
  end
  edge dep 0 1
  bind 0 0 param 0
  bind 0 1 param 1
  bind 1 0 param 1
  bind 1 1 param 2
end
)";

const hpvm_artifact Artifacts[] = {
    {"pipe/inc", HPVM_TARGET_CPU, inc, nullptr, 0, nullptr},
    {"pipe/twice", HPVM_TARGET_CPU, twice, nullptr, 0, nullptr}};
const hpvm_program_desc Program{HPVM_RT_ABI_VERSION, GraphText, 2, Artifacts};

/// Reads the input a byte at a time; 0 once it is used up.
struct Bytes {
  const uint8_t *Data;
  size_t Size, At = 0;
  bool more() const { return At < Size; }
  uint8_t next() { return At < Size ? Data[At++] : 0; }
};

int check(int Status, const char *Call) {
  if (Status != HPVM_OK && Status != HPVM_END_OF_STREAM &&
      !*hpvm_error_message()) {
    std::fprintf(stderr, "%s returned %d with no message\n", Call, Status);
    std::abort();
  }
  return Status;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static uint32_t Arena[8 * N];
  for (int64_t I = 0; I != 8 * N; ++I)
    Arena[I] = static_cast<uint32_t>(I);
  Bytes In{Data, Size};
  std::vector<hpvm_stream *> Streams; // every handle returned, open or not
  // Per stream: its capacity and the frames pushed and not popped. A push
  // into a full stream waits for a pop from another thread (documented:
  // like a full pipe), which this one thread would never make.
  std::map<hpvm_stream *, std::pair<unsigned, unsigned>> Room;
  std::vector<hpvm_handle> Launches; // the same for launches
  std::vector<void *> Regions;       // pointers entered, for exits
  // Three buffers of N elements at arena offsets the input chooses (they
  // may overlap), or NULL.
  auto Args = [&](uint32_t **P, void **A) {
    for (int K = 0; K != 3; ++K) {
      uint8_t B = In.next();
      P[K] = B == 255 ? nullptr : Arena + (B % 8) * N / 2;
      A[K] = &P[K];
    }
  };
  auto AnyStream = [&]() -> hpvm_stream * {
    uint8_t B = In.next();
    if (B < 200 && !Streams.empty())
      return Streams[B % Streams.size()];
    // Values no call returned: small numbers, and the arena's address.
    return B == 255 ? reinterpret_cast<hpvm_stream *>(Arena)
                    : reinterpret_cast<hpvm_stream *>(uintptr_t(B));
  };
  auto AnyLaunch = [&]() -> hpvm_handle {
    uint8_t B = In.next();
    if (B < 200 && !Launches.empty())
      return Launches[B % Launches.size()];
    return B;
  };
  const char *Names[] = {"pipe", "none", nullptr};
  uint32_t *P[3];
  void *A[3];
  for (unsigned Calls = 0; In.more() && Calls != 64; ++Calls) {
    switch (In.next() % 16) {
    case 0: {
      Args(P, A);
      const char *Name = Names[In.next() % 3];
      // With nothing else in flight and three separate buffers, the
      // result is known: z = 2 (x + 1).
      bool Known = Streams.empty() && Launches.empty() && P[0] && P[1] &&
                   P[2] && P[0] != P[1] && P[1] != P[2] && P[0] != P[2] &&
                   (P[0] > P[1] ? P[0] - P[1] : P[1] - P[0]) >= N &&
                   (P[1] > P[2] ? P[1] - P[2] : P[2] - P[1]) >= N &&
                   (P[0] > P[2] ? P[0] - P[2] : P[2] - P[0]) >= N;
      uint32_t X[N];
      if (Known)
        std::memcpy(X, P[0], sizeof X);
      int Status = hpvm_launch(&Program, Name, A);
      check(Status, "hpvm_launch");
      if (Known && Status == HPVM_OK)
        for (int64_t I = 0; I != N; ++I)
          if (P[2][I] != 2 * (X[I] + 1)) {
            std::fprintf(stderr, "z[%lld] = %u, want %u\n", (long long)I,
                         P[2][I], 2 * (X[I] + 1));
            std::abort();
          }
      break;
    }
    case 1: {
      Args(P, A);
      hpvm_handle H = 0;
      check(hpvm_launch_async(&Program, Names[In.next() % 3], A, &H),
            "hpvm_launch_async");
      if (H)
        Launches.push_back(H);
      break;
    }
    case 2:
      check(hpvm_wait(AnyLaunch()), "hpvm_wait");
      break;
    case 3: {
      int Done = 0;
      check(hpvm_test(AnyLaunch(), &Done), "hpvm_test");
      break;
    }
    case 4:
      check(hpvm_wait_all(), "hpvm_wait_all");
      break;
    case 5: {
      hpvm_stream *S = nullptr;
      bool Open = In.next() & 1;
      const char *Name = Names[In.next() % 3];
      unsigned Capacity = In.next() % 4;
      if (Open)
        check(hpvm_stream_open(&Program, Name, Capacity, &S),
              "hpvm_stream_open");
      else
        check(hpvm_stream_create(Capacity, &S), "hpvm_stream_create");
      if (S) {
        Streams.push_back(S);
        Room[S] = {Capacity ? Capacity : 4, 0};
      }
      break;
    }
    case 6: {
      hpvm_stream *S = AnyStream();
      Args(P, A);
      auto It = Room.find(S);
      if (It != Room.end() && It->second.second == It->second.first)
        break;
      if (check(hpvm_stream_push(S, A), "hpvm_stream_push") == HPVM_OK &&
          It != Room.end())
        ++It->second.second;
      break;
    }
    case 7: {
      uint64_t Frame;
      // A pop waits for frames: only after the stream ended or was
      // cancelled, or with frames pushed, does it return; the input ends
      // the stream first (a pop may still wait for a frame that runs).
      hpvm_stream *S = AnyStream();
      check(hpvm_stream_end(S), "hpvm_stream_end");
      if (check(hpvm_stream_pop(S, &Frame), "hpvm_stream_pop") == HPVM_OK)
        --Room[S].second;
      break;
    }
    case 8:
      check(hpvm_stream_cancel(AnyStream()), "hpvm_stream_cancel");
      break;
    case 9:
      check(hpvm_stream_close(AnyStream()), "hpvm_stream_close");
      break;
    case 10: {
      uint8_t B = In.next();
      void *Ptr = B == 255 ? nullptr : Arena + (B % 8) * N / 2;
      check(hpvm_data_enter(Ptr, (In.next() % 5) * N), "hpvm_data_enter");
      Regions.push_back(Ptr);
      break;
    }
    case 11: {
      void *Ptr = Regions.empty() ? Arena : Regions[In.next() % Regions.size()];
      check(hpvm_data_exit(Ptr), "hpvm_data_exit");
      break;
    }
    case 12: {
      uint8_t B = In.next();
      check(hpvm_data_request(Arena + B % (8 * N), (In.next() % 4) * N),
            "hpvm_data_request");
      break;
    }
    case 13: {
      uint8_t B = In.next();
      check(hpvm_data_update(Arena + B % (8 * N), (In.next() % 4) * N),
            "hpvm_data_update");
      break;
    }
    case 14: {
      const char *Policies[] = {"hint", "round-robin", "heft", "dmda",
                                "auto", "nope",        nullptr};
      check(hpvm_set_thread_policy(Policies[In.next() % 7]),
            "hpvm_set_thread_policy");
      break;
    }
    case 15:
      check(hpvm_set_thread_stream(In.next() & 1 ? AnyStream() : nullptr),
            "hpvm_set_thread_stream");
      break;
    }
  }
  // Leave nothing behind for the next input.
  hpvm_set_thread_stream(nullptr);
  for (hpvm_stream *S : Streams)
    hpvm_stream_close(S);
  hpvm_wait_all();
  for (void *Ptr : Regions)
    while (Ptr && hpvm_data_exit(Ptr) == HPVM_OK) {
    }
  hpvm_set_thread_policy(nullptr);
  return 0;
}
