//===- LowerHPVMC.cpp - HPVM-C's graph calls to the marker form -----------===//
//
// HPVM-C programs (frontends/c/include/hpvm.h, docs/hpvm-c.md) build their
// graphs with calls: an internal node is a function that creates its
// children (__hpvm__createNodeND) and binds their parameters to its own
// (__hpvm__bindIn); a leaf is a function run once per instance, asking for
// its instance id (__hpvm__getNodeInstanceID_x(__hpvm__getNode())); the host
// launches a root function with its arguments in a packed struct
// (__hpvm__launch(0, root, args)).
//
// The structure is all there at compile time, so this pass unfolds each
// launch into the marker form, in place of the launch call:
//
//   load the root's arguments from the struct
//   compute the children's extents and outputs (from the root's arguments)
//   h = __hpvm_region_begin("root", buffers..., [NOWAIT,] END)
//     c = __hpvm_region_begin("child", DIMS(z, y, x), buffers..., END)
//     for z, y, x: <the leaf's body, inlined, its ids the loop counters>
//     __hpvm_region_end(c)
//   __hpvm_region_end(h)
//
// which is the sequential program the graph means, so that the rest of the
// pipeline (LowerMarkers, EXTRACT, the backends) treats it as it treats
// `#pragma hpvm`. Every pointer parameter of a node function is a buffer
// whose size in bytes is the next parameter (HPVM-C's convention); the leaf's
// __hpvm__attributes give the access modes (a pointer it does not list is
// read and written); other scalars become value parameters where the leaf
// uses them (EXTRACT's live-ins). HPVM-C's x is the last (fastest) dim.
//
// On the way: a replicated internal node of leaves (work-groups of
// work-items) is folded into its leaves (foldTiles); a root that only holds
// one leaf is left out; a launch waited for at once is synchronous; outputs
// and value edges carry values known when the graph starts; a streaming
// launch becomes an hpvm-rt stream, each push a frame (hpvm_rt.h's
// hpvmc_stream_*); a leaf with barriers runs once per work-group, its
// phases (BarrierPhases.h) in loops over the group's work-items, and
// node-local memory (__hpvm__malloc) is host memory made for the launch
// with a section per work-group. What is not supported yet (outputs
// computed from memory or ids, barriers in streaming graphs) is reported as
// rule "hpvm-c" at the call, as is misuse. Needs SSA form for node handles:
// lowerHPVMC runs sroa first. docs/hpvm-c.md says all of it from the user's
// side.
//
//===----------------------------------------------------------------------===//
#include "BarrierPhases.h"
#include "CloneWithParameters.h"
#include "PipelineRunner.h"

#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"
#include "hpvm/ir/RegionForm.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <functional>
#include <map>
#include <memory>
#include <string>

using namespace llvm;

namespace hpvm {

namespace {

/// HPVM-C's calls, by what the pass does with them.
enum class Call {
  None,
  CreateNode,
  BindIn,
  BindOut,
  Edge,
  Attributes,
  Hint,     // hpvm.h's (__hpvmc_hint), its numbering of targets
  HintHPVM, // HPVM's own headers' (__hpvm__hint)
  Return,
  GetNode,
  GetParent,
  InstanceId, // x, y, z: Dim
  Instances,  // x, y, z: Dim
  Barrier,
  Malloc,
  Launch,
  Push,
  Atomic, // declared by HPVM's own headers; hpvm.h defines them
};

struct CallKind {
  Call K = Call::None;
  unsigned Dim = 0;
};

CallKind classify(const Function *F) {
  // HPVM-C's host calls (__hpvm__wait, __hpvm__pop...) are hpvm-rt's
  // functions, and hpvm.h defines the atomics: ordinary code.
  if (!F || !F->isDeclaration())
    return {};
  if (F->getName() == "__hpvmc_hint")
    return {Call::Hint, 0};
  if (!F->getName().starts_with("__hpvm__"))
    return {};
  StringRef N = F->getName().drop_front(strlen("__hpvm__"));
  for (auto [Prefix, K] : {std::pair{"getNodeInstanceID_", Call::InstanceId},
                           std::pair{"getNumNodeInstances_", Call::Instances}})
    if (N.consume_front(Prefix)) {
      unsigned Dim = StringSwitch<unsigned>(N)
                         .Case("x", 0)
                         .Case("y", 1)
                         .Case("z", 2)
                         .Default(3);
      return Dim < 3 ? CallKind{K, Dim} : CallKind{};
    }
  Call K = StringSwitch<Call>(N)
               .Case("createNodeND", Call::CreateNode)
               .Case("bindIn", Call::BindIn)
               .Case("bindOut", Call::BindOut)
               .Case("edge", Call::Edge)
               .Case("attributes", Call::Attributes)
               .Case("hint", Call::HintHPVM)
               .Case("return", Call::Return)
               .Case("getNode", Call::GetNode)
               .Case("getParentNode", Call::GetParent)
               .Case("barrier", Call::Barrier)
               .Case("malloc", Call::Malloc)
               .Case("launch", Call::Launch)
               .Case("push", Call::Push)
               .Default(Call::None);
  if (K == Call::None && N.starts_with("atomic_"))
    K = Call::Atomic;
  return {K, 0};
}

CallKind classify(const Instruction &I) {
  if (const auto *C = dyn_cast<CallInst>(&I))
    return classify(C->getCalledFunction());
  return {};
}

/// hpvm.h's enum Target, as a target mask; 0 for a value it does not have.
TargetMask hintMask(uint64_t Hint) {
  switch (Hint) {
  case 0: // None
  case 4: // CPU_OR_GPU_TARGET
    return AllTargets;
  case 1: // CPU_TARGET
    return TargetCPU;
  case 2: // GPU_TARGET, DEVICE
    return TargetNVPTX | TargetSPIRV;
  case 3: // SPIR_TARGET
    return TargetSPIRV;
  case 5: // CPU_OR_SPIR_TARGET
    return TargetCPU | TargetSPIRV;
  default:
    return 0;
  }
}

struct Buffer {
  Value *Ptr = nullptr, *Bytes = nullptr;
  bool Reads = false, Writes = false;
  /// The leaf's pointer parameters it is passed as.
  SmallVector<unsigned, 1> Params;
};

/// B named in Buffers: once per pointer, read and written as all its
/// namings together.
void nameBuffer(std::vector<Buffer> &Buffers, const Buffer &B) {
  auto Same = find_if(Buffers, [&](const Buffer &O) { return O.Ptr == B.Ptr; });
  if (Same == Buffers.end()) {
    Buffers.push_back(B);
    return;
  }
  Same->Reads |= B.Reads;
  Same->Writes |= B.Writes;
  Same->Params.append(B.Params.begin(), B.Params.end());
}

/// One node of a launch, with everything at the launch site's values.
struct Node {
  Function *F = nullptr;
  std::string Name;
  Node *Parent = nullptr;
  /// Extents, outermost first (HPVM-C's z, y, x), as i64.
  SmallVector<Value *, 3> Dims;
  /// The loop counters of Dims, once emitted.
  SmallVector<Value *, 3> Ids;
  /// F's arguments.
  SmallVector<Value *, 8> Args;
  /// Its outputs (__hpvm__return, __hpvm__bindOut): values of its
  /// arguments, computed in front of the launch.
  SmallVector<Value *, 2> Outputs;
  std::vector<Buffer> Buffers;
  std::optional<TargetMask> Targets;
  std::vector<std::unique_ptr<Node>> Children;
  /// A replicated internal node whose leaves run as nodes of their own
  /// under its parent (foldTiles); it stays only as their Parent.
  bool Folded = false;
  /// A leaf of a folded node: its extents times the folded node's, per dim,
  /// outermost first; its loops run over these.
  SmallVector<Value *, 3> FlatDims;
  /// A leaf that only allocates node-local memory (__hpvm__malloc) for its
  /// siblings: it is read for its outputs and not run.
  bool Allocation = false;
  /// A leaf with barriers, split into phases, and the scratch memory that
  /// carries its instances' values from one phase to the next.
  std::optional<BarrierPhases> Phases;
  /// Its scratch memory (a stand-in until the launch's code is written), if
  /// it needs any.
  GlobalVariable *Scratch = nullptr;
  /// What its phases get for each loop around barriers: the loop's
  /// iteration while emitting its body, its trip count elsewhere.
  SmallVector<Value *, 2> LoopIterations;

  bool isLeaf() const { return Children.empty(); }
  bool foldedLeaf() const { return Parent && Parent->Folded; }
  /// The dims of N's region: a leaf with barriers runs once per work-group
  /// (the instances of its folded parent, or one group of all its own
  /// instances), its phases in loops over the group's instances inside.
  ArrayRef<Value *> regionDims() const {
    if (Phases)
      return foldedLeaf() ? ArrayRef<Value *>(Parent->Dims)
                          : ArrayRef<Value *>();
    return foldedLeaf() ? ArrayRef<Value *>(FlatDims) : ArrayRef<Value *>(Dims);
  }
  unsigned depth() const { return Parent ? Parent->depth() + 1 : 0; }
  /// The extent in HPVM-C's dim D (x = 0); 1 for a dim it does not have.
  Value *hpvmExtent(unsigned D, LLVMContext &Ctx) const {
    unsigned N = Dims.size();
    return D < N ? Dims[N - 1 - D] : ConstantInt::get(Type::getInt64Ty(Ctx), 1);
  }
};

/// A readable node name: the function's, without C++'s mangling.
std::string nodeName(const Function &F) {
  StringRef Name = F.getName();
  ItaniumPartialDemangler D;
  if (Name.starts_with("_Z") && !D.partialDemangle(Name.data())) {
    size_t Size = 0;
    if (char *Base = D.getFunctionBaseName(nullptr, &Size)) {
      std::string S(Base);
      std::free(Base);
      if (!S.empty())
        return S;
    }
  }
  return Name.str();
}

class HPVMCLowering {
public:
  explicit HPVMCLowering(Module &M) : M(M), Ctx(M.getContext()) {}
  unsigned run();

private:
  void error(const Twine &Message, const Function *F, const Instruction *At) {
    reportError(Ctx, "hpvm-c", Message.str(), F, "", At);
    ++Errors;
  }

