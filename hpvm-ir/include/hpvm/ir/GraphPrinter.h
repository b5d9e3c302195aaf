//===- GraphPrinter.h - Text and Graphviz views of a graph ------*- C++ -*-===//
#ifndef HPVM_IR_GRAPHPRINTER_H
#define HPVM_IR_GRAPHPRINTER_H

#include "hpvm/ir/Graph.h"

#include <ostream>

namespace hpvm {

/// An indented, human-readable dump of the whole hierarchy.
void printGraph(const Graph &G, std::ostream &OS);

/// Graphviz DOT: internal nodes as clusters, leaves as boxes, edges styled by
/// kind (dependency dashed, value solid, streaming bold with capacity).
void printDot(const Graph &G, std::ostream &OS);

} // namespace hpvm

#endif // HPVM_IR_GRAPHPRINTER_H
