//===- Stats.cpp - Per-node launch statistics -----------------------------===//

#include "hpvm/rt/Stats.h"
#include "hpvm/rt/Coherence.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <tuple>
#include <unistd.h>

using namespace hpvm::rt;

NodeStats &Stats::entry(const std::string &Path, const std::string &Device) {
  std::lock_guard<std::mutex> L(M);
  NodeStats *&Slot = Index[{Path, Device}];
  if (!Slot) {
    Slot = &Entries.emplace_back(Path, Device);
    auto Pending = PendingModels.find({Path, Device});
    if (Pending != PendingModels.end()) {
      for (auto [Bucket, Samples, Mean] : Pending->second)
        Slot->Model.set(Bucket, Samples, Mean);
      PendingModels.erase(Pending);
    }
  }
  return *Slot;
}

/// The model file's first line; the version changes with its format.
static const char *const ModelsHeader = "hpvm-perf-models 1";

std::string Stats::loadModels(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    return "";
  std::string Line;
  if (!std::getline(In, Line) || Line != ModelsHeader)
    return "performance models '" + Path +
           "' are not in this runtime's format; starting without them";
  unsigned Skipped = 0;
  std::lock_guard<std::mutex> L(M);
  // Each line: samples, mean nanoseconds, size bucket, device, node path;
  // or "link", up and down bytes per second, device description.
  while (std::getline(In, Line)) {
    std::istringstream Fields(Line);
    if (Line.rfind("link ", 0) == 0) {
      std::string Word, Device;
      double Up, Down;
      if (!(Fields >> Word >> Up >> Down) || !(Up > 0) || !(Down > 0) ||
          !std::getline(Fields >> std::ws, Device) || Device.empty()) {
        ++Skipped;
        continue;
      }
      Links[Device] = {Up, Down};
      continue;
    }
    uint64_t Samples;
    double Mean;
    unsigned Bucket;
    std::string Device, NodePath, Extra;
    if (!(Fields >> Samples >> Mean >> Bucket >> Device >> NodePath) ||
        (Fields >> Extra) || !Samples || !(Mean >= 0) ||
        Bucket >= PerfModel::Buckets) {
      ++Skipped;
      continue;
    }
    auto It = Index.find({NodePath, Device});
    if (It != Index.end())
      It->second->Model.set(Bucket, Samples, Mean);
    else
      PendingModels[{NodePath, Device}].emplace_back(Bucket, Samples, Mean);
  }
  if (!Skipped)
    return "";
  return "performance models '" + Path + "': " + std::to_string(Skipped) +
         " line(s) that mean nothing were skipped";
}

bool Stats::link(const std::string &Device, double &Up, double &Down) const {
  std::lock_guard<std::mutex> L(M);
  auto It = Links.find(Device);
  if (It == Links.end())
    return false;
  std::tie(Up, Down) = It->second;
  return true;
}

void Stats::setLink(const std::string &Device, double Up, double Down) {
  std::lock_guard<std::mutex> L(M);
  Links[Device] = {Up, Down};
}

std::string Stats::saveModels(const std::string &Path) const {
  std::ostringstream Out;
  Out << ModelsHeader << "\n";
  Out.precision(17);
  {
    std::lock_guard<std::mutex> L(M);
    for (const NodeStats &E : Entries)
      E.Model.forEach([&](unsigned B, uint64_t N, double Mean) {
        Out << N << " " << Mean << " " << B << " " << E.Device << " " << E.Path
            << "\n";
      });
    // Models loaded for nodes this process never ran stay in the file.
    for (const auto &[Key, Models] : PendingModels)
      for (auto [Bucket, Samples, Mean] : Models)
        Out << Samples << " " << Mean << " " << Bucket << " " << Key.second
            << " " << Key.first << "\n";
    for (const auto &[Device, Bandwidth] : Links)
      Out << "link " << Bandwidth.first << " " << Bandwidth.second << " "
          << Device << "\n";
  }
  std::string Tmp = Path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream File(Tmp, std::ios::trunc);
    File << Out.str();
    if (!File.flush())
      return "cannot write performance models to '" + Tmp + "'";
  }
  if (std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    std::remove(Tmp.c_str());
    return "cannot write performance models to '" + Path + "'";
  }
  return "";
}

BufferStats &Stats::buffer(const std::string &Name) {
  std::lock_guard<std::mutex> L(M);
  BufferStats *&Slot = BufferIndex[Name];
  if (!Slot)
    Slot = &Buffers.emplace_back(Name);
  return *Slot;
}

std::vector<Stats::Row> Stats::rows() const {
  std::lock_guard<std::mutex> L(M);
  std::vector<Row> Rows;
  for (const auto &[Key, E] : Index) {
    uint64_t Launches = E->Launches.load(std::memory_order_relaxed);
    uint64_t BytesIn = E->BytesIn.load(std::memory_order_relaxed);
    uint64_t Direct = E->DirectLaunches.load(std::memory_order_relaxed);
    uint64_t Failed = E->FailedLaunches.load(std::memory_order_relaxed);
    if (!Launches && !BytesIn && !Direct && !Failed)
      continue;
    // Launches run in place count as launches, not in the times.
    uint64_t DirectInstances =
        E->DirectInstances.load(std::memory_order_relaxed);
    Rows.push_back(
        Row{E->Path, E->Device, Launches + Direct,
            E->Instances.load(std::memory_order_relaxed) + DirectInstances,
            E->Nanos.load(std::memory_order_relaxed), BytesIn,
            E->CompileNanos.load(std::memory_order_relaxed), Direct,
            DirectInstances, Failed,
            Failed && Failures.count(E) ? Failures.at(E) : std::string()});
  }
  std::sort(Rows.begin(), Rows.end(), [](const Row &A, const Row &B) {
    return std::tie(A.Path, A.Device) < std::tie(B.Path, B.Device);
  });
  return Rows;
}

