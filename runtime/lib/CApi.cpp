//===- CApi.cpp - The C ABI of hpvm_rt.h ----------------------------------===//
//
// Every entry point catches everything: a C caller can only see a status
// and a message. Each acts on the calling thread's current runtime
// (Runtime::current(): the process's unless the thread chose another).
//
//===----------------------------------------------------------------------===//

#include "Handles.h"
#include "LaunchSites.h"
#include "Stream.h"

#include "hpvm/rt/Error.h"
#include "hpvm/rt/Runtime.h"
#include "hpvm/rt/Scheduler.h"
#include "hpvm/rt/hpvm_rt.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <thread>

using namespace hpvm::rt;

namespace {

/// Runs F through the exit gate (Error.h) and turns what it throws into a
/// status and the thread's message.
template <typename Fn> int guarded(Fn &&F) {
  enterCall();
  struct Leave {
    ~Leave() { leaveCall(); }
  } L;
  try {
    F();
    return HPVM_OK;
  } catch (const RtError &E) {
    setErrorMessage(E.what());
    return E.code();
  } catch (const std::exception &E) {
    setErrorMessage(unexpectedErrorMessage(E));
    return HPVM_ERR_DEVICE;
  }
}

/// What a NULL pointer argument that the call needs returns.
int nullArgument(const char *Call, const char *Name) {
  setErrorMessage(std::string(Call) + ": " + Name + " is NULL");
  return HPVM_ERR_INVALID_ARGUMENT;
}

} // namespace

extern "C" int hpvm_launch(const hpvm_program_desc *Program, const char *Graph,
                           void *const *Args) {
  clearErrorMessage();
  return guarded([&] { Runtime::current().launch(Program, Graph, Args); });
}

extern "C" int hpvm_launch_async(const hpvm_program_desc *Program,
                                 const char *Graph, void *const *Args,
                                 hpvm_handle *Handle) {
  clearErrorMessage();
  if (!Handle)
    return nullArgument("hpvm_launch_async", "handle");
  return guarded(
      [&] { *Handle = Runtime::current().launchAsync(Program, Graph, Args); });
}

/// The status of the launch(es) Wait(Message) waited for, with its message
/// as this thread's error; or why the wait itself failed.
template <typename WaitFn> static int waited(WaitFn &&Wait) {
  clearErrorMessage();
  int Code = HPVM_OK;
  int Failed = guarded([&] {
    std::string Message;
    Code = Wait(Message);
    if (Code != HPVM_OK)
      setErrorMessage(Message);
  });
  return Failed != HPVM_OK ? Failed : Code;
}

extern "C" int hpvm_wait(hpvm_handle Handle) {
  return waited([&](std::string &Message) {
    return Runtime::current().wait(Handle, Message);
  });
}

extern "C" int hpvm_test(hpvm_handle Handle, int *Done) {
  clearErrorMessage();
  if (!Done)
    return nullArgument("hpvm_test", "done");
  return guarded([&] { *Done = Runtime::current().finished(Handle); });
}

extern "C" int hpvm_wait_all(void) {
  return waited(
      [](std::string &Message) { return Runtime::current().waitAll(Message); });
}

extern "C" int hpvm_set_thread_policy(const char *Policy) {
  clearErrorMessage();
  // The thread's launch options while a policy is chosen (launch options
  // are per thread and kept alive by the caller: here, the thread itself).
  thread_local LaunchOptions Chosen;
  if (!Policy) {
    if (threadLaunchOptions() == &Chosen)
      setThreadLaunchOptions(nullptr);
    return HPVM_OK;
  }
  if (!isSchedulerName(Policy)) {
    setErrorMessage(std::string("hpvm_set_thread_policy: unknown policy '") +
                    Policy + "' (known: " + schedulerNames() + ")");
    return HPVM_ERR_INVALID_ARGUMENT;
  }
  Chosen.Scheduler = Policy;
  setThreadLaunchOptions(&Chosen);
  return HPVM_OK;
}

