//===- IdComponents.h - Node dims on GPU id components ----------*- C++ -*-===//
//
// Both GPU launch ABIs (NVPTXABI.h, SPIRVABI.h) put a node's dims on the
// x/y/z components of their thread or invocation ids the same way.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_ABI_IDCOMPONENTS_H
#define HPVM_ABI_IDCOMPONENTS_H

#include <cstddef>

namespace hpvm {

/// The id component (0 = x, 1 = y, 2 = z) that node dim Dim of a node with
/// NumDims dims uses: the last dim, which varies fastest, is x.
inline unsigned idComponent(size_t NumDims, unsigned Dim) {
  return static_cast<unsigned>(NumDims) - 1 - Dim;
}

} // namespace hpvm

#endif // HPVM_ABI_IDCOMPONENTS_H
