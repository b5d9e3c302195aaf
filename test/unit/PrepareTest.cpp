//===- PrepareTest.cpp - PREPARE (graph -> region form) and strip ---------===//
//
// Builds graph-form modules from hand-written leaf functions plus a graph made
// with the builder API, runs prepareRegions / stripRegions and inspects the
// resulting IR: region markers and their bundles, the loop nests, the inlined
// leaves, and that rejected modules stay untouched.
//
//===----------------------------------------------------------------------===//
#include "hpvm/ir/Diagnostics.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"
#include "hpvm/ir/Passes.h"
#include "hpvm/ir/RegionForm.h"

#include "IRTestSupport.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace llvm;
using namespace hpvm;
using hpvm::test::printModule;

namespace {

class PrepareTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Errors would otherwise end the process (LLVMContext's default handler).
    Ctx.setDiagnosticHandlerCallBack(
        [](const DiagnosticInfo *DI, void *Self) {
          if (const auto *D = dyn_cast<DiagnosticInfoHPVM>(DI))
            static_cast<PrepareTest *>(Self)->Rules.push_back(D->rule());
        },
        this);
  }

  std::unique_ptr<Module> parse(StringRef IR) {
    return hpvm::test::parseIR(Ctx, IR, "PrepareTest");
  }

  static bool isValid(const Module &M) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    bool Broken = llvm::verifyModule(M, &OS);
    EXPECT_FALSE(Broken) << OS.str() << "\n" << printModule(M);
    return !Broken;
  }

  LLVMContext Ctx;
  std::vector<std::string> Rules;
};

/// The region entries of F in instruction order.
std::vector<CallInst *> regionEntries(Function &F) {
  std::vector<CallInst *> Entries;
  for (Instruction &I : instructions(F))
    if (auto *Call = dyn_cast<CallInst>(&I))
      if (Function *Callee = Call->getCalledFunction())
        if (Callee->getName() == RegionEntryName)
          Entries.push_back(Call);
  return Entries;
}

std::string nodeName(const CallInst *Entry) {
  auto Bundle = Entry->getOperandBundle(tag::Node);
  if (!Bundle)
    return "";
  auto *GV = cast<GlobalVariable>(Bundle->Inputs[0].get());
  return cast<ConstantDataArray>(GV->getInitializer())->getAsCString().str();
}

std::vector<Value *> bundle(const CallInst *Entry, StringRef Tag) {
  std::vector<Value *> Values;
  if (auto Bundle = Entry->getOperandBundle(Tag))
    for (const Use &U : Bundle->Inputs)
      Values.push_back(U.get());
  return Values;
}

CallInst *entryNamed(Function &F, StringRef Name) {
  for (CallInst *Entry : regionEntries(F))
    if (nodeName(Entry) == Name)
      return Entry;
  return nullptr;
}

unsigned countCallsTo(Module &M, StringRef Callee) {
  unsigned Count = 0;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *Call = dyn_cast<CallInst>(&I))
        if (Call->getCalledFunction() &&
            Call->getCalledFunction()->getName() == Callee)
          ++Count;
  return Count;
}

/// c[i] = a[i] + b[i] for i < n, as the leaf "add" of the internal root
/// "vadd". Parameters of both: n, bytes, a (in), b (in), c (out).
const char *VectorAddIR = R"IR(
@hpvm.graph.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"
@llvm.compiler.used = appending global [1 x ptr] [ptr @hpvm.node.vadd.add], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define internal void @hpvm.node.vadd.add(i64 %n, i64 %bytes, ptr %a, ptr %b, ptr %c) {
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr float, ptr %a, i64 %i
  %pb = getelementptr float, ptr %b, i64 %i
  %pc = getelementptr float, ptr %c, i64 %i
  %va = load float, ptr %pa
  %vb = load float, ptr %pb
  %sum = fadd float %va, %vb
  store float %sum, ptr %pc
  ret void
}

define void @host(ptr %a, ptr %b, ptr %c, i64 %n) {
  %bytes = shl i64 %n, 2
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.vadd, i64 %n, i64 %bytes, ptr %a, ptr %b, ptr %c)
  ret void
}
)IR";

/// Adds n, bytes, a, b, c to N (buffers sized by `bytes`).
void addVectorParams(Node &N) {
  N.addValue("n", ScalarType::I64);
  unsigned Bytes = N.addValue("bytes", ScalarType::I64);
  N.addBuffer("a", Access::In, Extent::param(Bytes));
  N.addBuffer("b", Access::In, Extent::param(Bytes));
  N.addBuffer("c", Access::Out, Extent::param(Bytes));
}