/// At exit: the launches of `nowait` nodes nobody waited for. The process
/// must not end under them, nor lose their failures.
static void waitForNoWaitLaunches() {
  std::string Message;
  hpvm_status Code = HPVM_OK;
  try {
    Code = Runtime::get().waitAll(Message, /*AllThreads=*/true);
  } catch (const std::exception &E) {
    Code = HPVM_ERR_DEVICE;
    Message = E.what();
  }
  if (Code == HPVM_OK)
    return;
  std::fprintf(stderr, "hpvm-rt: error: %s\n", Message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

/// The open streams by handle (an hpvm_stream * is a handle, not an
/// address). Never destroyed: streams still open at exit are the runtime's
/// to stop, and a handle must not outlive the table.
static HandleTable<Stream> &streams() {
  static auto *Table = new HandleTable<Stream>;
  return *Table;
}

static uint64_t handleOf(hpvm_stream *S) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(S));
}

/// The stream this thread's `nowait` launches push frames into
/// (hpvm_set_thread_stream), or 0.
static thread_local uint64_t ThreadStream = 0;

/// Sets ThreadStream. While a thread pushes its `nowait` launches into a
/// stream, launch sites must not run them directly.
static void setThreadStream(uint64_t S) {
  if (bool(S) != bool(ThreadStream))
    S ? LaunchSites::hold() : LaunchSites::release();
  ThreadStream = S;
}

/// The C frontend's `nowait` launch, at Site if not null.
static void launchNoWait(const hpvm_program_desc *Program, const char *Graph,
                         void *const *Args, hpvm_launch_site *Site) {
  if (ThreadStream) {
    clearErrorMessage();
    hpvm_exit_on_error(guarded([&] {
      std::shared_ptr<Stream> S = streams().find(ThreadStream);
      if (!S)
        throw RtError(HPVM_ERR_INVALID_ARGUMENT,
                      "a `nowait` launch of graph '" +
                          std::string(Graph ? Graph : "") +
                          "': the stream this thread pushes its frames into "
                          "(hpvm_set_thread_stream) was closed");
      S->runtime().pushFrame(*S, Program, Graph, Args);
    }));
    return;
  }
  static std::once_flag AtExit;
  std::call_once(AtExit, [] { std::atexit(waitForNoWaitLaunches); });
  clearErrorMessage();
  hpvm_exit_on_error(guarded([&] {
    Runtime &RT = Runtime::current();
    if (Site)
      RT.launchAsyncAtSite(*Site, Program, Graph, Args);
    else
      RT.launchAsync(Program, Graph, Args);
  }));
}

extern "C" void hpvm_launch_nowait_or_exit(const hpvm_program_desc *Program,
                                           const char *Graph,
                                           void *const *Args) {
  launchNoWait(Program, Graph, Args, nullptr);
}

extern "C" void
hpvm_launch_nowait_site_or_exit(const hpvm_program_desc *Program,
                                const char *Graph, void *const *Args,
                                hpvm_launch_site *Site) {
  if (!Site)
    hpvm_exit_on_error(nullArgument("hpvm_launch_nowait_site_or_exit", "site"));
  launchNoWait(Program, Graph, Args, Site);
}

extern "C" void hpvm_launch_or_exit(const hpvm_program_desc *Program,
                                    const char *Graph, void *const *Args) {
  hpvm_exit_on_error(hpvm_launch(Program, Graph, Args));
}

extern "C" void hpvm_launch_site_or_exit(const hpvm_program_desc *Program,
                                         const char *Graph, void *const *Args,
                                         hpvm_launch_site *Site) {
  clearErrorMessage();
  if (!Site)
    hpvm_exit_on_error(nullArgument("hpvm_launch_site_or_exit", "site"));
  hpvm_exit_on_error(guarded(
      [&] { Runtime::current().launchAtSite(*Site, Program, Graph, Args); }));
}

extern "C" const char *hpvm_error_message(void) { return errorMessage(); }

