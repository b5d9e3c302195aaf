//===- WorkGroups.h - The two forms of a work-group leaf --------*- C++ -*-===//
//
// The function of a work-group leaf (Node::Group: HPVM-C's leaves with
// barriers) holds two forms of a group's work: the phases, loops over the
// work-items that every device can run, and one work-item's code with the
// device's barriers, for a GPU that runs the group as a device work-group;
// @hpvm.work_group.native() chooses (GraphMetadata.h). A backend keeps the
// one its kernel runs.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_WORKGROUPS_H
#define HPVM_IR_WORKGROUPS_H

namespace llvm {
class Function;
} // namespace llvm

namespace hpvm {

/// Makes every @hpvm.work_group.native() call in F (a leaf function, or a
/// kernel it was inlined into) the constant Native and deletes the code
/// that can no longer run: the work-items' code (with its work-item ids and
/// barriers) when Native is false, the phases when it is true.
void resolveWorkGroupForm(llvm::Function &F, bool Native);

} // namespace hpvm

#endif // HPVM_IR_WORKGROUPS_H
