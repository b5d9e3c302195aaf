//===- Inlining.h - Inline a leaf's whole call tree -------------*- C++ -*-===//
//
// Backends want a leaf as one function: the CPU backend so that the
// vectoriser sees the whole body, the SPIR-V backend because shaders have
// no calls worth keeping.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_INLINING_H
#define HPVM_IR_INLINING_H

#include "llvm/ADT/ArrayRef.h"

namespace llvm {
class CallBase;
class Function;
} // namespace llvm

namespace hpvm {

/// Inlines, transitively, every direct call to a defined function among
/// Calls (call sites in Root, e.g. those a first inlining produced).
/// Recursive calls and calls of variadic functions are left alone: they
/// stay ordinary calls, and a backend that cannot have them says so.
void inlineTransitively(llvm::Function *Root,
                        llvm::ArrayRef<llvm::CallBase *> Calls);

} // namespace hpvm

#endif // HPVM_IR_INLINING_H
