//===- GraphMetadata.h - The graph form encoded in an LLVM module -*- C++ -*-=//
//
// A module in graph form carries its graphs in the named metadata
// !hpvm.graphs (encoding in docs/ir.md §3.2), its leaves as ordinary
// functions, and one call to @hpvm.launch per graph at the launch site.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_GRAPHMETADATA_H
#define HPVM_IR_GRAPHMETADATA_H

#include "hpvm/ir/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace llvm {
class CallInst;
class Function;
class FunctionType;
class Module;
class Type;
class LLVMContext;
} // namespace llvm

namespace hpvm {

/// Named metadata holding one entry per graph.
constexpr const char *GraphsMetadataName = "hpvm.graphs";
/// void @hpvm.launch(ptr @<graph name string>, <root params>...)
constexpr const char *LaunchFunctionName = "hpvm.launch";
/// i64 @hpvm.instance.id(i32 level, i32 dim): inside a leaf function, the
/// instance id along dimension `dim` of the leaf (level 0) or of its
/// level-th ancestor.
constexpr const char *InstanceIdFunctionName = "hpvm.instance.id";
/// On a load or store in a leaf: memory that only this instance touches (a
/// record of its own), so that no other access of the instance's, nor any
/// access of another instance, is to the same bytes. The CPU backend then
/// treats the access as independent across instances even where the same
/// buffer is written twice (the scratch of a leaf split at its barriers).
constexpr const char *InstancePrivateMetadataName = "hpvm.instance.private";
/// i1 @hpvm.work_group.native(), in the function of a work-group leaf
/// (Node::Group): true where the leaf runs as a device work-group, a device
/// thread per work-item (a GPU backend's work-group kernel); false
/// everywhere else (the CPU, a GPU kernel of a thread per group), which runs
/// the phases. The code it guards runs one work-item: WorkItemIdFunctionName
/// gives its ids, BarrierFunctionName waits for the rest of the group.
constexpr const char *WorkGroupNativeFunctionName = "hpvm.work_group.native";
/// i64 @hpvm.work_item.id(i32 dim): the work-item's id in its work-group
/// along dim of Node::Group (outermost first).
constexpr const char *WorkItemIdFunctionName = "hpvm.work_item.id";
/// void @hpvm.barrier(), convergent: every work-item of the group reaches
/// it before any goes on, and then sees what the others wrote before it.
constexpr const char *BarrierFunctionName = "hpvm.barrier";
/// A loop property (an MDNode holding just this string) of a loop inside a
/// leaf that runs one phase of each instance of a work-group (a leaf split
/// at its barriers runs once per group): its iterations are independent, as
/// instances are, and the CPU backend vectorises it as an instance loop.
constexpr const char *WorkItemsLoopProperty = "hpvm.work_items";

/// Replaces !hpvm.graphs with the encoding of Graphs.
void writeGraphs(llvm::Module &M, const std::vector<const Graph *> &Graphs);

/// Decodes !hpvm.graphs. An absent entry gives an empty vector; malformed
/// metadata gives an error naming the graph, the node and the field.
llvm::Expected<std::vector<Graph>> readGraphs(const llvm::Module &M);

/// True if M has graphs (i.e. is in graph form, at least partly).
bool hasGraphs(const llvm::Module &M);

/// The LLVM type of a scalar parameter or output.
llvm::Type *toLLVMType(ScalarType T, llvm::LLVMContext &Ctx);
/// The model's scalar type for an LLVM type, if it has one.
std::optional<ScalarType> fromLLVMType(const llvm::Type *T);

/// The signature a leaf function of N must have: buffers become ptr, values
/// their type, in N's parameter order; it returns void without outputs, the
/// output's type with one, and a literal struct of their types with several.
llvm::FunctionType *getLeafFunctionType(const Node &N, llvm::LLVMContext &Ctx);

/// The type of one of HPVM's functions (@hpvm.launch, @hpvm.instance.id, and
/// a work-group leaf's WorkGroupNativeFunctionName, WorkItemIdFunctionName
/// and BarrierFunctionName); null for any other name.
llvm::FunctionType *hpvmFunctionType(llvm::StringRef Name,
                                     llvm::LLVMContext &Ctx);

/// The declarations of @hpvm.launch and @hpvm.instance.id, created on demand.
llvm::Function *getLaunchFunction(llvm::Module &M);
llvm::Function *getInstanceIdFunction(llvm::Module &M);
/// The declaration of one of a work-group leaf's functions, created on
/// demand; the barrier is convergent, as a GPU's is.
llvm::Function *getWorkGroupFunction(llvm::Module &M, llvm::StringRef Name);

/// The graph a launch call starts (the string its first operand points to),
/// or an empty string when Call is not a well-formed launch.
std::string launchedGraphName(const llvm::CallInst &Call);

} // namespace hpvm

#endif // HPVM_IR_GRAPHMETADATA_H
