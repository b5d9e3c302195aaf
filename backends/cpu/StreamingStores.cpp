//===- StreamingStores.cpp - A variant of a wrapper with non-temporal stores =//
//
// A leaf that only writes a buffer (`out(dst[...])`) still makes every store
// fetch the line it writes (write-allocate), so a memory-bound loop moves
// 12 bytes per float where 8 would do. Non-temporal stores skip that fetch,
// but they pay off only when the data would not stay in the cache anyway,
// which only the runtime knows (how large a launch's buffers are). So the
// backend builds a second wrapper, `<wrapper>.stream`, with non-temporal
// stores, and hpvm-rt picks one per launch (docs/runtime.md, "CPU device").
//
// Non-temporal vector stores must be aligned to their size (vmovntps), and
// LLVM's loop vectoriser does not peel for alignment. Three steps make them:
//
//  1. when the wrappers are built: writeOnlyBufferParams finds the buffer
//     parameters the leaf only stores to, and makeStreamingVariant clones
//     the wrapper and names them in the StreamingStoresAttribute;
//  2. where the vectorisers start, AlignStoresPass (AlignStores.cpp) peels
//     the innermost instance loop of a variant until a store to such a
//     buffer reaches a 64-byte boundary, provably to the loop vectoriser;
//  3. at the end of the pipeline, StreamingStoresPass marks the aligned
//     vector stores to those buffers !nontemporal, and fences the wrapper's
//     returns (non-temporal stores are weakly ordered: the chunk's end must
//     publish them). A variant in which no store became non-temporal is
//     deleted, and the program then has no variant for the leaf.
//
// The marking has to wait until after vectorisation: the loop vectoriser
// refuses a loop whose stores are non-temporal with an alignment it cannot
// guarantee.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace hpvm::cpu {
namespace {

/// The value of wrapper parameter K (see wrapperPointerParams).
Value *paramValue(Function &W, unsigned K) {
  for (auto [Index, V] : wrapperPointerParams(W))
    if (Index == K)
      return V;
  return nullptr;
}

} // namespace

SmallVector<std::pair<unsigned, Value *>, 8> wrapperPointerParams(Function &W) {
  SmallVector<std::pair<unsigned, Value *>, 8> Params;
  const DataLayout &DL = W.getDataLayout();
  Argument *Args = W.getArg(0);
  uint64_t PtrBytes = DL.getPointerSize();
  for (Instruction &I : instructions(W)) {
    auto *Param = dyn_cast<LoadInst>(&I);
    auto *Slot =
        Param ? dyn_cast<LoadInst>(Param->getPointerOperand()) : nullptr;
    if (!Slot || !Param->getType()->isPointerTy())
      continue;
    APInt Off(DL.getIndexTypeSizeInBits(Args->getType()), 0);
    const Value *Base =
        Slot->getPointerOperand()->stripAndAccumulateConstantOffsets(
            DL, Off, /*AllowNonInbounds=*/true);
    if (Base == Args && !Off.isNegative() && Off.urem(PtrBytes) == 0)
      Params.push_back({unsigned(Off.getZExtValue() / PtrBytes), Param});
  }
  return Params;
}

SmallPtrSet<Value *, 4> streamedBuffers(Function &F) {
  SmallPtrSet<Value *, 4> Buffers;
  StringRef List =
      F.getFnAttribute(StreamingStoresAttribute).getValueAsString();
  SmallVector<StringRef, 4> Items;
  List.split(Items, ',', -1, false);
  for (StringRef Item : Items) {
    unsigned K;
    if (!Item.getAsInteger(10, K))
      if (Value *V = paramValue(F, K))
        Buffers.insert(V);
  }
  return Buffers;
}

bool intoBuffers(const Value *Ptr, const SmallPtrSetImpl<Value *> &Buffers) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(Ptr, Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
  return !Objects.empty() && all_of(Objects, [&](const Value *O) {
    return Buffers.count(const_cast<Value *>(O));
  });
}

