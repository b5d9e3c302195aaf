//===- Trace.cpp - Chrome/Perfetto trace of node executions ---------------===//

#include "hpvm/rt/Trace.h"
#include "hpvm/rt/Clock.h"
#include "hpvm/rt/Error.h"
#include "hpvm/rt/Stats.h"

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
                   uint64_t Instances, const char *Variant) {
  Event E{&Node, Start, End, Instances, traceThreadId(), Variant};
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
  for (const Event &E : Events) {
    Out += ",\n{\"name\":";
    appendJsonString(Out, E.Node->Path);
    Out += ",\"cat\":";
    appendJsonString(Out, E.Node->Device);
    Out += ",\"ph\":\"X\",\"ts\":";
    appendMicros(Out, E.Start >= Origin ? E.Start - Origin : 0);
    Out += ",\"dur\":";
    appendMicros(Out, E.End >= E.Start ? E.End - E.Start : 0);
    Out += ",\"pid\":" + Pid + ",\"tid\":" + std::to_string(E.Tid);
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
  for (size_t T = 0; T != Tracks.size(); ++T) {
    Out += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + Pid +
           ",\"tid\":" + std::to_string(FirstDeviceTrack + T) +
           ",\"args\":{\"name\":";
    appendJsonString(Out, Tracks[T] + " (device clock)");
    Out += "}}";
  }
  for (const DeviceEvent &E : DeviceEvents) {
    const std::string &Device = Tracks[E.Track];
    Out += ",\n{\"name\":";
    appendJsonString(Out, E.Name);
    Out += ",\"cat\":";
    appendJsonString(Out, Device);
    Out += ",\"ph\":\"X\",\"ts\":";
    appendMicros(Out, E.Start >= Origin ? E.Start - Origin : 0);
    Out += ",\"dur\":";
    appendMicros(Out, E.End >= E.Start ? E.End - E.Start : 0);
    Out += ",\"pid\":" + Pid +
           ",\"tid\":" + std::to_string(FirstDeviceTrack + E.Track);
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