  void lowerLaunch(CallInst *Launch);
  void lowerStreamingLaunch(CallInst *Launch, Function &Root);
  StructType *argumentStruct(Function &Root, Instruction *At);
  bool unfold(Function &Root, Value *ArgStruct, Instruction *At, bool NoWait,
              CallInst *Wait);
  std::unique_ptr<Node> readNode(Function *F, ArrayRef<Value *> Args,
                                 ArrayRef<Value *> Dims, Node *Parent,
                                 Instruction *CreatedAt);
  bool readInternal(Node &N, Instruction *CreatedAt);
  bool readLeaf(Node &N, Instruction *CreatedAt);
  Value *materialize(Value *V, Node &N, DenseMap<Value *, Value *> &Done,
                     Instruction *At, StringRef What,
                     ArrayRef<Value *> ArgValues = {});
  Value *output(const Node &N, unsigned K, Instruction *At);
  Value *localMemory(CallInst *Malloc, Node &N,
                     DenseMap<Value *, Value *> &Done, Instruction *At);
  bool dropAllocations(Node &N);
  void foldTiles(Node &N, std::vector<std::unique_ptr<Node>> &Folded);
  bool planPhases(Node &N);
  Value *countTrips(CallInst &Count, ArrayRef<Value *> HostArgs);
  GlobalVariable *allocate(Value *Bytes, const Twine &Name);
  void dropTemporaries();
  CallInst *beginRegion(const Twine &Name, ArrayRef<Value *> Dims,
                        ArrayRef<Buffer> Buffers,
                        std::optional<TargetMask> Targets, bool Top,
                        bool NoWait, bool Sequential, Instruction *Before,
                        ArrayRef<Value *> Group = {});
  void endRegion(CallInst *Handle, Instruction *Before);
  void emitLoops(ArrayRef<Value *> Dims, Instruction *&Inside,
                 SmallVectorImpl<Value *> &Ids);
  void emit(Node &N, Instruction *Before, bool NoWait);
  void emitSteps(Node &N, ArrayRef<BarrierPhases::Step> Steps,
                 Instruction *Before);
  void emitWorkItem(Node &N, Instruction *Before);
  Function *leafClone(Node &N, bool Indexed);
  void callLeaf(Node &N, Function &Body, Instruction *Before);
  bool lowerAtomic(CallInst *C, const Node &N);
  Value *resolveQuery(CallInst *Q, Node &N, Function &Clone);
  std::optional<unsigned> handleLevel(Value *Handle);