SmallVector<unsigned, 4>
writeOnlyBufferParams(Function &W, ArrayRef<unsigned> BufferParams) {
  SmallVector<unsigned, 4> Result;
  for (unsigned K : BufferParams) {
    Value *Buffer = paramValue(W, K);
    if (!Buffer)
      continue;
    // Every pointer derived from the buffer is only ever a store's address.
    SmallVector<Value *, 8> Work{Buffer};
    SmallPtrSet<Value *, 8> Seen{Buffer};
    bool WriteOnly = true, Stored = false;
    while (WriteOnly && !Work.empty()) {
      Value *P = Work.pop_back_val();
      for (User *U : P->users()) {
        if (auto *S = dyn_cast<StoreInst>(U)) {
          WriteOnly = S->isSimple() && S->getPointerOperand() == P &&
                      S->getValueOperand() != P;
          Stored = true;
        } else if (isa<GetElementPtrInst>(U) || isa<PHINode>(U) ||
                   isa<SelectInst>(U)) {
          // Address arithmetic; a select's condition is no pointer use.
          if (auto *Sel = dyn_cast<SelectInst>(U))
            WriteOnly = Sel->getCondition() != P;
          if (auto *GEP = dyn_cast<GetElementPtrInst>(U))
            WriteOnly = GEP->getPointerOperand() == P;
          if (WriteOnly && Seen.insert(U).second)
            Work.push_back(U);
        } else {
          WriteOnly = false;
        }
        if (!WriteOnly)
          break;
      }
    }
    if (WriteOnly && Stored)
      Result.push_back(K);
  }
  return Result;
}

Function *makeStreamingVariant(Function &W, ArrayRef<unsigned> WriteOnly,
                               StringRef Name) {
  ValueToValueMapTy VMap;
  Function *V = CloneFunction(&W, VMap);
  V->setName(Name);
  V->setLinkage(W.getLinkage());
  SmallVector<std::string, 4> Items;
  for (unsigned K : WriteOnly)
    Items.push_back(utostr(K));
  V->addFnAttr(StreamingStoresAttribute, join(Items, ","));
  // A 64-byte vector fills a line in one non-temporal store, where two
  // 32-byte ones rely on the write-combining buffer to merge them (the
  // stencil of bench/ runs 15% faster with AVX-512 stores). What usually
  // speaks against 512-bit vectors, their clock penalty, does not matter in
  // a loop that waits for memory. No effect without AVX-512; an explicit
  // CPUOptions::PreferVectorWidth still wins (setTargetAttributes).
  V->addFnAttr("prefer-vector-width", "512");
  return V;
}

PreservedAnalyses StreamingStoresPass::run(Module &M, ModuleAnalysisManager &) {
  SmallVector<Function *, 4> Dropped;
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration() || !F.hasFnAttribute(StreamingStoresAttribute))
      continue;
    SmallPtrSet<Value *, 4> Buffers = streamedBuffers(F);
    const DataLayout &DL = M.getDataLayout();
    unsigned NonTemporal = 0;
    for (Instruction &I : instructions(F)) {
      auto *S = dyn_cast<StoreInst>(&I);
      if (!S || !S->isSimple() ||
          !S->getValueOperand()->getType()->isVectorTy())
        continue;
      // vmovnt* stores whole registers of 16 bytes and more, aligned.
      uint64_t Size = DL.getTypeStoreSize(S->getValueOperand()->getType());
      if (Size < 16 || !isPowerOf2_64(Size) || S->getAlign().value() < Size ||
          !intoBuffers(S->getPointerOperand(), Buffers))
        continue;
      S->setMetadata(LLVMContext::MD_nontemporal,
                     MDNode::get(M.getContext(),
                                 ConstantAsMetadata::get(ConstantInt::get(
                                     Type::getInt32Ty(M.getContext()), 1))));
      ++NonTemporal;
    }
    if (!NonTemporal) {
      Dropped.push_back(&F);
      continue;
    }
    Changed = true;
    Function *SFence = Intrinsic::getDeclaration(&M, Intrinsic::x86_sse_sfence);
    for (BasicBlock &BB : F)
      if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
        CallInst::Create(SFence, "", Ret->getIterator());
  }
  for (Function *F : Dropped)
    F->eraseFromParent();
  return Changed || !Dropped.empty() ? PreservedAnalyses::none()
                                     : PreservedAnalyses::all();
}

} // namespace hpvm::cpu