Graph makeVectorAdd() {
  Graph G("vadd");
  Node &Root = G.root();
  addVectorParams(Root);
  Node &Add = Root.addLeaf("add", "hpvm.node.vadd.add");
  addVectorParams(Add);
  Add.setDims({Extent::param(0)});
  for (const char *P : {"n", "bytes", "a", "b", "c"})
    Root.bind(Add, P, P);
  return G;
}

std::unique_ptr<Module> withGraphs(std::unique_ptr<Module> M,
                                   std::vector<const Graph *> Graphs) {
  if (M)
    writeGraphs(*M, Graphs);
  return M;
}

TEST_F(PrepareTest, VectorAddBecomesRegionsWithCanonicalLoop) {
  Graph G = makeVectorAdd();
  auto M = withGraphs(parse(VectorAddIR), {&G});
  ASSERT_TRUE(M);
  ASSERT_EQ(prepareRegions(*M), 0u);
  EXPECT_TRUE(Rules.empty());
  ASSERT_TRUE(isValid(*M));

  // The graph form is gone.
  EXPECT_FALSE(hasGraphs(*M));
  EXPECT_EQ(M->getFunction("hpvm.launch"), nullptr);
  EXPECT_EQ(M->getFunction("hpvm.instance.id"), nullptr);
  EXPECT_EQ(M->getFunction("hpvm.node.vadd.add"), nullptr);
  EXPECT_EQ(M->getNamedGlobal("llvm.compiler.used"), nullptr);
  EXPECT_EQ(M->getNamedGlobal("hpvm.graph.vadd"), nullptr);

  Function &Host = *M->getFunction("host");
  std::vector<CallInst *> Entries = regionEntries(Host);
  ASSERT_EQ(Entries.size(), 2u);
  EXPECT_EQ(nodeName(Entries[0]), "vadd");
  EXPECT_EQ(nodeName(Entries[1]), "add");
  EXPECT_EQ(countCallsTo(*M, RegionExitName), 2u);

  Argument *A = Host.getArg(0), *B = Host.getArg(1), *C = Host.getArg(2),
           *N = Host.getArg(3);
  Value *Bytes = &*inst_begin(Host); // %bytes = shl i64 %n, 2
  for (CallInst *Entry : Entries) {
    EXPECT_EQ(bundle(Entry, tag::In),
              (std::vector<Value *>{A, Bytes, B, Bytes}));
    EXPECT_EQ(bundle(Entry, tag::Out), (std::vector<Value *>{C, Bytes}));
    EXPECT_TRUE(bundle(Entry, tag::InOut).empty());
    EXPECT_EQ(bundle(Entry, tag::Value), (std::vector<Value *>{N, Bytes}));
    EXPECT_FALSE(Entry->getOperandBundle(tag::Target));
    EXPECT_FALSE(Entry->getOperandBundle(tag::After));
  }
  EXPECT_FALSE(Entries[0]->getOperandBundle(tag::Dims));
  EXPECT_EQ(bundle(Entries[1], tag::Dims), std::vector<Value *>{N});

  // One loop, in canonical form, counting to n; the leaf's instance id is
  // its induction variable.
  DominatorTree DT(Host);
  LoopInfo LI(DT);
  ASSERT_EQ(LI.getTopLevelLoops().size(), 1u);
  Loop *L = LI.getTopLevelLoops()[0];
  EXPECT_TRUE(L->isLoopSimplifyForm());
  EXPECT_EQ(L->getHeader()->getName(), "add.header");
  PHINode *IV = L->getCanonicalInductionVariable();
  ASSERT_NE(IV, nullptr);
  auto *Br = cast<BranchInst>(L->getHeader()->getTerminator());
  ASSERT_TRUE(Br->isConditional());
  auto *Cmp = cast<ICmpInst>(Br->getCondition());
  EXPECT_EQ(Cmp->getPredicate(), ICmpInst::ICMP_ULT);
  EXPECT_EQ(Cmp->getOperand(0), IV);
  EXPECT_EQ(Cmp->getOperand(1), N);
  auto *Next =
      cast<BinaryOperator>(IV->getIncomingValueForBlock(L->getLoopLatch()));
  EXPECT_TRUE(Next->hasNoUnsignedWrap());
  EXPECT_TRUE(Next->hasNoSignedWrap());

  // The inlined body sits in the loop, addressed by the induction variable,
  // and the regions enclose the loop.
  StoreInst *Store = nullptr;
  for (Instruction &I : instructions(Host))
    if (auto *S = dyn_cast<StoreInst>(&I))
      Store = S;
  ASSERT_NE(Store, nullptr);
  EXPECT_TRUE(L->contains(Store));
  auto *GEP = cast<GetElementPtrInst>(Store->getPointerOperand());
  EXPECT_EQ(GEP->getPointerOperand(), C);
  EXPECT_EQ(GEP->getOperand(1), IV);
  EXPECT_FALSE(L->contains(Entries[1]));
  EXPECT_TRUE(DT.dominates(Entries[0], Entries[1]));
  EXPECT_TRUE(DT.dominates(Entries[1], L->getHeader()));
}