extern "C" int hpvm_cpu_threads(void) {
  int Threads = 1;
  guarded([&] { Threads = int(Runtime::processThreads()); });
  return Threads;
}

extern "C" int hpvm_set_cpu_threads(uint32_t Threads) {
  clearErrorMessage();
  if (Runtime::requestProcessThreads(Threads))
    return HPVM_OK;
  setErrorMessage(Threads < 1 || Threads > 4096
                      ? std::to_string(Threads) +
                            " is not a thread count from 1 to 4096"
                      : "the CPU device has started with " +
                            std::to_string(hpvm_cpu_threads()) +
                            " threads; set its threads before the first "
                            "launch");
  return HPVM_ERR_BAD_VALUE;
}

extern "C" void hpvm_print_stats(void) {
  guarded([] {
    std::string Text = Runtime::current().statsText();
    std::fputs(Text.c_str(), stderr);
    std::fflush(stderr);
  });
}

extern "C" void hpvm_release_program(const hpvm_program_desc *Program) {
  guarded([&] { Runtime::releaseEverywhere(Program); });
}

extern "C" int hpvm_data_enter(void *Ptr, uint64_t Bytes) {
  clearErrorMessage();
  return guarded([&] { Runtime::current().dataEnter(Ptr, Bytes); });
}

extern "C" int hpvm_data_exit(void *Ptr) {
  clearErrorMessage();
  return guarded([&] { Runtime::current().dataExit(Ptr); });
}

extern "C" int hpvm_data_request(void *Ptr, uint64_t Bytes) {
  clearErrorMessage();
  return guarded([&] { Runtime::current().dataRequest(Ptr, Bytes); });
}

extern "C" int hpvm_data_update(void *Ptr, uint64_t Bytes) {
  clearErrorMessage();
  return guarded([&] { Runtime::current().dataUpdate(Ptr, Bytes); });
}

extern "C" int hpvm_private_copies(uint64_t Iterations, uint64_t BytesPerCopy,
                                   uint64_t *Copies, void **Memory) {
  if (!Copies || !Memory)
    return nullArgument("hpvm_private_copies", Copies ? "memory" : "copies");
  // Two chunks per thread even out chunks of unequal cost (a triangle);
  // more would only add copies to initialise and combine.
  uint64_t N = 2 * uint64_t(Runtime::current().pool().size());
  N = std::min(N, std::max<uint64_t>(Iterations, 1));
  constexpr uint64_t Budget = uint64_t(1) << 30;
  if (BytesPerCopy)
    N = std::max<uint64_t>(1, std::min(N, Budget / BytesPerCopy));
  *Copies = N;
  *Memory = std::malloc(std::max<uint64_t>(N * BytesPerCopy, 1));
  if (*Memory)
    return HPVM_OK;
  setErrorMessage("no memory for " + std::to_string(N) + " private copies of " +
                  std::to_string(BytesPerCopy) + " bytes (an array reduction)");
  return HPVM_ERR_DEVICE;
}

extern "C" int hpvm_extent_error(const char *Node, uint64_t Instances) {
  setErrorMessage("node '" + std::string(Node ? Node : "?") + "': a loop of " +
                  std::to_string(Instances) +
                  " iterations; a parallel loop runs at most 2^63 - 1 "
                  "instances (its bound is unsigned: check it)");
  return HPVM_ERR_BAD_VALUE;
}

extern "C" void hpvm_exit_on_error(int Status) {
  if (Status == HPVM_OK)
    return;
  // Another thread is ending the process (and may have torn the drivers
  // down under this launch): this thread waits to end with it.
  if (processExiting())
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  std::fprintf(stderr, "hpvm-rt: error: %s\n", errorMessage());
  std::exit(1);
}

extern "C" int hpvm_flush_trace(void) {
  clearErrorMessage();
  return guarded([] { Runtime::current().trace().flush(); });
}

