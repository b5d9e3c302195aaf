//===- PlanBuilder.h - Turning verified graphs into plans -------*- C++ -*-===//
#ifndef HPVM_RT_LIB_PLANBUILDER_H
#define HPVM_RT_LIB_PLANBUILDER_H

#include "Plan.h"

#include <atomic>
#include <memory>

namespace hpvm::rt {

class Stats;

/// The plan of G, which must have passed verifyGraph. Leaves get ids from
/// NextLeafId; candidates are left for the runtime to fill in.
std::unique_ptr<GraphPlan> buildGraphPlan(const Graph &G, Stats &S,
                                          std::atomic<unsigned> &NextLeafId);

/// The integer value parameter V points to, sign-extended (i1: 0 or 1).
int64_t readInteger(const void *V, ScalarType T);

/// Bytes a value of type T occupies in an argument or output slot.
unsigned typeSize(ScalarType T);

/// Round-to-nearest-even conversion to IEEE half, for f16 constants.
uint16_t toHalf(double V);

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_PLANBUILDER_H
