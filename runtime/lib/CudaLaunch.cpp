//===- CudaLaunch.cpp - Settings, launch shapes and parameters for CUDA ---===//
//
// Kept apart from the device itself because none of it needs a driver: how
// a leaf's kernel is launched is NVPTXABI.h turned into numbers, and tests
// check those numbers on any machine.
//
//===----------------------------------------------------------------------===//

#include "Env.h"
#include "PlanBuilder.h"

#include "hpvm/abi/NVPTXABI.h"
#include "hpvm/rt/Cuda.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace hpvm;
using namespace hpvm::rt;

namespace {

const char *const ComponentName[3] = {"x", "y", "z"};

} // namespace

CudaOptions CudaOptions::fromEnvironment() {
  CudaOptions O;
  if (const char *V = env("HPVM_CUDA_DRIVER"))
    O.Driver = V;
  return O;
}

std::string hpvm::rt::cudaFlatShape(size_t NumDims, const uint64_t Dims[3],
                                    const CudaGridLimits &Limits,
                                    CudaLaunchShape &Out) {
  size_t D = std::min<size_t>(NumDims, 3);
  std::array<uint32_t, 3> Block = nvptxBlockSize(D);
  Out = CudaLaunchShape();
  for (unsigned C = 0; C != 3; ++C)
    Out.Block[C] = Block[C];
  for (unsigned Dim = 0; Dim != D; ++Dim) {
    unsigned C = nvptxIdComponent(D, Dim);
    uint64_t Extent = Dims[Dim];
    uint64_t Blocks = Extent / Block[C] + (Extent % Block[C] != 0);
    if (Blocks > Limits.Max[C])
      return "dim " + std::to_string(Dim) + " has extent " +
             std::to_string(Extent) + ", which needs " +
             std::to_string(Blocks) + " blocks of " + std::to_string(Block[C]) +
             " threads along " + ComponentName[C] + ", but the device allows " +
             std::to_string(Limits.Max[C]);
    // An empty index space is never launched; one block of threads that
    // all return at once is what it would be anyway.
    Out.Grid[C] = static_cast<uint32_t>(std::max<uint64_t>(Blocks, 1));
  }
  return "";
}

std::string hpvm::rt::cudaWorkGroupShape(size_t NumDims, const uint64_t Dims[3],
                                         const uint64_t Group[3],
                                         const CudaGridLimits &Limits,
                                         CudaLaunchShape &Out) {
  Out = CudaLaunchShape();
  for (unsigned C = 0; C != 3; ++C)
    Out.Block[C] = static_cast<uint32_t>(Group[C]);
  size_t D = std::min<size_t>(NumDims, 3);
  for (unsigned Dim = 0; Dim != D; ++Dim) {
    unsigned C = nvptxIdComponent(D, Dim);
    uint64_t Extent = Dims[Dim];
    if (Extent > Limits.Max[C])
      return "dim " + std::to_string(Dim) + " has " + std::to_string(Extent) +
             " work-groups, more blocks along " + ComponentName[C] +
             " than the device allows (" + std::to_string(Limits.Max[C]) + ")";
    Out.Grid[C] = static_cast<uint32_t>(std::max<uint64_t>(Extent, 1));
  }
  return "";
}

std::string hpvm::rt::cudaGridMappedShape(size_t LeafNumDims,
                                          size_t ParentNumDims,
                                          const uint64_t ParentDims[3],
                                          const CudaGridLimits &Limits,
                                          CudaLaunchShape &Out) {
  Out = CudaLaunchShape();
  if (LeafNumDims == 0)
    return "the leaf is not replicated, so its kernel has no grid-mapped form";
  if (ParentNumDims == 0)
    return "the leaf's parent is not replicated, so its kernel has no "
           "grid-mapped form";
  std::array<uint32_t, 3> Block =
      nvptxBlockSize(std::min<size_t>(LeafNumDims, 3));
  for (unsigned C = 0; C != 3; ++C)
    Out.Block[C] = Block[C];
  size_t D = std::min<size_t>(ParentNumDims, 3);
  for (unsigned Dim = 0; Dim != D; ++Dim) {
    unsigned C = nvptxIdComponent(D, Dim);
    uint64_t Extent = ParentDims[Dim];
    if (Extent > Limits.Max[C])
      return "parent dim " + std::to_string(Dim) + " has extent " +
             std::to_string(Extent) + ", more blocks along " +
             ComponentName[C] + " than the device allows (" +
             std::to_string(Limits.Max[C]) + ")";
    Out.Grid[C] = static_cast<uint32_t>(std::max<uint64_t>(Extent, 1));
  }
  return "";
}

size_t hpvm::rt::cudaKernelParamCount(const Node &Leaf, unsigned OuterLevels) {
  return Leaf.Params.size() + 3 * size_t(OuterLevels) + 1;
}

std::string hpvm::rt::cudaMarshalParams(const Node &Leaf, void *const *Args,
                                        const uint64_t *OuterIds,
                                        unsigned OuterLevels,
                                        CudaLaunchForm Form, uint64_t *Slots,
                                        void **Ptrs) {
  size_t NumParams = Leaf.Params.size();
  for (size_t K = 0; K != NumParams; ++K) {
    const Param &P = Leaf.Params[K];
    Slots[K] = 0;
    Ptrs[K] = &Slots[K];
    if (!Args[K])
      return "the argument for parameter '" + P.Name + "' is NULL";
    if (P.isBuffer())
      std::memcpy(&Slots[K], Args[K], sizeof(void *));
    else if (P.Type == ScalarType::I1)
      Slots[K] = *static_cast<const uint8_t *>(Args[K]) & 1;
    else
      std::memcpy(&Slots[K], Args[K], typeSize(P.Type));
  }
  // The grid-mapped form takes the parent's ids from the block id; its
  // level-1 parameters are 0 whatever the caller passes.
  size_t Ids = 3 * size_t(OuterLevels);
  for (size_t I = 0; I != Ids; ++I) {
    uint64_t V = Form == CudaLaunchForm::GridMapped && I < 3 ? 0 : OuterIds[I];
    Slots[NumParams + I] = V;
    Ptrs[NumParams + I] = &Slots[NumParams + I];
  }
  size_t Last = NumParams + Ids;
  Slots[Last] = 0;
  uint32_t FormValue = static_cast<uint32_t>(Form);
  std::memcpy(&Slots[Last], &FormValue, sizeof(FormValue));
  Ptrs[Last] = &Slots[Last];
  return "";
}