static int notAStream(const char *Call, hpvm_stream *S) {
  char Handle[32];
  std::snprintf(Handle, sizeof(Handle), "%p", static_cast<void *>(S));
  setErrorMessage(std::string(Call) + ": " + Handle +
                  " is not an open stream (closed already, or never "
                  "returned by hpvm_stream_open or hpvm_stream_create)");
  return HPVM_ERR_INVALID_ARGUMENT;
}

/// Runs Fn on a stream, holding it while Fn runs, or says that there is
/// none.
template <typename Fn>
static int onStream(const char *Call, hpvm_stream *S, Fn &&F) {
  clearErrorMessage();
  if (!S)
    return nullArgument(Call, "stream");
  std::shared_ptr<Stream> St = streams().find(handleOf(S));
  if (!St)
    return notAStream(Call, S);
  return guarded([&] { F(*St); });
}

/// Makes a stream with Make() into *Out (NULL on failure).
template <typename Fn>
static int newStream(const char *Call, hpvm_stream **Out, Fn &&Make) {
  clearErrorMessage();
  if (!Out)
    return nullArgument(Call, "stream");
  *Out = nullptr;
  return guarded([&] {
    // The last holder closes it: the caller of hpvm_stream_close, or a
    // thread still pushing when another closed it.
    std::shared_ptr<Stream> S(Make(),
                              [](Stream *S) { S->runtime().closeStream(S); });
    *Out = reinterpret_cast<hpvm_stream *>(
        static_cast<uintptr_t>(streams().add(std::move(S))));
  });
}

extern "C" int hpvm_stream_open(const hpvm_program_desc *Program,
                                const char *Graph, uint32_t Capacity,
                                hpvm_stream **Out) {
  return newStream("hpvm_stream_open", Out, [&] {
    return Runtime::current().openStream(Program, Graph, Capacity);
  });
}

extern "C" int hpvm_stream_create(uint32_t Capacity, hpvm_stream **Out) {
  return newStream("hpvm_stream_create", Out,
                   [&] { return Runtime::current().createStream(Capacity); });
}

extern "C" int hpvm_set_thread_stream(hpvm_stream *S) {
  clearErrorMessage();
  if (S && !streams().find(handleOf(S)))
    return notAStream("hpvm_set_thread_stream", S);
  setThreadStream(handleOf(S));
  return HPVM_OK;
}

extern "C" int hpvm_stream_push(hpvm_stream *S, void *const *Args) {
  return onStream("hpvm_stream_push", S, [&](Stream &St) { St.push(Args); });
}

extern "C" int hpvm_stream_pop(hpvm_stream *S, uint64_t *Frame) {
  int Code = HPVM_OK;
  int Failed = onStream("hpvm_stream_pop", S, [&](Stream &St) {
    uint64_t Index = 0;
    std::string Message;
    Code = St.pop(Index, Message);
    if (Frame && Code != HPVM_END_OF_STREAM)
      *Frame = Index;
    if (Code != HPVM_OK && Code != HPVM_END_OF_STREAM)
      setErrorMessage(Message);
  });
  return Failed != HPVM_OK ? Failed : Code;
}

extern "C" int hpvm_stream_end(hpvm_stream *S) {
  return onStream("hpvm_stream_end", S, [](Stream &St) { St.end(); });
}

extern "C" int hpvm_stream_cancel(hpvm_stream *S) {
  return onStream("hpvm_stream_cancel", S, [](Stream &St) { St.cancel(); });
}

extern "C" int hpvm_stream_close(hpvm_stream *S) {
  clearErrorMessage();
  if (!S)
    return nullArgument("hpvm_stream_close", "stream");
  // Out of the table first: from now on the handle names nothing, here
  // and in every other thread.
  std::shared_ptr<Stream> St = streams().remove(handleOf(S));
  if (!St)
    return notAStream("hpvm_stream_close", S);
  if (ThreadStream == handleOf(S)) // this thread's launches go back to async
    setThreadStream(0);
  return guarded([&] {
    // Wakes a push or pop of another thread (they fail or end now), and
    // waits for the frames still running; the stream itself goes with the
    // last thread holding it.
    St->cancel();
    St->drain();
    St.reset();
  });
}