  Module &M;
  LLVMContext &Ctx;
  unsigned Errors = 0;
  /// Where the launch being lowered is: what the code made for it says.
  DebugLoc LaunchLoc;
  Instruction *ExtentsAt = nullptr;
  /// Lowering the graph of a streaming launch: streaming bindings and edges
  /// are ordinary ones, as every frame is a launch of its own.
  bool Streamed = false;
  /// The node the launch being lowered starts: the graph's root, or its
  /// one leaf.
  const Node *TopNode = nullptr;
  /// The extents of the nodes of the launch being lowered that are
  /// computed in front of it.
  SmallVector<Value *, 8> ComputedExtents;
  /// Host memory made for the launch being lowered (node-local memory,
  /// scratch), freed once it has run: by the stand-ins the launch's code
  /// uses until it is written (a size is known only once the whole graph
  /// is read), their sizes in bytes.
  MapVector<GlobalVariable *, Value *> Temporaries;
  /// Node-local memory (__hpvm__malloc), by its stand-in: a section of
  /// SectionBytes for each instance of Scope.
  struct LocalMemory {
    Value *SectionBytes;
    const Node *Scope;
  };
  DenseMap<GlobalVariable *, LocalMemory> Locals;
  SmallVector<Function *, 8> NodeFunctions;
};

//===----------------------------------------------------------------------===//
// Reading the graph.
//===----------------------------------------------------------------------===//

std::optional<uint64_t> constantOperand(CallInst *C, unsigned I) {
  if (I < C->arg_size())
    if (auto *K = dyn_cast<ConstantInt>(C->getArgOperand(I)))
      return K->getZExtValue();
  return std::nullopt;
}

/// Where to report a problem of F as a whole: its first line of code.
const Instruction *firstLocated(const Function &F, const Instruction *Else) {
  for (const Instruction &I : instructions(F))
    if (I.getDebugLoc() && I.getDebugLoc().getLine())
      return &I;
  return Else;
}

Function *calledNodeFunction(Value *V) {
  return dyn_cast<Function>(V->stripPointerCasts());
}

std::unique_ptr<Node> HPVMCLowering::readNode(Function *F,
                                              ArrayRef<Value *> Args,
                                              ArrayRef<Value *> Dims,
                                              Node *Parent,
                                              Instruction *CreatedAt) {
  auto N = std::make_unique<Node>();
  N->F = F;
  N->Name = nodeName(*F);
  N->Parent = Parent;
  N->Args.assign(Args.begin(), Args.end());
  N->Dims.assign(Dims.begin(), Dims.end());
  if (F->isDeclaration()) {
    error("node function '" + N->Name + "' has no body in this file",
          CreatedAt->getFunction(), CreatedAt);
    return nullptr;
  }
  if (N->depth() >= MaxNodeDepth) {
    error("nodes nest more than " + Twine(MaxNodeDepth) + " levels deep",
          CreatedAt->getFunction(), CreatedAt);
    return nullptr;
  }
  for (Node *A = Parent; A; A = A->Parent)
    if (A->F == F) {
      error("node function '" + N->Name + "' creates itself", F, CreatedAt);
      return nullptr;
    }
  if (!is_contained(NodeFunctions, F))
    NodeFunctions.push_back(F);
  unsigned ErrorsBefore = Errors;

  bool Internal = false;
  for (Instruction &I : instructions(*F)) {
    auto *C = dyn_cast<CallInst>(&I);
    CallKind K = classify(I);
    switch (K.K) {
    case Call::CreateNode:
      Internal = true;
      break;
    case Call::Hint:
    case Call::HintHPVM: {
      std::optional<uint64_t> Hint = constantOperand(C, 0);
      TargetMask Mask = Hint ? hintMask(*Hint) : 0;
      if (!Mask)
        error("__hpvm__hint needs a constant target of hpvm.h's enum Target", F,
              C);
      else if (K.K == Call::HintHPVM && *Hint > 2)
        error("hint " + Twine(*Hint) +
                  " means different targets in different versions of HPVM's "
                  "hpvm.h, which this program includes: include "
                  "hpvm-clang's instead (docs/hpvm-c.md)",
              F, C);
      else
        N->Targets = Mask;
      break;
    }
    case Call::Barrier:
    case Call::Malloc:
      // Their scratch and node-local memory would be a frame's own.
      if (Streamed)
        error(C->getCalledFunction()->getName() +
                  " in a graph launched for streaming is not supported yet "
                  "(docs/hpvm-c.md)",
              F, C);
      break;
    case Call::Launch:
    case Call::Push:
      error("node function '" + N->Name +
                "' launches a graph: only host code "
                "may (__hpvm__launch and __hpvm__push)",
            F, C);
      break;
    default:
      break;
    }
  }
  if (Errors != ErrorsBefore)
    return nullptr;
  bool OK = Internal ? readInternal(*N, CreatedAt) : readLeaf(*N, CreatedAt);
  return OK ? std::move(N) : nullptr;
}

std::string typeName(const Type *T) {
  std::string S;
  raw_string_ostream(S) << *T;
  return S;
}

/// A child an internal node creates, until it is read.
struct PendingChild {
  CallInst *At = nullptr;
  Function *F = nullptr;
  SmallVector<Value *, 3> Dims;
  SmallVector<Value *, 8> Args;
  SmallVector<bool, 8> Bound;
  /// __hpvm__edge calls into it: source child, output, parameter.
  struct In {
    CallInst *Call;
    unsigned Src, Output, Param;
  };
  std::vector<In> Edges;
  Node *Read = nullptr;
};

bool HPVMCLowering::readInternal(Node &N, Instruction *CreatedAt) {
  Function &F = *N.F;
  if (F.size() != 1) {
    error("internal node function '" + N.Name +
              "' has branches: it may only create and bind nodes, "
              "unconditionally",
          &F, F.getEntryBlock().getTerminator());
    return false;
  }
  DenseMap<Value *, Value *> Materialized;
  std::vector<PendingChild> Pending;
  DenseMap<const Value *, unsigned> Created;
  struct OutputBinding {
    CallInst *Call;
    unsigned Child, ChildOutput, Output;
  };
  std::vector<OutputBinding> OutputBindings;
  // The child a handle names, or an error at Call.
  auto ChildOf = [&](Value *Handle, CallInst *Call,
                     const char *Name) -> std::optional<unsigned> {
    auto It = Created.find(Handle->stripPointerCasts());
    if (It != Created.end())
      return It->second;
    error(Twine(Name) +
              " must name a node this function created before, "
              "not " +
              describe(Handle),
          &F, Call);
    return std::nullopt;
  };
  auto Unsupported = [&](CallInst *C, std::optional<uint64_t> Streaming,
                         const char *What) {
    if (Streaming && (*Streaming == 0 || Streamed))
      return false;
    error(Twine(What) + (Streaming ? " with streaming (the last operand 1) "
                                     "belongs in a graph launched for "
                                     "streaming (__hpvm__launch(1, ...))"
                                   : " takes constant operands"),
          &F, C);
    return true;
  };
  // Parameter K of G (node Name) exists, or an error at Call C.
  auto HasParam = [&](const Function &G, StringRef Name, uint64_t K,
                      CallInst *C, const char *Call) {
    if (K < G.arg_size())
      return true;
    error(Twine(Call) + " binds parameter " + Twine(K) + " of '" + Name +
              "', which has " + Twine(G.arg_size()) + " parameters",
          &F, C);
    return false;
  };
  // Marks parameter K of child P bound (by a bindIn or an edge), or an error
  // at C if something bound it already.
  auto Bind = [&](PendingChild &P, uint64_t K, CallInst *C) {
    if (!P.Bound[K])
      return P.Bound[K] = true;
    error("parameter " + Twine(K) + " of '" + nodeName(*P.F) +
              "' is bound twice",
          &F, C);
    return false;
  };
  for (Instruction &I : F.getEntryBlock()) {
    auto *C = dyn_cast<CallInst>(&I);
    CallKind K = classify(I);
    switch (K.K) {
    case Call::CreateNode: {
      std::optional<uint64_t> Count = constantOperand(C, 0);
      Function *Child =
          C->arg_size() > 1 ? calledNodeFunction(C->getArgOperand(1)) : nullptr;
      if (!Count || *Count > 3 || C->arg_size() != 2 + *Count) {
        error("__hpvm__createNodeND takes a constant number of dims (0 to 3), "
              "a node function and that many extents",
              &F, C);
        return false;
      }
      if (!Child) {
        error("__hpvm__createNodeND must name a node function, not " +
                  describe(C->getArgOperand(1)),
              &F, C);
        return false;
      }
      PendingChild P;
      P.At = C;
      P.F = Child;
      // HPVM-C lists x first; dims are outermost first.
      for (unsigned D = *Count; D-- > 0;) {
        Value *E = materialize(C->getArgOperand(2 + D), N, Materialized, C,
                               "the extents of a node");
        if (!E)
          return false;
        if (!E->getType()->isIntegerTy()) {
          error("extent " + describe(C->getArgOperand(2 + D)) +
                    " is not an integer",
                &F, C);
          return false;
        }
        P.Dims.push_back(
            IRBuilder<>(ExtentsAt).CreateSExtOrTrunc(E, Type::getInt64Ty(Ctx)));
      }
      P.Args.assign(Child->arg_size(), nullptr);
      P.Bound.assign(Child->arg_size(), false);
      Created[C] = Pending.size();
      Pending.push_back(std::move(P));
      break;
    }
    case Call::BindIn: {
      std::optional<unsigned> Child =
          ChildOf(C->getArgOperand(0), C, "__hpvm__bindIn");
      if (!Child)
        return false;
      PendingChild &P = Pending[*Child];
      std::optional<uint64_t> From = constantOperand(C, 1),
                              To = constantOperand(C, 2);
      if (!From || !To) {
        error("__hpvm__bindIn takes constant parameter numbers", &F, C);
        return false;
      }
      if (Unsupported(C, constantOperand(C, 3), "__hpvm__bindIn"))
        return false;
      std::string ChildName = nodeName(*P.F);
      if (!HasParam(F, N.Name, *From, C, "__hpvm__bindIn") ||
          !HasParam(*P.F, ChildName, *To, C, "__hpvm__bindIn"))
        return false;
      Type *FromTy = F.getArg(*From)->getType();
      Type *ToTy = P.F->getArg(*To)->getType();
      if (FromTy != ToTy) {
        error("__hpvm__bindIn binds parameter " + Twine(*From) + " of '" +
                  N.Name + "' (" + typeName(FromTy) + ") to parameter " +
                  Twine(*To) + " of '" + ChildName + "' (" + typeName(ToTy) +
                  "): the types differ",
              &F, C);
        return false;
      }
      if (!Bind(P, *To, C))
        return false;
      P.Args[*To] = N.Args[*From];
      break;
    }
    case Call::Edge: {
      std::optional<unsigned> Src =
          ChildOf(C->getArgOperand(0), C, "__hpvm__edge");
      std::optional<unsigned> Dst =
          Src ? ChildOf(C->getArgOperand(1), C, "__hpvm__edge") : Src;
      if (!Dst)
        return false;
      std::optional<uint64_t> Replication = constantOperand(C, 2),
                              Output = constantOperand(C, 3),
                              Param = constantOperand(C, 4);
      if (!Replication || *Replication > 1 || !Output || !Param) {
        error("__hpvm__edge takes a constant replication (0 all-to-all, 1 "
              "one-to-one), output and parameter",
              &F, C);
        return false;
      }
      if (Unsupported(C, constantOperand(C, 5), "__hpvm__edge"))
        return false;
      PendingChild &P = Pending[*Dst];
      if (*Src == *Dst) {
        error("__hpvm__edge joins '" + nodeName(*P.F) + "' to itself", &F, C);
        return false;
      }
      if (!HasParam(*P.F, nodeName(*P.F), *Param, C, "__hpvm__edge") ||
          !Bind(P, *Param, C))
        return false;
      P.Edges.push_back({C, *Src, unsigned(*Output), unsigned(*Param)});
      break;
    }
    case Call::BindOut: {
      std::optional<unsigned> Child =
          ChildOf(C->getArgOperand(0), C, "__hpvm__bindOut");
      if (!Child)
        return false;
      std::optional<uint64_t> From = constantOperand(C, 1),
                              To = constantOperand(C, 2);
      if (!From || !To) {
        error("__hpvm__bindOut takes constant output numbers", &F, C);
        return false;
      }
      if (Unsupported(C, constantOperand(C, 3), "__hpvm__bindOut"))
        return false;
      for (const OutputBinding &B : OutputBindings)
        if (B.Output == *To) {
          error("output " + Twine(*To) + " of '" + N.Name + "' is bound twice",
                &F, C);
          return false;
        }
      OutputBindings.push_back({C, *Child, unsigned(*From), unsigned(*To)});
      break;
    }
    case Call::InstanceId:
    case Call::Instances:
    case Call::GetNode:
    case Call::GetParent:
    case Call::Hint:
    case Call::HintHPVM:
    case Call::Attributes:
    case Call::Return:
      break; // read above, or pure
    default:
      if (isa<DbgInfoIntrinsic>(I) || isa<ReturnInst>(I) ||
          (isa<IntrinsicInst>(I) && I.isLifetimeStartOrEnd()))
        break;
      // C++ ends a function with outputs that has no return statement with
      // a trap; the function never runs.
      if (auto *II = dyn_cast<IntrinsicInst>(&I);
          II && (II->getIntrinsicID() == Intrinsic::trap ||
                 II->getIntrinsicID() == Intrinsic::ubsantrap))
        break;
      if (I.mayHaveSideEffects() || I.mayReadFromMemory()) {
        std::string What = "writes memory";
        if (auto *Call = dyn_cast<CallBase>(&I))
          What = "calls " +
                 (Call->getCalledFunction()
                      ? "'" + Call->getCalledFunction()->getName().str() + "'"
                      : describe(Call->getCalledOperand()));
        else if (!I.mayWriteToMemory())
          What = "reads memory";
        error("internal node function '" + N.Name +
                  "' may only create and bind nodes, and compute their "
                  "extents from its parameters; it " +
                  What,
              &F, &I);
        return false;
      }
    }
  }
  // The children, each once the children whose outputs it takes are read:
  // in creation order, but after the sources of its edges.
  for (size_t Left = Pending.size(); Left;) {
    PendingChild *Next = nullptr;
    for (PendingChild &P : Pending)
      if (!P.Read && all_of(P.Edges, [&](const PendingChild::In &E) {
            return Pending[E.Src].Read;
          })) {
        Next = &P;
        break;
      }
    if (!Next) {
      for (PendingChild &P : Pending)
        if (!P.Read) {
          error("__hpvm__edge makes a cycle: '" + nodeName(*P.F) +
                    "' takes an output of a node that depends on it",
                &F, P.Edges.front().Call);
          return false;
        }
    }
    PendingChild &P = *Next;
    for (const PendingChild::In &E : P.Edges) {
      Value *V = output(*Pending[E.Src].Read, E.Output, E.Call);
      if (!V)
        return false;
      Type *To = P.F->getArg(E.Param)->getType();
      if (V->getType() != To) {
        error("__hpvm__edge joins output " + Twine(E.Output) + " of '" +
                  Pending[E.Src].Read->Name + "' (" + typeName(V->getType()) +
                  ") to parameter " + Twine(E.Param) + " of '" +
                  nodeName(*P.F) + "' (" + typeName(To) + "): the types differ",
              &F, E.Call);
        return false;
      }
      P.Args[E.Param] = V;
    }
    for (unsigned Param = 0; Param < P.Bound.size(); ++Param)
      if (!P.Bound[Param]) {
        error("parameter " + Twine(Param) + " of '" + nodeName(*P.F) +
                  "' is not bound (__hpvm__bindIn or __hpvm__edge)",
              &F, P.At);
        return false;
      }
    std::unique_ptr<Node> Child = readNode(P.F, P.Args, P.Dims, &N, P.At);
    if (!Child)
      return false;
    P.Read = Child.get();
    N.Children.push_back(std::move(Child));
    --Left;
  }
  // Outputs are those of children (__hpvm__bindOut).
  for (const OutputBinding &B : OutputBindings) {
    Value *V = output(*Pending[B.Child].Read, B.ChildOutput, B.Call);
    if (!V)
      return false;
    if (N.Outputs.size() <= B.Output)
      N.Outputs.resize(B.Output + 1);
    N.Outputs[B.Output] = V;
  }
  for (unsigned K = 0; K < N.Outputs.size(); ++K)
    if (!N.Outputs[K]) {
      error("output " + Twine(K) + " of '" + N.Name +
                "' is not bound (__hpvm__bindOut)",
            &F, OutputBindings.front().Call);
      return false;
    }
  // An internal node names every buffer its children name.
  for (auto &Child : N.Children)
    for (const Buffer &B : Child->Buffers)
      nameBuffer(N.Buffers, {B.Ptr, B.Bytes, B.Reads, B.Writes, {}});
  return true;
}

bool HPVMCLowering::readLeaf(Node &N, Instruction *CreatedAt) {
  Function &F = *N.F;
  if (F.hasStructRetAttr()) {
    error("leaf node function '" + N.Name +
              "' returns a struct through memory (more than 16 bytes of "
              "outputs): not supported yet (docs/hpvm-c.md)",
          &F, firstLocated(F, CreatedAt));
    return false;
  }
  // An allocation node (HPVM-C's way to give a work-group memory of its
  // own) only allocates and returns the memory.
  for (Instruction &I : instructions(F))
    N.Allocation |= classify(I).K == Call::Malloc;
  if (N.Allocation)
    for (Instruction &I : instructions(F)) {
      Call K = classify(I).K;
      if (K == Call::Malloc || K == Call::Return || K == Call::Hint ||
          K == Call::HintHPVM || K == Call::Attributes || K == Call::GetNode ||
          K == Call::GetParent || K == Call::InstanceId ||
          K == Call::Instances || isa<DbgInfoIntrinsic>(I) ||
          I.isLifetimeStartOrEnd() ||
          (!I.mayHaveSideEffects() && !I.mayReadFromMemory()))
        continue;
      error("leaf '" + N.Name +
                "' calls __hpvm__malloc, so it may only allocate memory and "
                "return it (__hpvm__return) to the nodes that use it",
            &F, &I);
      return false;
    }
  // Outputs: __hpvm__return(n, values...), once. They are passed on to
  // other nodes' parameters (__hpvm__edge, __hpvm__bindOut), so they must
  // be known when the graph starts.
  CallInst *Return = nullptr;
  for (Instruction &I : instructions(F)) {
    auto *C = dyn_cast<CallInst>(&I);
    if (classify(I).K != Call::Return)
      continue;
    std::optional<uint64_t> Count = constantOperand(C, 0);
    if (!Count || C->arg_size() != 1 + *Count) {
      error("__hpvm__return takes a constant count and that many values", &F,
            C);
      return false;
    }
    if (Return && (*Count || Return->arg_size() > 1)) {
      error("leaf '" + N.Name + "' calls __hpvm__return more than once", &F, C);
      return false;
    }
    Return = C;
  }
  if (Return) {
    DenseMap<Value *, Value *> Materialized;
    for (unsigned K = 1; K < Return->arg_size(); ++K) {
      Value *V = materialize(stripVarargPromotion(Return->getArgOperand(K)), N,
                             Materialized, Return, "the outputs of a node");
      if (!V)
        return false;
      N.Outputs.push_back(V);
    }
  }
  // Kernels are in the C subset; what C++ adds has no device code.
  for (Instruction &I : instructions(F)) {
    const char *What = nullptr;
    if (isa<InvokeInst>(I) || isa<LandingPadInst>(I) || isa<ResumeInst>(I))
      What = "throws or catches C++ exceptions";
    else if (auto *Call = dyn_cast<CallBase>(&I)) {
      Function *Callee = Call->getCalledFunction();
      StringRef Name = Callee ? Callee->getName() : "";
      if (Name.starts_with("__cxa_"))
        What = "throws or catches C++ exceptions";
      else if (Name.starts_with("_Znw") || Name.starts_with("_Zna") ||
               Name.starts_with("_Zdl") || Name.starts_with("_Zda"))
        What = "allocates memory with new or delete";
      else if (!Callee && !Call->isInlineAsm())
        What = "calls through a pointer (a virtual function?)";
    }
    if (What) {
      error("leaf '" + N.Name + "' " + What +
                ": a leaf's code is in the C subset (docs/hpvm-c.md)",
            &F, &I);
      return false;
    }
  }
  // __hpvm__attributes(nIn, in..., nOut, out...) names parameters.
  SmallVector<bool, 8> In(F.arg_size()), Out(F.arg_size());
  for (Instruction &I : instructions(F)) {
    auto *C = dyn_cast<CallInst>(&I);
    if (classify(I).K != Call::Attributes)
      continue;
    unsigned Op = 0;
    for (SmallVector<bool, 8> *List : {&In, &Out}) {
      std::optional<uint64_t> Count = constantOperand(C, Op++);
      if (!Count || Op + *Count > C->arg_size()) {
        error("__hpvm__attributes takes a constant count and that many "
              "pointers, twice (inputs, then outputs)",
              &F, C);
        return false;
      }
      for (uint64_t K = 0; K < *Count; ++K, ++Op) {
        auto *A = dyn_cast<Argument>(C->getArgOperand(Op)->stripPointerCasts());
        if (!A || A->getParent() != &F || !A->getType()->isPointerTy()) {
          error("__hpvm__attributes names " + describe(C->getArgOperand(Op)) +
                    ", which is not a pointer parameter of '" + N.Name + "'",
                &F, C);
          return false;
        }
        (*List)[A->getArgNo()] = true;
      }
    }
  }
  for (Argument &A : F.args()) {
    if (!A.getType()->isPointerTy())
      continue;
    unsigned P = A.getArgNo();
    if (P + 1 >= F.arg_size() || !F.getArg(P + 1)->getType()->isIntegerTy()) {
      error("pointer parameter " + Twine(P) + " of leaf '" + N.Name +
                "' is not followed by its size in bytes (an integer "
                "parameter), as HPVM-C passes every buffer",
            &F, firstLocated(F, CreatedAt));
      return false;
    }
    Buffer B;
    B.Ptr = N.Args[P];
    B.Bytes = N.Args[P + 1];
    bool Named = In[P] || Out[P];
    B.Reads = In[P] || !Named;
    B.Writes = Out[P] || !Named;
    // Node-local memory: all of it, for every section.
    if (auto *GV = dyn_cast<GlobalVariable>(B.Ptr); GV && Locals.count(GV)) {
      B.Bytes = Temporaries.lookup(GV);
      B.Reads = B.Writes = true;
    }
    B.Params.push_back(P);
    nameBuffer(N.Buffers, B);
  }
  return true;
}

/// The value V of N's function has at the launch: its parameters are the
/// arguments N gets, constants are themselves, and pure arithmetic on them
/// is recomputed in front of the launch.
Value *HPVMCLowering::output(const Node &N, unsigned K, Instruction *At) {
  if (K < N.Outputs.size())
    return N.Outputs[K];
  error("'" + N.Name + "' has no output " + Twine(K) + " (it has " +
            Twine(N.Outputs.size()) + ")",
        At->getFunction(), At);
  return nullptr;
}

Value *HPVMCLowering::materialize(Value *V, Node &N,
                                  DenseMap<Value *, Value *> &Done,
                                  Instruction *At, StringRef What,
                                  ArrayRef<Value *> ArgValues) {
  if (auto *A = dyn_cast<Argument>(V))
    return (ArgValues.empty() ? ArrayRef<Value *>(N.Args)
                              : ArgValues)[A->getArgNo()];
  if (isa<Constant>(V))
    return V;
  if (Value *Known = Done.lookup(V))
    return Known;
  if (auto *C = dyn_cast<CallInst>(V); C && classify(*C).K == Call::Malloc)
    return localMemory(C, N, Done, At);
  auto *I = dyn_cast<Instruction>(V);
  if (!I || isa<PHINode>(I) || (isa<CallBase>(I) && !isa<IntrinsicInst>(I)) ||
      isa<AllocaInst>(I) || I->mayReadFromMemory() || I->mayHaveSideEffects()) {
    error(What +
              " may only be computed from the node's parameters and "
              "constants, not from " +
              describe(V),
          At->getFunction(), At);
    return nullptr;
  }
  Instruction *Copy = I->clone();
  for (Use &U : Copy->operands()) {
    Value *Op = materialize(U.get(), N, Done, At, What, ArgValues);
    if (!Op) {
      Copy->deleteValue();
      return nullptr;
    }
    U.set(Op);
  }
  Copy->insertBefore(ExtentsAt);
  Copy->setDebugLoc(LaunchLoc);
  Copy->setName(I->getName());
  Done[V] = Copy;
  return Copy;
}

/// Host memory of Bytes (an i64) for the launch: its stand-in.
GlobalVariable *HPVMCLowering::allocate(Value *Bytes, const Twine &Name) {
  auto *Stand = new GlobalVariable(M, Type::getInt8Ty(Ctx), false,
                                   GlobalValue::ExternalLinkage, nullptr, Name);
  Temporaries[Stand] = Bytes;
  return Stand;
}

/// The stand-ins of a launch that is not lowered, gone.
void HPVMCLowering::dropTemporaries() {
  for (auto &[Stand, Bytes] : Temporaries) {
    Stand->replaceAllUsesWith(PoisonValue::get(Stand->getType()));
    Stand->eraseFromParent();
  }
  Temporaries.clear();
  Locals.clear();
}

/// __hpvm__malloc(bytes) in N, an allocation node: memory of its own for
/// each instance of N's parent (HPVM-C's node-local memory, a work-group's
/// when the parent is one), as one host buffer with a section per instance
/// of the parent and of the nodes above it.
Value *HPVMCLowering::localMemory(CallInst *Malloc, Node &N,
                                  DenseMap<Value *, Value *> &Done,
                                  Instruction *At) {
  if (!N.Parent || !N.Dims.empty()) {
    error("a node that calls __hpvm__malloc allocates for the instances of "
          "its parent: it must be created with no dims "
          "(__hpvm__createNodeND(0, ...)) inside the graph",
          N.F, Malloc);
    return nullptr;
  }
  Value *Section = materialize(Malloc->getArgOperand(0), N, Done, At,
                               "the size __hpvm__malloc allocates");
  if (!Section)
    return nullptr;
  IRBuilder<> B(ExtentsAt);
  B.SetCurrentDebugLocation(LaunchLoc);
  Section = B.CreateSExtOrTrunc(Section, B.getInt64Ty());
  Value *Sections = B.getInt64(1);
  for (const Node *A = N.Parent; A; A = A->Parent)
    for (Value *E : A->Dims)
      Sections = B.CreateMul(Sections, E);
  GlobalVariable *Stand =
      allocate(B.CreateMul(Section, Sections), N.Name + ".local");
  Locals[Stand] = {Section, N.Parent};
  Done[Malloc] = Stand;
  return Stand;
}

/// Allocation nodes have done their part once read: their outputs are the
/// memory. An internal node left with no children is an error.
bool HPVMCLowering::dropAllocations(Node &N) {
  if (N.isLeaf())
    return true;
  erase_if(N.Children,
           [](const std::unique_ptr<Node> &C) { return C->Allocation; });
  if (N.Children.empty()) {
    error("'" + N.Name + "' only creates nodes that allocate memory", N.F,
          firstLocated(*N.F, nullptr));
    return false;
  }
  return all_of(N.Children, [&](const std::unique_ptr<Node> &C) {
    return dropAllocations(*C);
  });
}

//===----------------------------------------------------------------------===//
// Writing the marker form.
//===----------------------------------------------------------------------===//

/// HPVM-C writes GPU kernels as a replicated internal node (work-groups)
/// whose leaf is replicated too (work-items), and the leaf computes its
/// element from both ids. Run as written, each instance of the internal node
/// would be a launch of the leaf; but the leaf's instances of all of them
/// are independent, so the leaf runs as one node over the product of the
/// extents, in one launch, and finds both ids in its flat one (a leaf with
/// barriers runs over the folded node's instances instead, one per
/// work-group: planPhases). Several
/// leaves under one folded node each become a node of the folded node's parent,
/// in the same order.
void HPVMCLowering::foldTiles(Node &N,
                              std::vector<std::unique_ptr<Node>> &Folded) {
  for (auto &C : N.Children)
    foldTiles(*C, Folded);
  std::vector<std::unique_ptr<Node>> Children;
  for (auto &C : N.Children) {
    bool Fold = !C->isLeaf() && !C->Dims.empty() &&
                all_of(C->Children, [](const std::unique_ptr<Node> &L) {
                  return L->isLeaf() && !L->foldedLeaf();
                });
    if (!Fold) {
      Children.push_back(std::move(C));
      continue;
    }
    C->Folded = true;
    IRBuilder<> B(ExtentsAt);
    B.SetCurrentDebugLocation(LaunchLoc);
    for (auto &L : C->Children) {
      unsigned K = std::max(C->Dims.size(), L->Dims.size());
      for (unsigned D = K; D-- > 0;)
        L->FlatDims.push_back(B.CreateMul(
            C->hpvmExtent(D, Ctx), L->hpvmExtent(D, Ctx), L->Name + ".extent"));
      Children.push_back(std::move(L));
    }
    C->Children.clear();
    Folded.push_back(std::move(C));
  }
  N.Children = std::move(Children);
}

/// A leaf with barriers (__hpvm__barrier) runs once per work-group, the
/// group's work-items phase by phase (BarrierPhases.h), each phase a loop
/// over them (emitSteps): every work-item finishes the code before a barrier
/// before any runs the code after it. The trip counts of loops around
/// barriers and the scratch memory that carries values across them are
/// computed in front of the launch.
bool HPVMCLowering::planPhases(Node &N) {
  for (auto &C : N.Children)
    if (!planPhases(*C))
      return false;
  if (!N.isLeaf() || none_of(instructions(*N.F), [](const Instruction &I) {
        return classify(I).K == Call::Barrier;
      }))
    return true;
  Function *Leaf = leafClone(N, /*Indexed=*/true);
  if (!Leaf)
    return false;
  // The leaf's parameters, then (id, count) per dim per level: the counts
  // are the same for every instance, the ids and the index are not.
  SmallVector<Value *, 24> HostArgs(N.Args.begin(), N.Args.end());
  IRBuilder<> B(ExtentsAt);
  B.SetCurrentDebugLocation(LaunchLoc);
  Value *Instances = B.getInt64(1);
  for (const Node *A = &N; A; A = A->Parent)
    for (unsigned D = 0; D < 3; ++D) {
      Value *Count = A->hpvmExtent(D, Ctx);
      HostArgs.append({nullptr, Count});
      Instances = B.CreateMul(Instances, Count);
    }
  HostArgs.append({nullptr, Instances});
  unsigned Params = N.F->arg_size();
  std::optional<BarrierPhases> Phases = splitAtBarriers(
      *Leaf,
      [](const Instruction &I) { return classify(I).K == Call::Barrier; },
      [&](const Argument &A) {
        return A.getArgNo() < Params || HostArgs[A.getArgNo()];
      },
      [&](const Twine &Message, const Instruction *At) {
        error(Message, N.F, At);
      });
  bool OK = Phases.has_value();
  DenseMap<Value *, Value *> Done;
  std::function<void(std::vector<BarrierPhases::Step> &)> Trips =
      [&](std::vector<BarrierPhases::Step> &Steps) {
        for (BarrierPhases::Step &S : Steps) {
          if (OK && S.Trips) {
            auto *Count = dyn_cast<CallInst>(S.Trips);
            if (Count &&
                is_contained(Phases->TripCounters, Count->getCalledFunction()))
              S.Trips = countTrips(*Count, HostArgs);
            else
              S.Trips = materialize(S.Trips, N, Done, ExtentsAt, "a trip count",
                                    HostArgs);
            OK &= S.Trips != nullptr;
            if (OK) {
              ComputedExtents.push_back(S.Trips);
              N.LoopIterations[S.Loop] = S.Trips;
            }
          }
          Trips(S.Body);
        }
      };
  if (OK) {
    N.LoopIterations.assign(Phases->Loops, nullptr);
    Trips(Phases->Steps);
  }
  Leaf->eraseFromParent();
  if (Phases)
    for (Function *Counter : Phases->TripCounters) {
      // (Dead calls in the phases that their clean-up left.)
      for (User *U : make_early_inc_range(Counter->users())) {
        auto *C = cast<CallInst>(U);
        C->replaceAllUsesWith(PoisonValue::get(C->getType()));
        C->eraseFromParent();
      }
      Counter->eraseFromParent();
    }
  if (!OK) {
    if (Phases)
      for (Function *Phase : Phases->Functions)
        Phase->eraseFromParent();
    return false;
  }
  if (Phases->RecordBytes) {
    Value *Bytes = B.CreateMul(Instances, B.getInt64(Phases->RecordBytes));
    N.Scratch = allocate(Bytes, N.Name + ".scratch");
    // The leaf and the nodes around it name the scratch.
    for (Node *A = &N; A; A = A->Parent)
      nameBuffer(A->Buffers, {N.Scratch, Bytes, true, true, {}});
  }
  N.Phases = std::move(Phases);
  return true;
}

/// The trip count a leaf's TripCounter (BarrierPhases.h) gives for the
/// launch's arguments HostArgs (null for what differs between instances,
/// which the counter does not read), counted in front of the launch.
Value *HPVMCLowering::countTrips(CallInst &Count, ArrayRef<Value *> HostArgs) {
  SmallVector<Value *, 24> Args;
  for (auto [Arg, Host] : zip(Count.args(), HostArgs))
    Args.push_back(Host ? Host : PoisonValue::get(Arg->getType()));
  IRBuilder<> B(ExtentsAt);
  B.SetCurrentDebugLocation(LaunchLoc);
  CallInst *Call = B.CreateCall(Count.getCalledFunction(), Args);
  // Read back as the runtime reads it: counted from constants, LLVM would
  // count it too before the regions are formed, and fold a loop of one or
  // no iterations away (the region would lose the loop its dims promise).
  Function &Host = *ExtentsAt->getFunction();
  AllocaInst *Slot =
      new AllocaInst(Call->getType(), M.getDataLayout().getAllocaAddrSpace(),
                     "trips.slot", Host.getEntryBlock().getFirstInsertionPt());
  B.CreateStore(Call, Slot);
  Value *Trips = B.CreateAlignedLoad(Call->getType(), Slot, Align(8),
                                     /*isVolatile=*/true, "trips");
  InlineFunctionInfo IFI;
  if (!InlineFunction(*Call, IFI).isSuccess())
    error("cannot count the trips of a loop around __hpvm__barrier", nullptr,
          ExtentsAt);
  return Trips;
}

/// Wraps a loop `for (i = 0; i < N; ++i)` around the point Before; returns
/// the counter and sets Body to the point inside the loop.
PHINode *wrapLoop(Instruction *Before, Value *Extent, const DebugLoc &Loc,
                  Instruction *&Body) {
  LLVMContext &Ctx = Before->getContext();
  BasicBlock *Pre = Before->getParent();
  Function *F = Pre->getParent();
  BasicBlock *Exit = SplitBlock(Pre, Before);
  BasicBlock *Header = BasicBlock::Create(Ctx, "hpvmc.loop", F, Exit);
  BasicBlock *Inside = BasicBlock::Create(Ctx, "hpvmc.body", F, Exit);
  BasicBlock *Latch = BasicBlock::Create(Ctx, "hpvmc.next", F, Exit);
  Pre->getTerminator()->setSuccessor(0, Header);
  IRBuilder<> B(Header);
  B.SetCurrentDebugLocation(Loc);
  Type *I64 = Type::getInt64Ty(Ctx);
  PHINode *I = B.CreatePHI(I64, 2, "hpvmc.id");
  B.CreateCondBr(B.CreateICmpSLT(I, Extent), Inside, Exit);
  B.SetInsertPoint(Latch);
  Value *Next = B.CreateAdd(I, ConstantInt::get(I64, 1), "", /*HasNUW=*/true,
                            /*HasNSW=*/true);
  B.CreateBr(Header);
  I->addIncoming(ConstantInt::get(I64, 0), Pre);
  I->addIncoming(Next, Latch);
  B.SetInsertPoint(Inside);
  Body = B.CreateBr(Latch);
  return I;
}

CallInst *HPVMCLowering::beginRegion(const Twine &Name, ArrayRef<Value *> Dims,
                                     ArrayRef<Buffer> Buffers,
                                     std::optional<TargetMask> Targets,
                                     bool Top, bool NoWait, bool Sequential,
                                     Instruction *Before,
                                     ArrayRef<Value *> Group) {
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(LaunchLoc);
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  auto Tag = [&](uint32_t T) { return ConstantInt::get(I32, T); };
  std::string NameText = Name.str();
  SmallVector<Value *, 16> Ops = {
      B.CreateGlobalStringPtr(NameText, "hpvmc.name")};
  if (!Dims.empty()) {
    Ops.append({Tag(marker::Dims), Tag(Dims.size())});
    Ops.append(Dims.begin(), Dims.end());
  }
  for (const Buffer &Buf : Buffers) {
    Ops.push_back(Tag(Buf.Reads && Buf.Writes ? marker::InOut
                      : Buf.Writes            ? marker::Out
                                              : marker::In));
    Ops.push_back(Buf.Ptr);
    Ops.push_back(B.CreateSExtOrTrunc(Buf.Bytes, I64));
  }
  if (Targets)
    Ops.append({Tag(marker::Target), Tag(*Targets)});
  // The extents computed for the graph are the root's: they stay in front
  // of it, where no pass can sink them between the nodes.
  if (Top)
    for (Value *E : ComputedExtents)
      Ops.append({Tag(marker::Value), E});
  if (Sequential)
    Ops.push_back(Tag(marker::Sequential));
  if (!Group.empty()) {
    Ops.append({Tag(marker::Group), Tag(Group.size())});
    Ops.append(Group.begin(), Group.end());
  }
  if (NoWait)
    Ops.push_back(Tag(marker::NoWait));
  Ops.push_back(Tag(marker::End));
  FunctionCallee Begin = M.getOrInsertFunction(
      MarkerBeginName, FunctionType::get(B.getPtrTy(), {B.getPtrTy()}, true));
  return B.CreateCall(Begin, Ops, NameText + ".node");
}

void HPVMCLowering::endRegion(CallInst *Handle, Instruction *Before) {
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(LaunchLoc);
  FunctionCallee End = M.getOrInsertFunction(
      MarkerEndName, FunctionType::get(B.getVoidTy(), {B.getPtrTy()}, false));
  B.CreateCall(End, {Handle});
}

bool isConstant(const Value *V, uint64_t K) {
  auto *C = dyn_cast<ConstantInt>(V);
  return C && C->getZExtValue() == K;
}

/// A node of a dim of no instances runs nothing.
bool noInstances(ArrayRef<Value *> Dims) {
  return any_of(Dims, [](Value *E) { return isConstant(E, 0); });
}

/// The dims a region declares: not those of one instance, whose loop of one
/// iteration LLVM folds away (the region would lose the loop its dims
/// promise).
SmallVector<Value *, 3> declaredDims(ArrayRef<Value *> Dims) {
  SmallVector<Value *, 3> Declared;
  for (Value *E : Dims)
    if (!isConstant(E, 1))
      Declared.push_back(E);
  return Declared;
}

/// The loops over Dims around Inside (declaredDims'), their counters into
/// Ids: 0 for a dim of one instance.
void HPVMCLowering::emitLoops(ArrayRef<Value *> Dims, Instruction *&Inside,
                              SmallVectorImpl<Value *> &Ids) {
  for (Value *Extent : Dims)
    Ids.push_back(
        isConstant(Extent, 1)
            ? static_cast<Value *>(ConstantInt::get(Type::getInt64Ty(Ctx), 0))
            : wrapLoop(Inside, Extent, LaunchLoc, Inside));
}

void HPVMCLowering::emit(Node &N, Instruction *Before, bool NoWait) {
  ArrayRef<Value *> Dims = N.regionDims();
  if (noInstances(Dims) || (N.Phases && noInstances(N.Dims)))
    return;
  // A leaf with barriers runs work-groups of its own extents.
  CallInst *Handle = beginRegion(
      N.Name, declaredDims(Dims), N.Buffers,
      N.isLeaf() ? N.Targets : std::nullopt, &N == TopNode && !N.isLeaf(),
      NoWait, /*Sequential=*/false, Before,
      N.Phases ? ArrayRef<Value *>(N.Dims) : ArrayRef<Value *>());
  Instruction *Inside = Before;
  if (N.Phases) {
    // The region runs over the work-groups: the folded parent's loops.
    emitLoops(Dims, Inside, N.foldedLeaf() ? N.Parent->Ids : N.Ids);
    // A GPU backend may run a group as a device work-group, a thread per
    // work-item: the leaf as written, its barriers the device's. Everything
    // else runs the phases (WorkGroupNativeFunctionName).
    IRBuilder<> B(Inside);
    B.SetCurrentDebugLocation(LaunchLoc);
    Instruction *WorkItem, *Phases;
    SplitBlockAndInsertIfThenElse(
        B.CreateCall(getWorkGroupFunction(M, WorkGroupNativeFunctionName)),
        Inside, &WorkItem, &Phases);
    emitWorkItem(N, WorkItem);
    emitSteps(N, N.Phases->Steps, Phases);
    for (Function *Phase : N.Phases->Functions)
      Phase->eraseFromParent();
  } else {
    emitLoops(Dims, Inside, N.Ids);
    if (!N.isLeaf()) {
      for (auto &Child : N.Children)
        emit(*Child, Inside, /*NoWait=*/false);
    } else if (Function *Body = leafClone(N, /*Indexed=*/false)) {
      callLeaf(N, *Body, Inside);
      Body->eraseFromParent();
    }
  }
  endRegion(Handle, Before);
}

/// One work-item of a group at Before: the leaf as written, its ids the
/// work-item's (WorkItemIdFunctionName) and its group's (the region's loop
/// counters), each __hpvm__barrier the device's (BarrierFunctionName).
void HPVMCLowering::emitWorkItem(Node &N, Instruction *Before) {
  Function *Body = leafClone(N, /*Indexed=*/false);
  if (!Body)
    return;
  Function *Barrier = getWorkGroupFunction(M, BarrierFunctionName);
  for (Instruction &I : make_early_inc_range(instructions(*Body)))
    if (classify(I).K == Call::Barrier) {
      CallInst::Create(Barrier, "", I.getIterator())
          ->setDebugLoc(I.getDebugLoc());
      I.eraseFromParent();
    }
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(LaunchLoc);
  Function *ItemId = getWorkGroupFunction(M, WorkItemIdFunctionName);
  N.Ids.clear();
  for (unsigned D = 0; D < N.Dims.size(); ++D)
    N.Ids.push_back(B.CreateCall(ItemId, {B.getInt32(D)}, "work.item"));
  callLeaf(N, *Body, Before);
  Body->eraseFromParent();
}

/// Whether Steps run any phase.
bool hasWork(ArrayRef<BarrierPhases::Step> Steps) {
  return any_of(Steps, [](const BarrierPhases::Step &S) {
    return S.Phase || (!isConstant(S.Trips, 0) && hasWork(S.Body));
  });
}

/// Marks the loop whose counter is Id as a loop over the instances of one
/// work-group: its iterations run the same phase of different instances,
/// which are independent between barriers (WorkItemsLoopProperty).
void markWorkItems(PHINode *Id) {
  LLVMContext &Ctx = Id->getContext();
  Instruction *Latch = Id->getIncomingBlock(1)->getTerminator();
  SmallVector<Metadata *, 3> Ops{
      nullptr, MDNode::get(Ctx, MDString::get(Ctx, WorkItemsLoopProperty)),
      // LLVM would unroll a group of a few instances at once; the CPU
      // backend runs their loop as the vector loop it is.
      MDNode::get(Ctx, MDString::get(Ctx, "llvm.loop.unroll.disable"))};
  MDNode *LoopID = MDNode::getDistinct(Ctx, Ops);
  LoopID->replaceOperandWith(0, LoopID);
  Latch->setMetadata(LLVMContext::MD_loop, LoopID);
}

/// The phases of a work-group, in order, each in loops over the group's
/// instances; loops around barriers are loops around the phases of their
/// bodies.
void HPVMCLowering::emitSteps(Node &N, ArrayRef<BarrierPhases::Step> Steps,
                              Instruction *Before) {
  for (const BarrierPhases::Step &S : Steps) {
    if (S.Phase) {
      Instruction *Inside = Before;
      N.Ids.clear();
      emitLoops(N.Dims, Inside, N.Ids);
      for (Value *Id : N.Ids)
        if (auto *Counter = dyn_cast<PHINode>(Id))
          markWorkItems(Counter);
      callLeaf(N, *S.Phase, Inside);
    } else if (hasWork(S.Body) && !isConstant(S.Trips, 0)) {
      Instruction *Inside = Before;
      Value *After = N.LoopIterations[S.Loop];
      N.LoopIterations[S.Loop] = wrapLoop(Inside, S.Trips, LaunchLoc, Inside);
      emitSteps(N, S.Body, Inside);
      N.LoopIterations[S.Loop] = After;
    }
  }
}

/// Which node a handle is: 0 for __hpvm__getNode(), one more for each
/// __hpvm__getParentNode around it.
std::optional<unsigned> HPVMCLowering::handleLevel(Value *Handle) {
  auto *C = dyn_cast<CallInst>(Handle->stripPointerCasts());
  CallKind K = C ? classify(*C) : CallKind{};
  if (K.K == Call::GetNode)
    return 0;
  if (K.K == Call::GetParent)
    if (std::optional<unsigned> L = handleLevel(C->getArgOperand(0)))
      return *L + 1;
  return std::nullopt;
}

/// The value a query of the leaf N's clone stands for at the launch: an
/// instance id is a loop counter, a count an extent.
Value *HPVMCLowering::resolveQuery(CallInst *Q, Node &N, Function &Clone) {
  CallKind K = classify(*Q);
  std::optional<unsigned> Level = handleLevel(Q->getArgOperand(0));
  if (!Level) {
    error("cannot tell which node " + describe(Q->getArgOperand(0)) +
              " is: pass __hpvm__getNode() or __hpvm__getParentNode(...) of "
              "it",
          N.F, Q);
    return nullptr;
  }
  Node *A = &N;
  for (unsigned L = 0; A && L < *Level; ++L)
    A = A->Parent;
  if (!A) {
    error("__hpvm__getParentNode goes above the root of the graph", N.F, Q);
    return nullptr;
  }
  Type *Ty = Q->getType();
  unsigned Dims = A->Dims.size();
  if (K.Dim >= Dims) // a dim the node does not have: one instance
    return ConstantInt::get(Ty, K.K == Call::InstanceId ? 0 : 1);
  // Extra parameters of the clone: Clone's arguments after F's, two per
  // (level, dim) pair: id, count.
  unsigned Extra = N.F->arg_size() + 2 * (3 * *Level + K.Dim) +
                   (K.K == Call::Instances ? 1 : 0);
  return Clone.getArg(Extra);
}

/// HPVM's own headers declare the atomics (hpvm.h defines them): as the
/// definitions do, a sequentially consistent read-modify-write returning the
/// old value.
bool HPVMCLowering::lowerAtomic(CallInst *C, const Node &N) {
  StringRef Op =
      C->getCalledFunction()->getName().drop_front(strlen("__hpvm__atomic_"));
  std::optional<AtomicRMWInst::BinOp> Kind =
      StringSwitch<std::optional<AtomicRMWInst::BinOp>>(Op)
          .Case("add", AtomicRMWInst::Add)
          .Case("inc", AtomicRMWInst::Add)
          .Case("sub", AtomicRMWInst::Sub)
          .Case("dec", AtomicRMWInst::Sub)
          .Case("xchg", AtomicRMWInst::Xchg)
          .Case("and", AtomicRMWInst::And)
          .Case("or", AtomicRMWInst::Or)
          .Case("xor", AtomicRMWInst::Xor)
          .Case("min", AtomicRMWInst::Min)
          .Case("max", AtomicRMWInst::Max)
          .Case("umin", AtomicRMWInst::UMin)
          .Case("umax", AtomicRMWInst::UMax)
          .Default(std::nullopt);
  bool Unary = Op == "inc" || Op == "dec";
  if (!Kind || C->arg_size() != (Unary ? 1u : 2u) ||
      !C->getArgOperand(0)->getType()->isPointerTy() ||
      !C->getType()->isIntegerTy()) {
    error("'" + C->getCalledFunction()->getName() +
              "' is not one of HPVM-C's atomics",
          N.F, C);
    return false;
  }
  Value *V = Unary ? ConstantInt::get(C->getType(), 1) : C->getArgOperand(1);
  IRBuilder<> B(C);
  Value *Old = B.CreateAtomicRMW(*Kind, C->getArgOperand(0), V, MaybeAlign(),
                                 AtomicOrdering::SequentiallyConsistent);
  C->replaceAllUsesWith(Old);
  C->eraseFromParent();
  return true;
}

/// A clone of the leaf N whose queries are answered by extra parameters:
/// for N and each node above it, (id, count) for x, y and z; then, Indexed,
/// the instance's index among all of them and their number. Null after an
/// error.
Function *HPVMCLowering::leafClone(Node &N, bool Indexed) {
  Function &F = *N.F;
  unsigned Levels = N.depth() + 1;
  Type *I64 = Type::getInt64Ty(Ctx);
  SmallVector<Type *, 24> Extra(6 * Levels + (Indexed ? 2 : 0), I64);
  ValueToValueMapTy VMap;
  SmallVector<ReturnInst *, 4> Returns;
  Function *Clone = cloneWithParameters(F, F.getReturnType(), Extra,
                                        F.getName() + ".hpvmc", VMap, Returns);

  // hpvm.h's inline helpers (atomics) become part of the body.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Instruction &I : instructions(*Clone))
      if (auto *C = dyn_cast<CallInst>(&I))
        if (Function *Callee = C->getCalledFunction();
            Callee && !Callee->isDeclaration() &&
            Callee->getName().starts_with("__hpvm__")) {
          InlineFunctionInfo IFI;
          Changed = InlineFunction(*C, IFI).isSuccess();
          if (Changed)
            break;
        }
  }