TEST_F(PrepareTest, StripLeavesThePlainLoop) {
  Graph G = makeVectorAdd();
  auto M = withGraphs(parse(VectorAddIR), {&G});
  ASSERT_TRUE(M);
  ASSERT_EQ(stripRegions(*M), 0u);
  ASSERT_TRUE(isValid(*M));
  EXPECT_FALSE(hasGraphs(*M));
  EXPECT_EQ(M->getFunction(RegionEntryName), nullptr);
  EXPECT_EQ(M->getFunction(RegionExitName), nullptr);
  EXPECT_EQ(M->getFunction("hpvm.launch"), nullptr);
  for (const GlobalVariable &GV : M->globals())
    ADD_FAILURE() << "global left behind: " << GV.getName().str();

  Function &Host = *M->getFunction("host");
  DominatorTree DT(Host);
  LoopInfo LI(DT);
  ASSERT_EQ(LI.getTopLevelLoops().size(), 1u);
  EXPECT_NE(LI.getTopLevelLoops()[0]->getCanonicalInductionVariable(), nullptr);
  unsigned Loads = 0, Stores = 0, Calls = 0;
  for (Instruction &I : instructions(Host)) {
    Loads += isa<LoadInst>(I);
    Stores += isa<StoreInst>(I);
    Calls += isa<CallInst>(I);
  }
  EXPECT_EQ(Loads, 2u);
  EXPECT_EQ(Stores, 1u);
  EXPECT_EQ(Calls, 0u);
}

TEST_F(PrepareTest, NoGraphsIsANoOp) {
  auto M = parse(R"IR(
define void @f(ptr %p) {
  store i32 1, ptr %p
  ret void
}
)IR");
  ASSERT_TRUE(M);
  std::string Before = printModule(*M);
  EXPECT_EQ(prepareRegions(*M), 0u);
  EXPECT_EQ(printModule(*M), Before);
  EXPECT_EQ(stripRegions(*M), 0u);
  EXPECT_EQ(printModule(*M), Before);
  EXPECT_TRUE(Rules.empty());
}

/// Three levels of replication; the leaf reads the ids of itself and both
/// ancestors, including the second dim of its own 2-D index space. The
/// middle node's extent is its i32 parameter m, bound to the constant 3.
const char *NestedIR = R"IR(
@hpvm.graph.g = private unnamed_addr constant [2 x i8] c"g\00"
@llvm.compiler.used = appending global [2 x ptr] [ptr @leaf, ptr @other], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define void @other() {
  ret void
}

define internal void @leaf(ptr %out, i32 %m) {
  %l0 = call i64 @hpvm.instance.id(i32 0, i32 0)
  %l1 = call i64 @hpvm.instance.id(i32 0, i32 1)
  %mid = call i64 @hpvm.instance.id(i32 1, i32 0)
  %top = call i64 @hpvm.instance.id(i32 2, i32 0)
  %s0 = add i64 %l0, %l1
  %s1 = add i64 %s0, %mid
  %s2 = add i64 %s1, %top
  store i64 %s2, ptr %out
  ret void
}

define void @host(ptr %out) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.g, ptr %out)
  ret void
}
)IR";

Graph makeNested() {
  Graph G("g");
  Node &Root = G.root();
  Root.addBuffer("out", Access::InOut, Extent::constant(8));
  Root.setDims({Extent::constant(2)});
  Node &Mid = Root.addInternal("mid");
  Mid.addBuffer("out", Access::InOut, Extent::constant(8));
  Mid.addValue("m", ScalarType::I32);
  Mid.setDims({Extent::param(1)});
  Root.bind(Mid, "out", "out");
  Root.bindConstant(Mid, 1, int64_t(3));
  Node &Leaf = Mid.addLeaf("leaf", "leaf");
  Leaf.addBuffer("out", Access::InOut, Extent::constant(8));
  Leaf.addValue("m", ScalarType::I32);
  Leaf.setDims({Extent::constant(4), Extent::param(1)});
  Leaf.setTargets(TargetCPU | TargetNVPTX);
  Mid.bind(Leaf, "out", "out");
  Mid.bind(Leaf, "m", "m");
  return G;
}

