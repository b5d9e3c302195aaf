//===- Trace.cpp - Chrome/Perfetto trace of node executions ---------------===//

#include "hpvm/rt/Trace.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/Stats.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace hpvm::rt;

namespace {

// Small, stable thread numbers read better in a trace viewer than OS ids.
uint32_t traceThreadId() {
  static std::atomic<uint32_t> NextId{1};
  thread_local uint32_t Id = NextId.fetch_add(1, std::memory_order_relaxed);
  return Id;
}

void appendJsonString(std::string &Out, const std::string &S) {
  static const char Hex[] = "0123456789abcdef";
  Out += '"';
  for (unsigned char C : S) {
    switch (C) {
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\t':
      Out += "\\t";
      break;
    default:
      if (C < 0x20) {
        Out += "\\u00";
        Out += Hex[C >> 4];
        Out += Hex[C & 15];
      } else {
        Out += static_cast<char>(C);
      }
    }
  }
  Out += '"';
}

// Device tracks get thread ids far above the small per-thread numbers, so
// that they never collide and sort after the host threads.
constexpr uint32_t FirstDeviceTrack = 1u << 20;

/// The lane of each span (Start, End) on a track: the first lane that is
/// free when it starts, taking spans in order of start.
std::vector<unsigned>
lanesOf(const std::vector<std::pair<uint64_t, uint64_t>> &Spans) {
  std::vector<size_t> Order(Spans.size());
  for (size_t I = 0; I != Order.size(); ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Spans[A].first < Spans[B].first;
  });
  std::vector<unsigned> Lane(Spans.size());
  std::vector<uint64_t> FreeAt; // per lane
  for (size_t I : Order) {
    unsigned L = 0;
    while (L != FreeAt.size() && FreeAt[L] > Spans[I].first)
      ++L;
    if (L == FreeAt.size())
      FreeAt.push_back(0);
    FreeAt[L] = std::max(Spans[I].second, Spans[I].first);
    Lane[I] = L;
  }
  return Lane;
}

void appendMicros(std::string &Out, uint64_t Nanos) {
  char Buf[40];
  std::snprintf(Buf, sizeof(Buf), "%llu.%03llu",
                static_cast<unsigned long long>(Nanos / 1000),
                static_cast<unsigned long long>(Nanos % 1000));
  Out += Buf;
}

} // namespace

Trace::Trace() : Origin(nowNanos()) {}

void Trace::enable(std::string NewPath) {
  std::lock_guard<std::mutex> L(M);
  Path = std::move(NewPath);
  On.store(true, std::memory_order_relaxed);
}

std::string Trace::path() const {
  std::lock_guard<std::mutex> L(M);
  return Path;
}

void Trace::record(const NodeStats &Node, uint64_t Start, uint64_t End,
                   uint64_t Instances, const char *Variant, bool InFlight) {
  Event E{&Node,  Start, End, Instances, InFlight ? 0 : traceThreadId(),
          Variant};
  std::lock_guard<std::mutex> L(M);
  Events.push_back(E);
}

void Trace::recordDevice(const std::string &Device, const std::string &Name,
                         uint64_t Start, uint64_t End, uint64_t Instances,
                         uint64_t Bytes) {
  std::lock_guard<std::mutex> L(M);
  unsigned Track = 0;
  while (Track != Tracks.size() && Tracks[Track] != Device)
    ++Track;
  if (Track == Tracks.size())
    Tracks.push_back(Device);
  DeviceEvents.push_back(
      DeviceEvent{Track, Name, Start, End, Instances, Bytes});
}

void Trace::recordCopy(const char *Name, const std::string &Device,
                       const std::string &Node, const std::string &Buffer,
                       uint64_t Start, uint64_t End, uint64_t Bytes) {
  HostEvent E{Name,  "copy", Device, Node,           Buffer,
              Start, End,    Bytes,  traceThreadId()};
  std::lock_guard<std::mutex> L(M);
  HostEvents.push_back(std::move(E));
}

void Trace::recordCompile(const std::string &Device, const std::string &Node,
                          uint64_t Start, uint64_t End) {
  HostEvent E{"compile", "compile", Device, Node,           "",
              Start,     End,       0,      traceThreadId()};
  std::lock_guard<std::mutex> L(M);
  HostEvents.push_back(std::move(E));
}