  SmallVector<CallInst *, 16> Queries, Dead, Atomics;
  for (Instruction &I : instructions(*Clone))
    if (auto *C = dyn_cast<CallInst>(&I))
      switch (classify(*C).K) {
      case Call::InstanceId:
      case Call::Instances:
        Queries.push_back(C);
        break;
      case Call::Hint:
      case Call::HintHPVM:
      case Call::Attributes:
      case Call::Return:
        Dead.push_back(C);
        break;
      case Call::Atomic:
        Atomics.push_back(C);
        break;
      default:
        break;
      }
  for (CallInst *C : Atomics)
    if (!lowerAtomic(C, N)) {
      Clone->eraseFromParent();
      return nullptr;
    }
  for (CallInst *Q : Queries) {
    Value *V = resolveQuery(Q, N, *Clone);
    if (!V) {
      Clone->eraseFromParent();
      return nullptr;
    }
    if (V->getType() != Q->getType())
      V = CastInst::CreateIntegerCast(V, Q->getType(), true, "", Q);
    Q->replaceAllUsesWith(V);
    Q->eraseFromParent();
  }
  for (CallInst *C : Dead) {
    bool IsReturn = classify(*C).K == Call::Return;
    Instruction *After = C->getNextNode();
    C->eraseFromParent();
    // A function with outputs ends in __hpvm__return, without a return
    // statement: C++ follows it with a trap (at -O0) and `unreachable`,
    // which would now be reached. The instance ends there.
    while (IsReturn && After) {
      auto *II = dyn_cast<IntrinsicInst>(After);
      if (II && (II->getIntrinsicID() == Intrinsic::trap ||
                 II->getIntrinsicID() == Intrinsic::ubsantrap)) {
        After = II->getNextNode();
        II->eraseFromParent();
        continue;
      }
      if (isa<UnreachableInst>(After)) {
        Type *Ret = Clone->getReturnType();
        ReturnInst::Create(Ctx,
                           Ret->isVoidTy() ? nullptr : PoisonValue::get(Ret),
                           After->getIterator());
        After->eraseFromParent();
      }
      break;
    }
  }
  // Handles nothing asks about any more.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Instruction &I : make_early_inc_range(instructions(*Clone))) {
      CallKind K = classify(I);
      if ((K.K == Call::GetNode || K.K == Call::GetParent) && I.use_empty()) {
        I.eraseFromParent();
        Changed = true;
      }
    }
  }
  for (Instruction &I : instructions(*Clone))
    if (classify(I).K == Call::GetNode || classify(I).K == Call::GetParent) {
      error("a node handle may only be passed to HPVM-C's queries", N.F, &I);
      Clone->eraseFromParent();
      return nullptr;
    }
  return Clone;
}

