//===- Trace.h - Chrome/Perfetto trace of node executions -------*- C++ -*-===//
//
// With HPVM_TRACE=file, every node execution becomes a complete ("X") event
// of the Chrome trace-event format, which chrome://tracing and
// ui.perfetto.dev open: name = node path, cat = device, ts/dur in
// microseconds, tid = the thread that ran it, args = {instances, device,
// and for a leaf with several forms, variant}.
// The copies coherence makes ("upload", "download": cat "copy") and the
// compilation of artifacts on devices ("compile": cat "compile") are host
// events of the thread that waited for them, for every device kind.
// Devices with their own clocks (Vulkan timestamps, CUDA events) add
// device-side events: the same kind of event on a track of its own per
// device, placed on the host time line by the device. Device launches that
// ended without their launching thread (Device::whenDone) go on a track of
// launches in flight per device instead of a thread's. Spans on one track
// that overlap (several launches in flight, kernels running side by side
// on one device) are spread over lanes, tracks named "... #2" and on, so
// that a viewer shows each one. The file is written
// at exit and whenever hpvm_flush_trace() is called, each time complete, so
// it is well formed whenever it exists.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_TRACE_H
#define HPVM_RT_TRACE_H

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace hpvm::rt {

struct NodeStats;

class Trace {
public:
  Trace();

  /// Starts collecting events, to be written to Path.
  void enable(std::string Path);
  /// Stops collecting; what was collected stays until clear().
  void disable() { On.store(false, std::memory_order_relaxed); }
  bool enabled() const { return On.load(std::memory_order_relaxed); }
  std::string path() const;

  /// One execution of Node (its stats entry names node and device) between
  /// two nowNanos() readings. Variant, a string literal or null, names the
  /// form of a leaf that ran where it has several (args.variant:
  /// "streaming-stores" or "normal" for a CPU leaf with a streaming-store
  /// variant).
  /// InFlight: a device launch that ended without the thread that made it.
  void record(const NodeStats &Node, uint64_t Start, uint64_t End,
              uint64_t Instances, const char *Variant = nullptr,
              bool InFlight = false);
  /// A span measured by Device on its own clock (a kernel, a copy), already
  /// converted to nowNanos() time. It goes on Device's own track, so that
  /// device time and the host threads waiting for it are seen side by side.
  /// Bytes is what a copy moved (0 for kernels).
  void recordDevice(const std::string &Device, const std::string &Name,
                    uint64_t Start, uint64_t End, uint64_t Instances,
                    uint64_t Bytes = 0);

  /// A copy coherence made between host memory and Device ("upload" or
  /// "download", a string literal) of Bytes of Buffer, for Node's launch
  /// (or the end of graph Node's launch).
  void recordCopy(const char *Name, const std::string &Device,
                  const std::string &Node, const std::string &Buffer,
                  uint64_t Start, uint64_t End, uint64_t Bytes);
  /// Compiling or loading Node's artifact on Device before its first launch
  /// there.
  void recordCompile(const std::string &Device, const std::string &Node,
                     uint64_t Start, uint64_t End);

  /// The whole trace as JSON.
  std::string json() const;
  /// Writes json() to the path; throws RtError if it cannot. Does nothing
  /// when tracing is off.
  void flush() const;
  size_t numEvents() const;
  void clear();

private:
  struct Event {
    const NodeStats *Node;
    uint64_t Start, End, Instances;
    uint32_t Tid; // 0: in flight, on a track of the device's
    const char *Variant;
  };
  std::atomic<bool> On{false};
  mutable std::mutex M;
  std::string Path;
  std::vector<Event> Events;
  struct DeviceEvent {
    unsigned Track; // index into Tracks
    std::string Name;
    uint64_t Start, End, Instances, Bytes;
  };
  std::vector<DeviceEvent> DeviceEvents;
  struct HostEvent {
    const char *Name, *Category;
    std::string Device, Node, Buffer;
    uint64_t Start, End, Bytes;
    uint32_t Tid;
  };
  std::vector<HostEvent> HostEvents;
  std::vector<std::string> Tracks; // device names, in order of appearance
  uint64_t Origin;
};

} // namespace hpvm::rt

#endif // HPVM_RT_TRACE_H
