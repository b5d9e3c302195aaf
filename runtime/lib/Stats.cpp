//===- Stats.cpp - Per-node launch statistics -----------------------------===//

#include "hpvm/rt/Stats.h"
#include "hpvm/rt/Coherence.h"

#include <algorithm>
#include <cstdio>

using namespace hpvm::rt;

NodeStats &Stats::entry(const std::string &Path, const std::string &Device) {
  std::lock_guard<std::mutex> L(M);
  NodeStats *&Slot = Index[{Path, Device}];
  if (!Slot)
    Slot = &Entries.emplace_back(Path, Device);
  return *Slot;
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
    if (!Launches && !BytesIn)
      continue;
    Rows.push_back(Row{E->Path, E->Device, Launches,
                       E->Instances.load(std::memory_order_relaxed),
                       E->Nanos.load(std::memory_order_relaxed), BytesIn,
                       E->CompileNanos.load(std::memory_order_relaxed)});
  }
  return Rows;
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
  for (const Row &R : rows())
    Cells.push_back({R.Path, R.Device, std::to_string(R.Launches),
                     std::to_string(R.Instances), fixed(R.Nanos / 1e6, 3),
                     fixed(R.Launches ? R.Nanos / 1e3 / R.Launches : 0.0, 1),
                     fixed(R.BytesIn / 1e6, 3),
                     fixed(R.CompileNanos / 1e6, 3)});
  std::string Out = Header + "\n";
  Out += formatTable({"node", "device", "launches", "instances", "total ms",
                      "avg us", "MB in", "compile ms"},
                     Cells, 2);
  if (Cells.empty())
    Out += "(no launches)\n";
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
  }
  for (BufferStats &B : Buffers) {
    B.ToDevices = 0;
    B.ToHost = 0;
  }
}
