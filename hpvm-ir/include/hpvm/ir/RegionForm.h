//===- RegionForm.h - Parallel regions in ordinary LLVM IR ------*- C++ -*-===//
//
// The region form (docs/ir.md §2): a node is the code between
//   %t = call token @llvm.directive.region.entry() [ "hpvm.node"(...), ... ]
//   call void @llvm.directive.region.exit(token %t)
// parseRegions finds them, checks the markers themselves and their nesting,
// and returns the region tree of a function.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_REGIONFORM_H
#define HPVM_IR_REGIONFORM_H

#include "hpvm/ir/Graph.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class CallInst;
class Function;
class Instruction;
class Module;
class Value;
} // namespace llvm

namespace hpvm {

constexpr const char *RegionEntryName = "llvm.directive.region.entry";
constexpr const char *RegionExitName = "llvm.directive.region.exit";
/// The marker form's calls (frontends/c/include/hpvm_markers.h).
constexpr const char *MarkerBeginName = "__hpvm_region_begin";
constexpr const char *MarkerEndName = "__hpvm_region_end";

/// The tags of the marker form's clause list; they must match
/// hpvm_markers.h's enum hpvm_tag (LowerMarkers reads them, LowerHPVMC
/// writes them).
namespace marker {
enum Tag : uint32_t {
  End = 0,
  Dims = 1,       // count, then count extents
  In = 2,         // ptr, bytes
  Out = 3,        // ptr, bytes
  InOut = 4,      // ptr, bytes
  Value = 5,      // one scalar
  Target = 6,     // mask
  After = 7,      // handle of an earlier sibling
  NoWait = 8,     // no operands: the launch goes on in the background
  Sequential = 9, // no operands: the instances run in order
  Group = 10,     // count, then count extents: a leaf of work-groups
};
} // namespace marker

/// Undoes C's default argument promotions, which varargs calls (the marker
/// form's, HPVM-C's __hpvm__return) apply: the float or the short the code
/// has, not the double or int passed.
llvm::Value *stripVarargPromotion(llvm::Value *V);

/// Operand-bundle tags of a region entry.
namespace tag {
constexpr const char *Node = "hpvm.node";             // (ptr @name)
constexpr const char *Dims = "hpvm.dims";             // (i64 n0[, n1[, n2]])
constexpr const char *In = "hpvm.in";                 // (ptr p, i64 bytes)...
constexpr const char *Out = "hpvm.out";               // (ptr p, i64 bytes)...
constexpr const char *InOut = "hpvm.inout";           // (ptr p, i64 bytes)...
constexpr const char *Value = "hpvm.value";           // (scalar)...
constexpr const char *Target = "hpvm.target";         // (i32 mask)
constexpr const char *After = "hpvm.after";           // (token sibling)...
constexpr const char *NoWait = "hpvm.nowait";         // () top-level only
constexpr const char *Sequential = "hpvm.sequential"; // () with hpvm.dims
constexpr const char *Group = "hpvm.group"; // (i64 n0[, n1[, n2]]) leaves only
} // namespace tag

struct RegionBuffer {
  llvm::Value *Ptr;
  llvm::Value *Bytes;
  Access Mode;
};

/// One region: a node of the hierarchy before EXTRACT.
struct Region {
  llvm::CallInst *Entry = nullptr;
  llvm::CallInst *Exit = nullptr;
  std::string Name;
  llvm::SmallVector<llvm::Value *, 3> Dims;
  llvm::SmallVector<RegionBuffer, 4> Buffers;
  llvm::SmallVector<llvm::Value *, 4> Values;
  TargetMask Targets = AllTargets;
  /// Earlier siblings this region is explicitly ordered after.
  llvm::SmallVector<Region *, 2> After;
  /// A top-level region whose launch need not finish before the code after
  /// it runs (hpvm_launch_async; the program waits with hpvm_wait_all).
  bool NoWait = false;
  /// The instances run in order (Node::Sequential).
  bool Sequential = false;
  /// A leaf whose instances are work-groups of these extents (Node::Group).
  llvm::SmallVector<llvm::Value *, 3> Group;

  Region *Parent = nullptr;
  /// Child regions in program order.
  std::vector<std::unique_ptr<Region>> Children;

  /// Whole blocks strictly inside the region (neither the entry's nor the
  /// exit's block).
  llvm::SmallPtrSet<llvm::BasicBlock *, 16> Blocks;

  bool isLeaf() const { return Children.empty(); }
  /// True if I lies between Entry and Exit (the markers excluded).
  bool contains(const llvm::Instruction *I) const;
  /// Every instruction strictly between Entry and Exit, in block order.
  std::vector<llvm::Instruction *> instructions() const;
  /// Depth below the root region (the root is 0).
  unsigned depth() const;
};

/// The region tree of one function.
struct RegionForest {
  llvm::Function *F = nullptr;
  std::vector<std::unique_ptr<Region>> Roots;
  bool empty() const { return Roots.empty(); }
};

/// Parses the regions of F. Malformed markers, regions that are not
/// single-entry/single-exit, and improper nesting are reported through the
/// context; the returned count says how many errors there were (the forest
/// is usable only when it is zero).
RegionForest parseRegions(llvm::Function &F, unsigned &NumErrors);

/// True if F calls __hpvm_region_begin (the marker form, before lowering).
bool hasMarkers(const llvm::Function &F);

/// True if F contains region markers.
bool hasRegions(const llvm::Function &F);
bool hasRegions(const llvm::Module &M);

} // namespace hpvm

#endif // HPVM_IR_REGIONFORM_H
