//===- GraphMetadata.cpp - The graph form encoded in an LLVM module -------===//
//
// Encodes the graph model as module metadata (docs/ir.md §3.2) and decodes it
// back. The reader treats the metadata as untrusted input: any .ll file can
// carry !hpvm.graphs, so every operand is type-checked and every defect comes
// back as an llvm::Error naming the graph, the node path and the field rather
// than as an assertion or a crash.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/GraphMetadata.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#include <utility>

using namespace llvm;

namespace hpvm {

// Tags and keys of the encoding. They are spelled once here so that the
// writer and the reader cannot drift apart.
static constexpr const char *GraphTag = "hpvm.graph";
static constexpr const char *NodeTag = "hpvm.node";
static constexpr const char *KeyName = "name";
static constexpr const char *KeyKind = "kind";
static constexpr const char *KeyFunction = "function";
static constexpr const char *KeyDims = "dims";
static constexpr const char *KeyParams = "params";
static constexpr const char *KeyOutputs = "outputs";
static constexpr const char *KeyTargets = "targets";
static constexpr const char *KeySequential = "sequential"; // "true" when set
static constexpr const char *KeyGroup = "group";           // list of extents
static constexpr const char *KeyChildren = "children";
static constexpr const char *KeyEdges = "edges";
static constexpr const char *KeyBindings = "bindings";
static constexpr const char *KeyOutputBindings = "output-bindings";
static constexpr const char *KindLeaf = "leaf";
static constexpr const char *KindInternal = "internal";
static constexpr const char *ExtentParam = "param";
static constexpr const char *ParamBuffer = "buffer";
static constexpr const char *FlagWritesAll = "writes-all";
static constexpr const char *SectionOffset = "at";
static constexpr const char *RowsWritten = "writes-rows";
static constexpr const char *ParamValue = "value";
static constexpr const char *BindParam = "param";
static constexpr const char *BindConst = "const";
// Types, access modes, targets and edge kinds are spelled by the model's
// toString/parse functions, which use the spellings of docs/ir.md.

//===----------------------------------------------------------------------===//
// Types and declarations
//===----------------------------------------------------------------------===//

Type *toLLVMType(ScalarType T, LLVMContext &Ctx) {
  switch (T) {
  case ScalarType::I1:
    return Type::getInt1Ty(Ctx);
  case ScalarType::I8:
    return Type::getInt8Ty(Ctx);
  case ScalarType::I16:
    return Type::getInt16Ty(Ctx);
  case ScalarType::I32:
    return Type::getInt32Ty(Ctx);
  case ScalarType::I64:
    return Type::getInt64Ty(Ctx);
  case ScalarType::F16:
    return Type::getHalfTy(Ctx);
  case ScalarType::F32:
    return Type::getFloatTy(Ctx);
  case ScalarType::F64:
    return Type::getDoubleTy(Ctx);
  case ScalarType::Ptr:
    return PointerType::get(Ctx, 0);
  }
  return nullptr;
}

std::optional<ScalarType> fromLLVMType(const Type *T) {
  if (!T)
    return std::nullopt;
  if (T->isIntegerTy()) {
    switch (T->getIntegerBitWidth()) {
    case 1:
      return ScalarType::I1;
    case 8:
      return ScalarType::I8;
    case 16:
      return ScalarType::I16;
    case 32:
      return ScalarType::I32;
    case 64:
      return ScalarType::I64;
    default:
      return std::nullopt;
    }
  }
  if (T->isHalfTy())
    return ScalarType::F16;
  if (T->isFloatTy())
    return ScalarType::F32;
  if (T->isDoubleTy())
    return ScalarType::F64;
  // Buffers live in the generic address space; backends that need others
  // assign them after EXTRACT.
  if (T->isPointerTy() && T->getPointerAddressSpace() == 0)
    return ScalarType::Ptr;
  return std::nullopt;
}

FunctionType *getLeafFunctionType(const Node &N, LLVMContext &Ctx) {
  SmallVector<Type *, 8> ParamTypes;
  for (const Param &P : N.Params)
    ParamTypes.push_back(P.isBuffer() ? PointerType::get(Ctx, 0)
                                      : toLLVMType(P.Type, Ctx));
  Type *Ret = Type::getVoidTy(Ctx);
  if (N.Outputs.size() == 1) {
    Ret = toLLVMType(N.Outputs.front().Type, Ctx);
  } else if (N.Outputs.size() > 1) {
    SmallVector<Type *, 4> Fields;
    for (const Output &O : N.Outputs)
      Fields.push_back(toLLVMType(O.Type, Ctx));
    Ret = StructType::get(Ctx, Fields);
  }
  return FunctionType::get(Ret, ParamTypes, /*isVarArg=*/false);
}

FunctionType *hpvmFunctionType(StringRef Name, LLVMContext &Ctx) {
  Type *Void = Type::getVoidTy(Ctx), *I32 = Type::getInt32Ty(Ctx),
       *I64 = Type::getInt64Ty(Ctx);
  // Variadic so that one declaration serves every graph's root signature.
  if (Name == LaunchFunctionName)
    return FunctionType::get(Void, {PointerType::get(Ctx, 0)}, true);
  if (Name == InstanceIdFunctionName)
    return FunctionType::get(I64, {I32, I32}, false);
  if (Name == WorkGroupNativeFunctionName)
    return FunctionType::get(Type::getInt1Ty(Ctx), false);
  if (Name == WorkItemIdFunctionName)
    return FunctionType::get(I64, {I32}, false);
  if (Name == BarrierFunctionName)
    return FunctionType::get(Void, false);
  return nullptr;
}

/// Name's declaration; null only when the name is taken by something that
/// is not a function.
static Function *declare(Module &M, StringRef Name) {
  return dyn_cast<Function>(
      M.getOrInsertFunction(Name, hpvmFunctionType(Name, M.getContext()))
          .getCallee());
}

Function *getLaunchFunction(Module &M) {
  return declare(M, LaunchFunctionName);
}

Function *getWorkGroupFunction(Module &M, StringRef Name) {
  Function *F = declare(M, Name);
  if (!F)
    return nullptr;
  F->setDoesNotThrow();
  if (Name == BarrierFunctionName)
    F->addFnAttr(Attribute::Convergent);
  return F;
}

Function *getInstanceIdFunction(Module &M) {
  Function *F = declare(M, InstanceIdFunctionName);
  if (!F)
    return nullptr;
  // The id is fixed for the whole run of an instance, so LLVM may hoist, CSE
  // and speculate the calls freely.
  F->setDoesNotAccessMemory();
  F->setDoesNotThrow();
  F->addFnAttr(Attribute::WillReturn);
  F->addFnAttr(Attribute::Speculatable);
  return F;
}

std::string launchedGraphName(const CallInst &Call) {
  const Function *Callee = Call.getCalledFunction();
  if (!Callee || Callee->getName() != LaunchFunctionName ||
      Call.arg_size() == 0)
    return "";
  const auto *GV =
      dyn_cast<GlobalVariable>(Call.getArgOperand(0)->stripPointerCasts());
  if (!GV || !GV->hasDefinitiveInitializer())
    return "";
  const auto *Str = dyn_cast<ConstantDataArray>(GV->getInitializer());
  if (!Str || !Str->isCString())
    return "";
  return Str->getAsCString().str();
}

bool hasGraphs(const Module &M) {
  const NamedMDNode *NMD = M.getNamedMetadata(GraphsMetadataName);
  return NMD && NMD->getNumOperands() > 0;
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

namespace {
class GraphWriter {
public:
  explicit GraphWriter(Module &M)
      : M(M), Ctx(M.getContext()), I32(Type::getInt32Ty(Ctx)),
        I64(Type::getInt64Ty(Ctx)) {}

  MDNode *writeGraph(const Graph &G) {
    return MDTuple::get(Ctx,
                        {str(GraphTag), str(G.name()), writeNode(G.root())});
  }

private:
  Module &M;
  LLVMContext &Ctx;
  Type *I32, *I64;

  MDString *str(StringRef S) { return MDString::get(Ctx, S); }
  Metadata *i32(unsigned V) {
    return ConstantAsMetadata::get(ConstantInt::get(I32, V));
  }
  Metadata *i64(int64_t V) {
    return ConstantAsMetadata::get(ConstantInt::get(I64, V, /*Signed=*/true));
  }

  Metadata *extent(const Extent &E) {
    if (E.isParam())
      return MDTuple::get(Ctx, {str(ExtentParam), i32(E.paramIndex())});
    return ConstantAsMetadata::get(ConstantInt::get(I64, E.value()));
  }

  /// The function a leaf names. The encoding refers to functions, not names,
  /// so a missing one is declared with the node's signature: the name
  /// survives and verifyGraphForm reports the missing body.
  Metadata *function(const Node &N) {
    GlobalValue *GV = M.getNamedValue(N.Function);
    if (!GV)
      GV = Function::Create(getLeafFunctionType(N, Ctx),
                            GlobalValue::ExternalLinkage, N.Function, M);
    return ValueAsMetadata::get(GV);
  }

  Metadata *param(const Param &P) {
    if (!P.isBuffer())
      return MDTuple::get(
          Ctx, {str(ParamValue), str(P.Name), str(toString(P.Type))});
    SmallVector<Metadata *, 6> Ops{str(ParamBuffer), str(P.Name),
                                   str(toString(P.Mode)), extent(P.Bytes)};
    if (P.WritesAll)
      Ops.push_back(str(FlagWritesAll));
    if (P.Written) {
      SmallVector<Metadata *, 5> Rows{str(RowsWritten)};
      for (const DerivedExtent *D : {&P.Written->Start, &P.Written->RowBytes,
                                     &P.Written->Stride, &P.Written->Rows})
        Rows.push_back(
            MDTuple::get(Ctx, {extent(D->Of), i64(D->Scale), i64(D->Add)}));
      Ops.push_back(MDTuple::get(Ctx, Rows));
    }
    if (!P.Offset.empty()) {
      SmallVector<Metadata *, 4> Terms{str(SectionOffset)};
      for (const OffsetTerm &T : P.Offset)
        Terms.push_back(
            MDTuple::get(Ctx, {extent(T.Coef), i32(T.Level), i32(T.Dim)}));
      Ops.push_back(MDTuple::get(Ctx, Terms));
    }
    return MDTuple::get(Ctx, Ops);
  }

  Metadata *edge(const Edge &E) {
    SmallVector<Metadata *, 6> Ops = {str(toString(E.Kind)), i32(E.Src)};
    if (E.Kind != EdgeKind::Dependency)
      Ops.push_back(i32(E.SrcOutput));
    Ops.push_back(i32(E.Dst));
    if (E.Kind != EdgeKind::Dependency)
      Ops.push_back(i32(E.DstParam));
    if (E.Kind == EdgeKind::Streaming)
      Ops.push_back(i32(E.Capacity));
    return MDTuple::get(Ctx, Ops);
  }

  Metadata *binding(const Binding &B) {
    Metadata *Child = i32(B.Child), *ChildParam = i32(B.ChildParam);
    if (B.From == Binding::Source::ParentParam)
      return MDTuple::get(
          Ctx, {Child, ChildParam, str(BindParam), i32(B.ParentParam)});
    Constant *Value =
        B.IsFloat ? ConstantFP::get(Type::getDoubleTy(Ctx), B.FloatValue)
                  : ConstantInt::get(I64, B.IntValue, /*isSigned=*/true);
    return MDTuple::get(Ctx, {Child, ChildParam, str(BindConst),
                              ConstantAsMetadata::get(Value)});
  }

  template <typename T, typename Fn>
  void addList(SmallVectorImpl<Metadata *> &Ops, const char *Key,
               const std::vector<T> &Items, Fn &&Encode) {
    if (Items.empty())
      return;
    SmallVector<Metadata *, 8> List;
    for (const T &Item : Items)
      List.push_back(Encode(Item));
    Ops.push_back(str(Key));
    Ops.push_back(MDTuple::get(Ctx, List));
  }

  MDNode *writeNode(const Node &N) {
    SmallVector<Metadata *, 24> Ops = {
        str(NodeTag), str(KeyName), str(N.name()), str(KeyKind),
        str(N.isLeaf() ? KindLeaf : KindInternal)};
    // Written for internal nodes too, so the verifier sees what was there.
    if (!N.Function.empty()) {
      Ops.push_back(str(KeyFunction));
      Ops.push_back(function(N));
    }
    addList(Ops, KeyDims, N.Dims, [&](const Extent &E) { return extent(E); });
    if (N.Sequential) {
      Ops.push_back(str(KeySequential));
      Ops.push_back(str("true"));
    }
    addList(Ops, KeyGroup, N.Group, [&](const Extent &E) { return extent(E); });
    addList(Ops, KeyParams, N.Params, [&](const Param &P) { return param(P); });
    addList(Ops, KeyOutputs, N.Outputs, [&](const Output &O) -> Metadata * {
      return MDTuple::get(Ctx, {str(O.Name), str(toString(O.Type))});
    });
    if (N.Targets != AllTargets) {
      Ops.push_back(str(KeyTargets));
      Ops.push_back(str(targetsToString(N.Targets)));
    }
    addList(Ops, KeyChildren, N.Children,
            [&](const std::unique_ptr<Node> &C) -> Metadata * {
              return writeNode(*C);
            });
    addList(Ops, KeyEdges, N.Edges, [&](const Edge &E) { return edge(E); });
    addList(Ops, KeyBindings, N.Bindings,
            [&](const Binding &B) { return binding(B); });
    addList(Ops, KeyOutputBindings, N.OutputBindings,
            [&](const OutputBinding &B) -> Metadata * {
              return MDTuple::get(
                  Ctx, {i32(B.ParentOutput), i32(B.Child), i32(B.ChildOutput)});
            });
    return MDTuple::get(Ctx, Ops);
  }
};
} // namespace

void writeGraphs(Module &M, const std::vector<const Graph *> &Graphs) {
  if (NamedMDNode *Old = M.getNamedMetadata(GraphsMetadataName))
    M.eraseNamedMetadata(Old);
  // No graphs leaves no entry, so that hasGraphs and the printed module
  // agree that the module is not in graph form.
  if (Graphs.empty())
    return;
  NamedMDNode *NMD = M.getOrInsertNamedMetadata(GraphsMetadataName);
  GraphWriter Writer(M);
  for (const Graph *G : Graphs)
    if (G)
      NMD->addOperand(Writer.writeGraph(*G));
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {
/// The key/value pairs of one node tuple, checked for tag, keys and
/// duplicates but not yet decoded.
struct NodeFields {
  std::string Name;
  Node::Kind Kind = Node::Kind::Leaf;
  SmallVector<std::pair<StringRef, const Metadata *>, 12> Fields;
};

class GraphReader {
public:
  Expected<Graph> readGraph(const MDNode *Entry, unsigned Index) {
    GraphName = "#" + std::to_string(Index);
    if (!Entry || Entry->getNumOperands() != 3)
      return error("", "hpvm.graph",
                   "expected !{!\"hpvm.graph\", !\"name\", !node}");
    const auto *Tag = dyn_cast_or_null<MDString>(Entry->getOperand(0));
    if (!Tag || Tag->getString() != GraphTag)
      return error("", "hpvm.graph", "expected the tag !\"hpvm.graph\"");
    const auto *Name = dyn_cast_or_null<MDString>(Entry->getOperand(1));
    if (!Name)
      return error("", "name", "the graph name is not a string");
    GraphName = Name->getString().str();

    const Metadata *RootMD = Entry->getOperand(2);
    Expected<NodeFields> Header = readHeader(RootMD, GraphName);
    if (!Header)
      return Header.takeError();
    // The model names the root after its graph; anything else could not be
    // represented.
    if (Header->Name != GraphName)
      return error(Header->Name, KeyName,
                   "the root node must be named after its graph '" + GraphName +
                       "'");
    Graph G(GraphName, Header->Kind);
    Active.insert(RootMD);
    NodesRead = 1;
    if (Error E = readFields(*Header, G.root(), GraphName))
      return E;
    return G;
  }

private:
  std::string GraphName;
  /// Nodes on the path from the root to the node being read: distinct
  /// metadata can be cyclic, and following a cycle would never end.
  SmallPtrSet<const Metadata *, 8> Active;
  /// Nodes of the graph read so far, shared children once per parent.
  unsigned NodesRead = 0;

  /// "graph 'g', node 'g/a', field 'params[2]': what is wrong"; the node is
  /// left out for defects of the graph entry itself.
  Error error(const Twine &Path, const Twine &Field, const Twine &What) const {
    std::string Where = "graph '" + GraphName + "', ";
    std::string Node = Path.str();
    if (!Node.empty())
      Where += "node '" + Node + "', ";
    return createStringError(inconvertibleErrorCode(),
                             Where + "field '" + Field + "': " + What);
  }

  static const MDString *getString(const MDOperand &Op) {
    return dyn_cast_or_null<MDString>(Op.get());
  }

  /// An i32 operand, the encoding of every index and count.
  static std::optional<unsigned> getIndex(const MDOperand &Op) {
    auto *CI = mdconst::dyn_extract_or_null<ConstantInt>(Op.get());
    if (!CI || !CI->getType()->isIntegerTy(32))
      return std::nullopt;
    return static_cast<unsigned>(CI->getZExtValue());
  }

  /// The tuple a list-valued field holds, or null if it is not one.
  static const MDTuple *getTuple(const Metadata *MD) {
    return dyn_cast_or_null<MDTuple>(MD);
  }

  Expected<NodeFields> readHeader(const Metadata *MD, const Twine &Path) {
    const MDTuple *T = getTuple(MD);
    if (!T || T->getNumOperands() == 0)
      return error(Path, NodeTag, "expected a node tuple");
    const MDString *Tag = getString(T->getOperand(0));
    if (!Tag || Tag->getString() != NodeTag)
      return error(Path, NodeTag, "expected the tag !\"hpvm.node\"");
    if (T->getNumOperands() % 2 == 0)
      return error(Path, NodeTag,
                   "expected key/value pairs after the tag, found an odd "
                   "number of operands");

    static constexpr const char *Keys[] = {
        KeyName,           KeyKind,       KeyFunction, KeyDims,  KeyParams,
        KeyOutputs,        KeyTargets,    KeyChildren, KeyEdges, KeyBindings,
        KeyOutputBindings, KeySequential, KeyGroup};
    NodeFields Result;
    const MDString *Name = nullptr, *Kind = nullptr;
    for (unsigned I = 1, E = T->getNumOperands(); I < E; I += 2) {
      const MDString *Key = getString(T->getOperand(I));
      if (!Key)
        return error(Path, "#" + Twine(I),
                     "expected a key string at operand " + Twine(I));
      StringRef K = Key->getString();
      if (!is_contained(Keys, K))
        return error(Path, K, "unknown field");
      for (const auto &Seen : Result.Fields)
        if (Seen.first == K)
          return error(Path, K, "given more than once");
      const Metadata *Value = T->getOperand(I + 1);
      Result.Fields.emplace_back(K, Value);
      if (K == KeyName && !(Name = dyn_cast_or_null<MDString>(Value)))
        return error(Path, KeyName, "expected a string");
      if (K == KeyKind && !(Kind = dyn_cast_or_null<MDString>(Value)))
        return error(Path, KeyKind, "expected a string");
    }
    if (!Name)
      return error(Path, KeyName, "missing");
    Result.Name = Name->getString().str();
    if (!Kind)
      return error(Path, KeyKind, "missing");
    if (Kind->getString() == KindLeaf)
      Result.Kind = Node::Kind::Leaf;
    else if (Kind->getString() == KindInternal)
      Result.Kind = Node::Kind::Internal;
    else
      return error(Path, KeyKind,
                   "unknown kind '" + Kind->getString() +
                       "' (expected 'leaf' or 'internal')");
    return Result;
  }

  Expected<Extent> readExtent(const Metadata *MD, const Twine &Path,
                              const Twine &Field) {
    if (auto *CI = mdconst::dyn_extract_or_null<ConstantInt>(MD)) {
      if (!CI->getType()->isIntegerTy(64))
        return error(Path, Field, "a constant extent must be an i64");
      return Extent::constant(CI->getZExtValue());
    }
    const MDTuple *T = getTuple(MD);
    if (!T || T->getNumOperands() != 2)
      return error(Path, Field,
                   "expected 'i64 C' or !{!\"param\", i32 k} as extent");
    const MDString *Tag = getString(T->getOperand(0));
    std::optional<unsigned> Index = getIndex(T->getOperand(1));
    if (!Tag || Tag->getString() != ExtentParam || !Index)
      return error(Path, Field,
                   "expected 'i64 C' or !{!\"param\", i32 k} as extent");
    return Extent::param(*Index);
  }

  Expected<Param> readParam(const Metadata *MD, const Twine &Path,
                            const Twine &Field) {
    const MDTuple *T = getTuple(MD);
    const MDString *Kind =
        T && T->getNumOperands() > 0 ? getString(T->getOperand(0)) : nullptr;
    if (!Kind)
      return error(Path, Field,
                   "expected !{!\"buffer\", ...} or !{!\"value\", ...}");
    Param P;
    if (Kind->getString() == ParamBuffer) {
      unsigned Ops = T->getNumOperands();
      if (Ops < 4)
        return error(Path, Field,
                     "expected !{!\"buffer\", !\"name\", !\"access\", extent}");
      const MDString *Name = getString(T->getOperand(1));
      const MDString *Mode = getString(T->getOperand(2));
      if (!Name || !Mode)
        return error(Path, Field,
                     "expected !{!\"buffer\", !\"name\", !\"access\", extent}");
      std::optional<Access> A = parseAccess(Mode->getString());
      if (!A)
        return error(Path, Field,
                     "unknown access mode '" + Mode->getString() + "'");
      Expected<Extent> Bytes = readExtent(T->getOperand(3), Path, Field);
      if (!Bytes)
        return Bytes.takeError();
      P.Name = Name->getString().str();
      P.ParamKind = Param::Kind::Buffer;
      P.Type = ScalarType::Ptr;
      P.Mode = *A;
      P.Bytes = *Bytes;
      // Then, optionally and at most once each: !"writes-all" and the
      // section offset !{!"at", !{extent, i32 level, i32 dim}...}.
      for (unsigned I = 4; I != Ops; ++I) {
        const MDOperand &Op = T->getOperand(I);
        const MDString *Flag = getString(Op);
        if (Flag && Flag->getString() == FlagWritesAll && !P.WritesAll) {
          P.WritesAll = true;
          continue;
        }
        const MDTuple *At = getTuple(Op);
        const MDString *Tag = At && At->getNumOperands() > 1
                                  ? getString(At->getOperand(0))
                                  : nullptr;
        if (Tag && Tag->getString() == RowsWritten && !P.Written) {
          auto Malformed = [&] {
            return error(Path, Field,
                         "expected !{!\"writes-rows\", start, bytes, stride, "
                         "rows}, each !{extent, i64 scale, i64 add}");
          };
          if (At->getNumOperands() != 5)
            return Malformed();
          std::vector<DerivedExtent> Parts;
          for (unsigned K = 1; K != 5; ++K) {
            const MDTuple *D = getTuple(At->getOperand(K));
            auto *Scale =
                D && D->getNumOperands() == 3
                    ? mdconst::dyn_extract<ConstantInt>(D->getOperand(1))
                    : nullptr;
            auto *Add =
                Scale ? mdconst::dyn_extract<ConstantInt>(D->getOperand(2))
                      : nullptr;
            if (!Add)
              return Malformed();
            Expected<Extent> E = readExtent(D->getOperand(0), Path, Field);
            if (!E)
              return E.takeError();
            Parts.push_back(
                DerivedExtent{*E, Scale->getSExtValue(), Add->getSExtValue()});
          }
          P.Written = WrittenRows{Parts[0], Parts[1], Parts[2], Parts[3]};
          continue;
        }
        if (!Tag || Tag->getString() != SectionOffset || !P.Offset.empty())
          return error(Path, Field,
                       "after a buffer's extent come only !\"writes-all\", "
                       "!{!\"writes-rows\", ...} and !{!\"at\", terms...}, "
                       "each at most once");
        for (unsigned K = 1; K != At->getNumOperands(); ++K) {
          const MDTuple *Term = getTuple(At->getOperand(K));
          std::optional<unsigned> Level, Dim;
          if (Term && Term->getNumOperands() == 3) {
            Level = getIndex(Term->getOperand(1));
            Dim = getIndex(Term->getOperand(2));
          }
          if (!Level || !Dim)
            return error(Path, Field,
                         "a section offset term is !{extent, i32 level, i32 "
                         "dim}");
          Expected<Extent> Coef = readExtent(Term->getOperand(0), Path, Field);
          if (!Coef)
            return Coef.takeError();
          P.Offset.push_back(OffsetTerm{*Coef, *Level, *Dim});
        }
      }
      return P;
    }
    if (Kind->getString() == ParamValue) {
      const MDString *Name = nullptr, *Type = nullptr;
      if (T->getNumOperands() == 3) {
        Name = getString(T->getOperand(1));
        Type = getString(T->getOperand(2));
      }
      if (!Name || !Type)
        return error(Path, Field,
                     "expected !{!\"value\", !\"name\", !\"type\"}");
      std::optional<ScalarType> ST = parseScalarType(Type->getString());
      if (!ST)
        return error(Path, Field, "unknown type '" + Type->getString() + "'");
      P.Name = Name->getString().str();
      P.ParamKind = Param::Kind::Value;
      P.Type = *ST;
      return P;
    }
    return error(Path, Field,
                 "unknown parameter kind '" + Kind->getString() +
                     "' (expected 'buffer' or 'value')");
  }

  Expected<Output> readOutput(const Metadata *MD, const Twine &Path,
                              const Twine &Field) {
    const MDTuple *T = getTuple(MD);
    const MDString *Name = nullptr, *Type = nullptr;
    if (T && T->getNumOperands() == 2) {
      Name = getString(T->getOperand(0));
      Type = getString(T->getOperand(1));
    }
    if (!Name || !Type)
      return error(Path, Field, "expected !{!\"name\", !\"type\"}");
    std::optional<ScalarType> ST = parseScalarType(Type->getString());
    if (!ST)
      return error(Path, Field, "unknown type '" + Type->getString() + "'");
    return Output{Name->getString().str(), *ST};
  }

  /// Reads operands [1, N) of T as i32 indices; the caller has checked N.
  bool readIndices(const MDTuple &T, SmallVectorImpl<unsigned> &Out) {
    for (unsigned I = 1, E = T.getNumOperands(); I < E; ++I) {
      std::optional<unsigned> V = getIndex(T.getOperand(I));
      if (!V)
        return false;
      Out.push_back(*V);
    }
    return true;
  }

  Expected<Edge> readEdge(const Metadata *MD, const Twine &Path,
                          const Twine &Field) {
    const MDTuple *T = getTuple(MD);
    const MDString *Kind =
        T && T->getNumOperands() > 0 ? getString(T->getOperand(0)) : nullptr;
    if (!Kind)
      return error(Path, Field,
                   "expected !{!\"dep\"|!\"value\"|!\"stream\", "
                   "i32 ...}");
    StringRef K = Kind->getString();
    std::optional<EdgeKind> EK = parseEdgeKind(K);
    if (!EK)
      return error(Path, Field,
                   "unknown edge kind '" + K +
                       "' (expected 'dep', 'value' or 'stream')");
    Edge E;
    E.Kind = *EK;
    unsigned NumIndices = E.Kind == EdgeKind::Dependency ? 2
                          : E.Kind == EdgeKind::Value    ? 4
                                                         : 5;
    SmallVector<unsigned, 5> V;
    if (T->getNumOperands() != NumIndices + 1 || !readIndices(*T, V))
      return error(Path, Field,
                   "a '" + K + "' edge takes " + Twine(NumIndices) +
                       " i32 operands");
    if (E.Kind == EdgeKind::Dependency) {
      E.Src = V[0];
      E.Dst = V[1];
    } else {
      E.Src = V[0];
      E.SrcOutput = V[1];
      E.Dst = V[2];
      E.DstParam = V[3];
      if (E.Kind == EdgeKind::Streaming)
        E.Capacity = V[4];
    }
    return E;
  }

  Expected<Binding> readBinding(const Metadata *MD, const Twine &Path,
                                const Twine &Field) {
    const MDTuple *T = getTuple(MD);
    std::optional<unsigned> Child, ChildParam;
    const MDString *Source = nullptr;
    if (T && T->getNumOperands() == 4) {
      Child = getIndex(T->getOperand(0));
      ChildParam = getIndex(T->getOperand(1));
      Source = getString(T->getOperand(2));
    }
    if (!Child || !ChildParam || !Source)
      return error(Path, Field,
                   "expected !{i32 child, i32 param, !\"param\"|!\"const\", "
                   "value}");
    Binding B;
    B.Child = *Child;
    B.ChildParam = *ChildParam;
    if (Source->getString() == BindParam) {
      std::optional<unsigned> Parent = getIndex(T->getOperand(3));
      if (!Parent)
        return error(Path, Field,
                     "a parameter binding ends with an i32 parent parameter");
      B.From = Binding::Source::ParentParam;
      B.ParentParam = *Parent;
      return B;
    }
    if (Source->getString() != BindConst)
      return error(Path, Field,
                   "unknown binding source '" + Source->getString() +
                       "' (expected 'param' or 'const')");
    B.From = Binding::Source::Constant;
    const Metadata *Value = T->getOperand(3);
    if (auto *CI = mdconst::dyn_extract_or_null<ConstantInt>(Value);
        CI && CI->getType()->isIntegerTy(64)) {
      B.IntValue = CI->getSExtValue();
      return B;
    }
    if (auto *CF = mdconst::dyn_extract_or_null<ConstantFP>(Value);
        CF && CF->getType()->isDoubleTy()) {
      B.FloatValue = CF->getValueAPF().convertToDouble();
      B.IsFloat = true;
      return B;
    }
    return error(Path, Field, "a constant binding ends with an i64 or double");
  }

  Expected<OutputBinding>
  readOutputBinding(const Metadata *MD, const Twine &Path, const Twine &Field) {
    const MDTuple *T = getTuple(MD);
    std::optional<unsigned> V[3];
    if (T && T->getNumOperands() == 3)
      for (unsigned I = 0; I < 3; ++I)
        V[I] = getIndex(T->getOperand(I));
    if (!V[0] || !V[1] || !V[2])
      return error(Path, Field,
                   "expected !{i32 parentOut, i32 child, i32 childOut}");
    return OutputBinding{*V[0], *V[1], *V[2]};
  }

  /// Decodes every element of a list-valued field with Read into Out.
  template <typename T, typename ReadFn>
  Error readList(const Metadata *MD, StringRef Key, const std::string &Path,
                 std::vector<T> &Out, ReadFn Read) {
    const MDTuple *List = getTuple(MD);
    if (!List)
      return error(Path, Key, "expected a tuple");
    for (unsigned I = 0, E = List->getNumOperands(); I < E; ++I) {
      std::string Field = (Key + "[" + Twine(I) + "]").str();
      auto Item = (this->*Read)(List->getOperand(I), Path, Field);
      if (!Item)
        return Item.takeError();
      Out.push_back(std::move(*Item));
    }
    return Error::success();
  }

  Error readFunction(const Metadata *MD, Node &N, const std::string &Path) {
    // A deleted function leaves a null operand behind.
    if (!MD)
      return error(Path, KeyFunction, "the function no longer exists");
    auto *F = mdconst::dyn_extract<Function>(MD);
    if (!F)
      return error(Path, KeyFunction, "expected 'ptr @function'");
    if (!F->hasName())
      return error(Path, KeyFunction, "the function has no name");
    N.Function = F->getName().str();
    return Error::success();
  }

  Error readChildren(const Metadata *MD, Node &N, const std::string &Path) {
    const MDTuple *List = getTuple(MD);
    if (!List)
      return error(Path, KeyChildren, "expected a tuple");
    for (unsigned I = 0, E = List->getNumOperands(); I < E; ++I) {
      const Metadata *ChildMD = List->getOperand(I);
      std::string Fallback = Path + "/#" + std::to_string(I);
      if (Active.count(ChildMD))
        return error(Fallback, KeyChildren, "the node contains itself");
      if (Active.size() >= MaxNodeDepth)
        return error(Fallback, KeyChildren,
                     "nodes nested more than " + Twine(MaxNodeDepth) +
                         " levels deep");
      if (++NodesRead > MaxGraphNodes)
        return error(Fallback, KeyChildren,
                     "the graph has more than " + Twine(MaxGraphNodes) +
                         " nodes (a node tuple named by several parents "
                         "counts once for each)");
      Expected<NodeFields> Header = readHeader(ChildMD, Fallback);
      if (!Header)
        return Header.takeError();
      N.Children.push_back(
          std::make_unique<Node>(Header->Kind, Header->Name, &N));
      Active.insert(ChildMD);
      Error Err =
          readFields(*Header, *N.Children.back(), Path + "/" + Header->Name);
      Active.erase(ChildMD);
      if (Err)
        return Err;
    }
    return Error::success();
  }

  Error readTargets(const Metadata *MD, Node &N, const std::string &Path) {
    const auto *S = dyn_cast_or_null<MDString>(MD);
    if (!S)
      return error(Path, KeyTargets, "expected a string");
    // An empty mask reads back as "" and is left to the verifier (rule
    // `targets`), like every other defect the model can represent.
    std::optional<TargetMask> Mask = parseTargets(S->getString());
    if (!Mask)
      return error(Path, KeyTargets,
                   "unknown targets '" + S->getString() +
                       "' (expected a list of cpu, nvptx, spirv)");
    N.Targets = *Mask;
    return Error::success();
  }

  Error readField(StringRef Key, const Metadata *MD, Node &N,
                  const std::string &Path) {
    if (Key == KeyFunction)
      return readFunction(MD, N, Path);
    if (Key == KeyDims)
      return readList(MD, Key, Path, N.Dims, &GraphReader::readExtent);
    if (Key == KeyGroup)
      return readList(MD, Key, Path, N.Group, &GraphReader::readExtent);
    if (Key == KeyParams)
      return readList(MD, Key, Path, N.Params, &GraphReader::readParam);
    if (Key == KeyOutputs)
      return readList(MD, Key, Path, N.Outputs, &GraphReader::readOutput);
    if (Key == KeyTargets)
      return readTargets(MD, N, Path);
    if (Key == KeySequential) {
      const auto *S = dyn_cast_or_null<MDString>(MD);
      if (!S || S->getString() != "true")
        return error(Path, KeySequential, "expected the string 'true'");
      N.Sequential = true;
      return Error::success();
    }
    if (Key == KeyChildren)
      return readChildren(MD, N, Path);
    if (Key == KeyEdges)
      return readList(MD, Key, Path, N.Edges, &GraphReader::readEdge);
    if (Key == KeyBindings)
      return readList(MD, Key, Path, N.Bindings, &GraphReader::readBinding);
    if (Key == KeyOutputBindings)
      return readList(MD, Key, Path, N.OutputBindings,
                      &GraphReader::readOutputBinding);
    // name and kind were decoded by readHeader; readHeader rejected the rest.
    return Error::success();
  }

  Error readFields(const NodeFields &H, Node &N, const std::string &Path) {
    for (const auto &[Key, MD] : H.Fields)
      if (Error Err = readField(Key, MD, N, Path))
        return Err;
    return Error::success();
  }
};
} // namespace

Expected<std::vector<Graph>> readGraphs(const Module &M) {
  std::vector<Graph> Graphs;
  const NamedMDNode *NMD = M.getNamedMetadata(GraphsMetadataName);
  if (!NMD)
    return Graphs;
  for (unsigned I = 0, E = NMD->getNumOperands(); I < E; ++I) {
    GraphReader Reader;
    Expected<Graph> G = Reader.readGraph(NMD->getOperand(I), I);
    if (!G)
      return G.takeError();
    Graphs.push_back(std::move(*G));
  }
  return Graphs;
}

} // namespace hpvm
