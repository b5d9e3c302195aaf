//===- CompletionThread.cpp - Reporting finished device launches ----------===//

#include "CompletionThread.h"

using namespace hpvm::rt;

bool CompletionThread::start() noexcept {
  try {
    std::lock_guard<std::mutex> L(M);
    // Started on first use rather than with the device: most programs
    // never ask.
    if (!Worker.joinable())
      Worker = std::thread([this] { loop(); });
  } catch (...) {
    return false; // out of threads: the caller waits itself
  }
  return true;
}

bool CompletionThread::add(void *Handle, DoneFn Done, void *Ctx) noexcept {
  if (!start())
    return false;
  try {
    std::lock_guard<std::mutex> L(M);
    Items.push_back({Handle, Done, Ctx});
  } catch (...) {
    return false;
  }
  Changed.notify_one();
  return true;
}

void CompletionThread::post(DoneFn Done, void *Ctx) {
  {
    std::lock_guard<std::mutex> L(M);
    Items.push_back({nullptr, Done, Ctx});
  }
  Changed.notify_one();
}

void CompletionThread::stop() {
  {
    std::lock_guard<std::mutex> L(M);
    Stopping = true;
  }
  Changed.notify_one();
  if (Worker.joinable())
    Worker.join();
}

void CompletionThread::loop() {
  std::unique_lock<std::mutex> L(M);
  while (true) {
    Changed.wait(L, [&] { return Stopping || !Items.empty(); });
    if (Items.empty())
      return; // stopping, and nothing is in flight
    Item I = Items.front();
    Items.pop_front();
    L.unlock();
    if (I.Handle)
      Wait(I.Handle);
    I.Done(I.Ctx);
    L.lock();
  }
}