/// Calls Body, the leaf N's clone or one of its phases, inside N's loops
/// at Before, with the ids and counts its queries ask for, and inlines it.
void HPVMCLowering::callLeaf(Node &N, Function &Body, Instruction *Before) {
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(LaunchLoc);
  Value *Zero = B.getInt64(0);
  SmallVector<Value *, 16> Args(N.Args.begin(), N.Args.end());
  // Per node from N up: (id, count) for x, y, z. A folded leaf's loop
  // counter counts the folded node's instances times the leaf's: the leaf's
  // id is what remains of a division by its extent, the folded node's the
  // quotient. (A leaf with barriers has loops of both.)
  struct Level {
    const Node *Of;
    Value *Id[3], *Count[3];
  };
  SmallVector<Level, 4> Levels;
  bool Flat = N.foldedLeaf() && !N.Phases;
  unsigned K = N.FlatDims.size();
  for (const Node *A = &N; A; A = A->Parent) {
    Level L{A, {}, {}};
    for (unsigned D = 0; D < 3; ++D) {
      L.Count[D] = A->hpvmExtent(D, Ctx);
      if (Flat && (A == &N || A == N.Parent)) {
        Value *Extent = N.hpvmExtent(D, Ctx);
        Value *Id = D < K ? N.Ids[K - 1 - D] : nullptr;
        L.Id[D] = !Id       ? Zero
                  : A == &N ? B.CreateURem(Id, Extent)
                            : B.CreateUDiv(Id, Extent);
      } else {
        unsigned Dims = A->Dims.size();
        L.Id[D] = D < Dims ? A->Ids[Dims - 1 - D] : Zero;
      }
    }
    Levels.push_back(L);
  }
  // The index of an instance of the nodes from the root down to the level
  // Last, x fastest.
  // (Indices of instances, and offsets in memory made for the launch: no
  // wrapping, which the loop vectoriser would otherwise check at run time.)
  auto Mul = [&](Value *A, Value *C) {
    return B.CreateMul(A, C, "", true, true);
  };
  auto Add = [&](Value *A, Value *C) {
    return B.CreateAdd(A, C, "", true, true);
  };
  auto IndexDownTo = [&](const Node *Last) {
    Value *Index = Zero, *Count = B.getInt64(1);
    for (const Level &L : reverse(Levels)) {
      for (unsigned D = 3; D-- > 0;) {
        Index = Add(Mul(Index, L.Count[D]), L.Id[D]);
        Count = Mul(Count, L.Count[D]);
      }
      if (L.Of == Last)
        break;
    }
    return std::pair{Index, Count};
  };
  // Node-local memory: the section of the instance of its scope.
  for (Value *&Arg : Args) {
    auto *Stand = dyn_cast<GlobalVariable>(Arg);
    auto It = Stand ? Locals.find(Stand) : Locals.end();
    if (It == Locals.end())
      continue;
    const LocalMemory &Local = It->second;
    if (none_of(Levels, [&](const Level &L) { return L.Of == Local.Scope; })) {
      error("leaf '" + N.Name +
                "' uses the memory allocated for each "
                "instance of '" +
                Local.Scope->Name + "', outside it",
            N.F, firstLocated(*N.F, nullptr));
      return;
    }
    Arg = B.CreateInBoundsGEP(
        B.getInt8Ty(), Stand,
        Mul(IndexDownTo(Local.Scope).first, Local.SectionBytes));
  }
  for (const Level &L : Levels)
    for (unsigned D = 0; D < 3; ++D)
      Args.append({L.Id[D], L.Count[D]});
  // A phase: the instance's place in the scratch memory, among all
  // instances, x fastest (neighbouring iterations of the innermost loop at
  // neighbouring places: vector loads and stores on the CPU).
  if (Body.arg_size() > Args.size()) {
    auto [Index, Count] = IndexDownTo(&N);
    Args.append({Index, Count,
                 N.Scratch ? static_cast<Value *>(N.Scratch)
                           : ConstantPointerNull::get(B.getPtrTy())});
    Args.append(N.LoopIterations.begin(), N.LoopIterations.end());
  }
  CallInst *Call = B.CreateCall(&Body, Args);
  InlineFunctionInfo IFI;
  InlineResult R = InlineFunction(*Call, IFI);
  if (!R.isSuccess())
    error("cannot inline leaf '" + N.Name + "': " + R.getFailureReason(), N.F,
          nullptr);
}

