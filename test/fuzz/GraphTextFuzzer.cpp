//===- GraphTextFuzzer.cpp - libFuzzer target: the graph text reader ------===//
//
// Any text: the reader throws GraphError or returns graphs; graphs it
// returns verify without crashing, and what the writer makes of them reads
// back as the same graphs.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/GraphText.h"
#include "hpvm/ir/GraphVerifier.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::vector<hpvm::Graph> Graphs;
  try {
    Graphs = hpvm::readGraphText(
        std::string_view(reinterpret_cast<const char *>(Data), Size));
  } catch (const hpvm::GraphError &) {
    return 0;
  }
  std::vector<const hpvm::Graph *> Pointers;
  for (const hpvm::Graph &G : Graphs) {
    (void)hpvm::verifyGraph(G);
    Pointers.push_back(&G);
  }
  std::vector<hpvm::Graph> Again =
      hpvm::readGraphText(hpvm::writeGraphText(Pointers));
  if (Again.size() != Graphs.size()) {
    std::fprintf(stderr, "round trip changed the number of graphs\n");
    std::abort();
  }
  for (size_t I = 0; I != Graphs.size(); ++I)
    if (!Again[I].equals(Graphs[I])) {
      std::fprintf(stderr, "round trip changed graph %zu\n", I);
      std::abort();
    }
  return 0;
}
