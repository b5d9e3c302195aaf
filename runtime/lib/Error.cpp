//===- Error.cpp - The per-thread error message ---------------------------===//

#include "hpvm/rt/Error.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>
#include <system_error>
#include <thread>

using namespace hpvm::rt;

namespace {
// Per thread, as the C ABI promises: concurrent launches from different
// threads each see their own last error.
thread_local std::string Message;
} // namespace

void hpvm::rt::setErrorMessage(std::string NewMessage) {
  Message = std::move(NewMessage);
}

void hpvm::rt::clearErrorMessage() { Message.clear(); }

const char *hpvm::rt::errorMessage() { return Message.c_str(); }

std::string hpvm::rt::unexpectedErrorMessage(const std::exception &E) {
  if (dynamic_cast<const std::bad_alloc *>(&E))
    return "out of memory: the runtime could not allocate what the launch "
           "needs";
  if (dynamic_cast<const std::system_error *>(&E))
    return std::string("the system refused a resource (") + E.what() +
           "): the process may have run out of threads or memory";
  return std::string("internal error: ") + E.what();
}

namespace {
std::atomic<bool> Exiting{false};
/// Calls under way in all threads, and in this one.
std::atomic<unsigned> Active{0};
thread_local unsigned ActiveHere = 0;
/// The thread running exit(): its handlers call the runtime too.
thread_local bool ExitingHere = false;

void closeGate() {
  ExitingHere = true;
  Exiting.store(true, std::memory_order_seq_cst);
  // This thread's own calls (exit() from inside a kernel) cannot finish
  // first. A call that does not finish in time (a pop waiting for a frame
  // nobody pushes) is left to the drivers' teardown.
  for (int Waited = 0; Active.load() > ActiveHere && Waited != 10000; ++Waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
} // namespace

void hpvm::rt::enterCall() {
  Active.fetch_add(1, std::memory_order_seq_cst);
  ++ActiveHere;
  if (Exiting.load(std::memory_order_seq_cst) && !ExitingHere) {
    // Not started: the exiting thread need not wait for it.
    --ActiveHere;
    Active.fetch_sub(1);
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

void hpvm::rt::leaveCall() {
  --ActiveHere;
  Active.fetch_sub(1, std::memory_order_seq_cst);
}

bool hpvm::rt::processExiting() {
  return Exiting.load(std::memory_order_acquire) && !ExitingHere;
}

void hpvm::rt::watchForExit() {
  // Exit handlers run last registered first: this one runs before those of
  // the drivers loaded so far. A handler per call (a few: once for the
  // runtime, once per device kind found later); closing twice is harmless.
  std::atexit(closeGate);
}