TEST_F(PrepareTest, InstanceIdsOfAncestorsBecomeTheirInductionVariables) {
  Graph G = makeNested();
  auto M = withGraphs(parse(NestedIR), {&G});
  ASSERT_TRUE(M);
  ASSERT_EQ(prepareRegions(*M), 0u);
  ASSERT_TRUE(isValid(*M));
  EXPECT_EQ(M->getFunction("hpvm.instance.id"), nullptr);
  EXPECT_EQ(M->getFunction("leaf"), nullptr);
  // @other was never a leaf: it stays listed.
  GlobalVariable *Used = M->getNamedGlobal("llvm.compiler.used");
  ASSERT_NE(Used, nullptr);
  EXPECT_EQ(cast<ConstantArray>(Used->getInitializer())->getNumOperands(), 1u);
  EXPECT_EQ(Used->getSection(), "llvm.metadata");

  Function &Host = *M->getFunction("host");
  std::vector<CallInst *> Entries = regionEntries(Host);
  ASSERT_EQ(Entries.size(), 3u);
  EXPECT_EQ(nodeName(Entries[0]), "g");
  EXPECT_EQ(nodeName(Entries[1]), "mid");
  EXPECT_EQ(nodeName(Entries[2]), "leaf");
  // The constant binding m = 3 reaches the dims bundles as the parameter
  // value itself (i32 3); constant extents are i64.
  auto IsConst = [](Value *V, unsigned Bits, uint64_t C) {
    auto *CI = dyn_cast<ConstantInt>(V);
    return CI && CI->getType()->isIntegerTy(Bits) && CI->getZExtValue() == C;
  };
  ASSERT_EQ(bundle(Entries[0], tag::Dims).size(), 1u);
  EXPECT_TRUE(IsConst(bundle(Entries[0], tag::Dims)[0], 64, 2));
  ASSERT_EQ(bundle(Entries[1], tag::Dims).size(), 1u);
  EXPECT_TRUE(IsConst(bundle(Entries[1], tag::Dims)[0], 32, 3));
  ASSERT_EQ(bundle(Entries[2], tag::Dims).size(), 2u);
  EXPECT_TRUE(IsConst(bundle(Entries[2], tag::Dims)[0], 64, 4));
  EXPECT_TRUE(IsConst(bundle(Entries[2], tag::Dims)[1], 32, 3));
  std::vector<Value *> Values = bundle(Entries[1], tag::Value);
  ASSERT_EQ(Values.size(), 1u);
  EXPECT_TRUE(isa<ConstantInt>(Values[0]) &&
              Values[0]->getType()->isIntegerTy(32));
  std::vector<Value *> Target = bundle(Entries[2], tag::Target);
  ASSERT_EQ(Target.size(), 1u);
  EXPECT_EQ(cast<ConstantInt>(Target[0])->getZExtValue(),
            uint64_t(TargetCPU | TargetNVPTX));
  EXPECT_TRUE(bundle(Entries[0], tag::Target).empty());

  // Four nested canonical loops: g, mid, leaf dim 0, leaf dim 1.
  DominatorTree DT(Host);
  LoopInfo LI(DT);
  ASSERT_EQ(LI.getTopLevelLoops().size(), 1u);
  std::vector<PHINode *> IVs;
  std::vector<Value *> Counts;
  for (Loop *L = LI.getTopLevelLoops()[0]; L;
       L = L->getSubLoops().empty() ? nullptr : L->getSubLoops()[0]) {
    EXPECT_EQ(L->getSubLoops().size(), L->getLoopDepth() < 4 ? 1u : 0u);
    EXPECT_TRUE(L->isLoopSimplifyForm());
    IVs.push_back(L->getCanonicalInductionVariable());
    ASSERT_NE(IVs.back(), nullptr);
    auto *Br = cast<BranchInst>(L->getHeader()->getTerminator());
    Counts.push_back(cast<ICmpInst>(Br->getCondition())->getOperand(1));
  }
  // Each loop counts to its extent, in the extent's type.
  ASSERT_EQ(Counts.size(), 4u);
  EXPECT_TRUE(IsConst(Counts[0], 64, 2));
  EXPECT_TRUE(IsConst(Counts[1], 32, 3));
  EXPECT_TRUE(IsConst(Counts[2], 64, 4));
  EXPECT_TRUE(IsConst(Counts[3], 32, 3));
  ASSERT_EQ(IVs.size(), 4u);
  EXPECT_EQ(IVs[0]->getName(), "g.id");
  EXPECT_EQ(IVs[1]->getName(), "mid.id");
  EXPECT_EQ(IVs[2]->getName(), "leaf.0.id");
  EXPECT_EQ(IVs[3]->getName(), "leaf.1.id");

  // s0 = leaf id 0 + leaf id 1, s1 = s0 + mid id, s2 = s1 + g id.
  StoreInst *Store = nullptr;
  for (Instruction &I : instructions(Host))
    if (auto *S = dyn_cast<StoreInst>(&I))
      Store = S;
  ASSERT_NE(Store, nullptr);
  auto *S2 = cast<BinaryOperator>(Store->getValueOperand());
  auto *S1 = cast<BinaryOperator>(S2->getOperand(0));
  auto *S0 = cast<BinaryOperator>(S1->getOperand(0));
  // The i32 loops' ids reach the i64 code zero-extended.
  auto ZExtOf = [](Value *V) -> Value * {
    auto *Z = dyn_cast<ZExtInst>(V);
    return Z ? Z->getOperand(0) : nullptr;
  };
  EXPECT_EQ(S0->getOperand(0), IVs[2]);
  EXPECT_EQ(ZExtOf(S0->getOperand(1)), IVs[3]);
  EXPECT_EQ(ZExtOf(S1->getOperand(1)), IVs[1]);
  EXPECT_EQ(S2->getOperand(1), IVs[0]);
}