std::string Trace::json() const {
  std::lock_guard<std::mutex> L(M);
  std::string Out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  std::string Pid = std::to_string(static_cast<long>(getpid()));
  Out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + Pid +
         ",\"tid\":0,\"args\":{\"name\":\"hpvm-rt\"}}";

  // Tracks of their own, above the host threads' numbers: per device its
  // clock's events, then per device its launches in flight, each in as
  // many lanes as its spans overlap.
  uint32_t NextTid = FirstDeviceTrack;
  auto LayOut = [&](const std::string &Name, size_t Count, auto &&InTrack,
                    auto &&SpanOf, std::vector<uint32_t> &Tids) {
    std::vector<std::pair<uint64_t, uint64_t>> Spans;
    std::vector<size_t> Which;
    for (size_t I = 0; I != Count; ++I)
      if (InTrack(I)) {
        Spans.push_back(SpanOf(I));
        Which.push_back(I);
      }
    std::vector<unsigned> Lanes = lanesOf(Spans);
    unsigned NumLanes = 0;
    for (size_t K = 0; K != Lanes.size(); ++K) {
      Tids[Which[K]] = NextTid + Lanes[K];
      NumLanes = std::max(NumLanes, Lanes[K] + 1);
    }
    for (unsigned L = 0; L != NumLanes; ++L) {
      Out += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + Pid +
             ",\"tid\":" + std::to_string(NextTid + L) + ",\"args\":{\"name\":";
      appendJsonString(Out, L ? Name + " #" + std::to_string(L + 1) : Name);
      Out += "}}";
    }
    NextTid += NumLanes;
  };
  std::vector<uint32_t> DeviceTids(DeviceEvents.size());
  for (unsigned T = 0; T != Tracks.size(); ++T)
    LayOut(
        Tracks[T] + " (device clock)", DeviceEvents.size(),
        [&](size_t I) { return DeviceEvents[I].Track == T; },
        [&](size_t I) {
          return std::pair(DeviceEvents[I].Start, DeviceEvents[I].End);
        },
        DeviceTids);
  std::vector<uint32_t> EventTids(Events.size());
  std::vector<std::string> InFlightDevices;
  for (const Event &E : Events)
    if (!E.Tid && std::find(InFlightDevices.begin(), InFlightDevices.end(),
                            E.Node->Device) == InFlightDevices.end())
      InFlightDevices.push_back(E.Node->Device);
  for (const std::string &Device : InFlightDevices)
    LayOut(
        Device + " launches in flight", Events.size(),
        [&](size_t I) {
          return !Events[I].Tid && Events[I].Node->Device == Device;
        },
        [&](size_t I) { return std::pair(Events[I].Start, Events[I].End); },
        EventTids);

  for (size_t I = 0; I != Events.size(); ++I) {
    const Event &E = Events[I];
    Out += ",\n{\"name\":";
    appendJsonString(Out, E.Node->Path);
    Out += ",\"cat\":";
    appendJsonString(Out, E.Node->Device);
    Out += ",\"ph\":\"X\",\"ts\":";
    appendMicros(Out, E.Start >= Origin ? E.Start - Origin : 0);
    Out += ",\"dur\":";
    appendMicros(Out, E.End >= E.Start ? E.End - E.Start : 0);
    Out += ",\"pid\":" + Pid +
           ",\"tid\":" + std::to_string(E.Tid ? E.Tid : EventTids[I]);
    Out += ",\"args\":{\"instances\":" + std::to_string(E.Instances) +
           ",\"device\":";
    appendJsonString(Out, E.Node->Device);
    if (E.Variant) {
      Out += ",\"variant\":";
      appendJsonString(Out, E.Variant);
    }
    Out += "}}";
  }
  for (const HostEvent &E : HostEvents) {
    Out += ",\n{\"name\":";
    appendJsonString(Out, E.Name);
    Out += ",\"cat\":";
    appendJsonString(Out, E.Category);
    Out += ",\"ph\":\"X\",\"ts\":";
    appendMicros(Out, E.Start >= Origin ? E.Start - Origin : 0);
    Out += ",\"dur\":";
    appendMicros(Out, E.End >= E.Start ? E.End - E.Start : 0);
    Out += ",\"pid\":" + Pid + ",\"tid\":" + std::to_string(E.Tid);
    Out += ",\"args\":{\"device\":";
    appendJsonString(Out, E.Device);
    Out += ",\"node\":";
    appendJsonString(Out, E.Node);
    if (!E.Buffer.empty()) {
      Out += ",\"buffer\":";
      appendJsonString(Out, E.Buffer);
    }
    if (E.Bytes)
      Out += ",\"bytes\":" + std::to_string(E.Bytes);
    Out += "}}";
  }
  for (size_t I = 0; I != DeviceEvents.size(); ++I) {
    const DeviceEvent &E = DeviceEvents[I];
    const std::string &Device = Tracks[E.Track];
    Out += ",\n{\"name\":";
    appendJsonString(Out, E.Name);
    Out += ",\"cat\":";
    appendJsonString(Out, Device);
    Out += ",\"ph\":\"X\",\"ts\":";
    appendMicros(Out, E.Start >= Origin ? E.Start - Origin : 0);
    Out += ",\"dur\":";
    appendMicros(Out, E.End >= E.Start ? E.End - E.Start : 0);
    Out += ",\"pid\":" + Pid + ",\"tid\":" + std::to_string(DeviceTids[I]);
    Out += ",\"args\":{\"instances\":" + std::to_string(E.Instances) +
           ",\"device\":";
    appendJsonString(Out, Device);
    Out += ",\"clock\":\"device\"";
    if (E.Bytes)
      Out += ",\"bytes\":" + std::to_string(E.Bytes);
    Out += "}}";
  }
  Out += "\n]}\n";
  return Out;
}

void Trace::flush() const {
  if (!enabled())
    return;
  std::string Text = json();
  std::string Where = path();
  // Write a sibling and rename, so that a reader never sees half a file.
  std::string Tmp = Where + ".tmp";
  FILE *F = std::fopen(Tmp.c_str(), "w");
  if (!F)
    throw RtError(HPVM_ERR_CONFIG, "cannot write the trace file '" + Tmp +
                                       "': " + std::strerror(errno));
  bool OK = std::fwrite(Text.data(), 1, Text.size(), F) == Text.size();
  OK = std::fclose(F) == 0 && OK;
  if (!OK || std::rename(Tmp.c_str(), Where.c_str()) != 0) {
    int Err = errno;
    std::remove(Tmp.c_str());
    throw RtError(HPVM_ERR_CONFIG, "cannot write the trace file '" + Where +
                                       "': " + std::strerror(Err));
  }
}

size_t Trace::numEvents() const {
  std::lock_guard<std::mutex> L(M);
  return Events.size() + DeviceEvents.size() + HostEvents.size();
}

void Trace::clear() {
  std::lock_guard<std::mutex> L(M);
  Events.clear();
  DeviceEvents.clear();
  HostEvents.clear();
  Tracks.clear();
}
