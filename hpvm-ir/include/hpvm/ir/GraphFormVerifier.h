//===- GraphFormVerifier.h - Rules of a module in graph form ----*- C++ -*-===//
//
// verifyGraph's model rules plus what needs the LLVM module (docs/ir.md
// §3.3): every leaf function exists and its signature matches its node, no
// leaf writes through an input-only buffer, every launch names a known graph
// with arguments that match its root's parameters, and every instance-id call
// sits in a leaf function and names a dim of the leaf or of an ancestor.
// PREPARE runs it first, so what passes here only needs PREPARE's own limits
// checked.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_GRAPHFORMVERIFIER_H
#define HPVM_IR_GRAPHFORMVERIFIER_H

#include <string>

namespace llvm {
class Module;
}

namespace hpvm {

class Node;

/// What every backend relies on about leaf N before it compiles it: its
/// function is defined with the node's signature, it has at most 3 dims and
/// its extents name integer value parameters. Returns "" if all holds,
/// otherwise what does not. (verifyGraphForm checks all of this and more;
/// backends call this so that a module that skipped it cannot crash them.)
std::string leafInterfaceProblem(const llvm::Module &M, const Node &N);

/// Reports every broken rule through the module's context (DiagnosticInfoHPVM)
/// and returns how many there were.
unsigned verifyGraphForm(llvm::Module &M);

} // namespace hpvm

#endif // HPVM_IR_GRAPHFORMVERIFIER_H