/// Children a, b, c, d of an internal root with buffers x and y:
///   a writes x, b reads x, c writes y, d reads y.
/// Edges: a -> b and c -> d follow from the shared buffers; c -> a shares
/// none, so only an "hpvm.after" can keep it. Topological order with ties
/// by index: c, a, b, d.
const char *FourChildrenIR = R"IR(
@hpvm.graph.g = private unnamed_addr constant [2 x i8] c"g\00"
@llvm.compiler.used = appending global [4 x ptr] [ptr @wx, ptr @rx, ptr @wy, ptr @ry], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)

define internal void @wx(ptr %x) {
  store i32 1, ptr %x
  ret void
}
define internal void @rx(ptr %x) {
  %v = load volatile i32, ptr %x
  ret void
}
define internal void @wy(ptr %y) {
  store i32 2, ptr %y
  ret void
}
define internal void @ry(ptr %y) {
  %v = load volatile i32, ptr %y
  ret void
}

define void @host(ptr %x, ptr %y) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.g, ptr %x, ptr %y)
  ret void
}
)IR";

Graph makeFourChildren(bool WithValueEdge = false) {
  Graph G("g");
  Node &Root = G.root();
  Root.addBuffer("x", Access::InOut, Extent::constant(4));
  Root.addBuffer("y", Access::InOut, Extent::constant(4));
  auto AddChild = [&](const char *Name, const char *Fn, const char *Buf,
                      Access Mode) -> Node & {
    Node &C = Root.addLeaf(Name, Fn);
    C.addBuffer(Buf, Mode, Extent::constant(4));
    Root.bind(C, Buf, Buf);
    return C;
  };
  Node &A = AddChild("a", "wx", "x", Access::Out);
  Node &B = AddChild("b", "rx", "x", Access::In);
  Node &C = AddChild("c", "wy", "y", Access::Out);
  Node &D = AddChild("d", "ry", "y", Access::In);
  Root.addDependency(A, B);
  Root.addDependency(C, A);
  Root.addDependency(C, D);
  if (WithValueEdge) {
    C.addOutput("v", ScalarType::I32);
    D.addValue("v", ScalarType::I32);
    Root.addValueEdge(C, 0, D, 1);
  }
  return G;
}

