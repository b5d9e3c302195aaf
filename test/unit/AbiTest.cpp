//===- AbiTest.cpp - The target bits agree everywhere they are spelled ----===//
//
// hpvm/abi/targets.h defines the target bits once; hpvm_rt.h and the graph
// model use it, and hpvm_markers.h (read alone by a user's compiler) spells
// them again. A disagreement would put kernels on the wrong device, so it is a
// compile error here, and the values are checked at run time as well.
//
//===----------------------------------------------------------------------===//
#include "hpvm/abi/targets.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/rt/hpvm_rt.h"

// The marker form's header, as any C++ compiler sees it.
#include "hpvm_markers.h"

#include <gtest/gtest.h>

static_assert(HPVM_CPU == HPVM_ABI_TARGET_CPU, "hpvm.h's HPVM_CPU");
static_assert(HPVM_NVPTX == HPVM_ABI_TARGET_NVPTX, "hpvm.h's HPVM_NVPTX");
static_assert(HPVM_SPIRV == HPVM_ABI_TARGET_SPIRV, "hpvm.h's HPVM_SPIRV");
static_assert(HPVM_STREAM_END == HPVM_END_OF_STREAM,
              "hpvm.h's HPVM_STREAM_END");
static_assert(HPVM_TARGET_CPU == hpvm::TargetCPU, "hpvm_rt.h and Graph.h");
static_assert(HPVM_TARGET_NVPTX == hpvm::TargetNVPTX, "hpvm_rt.h and Graph.h");
static_assert(HPVM_TARGET_SPIRV == hpvm::TargetSPIRV, "hpvm_rt.h and Graph.h");

TEST(Abi, TargetBitsAreDistinctAndAgree) {
  unsigned Bits[] = {HPVM_ABI_TARGET_CPU, HPVM_ABI_TARGET_NVPTX,
                     HPVM_ABI_TARGET_SPIRV, HPVM_ABI_TARGET_OPENCL};
  unsigned Seen = 0;
  for (unsigned B : Bits) {
    EXPECT_EQ(B & (B - 1), 0u) << B << " is not one bit";
    EXPECT_EQ(Seen & B, 0u) << B << " is used twice";
    Seen |= B;
  }
  EXPECT_EQ(hpvm::AllTargets, HPVM_ABI_TARGET_CPU | HPVM_ABI_TARGET_NVPTX |
                                  HPVM_ABI_TARGET_SPIRV);
  EXPECT_EQ(hpvm::targetsToString(HPVM_CPU | HPVM_SPIRV), "cpu,spirv");
}
