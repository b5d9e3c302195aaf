//===- BarrierPhases.h - A leaf split at its barriers -----------*- C++ -*-===//
//
// A barrier between the instances of a leaf (HPVM-C's __hpvm__barrier) means
// that every instance finishes the code before it before any instance runs
// the code after it. splitAtBarriers turns such a leaf into phases:
// functions of an instance, each run over all the instances (of a
// work-group) before the next. What an instance computed before a barrier
// and uses after it is carried in scratch memory, a record per instance.
// A barrier inside a loop makes the loop a loop around the phases of its
// body, whose trip count must be known before the phases run
// (docs/hpvm-c.md, "Barriers").
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_LIB_BARRIERPHASES_H
#define HPVM_IR_LIB_BARRIERPHASES_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Function.h"

#include <optional>
#include <vector>

namespace hpvm {

struct BarrierPhases {
  /// What the leaf does, in order: a phase, or a loop run in order.
  struct Step {
    /// A phase: a function of the leaf's parameters and the scratch memory.
    llvm::Function *Phase = nullptr;
    /// A loop: the number of times its Body runs, an i64 computed in the
    /// leaf's entry block from its uniform parameters; and its number among
    /// the loops (Loops).
    llvm::Value *Trips = nullptr;
    unsigned Loop = 0;
    std::vector<Step> Body;
  };
  std::vector<Step> Steps;
  /// Every phase function, once.
  std::vector<llvm::Function *> Functions;
  /// The scratch memory each instance needs, in bytes.
  uint64_t RecordBytes = 0;
  /// The number of loops around barriers.
  unsigned Loops = 0;
  /// Functions of the leaf's parameters that count the iterations of loops
  /// scalar evolution has no formula for (a halving loop from a parameter):
  /// a Trips is then a call of one, for the caller to make in front of the
  /// launch and then delete.
  std::vector<llvm::Function *> TripCounters;
};

/// Splits Leaf at the calls IsBarrier names. Leaf's last two parameters are
/// i64s: the instance's index among all instances, and their number. A phase
/// function takes Leaf's parameters, a pointer to the scratch memory
/// (RecordBytes times the number of instances), and for each loop around
/// barriers an i64: its iteration in the phases of its body, its trip count
/// in the others; it returns nothing. Leaf is
/// rewritten on the way and is the caller's to delete once it has read the
/// trip counts. A barrier that not every instance reaches equally often (under
/// a condition, in a loop with more than one way out, or whose trip count
/// depends on anything but the parameters IsUniform accepts) is reported to
/// Error, and the result is empty.
std::optional<BarrierPhases> splitAtBarriers(
    llvm::Function &Leaf,
    llvm::function_ref<bool(const llvm::Instruction &)> IsBarrier,
    llvm::function_ref<bool(const llvm::Argument &)> IsUniform,
    llvm::function_ref<void(const llvm::Twine &, const llvm::Instruction *)>
        Error);

} // namespace hpvm

#endif // HPVM_IR_LIB_BARRIERPHASES_H
