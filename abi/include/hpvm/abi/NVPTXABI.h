//===- NVPTXABI.h - How the runtime launches PTX kernels --------*- C++ -*-===//
//
// The launch interface of the NVPTX backend's kernels (docs/backends.md,
// "NVPTX backend"), kept free of LLVM so that the runtime can include it:
// it depends only on the graph model (hpvm/ir/Graph.h) and is header-only.
//
// One PTX module per leaf, one `.entry` in it:
//
//  * name: getNVPTXEntryName(leaf function) — "hpvm_nvptx_" + the leaf
//    function's name without "hpvm.node.", every character PTX does not
//    allow in an identifier replaced by '_';
//  * kernel parameters, in order (cuLaunchKernel's kernelParams[i] points to
//    a value of the parameter's size):
//      buffer parameter   the buffer's device address, u64 (a global-space
//                         pointer in the kernel)
//      i1 value           one byte, 0 or 1
//      other values       as the C ABI stores them (i8 .. i64, f16 as its
//                         2-byte IEEE bits, f32, f64, ptr as 8 bytes)
//    then, for every ancestor level l = 1 (the parent) .. root, 3 u64: the
//    ids of that ancestor's instance, dim 0 first, 0 for missing dims;
//    then one u32, the launch form: 0 = flat, 1 = grid-mapped (below);
//  * node dim D-1 (the last, fastest) is the x component of the thread and
//    block ids, D-2 is y, D-3 is z (nvptxIdComponent). Kernels read their
//    extents from their parameters, as on the CPU and in SPIR-V.
//
// Two launch forms:
//
//  * flat (every leaf): block size nvptxBlockSize(dims), grid
//    ceil(extent / block) per component; instance = block id * block size +
//    thread id; instances past an extent return at once.
//  * grid-mapped (nvptxHasGridForm: a replicated leaf whose parent is
//    replicated): the same kernel also accepts a launch with
//    gridDim = the parent's extents (parent dim mapped to components as
//    above) and blockDim = nvptxBlockSize(leaf dims), with the level-1
//    outer-id parameters all 0. Each block then is one instance of the
//    parent (parent id = block id) and its threads stride over all of the
//    leaf's instances. Lets the runtime run a whole replicated parent whose
//    only child is this leaf as one launch instead of one per instance.
//
// A work-group leaf (docs/ir.md §3.4; nvptxWorkGroups) also has a second
// kernel, its entry followed by hpvm_rt.h's HPVM_WORK_GROUP_ENTRY_SUFFIX,
// with the same parameters (the form ignored): gridDim = the node's extents
// (mapped as above), blockDim = its group extents (the last is x); each
// block is one instance, each thread one work-item, barriers bar.sync 0.
//
// Extents must fit the grid limits (x < 2^31 blocks, y and z < 2^16); the
// runtime reports a launch that does not.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_ABI_NVPTXABI_H
#define HPVM_ABI_NVPTXABI_H

#include "hpvm/abi/IdComponents.h"
#include "hpvm/ir/Graph.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace hpvm {

/// The entry points' name prefix.
constexpr const char *NVPTXEntryPrefix = "hpvm_nvptx_";

/// The SM and PTX version kernels are compiled for unless told otherwise.
constexpr unsigned NVPTXDefaultSM = 80;
constexpr unsigned NVPTXDefaultPTXVersion = 78;

/// "hpvm_nvptx_" + LeafFunctionName without "hpvm.node.", with characters
/// outside [A-Za-z0-9_$] replaced by '_'.
inline std::string getNVPTXEntryName(std::string_view LeafFunctionName) {
  constexpr std::string_view NodePrefix = "hpvm.node.";
  if (LeafFunctionName.substr(0, NodePrefix.size()) == NodePrefix)
    LeafFunctionName.remove_prefix(NodePrefix.size());
  std::string Name = NVPTXEntryPrefix;
  for (char C : LeafFunctionName) {
    bool Ok = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
              (C >= '0' && C <= '9') || C == '_' || C == '$';
    Name += Ok ? C : '_';
  }
  return Name;
}

/// Threads per block (x, y, z) of a kernel of a node with NumDims dims.
inline std::array<uint32_t, 3> nvptxBlockSize(size_t NumDims) {
  switch (NumDims) {
  case 0:
    return {1, 1, 1};
  case 1:
    return {256, 1, 1};
  case 2:
    return {32, 8, 1};
  default:
    return {8, 8, 4};
  }
}

/// The thread/block id component a node dim uses (idComponent).
inline unsigned nvptxIdComponent(size_t NumDims, unsigned Dim) {
  return idComponent(NumDims, Dim);
}

/// Whether leaf N has a work-group kernel: it is a work-group leaf of at
/// most 3 group extents (CUDA takes the block size at launch, so they may be
/// parameters; the runtime checks the device's limits).
inline bool nvptxWorkGroups(const Node &N) {
  return N.isLeaf() && !N.Group.empty() && N.Group.size() <= 3;
}

/// Whether leaf N's kernel also has the grid-mapped form.
inline bool nvptxHasGridForm(const Node &N) {
  return N.isLeaf() && !N.Dims.empty() && N.parent() &&
         !N.parent()->Dims.empty();
}

/// How many ancestor levels a node has (its depth below the graph's root):
/// the number of 3-u64 outer-id groups after the node's parameters.
inline unsigned nvptxAncestorLevels(const Node &N) {
  unsigned Levels = 0;
  for (const Node *P = N.parent(); P; P = P->parent())
    ++Levels;
  return Levels;
}

} // namespace hpvm

#endif // HPVM_ABI_NVPTXABI_H
