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

std::vector<Stats::Row> Stats::rows() const {
  std::lock_guard<std::mutex> L(M);
  std::vector<Row> Rows;
  for (const auto &[Key, E] : Index) {
    uint64_t Launches = E->Launches.load(std::memory_order_relaxed);
    if (!Launches)
      continue;
    Rows.push_back(Row{E->Path, E->Device, Launches,
                       E->Instances.load(std::memory_order_relaxed),
                       E->Nanos.load(std::memory_order_relaxed)});
  }
  return Rows;
}

std::string Stats::format(const std::string &Header, const Coherence &C) const {
  std::vector<Row> Rows = rows();
  const char *Titles[] = {"node",      "device",   "launches",
                          "instances", "total ms", "avg us"};
  std::vector<std::vector<std::string>> Cells;
  for (const Row &R : Rows) {
    char Total[32], Avg[32];
    std::snprintf(Total, sizeof(Total), "%.3f", R.Nanos / 1e6);
    std::snprintf(Avg, sizeof(Avg), "%.1f",
                  R.Launches ? R.Nanos / 1e3 / R.Launches : 0.0);
    Cells.push_back({R.Path, R.Device, std::to_string(R.Launches),
                     std::to_string(R.Instances), Total, Avg});
  }
  size_t Width[6];
  for (size_t I = 0; I != 6; ++I) {
    Width[I] = std::char_traits<char>::length(Titles[I]);
    for (const auto &Line : Cells)
      Width[I] = std::max(Width[I], Line[I].size());
  }
  // Names read best left-aligned, numbers right-aligned.
  auto FormatLine = [&](const std::vector<std::string> &Line) {
    std::string S;
    for (size_t I = 0; I != 6; ++I) {
      std::string Pad(Width[I] - Line[I].size(), ' ');
      if (I)
        S += "  ";
      S += I < 2 ? Line[I] + Pad : Pad + Line[I];
    }
    while (!S.empty() && S.back() == ' ')
      S.pop_back();
    return S + "\n";
  };

  std::string Out = Header + "\n";
  Out += FormatLine({Titles, Titles + 6});
  if (Cells.empty())
    Out += "(no launches)\n";
  for (const auto &Line : Cells)
    Out += FormatLine(Line);
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
  }
}
