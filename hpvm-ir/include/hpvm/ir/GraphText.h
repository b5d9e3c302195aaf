//===- GraphText.h - The line-based text form of graphs ---------*- C++ -*-===//
//
// The form in which a program carries its graphs to the runtime (the `graphs`
// string of hpvm_program_desc) and in which the Python binding hands graphs
// over. It holds everything in the model, float constants bit for bit, so
// that readGraphText(writeGraphText(Gs)) equals Gs. docs/runtime.md §2 is
// the specification.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_GRAPHTEXT_H
#define HPVM_IR_GRAPHTEXT_H

#include "hpvm/ir/Graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace hpvm {

/// The text form of Graphs, in order, starting with the format header.
std::string writeGraphText(const std::vector<const Graph *> &Graphs);

/// Parses the text form. Throws GraphError("graph text line N: ...") for
/// text that does not follow the format; the graphs are not verified (that
/// is verifyGraph's job), so a structurally wrong graph reads fine.
std::vector<Graph> readGraphText(std::string_view Text);

} // namespace hpvm

#endif // HPVM_IR_GRAPHTEXT_H
