//===- GraphVerifier.h - Structural rules of the graph model ----*- C++ -*-===//
//
// Checks the rules of docs/ir.md §3 that can be seen on the model alone:
// indices in range, bindings complete and well typed, value-edge types,
// acyclic non-streaming edges, at most three dimensions. The LLVM-level rules
// (leaf functions and their signatures) are in GraphFormVerifier.h.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_GRAPHVERIFIER_H
#define HPVM_IR_GRAPHVERIFIER_H

#include "hpvm/ir/Graph.h"

#include <string>
#include <vector>

namespace hpvm {

/// One broken rule: Rule is the stable rule name from docs/ir.md (e.g.
/// "edge-cycle"), Where the node path, Message says what is wrong.
struct GraphDiagnostic {
  std::string Rule;
  std::string Where;
  std::string Message;
  /// "graph 'g', node 'g/a': [rule] message"
  std::string str() const;
};

/// Returns every broken rule; empty means the graph is well formed.
std::vector<GraphDiagnostic> verifyGraph(const Graph &G);

} // namespace hpvm

#endif // HPVM_IR_GRAPHVERIFIER_H