TEST_F(PrepareTest, ChildrenInTopologicalOrderWithExplicitAfter) {
  Graph G = makeFourChildren();
  auto M = withGraphs(parse(FourChildrenIR), {&G});
  ASSERT_TRUE(M);
  ASSERT_EQ(prepareRegions(*M), 0u);
  ASSERT_TRUE(isValid(*M));
  for (const char *Fn : {"wx", "rx", "wy", "ry"})
    EXPECT_EQ(M->getFunction(Fn), nullptr) << Fn;

  Function &Host = *M->getFunction("host");
  std::vector<CallInst *> Entries = regionEntries(Host);
  ASSERT_EQ(Entries.size(), 5u);
  std::vector<std::string> Names;
  for (CallInst *E : Entries)
    Names.push_back(nodeName(E));
  EXPECT_EQ(Names, (std::vector<std::string>{"g", "c", "a", "b", "d"}));

  CallInst *A = entryNamed(Host, "a"), *B = entryNamed(Host, "b"),
           *C = entryNamed(Host, "c"), *D = entryNamed(Host, "d");
  // c -> a shares no buffer: only hpvm.after keeps it.
  EXPECT_EQ(bundle(A, tag::After), std::vector<Value *>{C});
  // a -> b and c -> d follow from x and y.
  EXPECT_TRUE(bundle(B, tag::After).empty());
  EXPECT_TRUE(bundle(D, tag::After).empty());
  EXPECT_TRUE(bundle(C, tag::After).empty());
  EXPECT_EQ(bundle(A, tag::Out),
            (std::vector<Value *>{Host.getArg(0),
                                  ConstantInt::get(Type::getInt64Ty(Ctx), 4)}));
  EXPECT_EQ(bundle(Entries[0], tag::InOut).size(), 4u);

  // Each child's region closes before the next one opens, all inside g's.
  std::vector<Instruction *> Order;
  for (Instruction &I : instructions(Host))
    if (auto *Call = dyn_cast<CallInst>(&I))
      Order.push_back(Call);
  ASSERT_EQ(Order.size(), 10u);
  EXPECT_EQ(Order.front(), Entries[0]);
  EXPECT_EQ(cast<CallInst>(Order.back())->getArgOperand(0), Entries[0]);
  for (unsigned K = 1; K < 5; ++K) {
    EXPECT_EQ(Order[2 * K - 1], Entries[K]);
    EXPECT_EQ(cast<CallInst>(Order[2 * K])->getArgOperand(0), Entries[K]);
  }
}

TEST_F(PrepareTest, StripRemovesMarkersLinkedByAfter) {
  Graph G = makeFourChildren();
  auto M = withGraphs(parse(FourChildrenIR), {&G});
  ASSERT_TRUE(M);
  ASSERT_EQ(stripRegions(*M), 0u);
  ASSERT_TRUE(isValid(*M));
  EXPECT_EQ(countCallsTo(*M, RegionEntryName), 0u);
  EXPECT_EQ(M->getFunction(RegionEntryName), nullptr);
  EXPECT_EQ(M->getFunction(RegionExitName), nullptr);
  EXPECT_TRUE(M->global_empty());
  // The sequential program: c's store, a's store, b's load, d's load.
  std::vector<unsigned> Opcodes;
  for (Instruction &I : instructions(*M->getFunction("host")))
    if (isa<LoadInst>(I) || isa<StoreInst>(I))
      Opcodes.push_back(I.getOpcode());
  EXPECT_EQ(Opcodes,
            (std::vector<unsigned>{Instruction::Store, Instruction::Store,
                                   Instruction::Load, Instruction::Load}));
}

TEST_F(PrepareTest, StripOfRegionFormKeepsTheCode) {
  auto M = parse(R"IR(
@.name.r = private unnamed_addr constant [2 x i8] c"r\00"
@.name.s = private unnamed_addr constant [2 x i8] c"s\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @f(ptr %p) {
  %r = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.r), "hpvm.out"(ptr %p, i64 4) ]
  store i32 1, ptr %p
  call void @llvm.directive.region.exit(token %r)
  %s = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.s), "hpvm.after"(token %r) ]
  call void @llvm.directive.region.exit(token %s)
  ret void
}
)IR");
  ASSERT_TRUE(M);
  ASSERT_EQ(stripRegions(*M), 0u);
  ASSERT_TRUE(isValid(*M));
  EXPECT_TRUE(M->global_empty());
  Function &F = *M->getFunction("f");
  EXPECT_EQ(F.getEntryBlock().size(), 2u); // the store and the ret
  EXPECT_EQ(countCallsTo(*M, RegionExitName), 0u);
}

