//===- CloneWithParameters.h - A function copied with more parameters -*- C++
//-*-===//
//
// The HPVM-C lowering answers a leaf's queries with parameters it adds to a
// copy of the leaf, and the barrier splitter copies that into phases with
// parameters of their own: both copy a function whole into a new internal
// one that takes the same parameters and then some.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_IR_LIB_CLONEWITHPARAMETERS_H
#define HPVM_IR_LIB_CLONEWITHPARAMETERS_H

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace hpvm {

/// An internal copy of F named Name that returns Ret and takes F's
/// parameters followed by Extra; VMap maps F's values to the copy's, and
/// Returns gets the copy's returns (of F's type: rewrite them where Ret
/// differs).
inline llvm::Function *
cloneWithParameters(llvm::Function &F, llvm::Type *Ret,
                    llvm::ArrayRef<llvm::Type *> Extra, const llvm::Twine &Name,
                    llvm::ValueToValueMapTy &VMap,
                    llvm::SmallVectorImpl<llvm::ReturnInst *> &Returns) {
  llvm::SmallVector<llvm::Type *, 16> Params(F.getFunctionType()->params());
  Params.append(Extra.begin(), Extra.end());
  llvm::Function *Copy = llvm::Function::Create(
      llvm::FunctionType::get(Ret, Params, false),
      llvm::GlobalValue::InternalLinkage, Name, F.getParent());
  for (llvm::Argument &A : F.args())
    VMap[&A] = Copy->getArg(A.getArgNo());
  llvm::CloneFunctionInto(
      Copy, &F, VMap, llvm::CloneFunctionChangeType::LocalChangesOnly, Returns);
  return Copy;
}

} // namespace hpvm

#endif // HPVM_IR_LIB_CLONEWITHPARAMETERS_H
