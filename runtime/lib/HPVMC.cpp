//===- HPVMC.cpp - HPVM-C's host calls on hpvm-rt -------------------------===//
//
// The host side of HPVM-C (docs/hpvm-c.md): the calls HPVM's programs make
// around their launches, defined here rather than in hpvm.h so that a
// program compiled against HPVM's own header (which declares them, and which
// HPVM's programs often carry next to their sources) links and runs the
// same. hpvm-clang turns __hpvm__launch and __hpvm__push into launches; what
// is left is waiting, data regions and the bookkeeping of streams. Errors
// end the program with hpvm-rt's message, as HPVM-C's calls return nothing.
//
//===----------------------------------------------------------------------===//

#include "hpvm/rt/hpvm_rt.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <unordered_set>

namespace {

/// A streaming launch: its hpvm-rt stream and, for the frames pushed and
/// not yet popped, in order, where their outputs are.
struct StreamingGraph {
  hpvm_stream *Stream = nullptr;
  std::deque<void *> Outputs;
};

/// The streaming launches not ended yet: a handle the program passes back
/// (to __hpvm__pop) is checked against them, so that one used after its
/// __hpvm__wait is an error, not a use of freed memory.
std::mutex LiveM;
std::unordered_set<StreamingGraph *> &live() {
  static auto *Live = new std::unordered_set<StreamingGraph *>;
  return *Live;
}

StreamingGraph *checked(void *Graph, const char *Call) {
  auto *G = static_cast<StreamingGraph *>(Graph);
  std::lock_guard<std::mutex> L(LiveM);
  if (!live().count(G)) {
    std::fprintf(stderr,
                 "hpvm-rt: error: %s: %p is not the handle of a streaming "
                 "launch (__hpvm__launch(1, ...)) that has not been waited "
                 "for\n",
                 Call, Graph);
    std::exit(EXIT_FAILURE);
  }
  return G;
}

} // namespace

extern "C" {

void __hpvm__init(void) {}

void __hpvm__wait(void *) { hpvm_exit_on_error(hpvm_wait_all()); }

void __hpvm__cleanup(void) { hpvm_exit_on_error(hpvm_wait_all()); }

void llvm_hpvm_track_mem(void *Ptr, size_t Bytes) {
  hpvm_exit_on_error(hpvm_data_enter(Ptr, Bytes));
}

void llvm_hpvm_request_mem(void *Ptr, size_t Bytes) {
  hpvm_exit_on_error(hpvm_data_request(Ptr, Bytes));
}

void llvm_hpvm_untrack_mem(void *Ptr) {
  hpvm_exit_on_error(hpvm_data_exit(Ptr));
}

void *hpvmc_stream_begin(void) {
  auto *G = new StreamingGraph;
  hpvm_exit_on_error(hpvm_stream_create(HPVMC_STREAM_CAPACITY, &G->Stream));
  std::lock_guard<std::mutex> L(LiveM);
  live().insert(G);
  return G;
}

void hpvmc_stream_push_begin(void *Graph, void *Outputs) {
  StreamingGraph *G = checked(Graph, "__hpvm__push");
  if (G->Outputs.size() == HPVMC_STREAM_CAPACITY) {
    // The push would wait for a pop that this thread has yet to make.
    std::fprintf(stderr,
                 "hpvm-rt: error: __hpvm__push: %d frames pushed and not "
                 "popped; pop some first\n",
                 HPVMC_STREAM_CAPACITY);
    std::exit(EXIT_FAILURE);
  }
  G->Outputs.push_back(Outputs);
  hpvm_exit_on_error(hpvm_set_thread_stream(G->Stream));
}

void hpvmc_stream_push_end(void *) {
  hpvm_exit_on_error(hpvm_set_thread_stream(nullptr));
}

void *__hpvm__pop(void *Graph) {
  StreamingGraph *G = checked(Graph, "__hpvm__pop");
  if (G->Outputs.empty())
    return nullptr;
  uint64_t Frame = 0;
  int Status = hpvm_stream_pop(G->Stream, &Frame);
  if (Status == HPVM_END_OF_STREAM)
    return nullptr;
  hpvm_exit_on_error(Status);
  void *Outputs = G->Outputs.front();
  G->Outputs.pop_front();
  return Outputs;
}

void hpvmc_stream_end(void *Graph) {
  StreamingGraph *G = checked(Graph, "__hpvm__wait");
  hpvm_exit_on_error(hpvm_stream_end(G->Stream));
  while (!G->Outputs.empty())
    __hpvm__pop(Graph);
  hpvm_exit_on_error(hpvm_stream_close(G->Stream));
  {
    std::lock_guard<std::mutex> L(LiveM);
    live().erase(G);
  }
  delete G;
}

} // extern "C"
