//===- SPIRVTestInputs.h - The lit corpus's kernels in unit tests -*- C++
//-*-===//
//
// The SPIR-V unit tests build the kernels of test/lit/spirv/Inputs, run
// them (directly on a Vulkan device or through hpvm-rt) and compare them
// with C++ references; the inputs and the references they share live here.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_TEST_UNIT_BACKENDS_SPIRVTESTINPUTS_H
#define HPVM_TEST_UNIT_BACKENDS_SPIRVTESTINPUTS_H

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <string>

namespace hpvm::test {

/// The text of test/lit/spirv/Inputs/Name; fails the test if unreadable.
inline std::string readInput(const std::string &Name) {
  std::string Path = std::string(HPVM_SPIRV_TEST_INPUTS) + "/" + Name;
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer) {
    ADD_FAILURE() << "cannot read " << Path;
    return "";
  }
  return (*Buffer)->getBuffer().str();
}

/// What cf-nested.ll's nested(a, b, out, n, m) writes to out[I]: a is n
/// rows of M, b has 64 elements.
inline int cfNestedReference(const int *A, const int *B, int M, int I) {
  int Acc = 0;
  for (int J = 0; J < M; J++) {
    int V = A[I * M + J];
    if (V < 0)
      break;
    if (V % 3 == 0)
      continue;
    for (int K = 0; K < V && K < 64; K++) {
      if (B[K] == 5)
        break;
      if (B[K] < 0)
        continue;
      Acc += B[K] * V;
    }
  }
  return Acc;
}

} // namespace hpvm::test

#endif // HPVM_TEST_UNIT_BACKENDS_SPIRVTESTINPUTS_H
