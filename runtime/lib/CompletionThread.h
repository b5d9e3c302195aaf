//===- CompletionThread.h - Reporting finished device launches --*- C++ -*-===//
//
// What a device needs for Device::whenDone: one thread per device, started
// on first use, that calls the callbacks of finished launches. Where the
// API has no callback of its own (a Vulkan fence, a CUDA event) the thread
// blocks on each launch handed to it, oldest first, and then calls its
// callback; one thread serves every launch in flight, so no pool worker
// blocks on a kernel, and oldest first is right for a queue or stream that
// finishes work in the order it was submitted. Where the API calls back
// (OpenCL's event callbacks), the callback posts the launch's callback to
// the thread: the API's own thread must not wait for locks the runtime
// holds while it calls the API.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_COMPLETIONTHREAD_H
#define HPVM_RT_LIB_COMPLETIONTHREAD_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace hpvm::rt {

class CompletionThread {
public:
  /// Blocks until the launch behind Handle has finished on the device,
  /// successfully or not (the device's wait() reports failures later).
  using WaitFn = std::function<void(void *Handle)>;
  using DoneFn = void (*)(void *Ctx);

  /// Without Wait, only post() may be used.
  explicit CompletionThread(WaitFn Wait = nullptr) : Wait(std::move(Wait)) {}
  /// Waits for every launch handed over, calls their callbacks, and stops.
  ~CompletionThread() { stop(); }
  CompletionThread(const CompletionThread &) = delete;
  CompletionThread &operator=(const CompletionThread &) = delete;

  /// Done(Ctx) is called once the launch behind Handle has finished; false
  /// if that cannot be arranged (the thread would not start).
  bool add(void *Handle, DoneFn Done, void *Ctx) noexcept;
  /// Starts the thread, for post(); false if it would not start.
  bool start() noexcept;
  /// Done(Ctx) is called on the thread without waiting for anything; only
  /// after start() succeeded.
  void post(DoneFn Done, void *Ctx);
  /// As the destructor; devices call it before they destroy what Wait uses.
  void stop();

private:
  struct Item {
    void *Handle; // null: nothing to wait for
    DoneFn Done;
    void *Ctx;
  };
  WaitFn Wait;
  std::mutex M;
  std::condition_variable Changed;
  std::deque<Item> Items;
  bool Stopping = false;
  std::thread Worker;

  void loop();
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_COMPLETIONTHREAD_H