bool Stats::recordFailure(NodeStats &E, const std::string &Error) {
  std::lock_guard<std::mutex> L(M);
  E.Failed.store(true, std::memory_order_relaxed);
  bool First = E.FailedLaunches.fetch_add(1, std::memory_order_relaxed) == 0;
  if (First)
    Failures[&E] = Error;
  return First;
}

std::vector<Stats::BufferRow> Stats::bufferRows() const {
  std::lock_guard<std::mutex> L(M);
  std::vector<BufferRow> Rows;
  for (const auto &[Name, B] : BufferIndex) {
    uint64_t To = B->ToDevices.load(std::memory_order_relaxed);
    uint64_t Back = B->ToHost.load(std::memory_order_relaxed);
    if (To || Back)
      Rows.push_back(BufferRow{Name, To, Back});
  }
  return Rows;
}

namespace {

/// Columns: names left-aligned, numbers right-aligned.
std::string formatTable(const std::vector<std::string> &Titles,
                        const std::vector<std::vector<std::string>> &Cells,
                        size_t NameColumns) {
  size_t N = Titles.size();
  std::vector<size_t> Width(N);
  for (size_t I = 0; I != N; ++I) {
    Width[I] = Titles[I].size();
    for (const auto &Line : Cells)
      Width[I] = std::max(Width[I], Line[I].size());
  }
  auto FormatLine = [&](const std::vector<std::string> &Line) {
    std::string S;
    for (size_t I = 0; I != N; ++I) {
      std::string Pad(Width[I] - Line[I].size(), ' ');
      if (I)
        S += "  ";
      S += I < NameColumns ? Line[I] + Pad : Pad + Line[I];
    }
    while (!S.empty() && S.back() == ' ')
      S.pop_back();
    return S + "\n";
  };
  std::string Out = FormatLine(Titles);
  for (const auto &Line : Cells)
    Out += FormatLine(Line);
  return Out;
}

std::string fixed(double V, int Digits) {
  char Buf[40];
  std::snprintf(Buf, sizeof(Buf), "%.*f", Digits, V);
  return Buf;
}

} // namespace

std::string Stats::format(const std::string &Header, const Coherence &C) const {
  std::vector<std::vector<std::string>> Cells;
  std::vector<Row> Rows = rows();
  for (const Row &R : Rows)
    Cells.push_back({R.Path, R.Device, std::to_string(R.Launches),
                     std::to_string(R.Instances), fixed(R.Nanos / 1e6, 3),
                     fixed(R.Launches > R.DirectLaunches
                               ? R.Nanos / 1e3 / (R.Launches - R.DirectLaunches)
                               : 0.0,
                           1),
                     fixed(R.BytesIn / 1e6, 3),
                     fixed(R.CompileNanos / 1e6, 3)});
  std::string Out = Header + "\n";
  Out += formatTable({"node", "device", "launches", "instances", "total ms",
                      "avg us", "MB in", "compile ms"},
                     Cells, 2);
  if (Cells.empty())
    Out += "(no launches)\n";
  for (const Row &R : Rows)
    if (R.DirectLaunches)
      Out += "direct: node '" + R.Path + "' on " + R.Device + ": " +
             std::to_string(R.DirectLaunches) + " of its launches (" +
             std::to_string(R.DirectInstances) +
             " instances) ran in place, untimed (total ms and avg us are "
             "the other launches')\n";
  for (const Row &R : Rows)
    if (R.FailedLaunches)
      Out += "fallback: node '" + R.Path + "' failed on " + R.Device + " " +
             std::to_string(R.FailedLaunches) +
             " time(s) and ran on another device: " + R.Failure + "\n";
  std::vector<std::vector<std::string>> BufferCells;
  for (const BufferRow &B : bufferRows())
    BufferCells.push_back(
        {B.Name, fixed(B.ToDevices / 1e6, 3), fixed(B.ToHost / 1e6, 3)});
  if (!BufferCells.empty())
    Out +=
        formatTable({"buffer", "MB to devices", "MB to host"}, BufferCells, 1);
  Out += "coherence: " + std::to_string(C.bytesMoved()) + " bytes moved, " +
         std::to_string(C.copiesAvoided()) + " copies avoided\n";
  return Out;
}

void Stats::reset() {
  std::lock_guard<std::mutex> L(M);
  for (NodeStats &E : Entries) {
    E.Launches = 0;
    E.Instances = 0;
    E.Nanos = 0;
    E.BytesIn = 0;
    E.CompileNanos = 0;
    E.DirectLaunches = 0;
    E.DirectInstances = 0;
    E.FailedLaunches = 0;
    E.Model.clear();
  }
  Failures.clear();
  PendingModels.clear();
  for (BufferStats &B : Buffers) {
    B.ToDevices = 0;
    B.ToHost = 0;
  }
}