TEST_F(PrepareTest, ValueEdgeIsRejectedAndModuleUnchanged) {
  Graph G = makeFourChildren(/*WithValueEdge=*/true);
  // Leaf functions with the signatures the value edge implies (c returns
  // its output, d takes it), so that the graph form verifies and only
  // PREPARE's own limits are left to report.
  std::string IR = FourChildrenIR;
  auto Replace = [&](StringRef From, StringRef To) {
    size_t At = IR.find(From.str());
    ASSERT_NE(At, std::string::npos) << From.str();
    IR.replace(At, From.size(), To.str());
  };
  Replace("define internal void @wy(ptr %y) {\n  store i32 2, ptr %y\n"
          "  ret void",
          "define internal i32 @wy(ptr %y) {\n  store i32 2, ptr %y\n"
          "  ret i32 2");
  Replace("@ry(ptr %y)", "@ry(ptr %y, i32 %w)");
  auto M = withGraphs(parse(IR), {&G});
  ASSERT_TRUE(M);
  std::string Before = printModule(*M);
  // c's output and the value edge c -> d.
  const std::vector<std::string> Unsupported(2, "prepare-unsupported");
  EXPECT_EQ(prepareRegions(*M), 2u);
  EXPECT_EQ(Rules, Unsupported);
  EXPECT_EQ(printModule(*M), Before);

  Rules.clear();
  EXPECT_EQ(stripRegions(*M), 2u);
  EXPECT_EQ(Rules, Unsupported);
  EXPECT_EQ(printModule(*M), Before);
}

TEST_F(PrepareTest, InstanceIdOutOfRangeIsRejected) {
  auto M = parse(R"IR(
@hpvm.graph.g = private unnamed_addr constant [2 x i8] c"g\00"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define internal void @leaf(ptr %out) {
  %i = call i64 @hpvm.instance.id(i32 0, i32 1)
  store i64 %i, ptr %out
  ret void
}

define void @host(ptr %out) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.g, ptr %out)
  ret void
}
)IR");
  ASSERT_TRUE(M);
  // A root leaf with one dim: dim 1 does not exist.
  Graph G("g", Node::Kind::Leaf);
  G.root().Function = "leaf";
  G.root().addBuffer("out", Access::Out, Extent::constant(8));
  G.root().setDims({Extent::constant(16)});
  writeGraphs(*M, {&G});
  std::string Before = printModule(*M);
  EXPECT_EQ(prepareRegions(*M), 1u);
  EXPECT_EQ(Rules, std::vector<std::string>{"instance-id"});
  EXPECT_EQ(printModule(*M), Before);
}

TEST_F(PrepareTest, RootLeafWithoutDimsIsInlinedInPlace) {
  auto M = parse(R"IR(
@hpvm.graph.g = private unnamed_addr constant [2 x i8] c"g\00"

declare void @hpvm.launch(ptr, ...)

define internal void @leaf(ptr %out, i32 %v) {
  store i32 %v, ptr %out
  ret void
}

define void @host(ptr %out) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.g, ptr %out, i32 42)
  ret void
}
)IR");
  ASSERT_TRUE(M);
  Graph G("g", Node::Kind::Leaf);
  G.root().Function = "leaf";
  G.root().addBuffer("out", Access::Out, Extent::constant(4));
  G.root().addValue("v", ScalarType::I32);
  writeGraphs(*M, {&G});
  ASSERT_EQ(prepareRegions(*M), 0u);
  ASSERT_TRUE(isValid(*M));
  Function &Host = *M->getFunction("host");
  EXPECT_EQ(Host.size(), 1u);
  std::vector<CallInst *> Entries = regionEntries(Host);
  ASSERT_EQ(Entries.size(), 1u);
  EXPECT_EQ(nodeName(Entries[0]), "g");
  StoreInst *Store = nullptr;
  for (Instruction &I : instructions(Host))
    if (auto *S = dyn_cast<StoreInst>(&I))
      Store = S;
  ASSERT_NE(Store, nullptr);
  EXPECT_EQ(cast<ConstantInt>(Store->getValueOperand())->getZExtValue(), 42u);
  EXPECT_EQ(M->getFunction("leaf"), nullptr);
}