/// The packed struct of Root's parameters, or null after an error at At.
StructType *HPVMCLowering::argumentStruct(Function &Root, Instruction *At) {
  SmallVector<Type *, 8> Fields;
  for (Argument &A : Root.args()) {
    Type *T = A.getType();
    if (!T->isPointerTy() && !T->isIntegerTy() && !T->isFloatingPointTy()) {
      error("parameter " + Twine(A.getArgNo()) + " of root '" + nodeName(Root) +
                "' is not a pointer, integer or floating-point value",
            At->getFunction(), At);
      return nullptr;
    }
    Fields.push_back(T);
  }
  return StructType::get(Ctx, Fields, /*isPacked=*/true);
}

bool HPVMCLowering::unfold(Function &Root, Value *ArgStruct, Instruction *At,
                           bool NoWait, CallInst *Wait) {
  LaunchLoc = At->getDebugLoc();
  ExtentsAt = At;
  Temporaries.clear();
  Locals.clear();
  StructType *Packed = argumentStruct(Root, At);
  if (!Packed)
    return false;
  // The root's arguments, from HPVM-C's packed struct, in parameter order.
  IRBuilder<> B(At);
  B.SetCurrentDebugLocation(LaunchLoc);
  // Read as the launch reads them, whatever the host stored: an extent that
  // LLVM saw to be 1 or 0 before the regions are formed would lose the loop
  // its region promises (folded away, as a loop of one or no iterations).
  SmallVector<Value *, 8> Args;
  for (Argument &A : Root.args()) {
    Value *Field = B.CreateStructGEP(Packed, ArgStruct, A.getArgNo());
    Args.push_back(B.CreateAlignedLoad(A.getType(), Field, Align(1),
                                       /*isVolatile=*/true,
                                       A.hasName() ? A.getName() : ""));
  }
  std::unique_ptr<Node> Graph = readNode(&Root, Args, {}, nullptr, At);
  if (!Graph)
    return false;
  // The root's outputs go into the struct after its parameters, as a struct
  // of their own (HPVM-C's `struct out_t r;` at the end of the packed one).
  if (!Graph->Outputs.empty()) {
    SmallVector<Type *, 8> Fields(Packed->elements());
    SmallVector<Type *, 2> OutTypes;
    for (Value *V : Graph->Outputs) {
      auto *Stand = dyn_cast<GlobalVariable>(V);
      if (Stand && Locals.count(Stand)) {
        error("node-local memory (__hpvm__malloc) is gone when the graph "
              "ends: it cannot be an output of the root '" +
                  Graph->Name + "'",
              At->getFunction(), At);
        return false;
      }
      OutTypes.push_back(V->getType());
    }
    Fields.push_back(StructType::get(Ctx, OutTypes));
    StructType *WithOutputs = StructType::get(Ctx, Fields, /*isPacked=*/true);
    for (unsigned K = 0; K < Graph->Outputs.size(); ++K) {
      Value *Out = B.CreateInBoundsGEP(
          WithOutputs, ArgStruct,
          {B.getInt32(0), B.getInt32(Root.arg_size()), B.getInt32(K)});
      B.CreateAlignedStore(Graph->Outputs[K], Out, Align(1));
    }
  }
  if (!dropAllocations(*Graph))
    return false;
  std::vector<std::unique_ptr<Node>> Folded;
  foldTiles(*Graph, Folded);
  ComputedExtents.clear();
  if (!planPhases(*Graph))
    return false;
  // A root that only holds one leaf (HPVM-C's usual root, and what folding
  // leaves of a work-group kernel) adds nothing but a level to schedule: the
  // leaf is the graph, and a small one may run in place (docs/runtime.md
  // §1.4). It keeps the root as its parent for __hpvm__getParentNode.
  Node *Top = Graph.get();
  if (Graph->Children.size() == 1 && Graph->Children.front()->isLeaf())
    Top = Graph->Children.front().get();
  std::function<void(const Node &)> Collect = [&](const Node &N) {
    // (A leaf with barriers loops over its own dims inside its region.)
    ArrayRef<Value *> Items = N.Phases ? ArrayRef(N.Dims) : ArrayRef<Value *>();
    for (ArrayRef<Value *> Dims : {N.regionDims(), Items})
      for (Value *E : Dims)
        if (isa<Instruction>(E) && !is_contained(ComputedExtents, E))
          ComputedExtents.push_back(E);
    for (const auto &C : N.Children)
      Collect(*C);
  };
  Collect(*Top);
  TopNode = Top;
  if (Temporaries.empty()) {
    emit(*Top, At, NoWait);
    return true;
  }
  // The launch's memory, in front of it once its sizes are known, and freed
  // once it has run: after its wait, where that is one call to find, or
  // else the launch waits for itself. One more byte: no null pointer for
  // nothing to hold.
  B.SetInsertPoint(At);
  FunctionCallee Malloc =
      M.getOrInsertFunction("malloc", B.getPtrTy(), B.getInt64Ty());
  SmallVector<Value *, 4> Memory;
  for (auto &[Stand, Bytes] : Temporaries)
    Memory.push_back(B.CreateCall(Malloc, {B.CreateAdd(Bytes, B.getInt64(1))},
                                  Stand->getName()));
  if (!Wait)
    NoWait = false;
  emit(*Top, At, NoWait);
  FunctionCallee Free = M.getOrInsertFunction("free", Type::getVoidTy(Ctx),
                                              PointerType::get(Ctx, 0));
  Instruction *FreeAt = NoWait ? Wait->getNextNode() : At;
  for (auto [Temporary, Mem] : zip(Temporaries, Memory)) {
    // Addresses folded into constants (a section at a constant offset) are
    // instructions again before the memory, an instruction, takes over.
    convertUsersOfConstantsToInstructions({Temporary.first});
    Temporary.first->replaceAllUsesWith(Mem);
    Temporary.first->eraseFromParent();
    CallInst::Create(Free, {Mem}, "", FreeAt->getIterator())
        ->setDebugLoc(LaunchLoc);
  }
  Temporaries.clear();
  Locals.clear();
  return true;
}

