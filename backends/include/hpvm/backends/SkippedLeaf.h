//===- SkippedLeaf.h - A leaf a target leaves out ---------------*- C++ -*-===//
//
// A leaf whose code one target cannot express (a libc call on a GPU, a
// 64-bit atomic in OpenCL, ...) gets no artifact for that target when the
// program is compiled for others too: it runs where it can, and the program
// carries an artifact without code that says why (hpvm_rt.h), which hpvm-rt
// names when no device can run the leaf.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_SKIPPEDLEAF_H
#define HPVM_BACKENDS_SKIPPEDLEAF_H

#include <string>

namespace hpvm {

struct SkippedLeaf {
  std::string NodePath;
  /// "the spirv backend (vulkan) cannot compile a call to the external
  /// function '@atof' (...)": the first line of the backend's diagnostic.
  std::string Why;
  /// "file:line:col" of the code it cannot compile; "" without line
  /// information.
  std::string Location;
};

} // namespace hpvm

#endif // HPVM_BACKENDS_SKIPPEDLEAF_H