/// Buffer bundles follow the order in which their modes first occur among
/// the parameters; an i32 extent is named as such in "hpvm.dims" and bounds
/// an i32 loop, while a byte size is always i64.
TEST_F(PrepareTest, BundlesFollowParameterOrder) {
  auto M = parse(R"IR(
@hpvm.graph.g = private unnamed_addr constant [2 x i8] c"g\00"

declare void @hpvm.launch(ptr, ...)

define internal void @leaf(ptr %x, ptr %a, ptr %b, i32 %n) {
  %v = load i32, ptr %a
  store i32 %v, ptr %x
  ret void
}

define void @host(ptr %x, ptr %a, ptr %b, i32 %n) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.g, ptr %x, ptr %a, ptr %b, i32 %n)
  ret void
}
)IR");
  ASSERT_TRUE(M);
  Graph G("g", Node::Kind::Leaf);
  Node &Root = G.root();
  Root.Function = "leaf";
  Root.addBuffer("x", Access::InOut, Extent::constant(4));
  Root.addBuffer("a", Access::In, Extent::param(3));
  Root.addBuffer("b", Access::In, Extent::constant(8));
  Root.addValue("n", ScalarType::I32);
  Root.setDims({Extent::param(3)});
  writeGraphs(*M, {&G});
  ASSERT_EQ(prepareRegions(*M), 0u);
  ASSERT_TRUE(isValid(*M));

  Function &Host = *M->getFunction("host");
  std::vector<CallInst *> Entries = regionEntries(Host);
  ASSERT_EQ(Entries.size(), 1u);
  CallInst *Entry = Entries[0];
  ASSERT_EQ(Entry->getNumOperandBundles(), 5u);
  EXPECT_EQ(Entry->getOperandBundleAt(0).getTagName(), tag::Node);
  EXPECT_EQ(Entry->getOperandBundleAt(1).getTagName(), tag::Dims);
  EXPECT_EQ(Entry->getOperandBundleAt(2).getTagName(), tag::InOut);
  EXPECT_EQ(Entry->getOperandBundleAt(3).getTagName(), tag::In);
  EXPECT_EQ(Entry->getOperandBundleAt(4).getTagName(), tag::Value);
  Argument *N = Host.getArg(3);
  EXPECT_EQ(bundle(Entry, tag::Dims), std::vector<Value *>{N});
  // a's size is n as i64, b's the constant 8.
  std::vector<Value *> In = bundle(Entry, tag::In);
  ASSERT_EQ(In.size(), 4u);
  auto *Size = dyn_cast<ZExtInst>(In[1]);
  ASSERT_NE(Size, nullptr);
  EXPECT_EQ(Size->getOperand(0), N);
  EXPECT_EQ(cast<ConstantInt>(In[3])->getZExtValue(), 8u);

  DominatorTree DT(Host);
  LoopInfo LI(DT);
  ASSERT_EQ(LI.getTopLevelLoops().size(), 1u);
  Loop *L = LI.getTopLevelLoops()[0];
  ASSERT_NE(L->getCanonicalInductionVariable(), nullptr);
  auto *Br = cast<BranchInst>(L->getHeader()->getTerminator());
  EXPECT_EQ(cast<ICmpInst>(Br->getCondition())->getOperand(1), N);
}

TEST_F(PrepareTest, LaunchArgumentsMustMatchTheRoot) {
  Graph G = makeVectorAdd();
  std::string IR = VectorAddIR;
  // Drop the last launch argument.
  IR.replace(IR.rfind(", ptr %c)"), 9, ")");
  auto M = withGraphs(parse(IR), {&G});
  ASSERT_TRUE(M);
  std::string Before = printModule(*M);
  EXPECT_EQ(prepareRegions(*M), 1u);
  EXPECT_EQ(Rules, std::vector<std::string>{"launch"});
  EXPECT_EQ(printModule(*M), Before);
}

/// docs/ir.md §4: region -> graph -> region -> graph gives the same graph
/// both times. Starting from graph form, the first PREPARE/EXTRACT may
/// renumber parameters and children (EXTRACT's canonical order); after that
/// the graph must be a fixed point. Checks PREPARE's output against the
/// region verifier and EXTRACT along the way.
TEST_F(PrepareTest, PreparedRegionsVerifyAndRoundTrip) {
  struct Case {
    const char *IR;
    Graph G;
  };
  Case Cases[] = {{VectorAddIR, makeVectorAdd()},
                  {NestedIR, makeNested()},
                  {FourChildrenIR, makeFourChildren()}};
  for (Case &C : Cases) {
    SCOPED_TRACE(C.G.name());
    auto M = withGraphs(parse(C.IR), {&C.G});
    ASSERT_TRUE(M);
    std::vector<Graph> Rounds;
    for (unsigned Round = 0; Round < 2; ++Round) {
      ASSERT_EQ(prepareRegions(*M), 0u);
      ASSERT_TRUE(isValid(*M));
      EXPECT_EQ(verifyHPVMModule(*M), 0u);
      ASSERT_EQ(extractGraphs(*M), 0u);
      ASSERT_TRUE(isValid(*M));
      Expected<std::vector<Graph>> Graphs = readGraphs(*M);
      ASSERT_TRUE(!!Graphs) << toString(Graphs.takeError());
      ASSERT_EQ(Graphs->size(), 1u);
      Rounds.push_back(std::move(Graphs->front()));
    }
    EXPECT_TRUE(Rounds[0].equals(Rounds[1]));
    EXPECT_TRUE(Rules.empty());
  }
}

} // namespace