/// Whether the launch is waited for right after it (`__hpvm__wait(dfg)` the
/// next thing the host does, as most of HPVM's programs do): then it runs as
/// a synchronous launch, which costs less than one in the background and a
/// wait, and may run in place (docs/runtime.md §1.4). The wait stays: it also
/// waits for the thread's other launches.
bool waitedAtOnce(CallInst *Launch) {
  for (Instruction *I = Launch->getNextNode(); I; I = I->getNextNode()) {
    if (auto *C = dyn_cast<CallInst>(I))
      if (Function *Callee = C->getCalledFunction();
          Callee && Callee->getName() == "__hpvm__wait")
        return C->getArgOperand(0) == Launch;
    if (isa<DbgInfoIntrinsic>(I) || !I->mayHaveSideEffects())
      continue;
    return false;
  }
  return false;
}

void HPVMCLowering::lowerLaunch(CallInst *Launch) {
  Function *Host = Launch->getFunction();
  std::optional<uint64_t> Streaming = constantOperand(Launch, 0);
  if (!Streaming || *Streaming > 1 || Launch->arg_size() != 3) {
    error("__hpvm__launch takes 0 (or 1 for streaming), a root node "
          "function and a pointer to its arguments",
          Host, Launch);
    return;
  }
  Function *Root = calledNodeFunction(Launch->getArgOperand(1));
  if (!Root) {
    error("__hpvm__launch must name a node function, not " +
              describe(Launch->getArgOperand(1)),
          Host, Launch);
    return;
  }
  if (!*Streaming) {
    // The wait for it, where there is one, in the same block.
    CallInst *Wait = nullptr;
    unsigned Waits = 0;
    for (User *U : Launch->users())
      if (auto *C = dyn_cast<CallInst>(U);
          C && C->getCalledFunction() &&
          C->getCalledFunction()->getName() == "__hpvm__wait") {
        Wait = C;
        ++Waits;
      }
    if (Waits != 1 || Wait->getParent() != Launch->getParent())
      Wait = nullptr;
    if (!unfold(*Root, Launch->getArgOperand(2), Launch,
                /*NoWait=*/!waitedAtOnce(Launch), Wait)) {
      dropTemporaries();
      return;
    }
    // __hpvm__wait ignores its handle (it waits for every launch).
    Launch->replaceAllUsesWith(Launch->getArgOperand(2));
    Launch->eraseFromParent();
    return;
  }
  lowerStreamingLaunch(Launch, *Root);
}

/// A streaming launch starts a stream; each push unfolds the graph there, a
/// frame of it with the arguments pushed (hpvm_rt.h's hpvmc_stream_*).
void HPVMCLowering::lowerStreamingLaunch(CallInst *Launch, Function &Root) {
  Function *Host = Launch->getFunction();
  // hpvm-rt's (hpvm_rt.h).
  Type *Ptr = PointerType::get(Ctx, 0), *Void = Type::getVoidTy(Ctx);
  FunctionCallee Begin = M.getOrInsertFunction("hpvmc_stream_begin", Ptr);
  FunctionCallee PushBegin =
      M.getOrInsertFunction("hpvmc_stream_push_begin", Void, Ptr, Ptr);
  FunctionCallee PushEnd =
      M.getOrInsertFunction("hpvmc_stream_push_end", Void, Ptr);
  FunctionCallee End = M.getOrInsertFunction("hpvmc_stream_end", Void, Ptr);
  SmallVector<CallInst *, 4> Pushes, Waits;
  for (User *U : Launch->users()) {
    auto *C = dyn_cast<CallInst>(U);
    Function *Callee = C ? C->getCalledFunction() : nullptr;
    StringRef Name = Callee ? Callee->getName() : "";
    if (C && C->getArgOperand(0) == Launch && Name == "__hpvm__push")
      Pushes.push_back(C);
    else if (C && C->getArgOperand(0) == Launch && Name == "__hpvm__wait")
      Waits.push_back(C);
    else if (!(C && C->getArgOperand(0) == Launch && Name == "__hpvm__pop")) {
      error("the handle of a streaming launch may only go to __hpvm__push, "
            "__hpvm__pop and __hpvm__wait (kept in a local variable)",
            Host, dyn_cast<Instruction>(U) ? cast<Instruction>(U) : Launch);
      return;
    }
  }
  StructType *Packed = argumentStruct(Root, Launch);
  if (!Packed)
    return;
  uint64_t OutputsAt = M.getDataLayout().getTypeAllocSize(Packed);
  CallInst *Graph =
      CallInst::Create(Begin, {}, "hpvmc.stream", Launch->getIterator());
  Graph->setDebugLoc(Launch->getDebugLoc());
  Launch->replaceAllUsesWith(Graph);
  Launch->eraseFromParent();
  Streamed = true;
  for (CallInst *Push : Pushes) {
    Value *Args = Push->getArgOperand(1);
    IRBuilder<> B(Push);
    B.SetCurrentDebugLocation(Push->getDebugLoc());
    Value *Outputs =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Args, OutputsAt);
    B.CreateCall(PushBegin, {Graph, Outputs});
    CallInst *After = B.CreateCall(PushEnd, {Graph});
    bool OK = unfold(Root, Args, After, /*NoWait=*/true, /*Wait=*/nullptr);
    Push->eraseFromParent();
    if (!OK)
      break;
  }
  Streamed = false;
  for (CallInst *Wait : Waits) {
    CallInst *Ended = CallInst::Create(End, {Graph}, "", Wait->getIterator());
    Ended->setDebugLoc(Wait->getDebugLoc());
    Wait->eraseFromParent();
  }
}

bool usesHPVMC(const Function &F) {
  for (const Instruction &I : instructions(F))
    if (classify(I).K != Call::None)
      return true;
  return false;
}

bool createsNodes(const Function &F) {
  for (const Instruction &I : instructions(F))
    if (classify(I).K == Call::CreateNode)
      return true;
  return false;
}

unsigned HPVMCLowering::run() {
  Function *LaunchFn = M.getFunction("__hpvm__launch");
  bool Any = false;
  for (Function &F : M)
    Any |= F.isDeclaration() && classify(&F).K != Call::None;
  if (!Any)
    return 0;

  // Node handles and the arguments of HPVM-C's calls as SSA values.
  PipelineRunner Run;
  FunctionAnalysisManager &FAM = Run.functionAnalyses();
  FunctionPassManager FPM = Run.functionPipeline("sroa,early-cse");
  // Internal nodes may bind parameters in a loop (`for (p = 0; p < 6; ++p)
  // __hpvm__bindIn(n, p, p, 0)`): unrolled, every binding is a constant.
  FunctionPassManager Unroll = Run.functionPipeline(
      "loop(loop-unroll-full),simplifycfg,instcombine,early-cse");
  for (Function &F : M)
    if (!F.isDeclaration() && usesHPVMC(F)) {
      FPM.run(F, FAM);
      if (createsNodes(F)) {
        // Whatever clang asked for (no unrolling at -O1, small code at
        // -Os), these loops must go.
        MDNode *Full =
            MDNode::get(Ctx, MDString::get(Ctx, "llvm.loop.unroll.full"));
        for (Loop *L : FAM.getResult<LoopAnalysis>(F).getLoopsInPreorder()) {
          auto Self = MDNode::getTemporary(Ctx, {});
          MDNode *ID = MDNode::getDistinct(Ctx, {Self.get(), Full});
          ID->replaceOperandWith(0, ID);
          L->setLoopID(ID);
        }
        FAM.invalidate(F, PreservedAnalyses::none());
        Unroll.run(F, FAM);
      }
    }

  SmallVector<CallInst *, 4> Launches;
  if (LaunchFn)
    for (User *U : LaunchFn->users()) {
      auto *C = dyn_cast<CallInst>(U);
      if (!C || C->getCalledOperand() != LaunchFn) {
        error("__hpvm__launch may only be called directly", nullptr,
              dyn_cast<Instruction>(U));
        return Errors;
      }
    }
  // In program order, so that errors come in the order of the source.
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (classify(I).K == Call::Launch)
        Launches.push_back(cast<CallInst>(&I));
  for (CallInst *Launch : Launches)
    lowerLaunch(Launch);
  if (Errors)
    return Errors;

  // The node functions live on only in the launches.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function *&F : NodeFunctions)
      if (F && F->use_empty()) {
        F->eraseFromParent();
        F = nullptr;
        Changed = true;
      }
  }
  for (Function &F : M)
    if (!F.isDeclaration())
      for (Instruction &I : instructions(F)) {
        CallKind K = classify(I);
        if (K.K == Call::None)
          continue;
        error("'" + cast<CallInst>(I).getCalledFunction()->getName() +
                  "' is outside the node functions of every launch (a node "
                  "function may only be created or launched, not called)",
              &F, &I);
        return Errors;
      }
  return Errors;
}

} // namespace

unsigned lowerHPVMC(Module &M) { return HPVMCLowering(M).run(); }

PreservedAnalyses LowerHPVMCPass::run(Module &M, ModuleAnalysisManager &) {
  if (hadErrors(M.getContext()))
    return PreservedAnalyses::all();
  return lowerHPVMC(M) ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

} // namespace hpvm
