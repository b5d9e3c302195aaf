//===- NVPTXBackendTest.cpp - PTX kernels against NVPTXABI.h --------------===//
//
// The launch interface the runtime's CUDA device is written against
// (NVPTXABI.h) checked on the PTX the backend writes: the entry's name, one
// parameter per node parameter with the size the ABI gives its type, the
// ancestors' ids, the launch form; which kernels have the grid-mapped
// form; options; where libdevice is looked for and that it is only needed
// for math PTX has no instruction for. Every kernel is assembled with
// ptxas when the CUDA toolkit is there (skipped, saying so, otherwise).
// Graphs are made with the builder and written as graph-form metadata, the
// leaf bodies as IR, so each test says exactly which interface it means.
//
//===----------------------------------------------------------------------===//
#include "hpvm/backends/NVPTXBackend.h"
#include "hpvm/ir/Graph.h"
#include "hpvm/ir/GraphMetadata.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace llvm;
using namespace hpvm;

namespace {

/// Leaf bodies: given the leaf function (empty) and its node, fill it.
using BodyFn = std::function<void(Function &, const Node &)>;

/// The default body: store 1.0f through the first buffer at the instance's
/// first id, so that the kernel reads its parameters and ids.
void storeOne(Function &F, const Node &N) {
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
  auto Buffer = find_if(N.Params, [](const Param &P) { return P.isBuffer(); });
  if (Buffer != N.Params.end()) {
    Value *Id = B.getInt64(0);
    if (!N.Dims.empty())
      Id = B.CreateCall(getInstanceIdFunction(*F.getParent()),
                        {B.getInt32(0), B.getInt32(0)});
    Value *P =
        B.CreateGEP(B.getFloatTy(), F.getArg(Buffer - N.Params.begin()), Id);
    B.CreateStore(ConstantFP::get(B.getFloatTy(), 1.0), P);
  }
  B.CreateRetVoid();
}

/// A graph-form module for G, every leaf's function made by Body.
std::unique_ptr<Module> graphModule(LLVMContext &Ctx, const Graph &G,
                                    const BodyFn &Body = storeOne) {
  auto M = std::make_unique<Module>("test", Ctx);
  M->setTargetTriple("x86_64-pc-linux-gnu");
  forEachNode(G.root(), [&](const Node &N) {
    if (!N.isLeaf() || M->getFunction(N.Function))
      return;
    Function *F =
        Function::Create(getLeafFunctionType(N, Ctx),
                         GlobalValue::InternalLinkage, N.Function, *M);
    Body(*F, N);
  });
  writeGraphs(*M, {&G});
  return M;
}

std::vector<NVPTXKernel> build(const Module &M, const NVPTXOptions &Opts = {}) {
  auto Kernels = buildNVPTXKernels(M, Opts);
  if (!Kernels) {
    ADD_FAILURE() << toString(Kernels.takeError());
    return {};
  }
  return std::move(*Kernels);
}

std::string buildError(const Module &M, const NVPTXOptions &Opts = {}) {
  auto Kernels = buildNVPTXKernels(M, Opts);
  if (Kernels) {
    ADD_FAILURE() << "the backend accepted what it should not";
    return "";
  }
  return toString(Kernels.takeError());
}

/// The parameter declarations of the .entry, without their names:
/// ".param .u64", ".param .align 2 .b8[2]", ...
std::vector<std::string> entryParams(const NVPTXKernel &K) {
  std::vector<std::string> Params;
  StringRef Text(K.PTX);
  size_t Start = Text.find(".entry " + K.EntryName + "(");
  if (Start == StringRef::npos) {
    ADD_FAILURE() << "no .entry " << K.EntryName << " in\n" << K.PTX;
    return Params;
  }
  StringRef List = Text.substr(Start).split(')').first;
  SmallVector<StringRef, 16> Lines;
  List.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim().rtrim(',');
    if (!L.starts_with(".param"))
      continue;
    std::string Name = K.EntryName + "_param_" + std::to_string(Params.size());
    size_t At = L.find(Name);
    if (At == StringRef::npos) {
      ADD_FAILURE() << "parameter " << Params.size() << " is not named " << Name
                    << ": " << L.str();
      return Params;
    }
    Params.push_back(
        (L.substr(0, At).rtrim() + L.substr(At + Name.size())).str());
  }
  return Params;
}

Graph oneLeafGraph(const char *Name) {
  Graph G(Name);
  Node &R = G.root();
  R.addBuffer("a", Access::Out, Extent::param(1));
  R.addValue("n", ScalarType::I64);
  Node &L = R.addLeaf("leaf", std::string("hpvm.node.") + Name + ".leaf");
  L.addBuffer("a", Access::Out, Extent::param(1));
  L.addValue("n", ScalarType::I64);
  L.setDims({Extent::param(1)});
  R.bind(L, 0, 0);
  R.bind(L, 1, 1);
  return G;
}

/// outer (2-D) > mid (1-D) > leaf (1-D), and a one-instance leaf in mid.
Graph nestedGraph() {
  Graph G("nest");
  Node &R = G.root();
  R.addBuffer("a", Access::Out, Extent::constant(4096));
  R.setDims({Extent::constant(4), Extent::constant(2)});
  Node &Mid = R.addInternal("mid");
  Mid.addBuffer("a", Access::Out, Extent::constant(4096));
  Mid.setDims({Extent::constant(3)});
  R.bind(Mid, 0, 0);
  Node &Leaf = Mid.addLeaf("leaf", "hpvm.node.nest.mid.leaf");
  Leaf.addBuffer("a", Access::Out, Extent::constant(4096));
  Leaf.setDims({Extent::constant(16)});
  Mid.bind(Leaf, 0, 0);
  Node &One = Mid.addLeaf("one", "hpvm.node.nest.mid.one");
  One.addBuffer("a", Access::Out, Extent::constant(4096));
  Mid.bind(One, 0, 0);
  Mid.addDependency(Leaf, One);
  return G;
}

const NVPTXKernel *kernelFor(const std::vector<NVPTXKernel> &Ks,
                             StringRef Path) {
  for (const NVPTXKernel &K : Ks)
    if (K.NodePath == Path)
      return &K;
  ADD_FAILURE() << "no kernel for " << Path.str();
  return nullptr;
}

std::string findPtxas() {
  if (auto P = sys::findProgramByName("ptxas"))
    return *P;
  std::vector<std::string> Roots;
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *Root = std::getenv(Var))
      Roots.push_back(Root);
  Roots.push_back("/usr/local/cuda");
  Roots.push_back("/usr/lib/cuda");
  for (const std::string &Root : Roots) {
    SmallString<256> P(Root);
    sys::path::append(P, "bin", "ptxas");
    if (sys::fs::can_execute(P))
      return P.str().str();
  }
  return "";
}

} // namespace

TEST(NVPTXABI, NamesBlocksAndIdComponents) {
  EXPECT_EQ(getNVPTXEntryName("hpvm.node.vadd"), "hpvm_nvptx_vadd");
  EXPECT_EQ(getNVPTXEntryName("hpvm.node.g.child-2"), "hpvm_nvptx_g_child_2");
  EXPECT_EQ(getNVPTXEntryName("plain$name"), "hpvm_nvptx_plain$name");
  EXPECT_EQ(nvptxBlockSize(0), (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(nvptxBlockSize(1), (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(nvptxBlockSize(2), (std::array<uint32_t, 3>{32, 8, 1}));
  EXPECT_EQ(nvptxBlockSize(3), (std::array<uint32_t, 3>{8, 8, 4}));
  EXPECT_EQ(nvptxIdComponent(3, 0), 2u);
  EXPECT_EQ(nvptxIdComponent(3, 2), 0u);
  EXPECT_EQ(nvptxIdComponent(2, 0), 1u);

  Graph G = nestedGraph();
  const Node &Mid = *G.root().Children[0];
  EXPECT_TRUE(nvptxHasGridForm(*Mid.Children[0]));
  EXPECT_FALSE(nvptxHasGridForm(*Mid.Children[1])); // no dims of its own
  EXPECT_FALSE(nvptxHasGridForm(Mid));              // not a leaf
  EXPECT_EQ(nvptxAncestorLevels(*Mid.Children[0]), 2u);
  Graph Flat = oneLeafGraph("flat");
  EXPECT_FALSE(nvptxHasGridForm(*Flat.root().Children[0])); // parent 0-D
}

// Every scalar type with the size the ABI gives it: cuLaunchKernel copies
// exactly the declared bytes from kernelParams[i].
TEST(NVPTXBackend, ParametersHaveTheSizesOfTheABI) {
  Graph G("types");
  Node &R = G.root();
  Node &L = R.addLeaf("leaf", "hpvm.node.types.leaf");
  std::vector<std::pair<ScalarType, const char *>> Values = {
      {ScalarType::I1, ".param .u8"},
      {ScalarType::I8, ".param .u8"},
      {ScalarType::I16, ".param .u16"},
      {ScalarType::I32, ".param .u32"},
      {ScalarType::I64, ".param .u64"},
      {ScalarType::F16, ".param .align 2 .b8[2]"},
      {ScalarType::F32, ".param .f32"},
      {ScalarType::F64, ".param .f64"},
      {ScalarType::Ptr, ".param .u64"}};
  std::vector<std::string> Expected;
  for (auto [I, V] : enumerate(Values)) {
    std::string Name = "v" + std::to_string(I);
    R.addValue(Name, V.first);
    L.addValue(Name, V.first);
    R.bind(L, I, I);
    Expected.push_back(V.second);
  }
  unsigned Extent = R.addValue("n", ScalarType::I64);
  L.addValue("n", ScalarType::I64);
  R.bind(L, Extent, Extent);
  Expected.push_back(".param .u64");
  unsigned Buf = R.addBuffer("a", Access::InOut, Extent::constant(64));
  L.addBuffer("a", Access::InOut, Extent::constant(64));
  R.bind(L, Buf, Buf);
  Expected.push_back(".param .u64"); // the buffer's device address
  L.setDims({Extent::param(Extent)});
  // The ids of the root's instance (level 1), then the launch form.
  Expected.insert(Expected.end(), 3, ".param .u64");
  Expected.push_back(".param .u32");

  LLVMContext Ctx;
  auto M = graphModule(Ctx, G);
  std::vector<NVPTXKernel> Ks = build(*M);
  ASSERT_EQ(Ks.size(), 1u);
  EXPECT_EQ(Ks[0].EntryName, "hpvm_nvptx_types_leaf");
  EXPECT_EQ(Ks[0].NodePath, "types/leaf");
  EXPECT_EQ(entryParams(Ks[0]), Expected);
  EXPECT_FALSE(Ks[0].HasGridForm);
  EXPECT_EQ(Ks[0].BlockSize, (std::array<uint32_t, 3>{256, 1, 1}));
}

// After the node's parameters, 3 u64 per ancestor level (2 here), then the
// u32 launch form; a replicated leaf in a replicated parent has the
// grid-mapped form, and reads its parent's ids from the block ids there.
TEST(NVPTXBackend, AncestorIdsAndTheGridMappedForm) {
  Graph G = nestedGraph();
  LLVMContext Ctx;
  auto M = graphModule(Ctx, G, [](Function &F, const Node &N) {
    // a[parent id 0] = 1.0f: reads ancestor level 1.
    IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
    Value *Id = B.CreateCall(getInstanceIdFunction(*F.getParent()),
                             {B.getInt32(1), B.getInt32(0)});
    B.CreateStore(ConstantFP::get(B.getFloatTy(), 1.0),
                  B.CreateGEP(B.getFloatTy(), F.getArg(0), Id));
    B.CreateRetVoid();
  });
  std::vector<NVPTXKernel> Ks = build(*M);
  ASSERT_EQ(Ks.size(), 2u);
  std::vector<std::string> Expected(1 + 6, ".param .u64");
  Expected.push_back(".param .u32");

  const NVPTXKernel *Leaf = kernelFor(Ks, "nest/mid/leaf");
  ASSERT_TRUE(Leaf);
  EXPECT_EQ(entryParams(*Leaf), Expected);
  EXPECT_TRUE(Leaf->HasGridForm);
  // The parent's id 0: outer-id parameter 1 (after a) or the block's x id.
  EXPECT_NE(Leaf->PTX.find("[hpvm_nvptx_nest_mid_leaf_param_1]"),
            std::string::npos);
  EXPECT_NE(Leaf->PTX.find("%ctaid.x"), std::string::npos);
  EXPECT_NE(Leaf->PTX.find("[hpvm_nvptx_nest_mid_leaf_param_7]"),
            std::string::npos)
      << "the grid-mapped kernel does not read its launch form";

  const NVPTXKernel *One = kernelFor(Ks, "nest/mid/one");
  ASSERT_TRUE(One);
  EXPECT_EQ(entryParams(*One), Expected);
  EXPECT_FALSE(One->HasGridForm);
  EXPECT_EQ(One->BlockSize, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(One->PTX.find("[hpvm_nvptx_nest_mid_one_param_7]"),
            std::string::npos)
      << "a flat-only kernel has no use for its launch form";
}

// Nodes sharing a leaf function get one kernel each, with the same entry
// name (each is its own module).
TEST(NVPTXBackend, SharedLeafFunctionsGiveOneKernelPerNode) {
  Graph G("shared");
  Node &R = G.root();
  R.addBuffer("a", Access::Out, Extent::constant(64));
  for (const char *Name : {"x", "y"}) {
    Node &L = R.addLeaf(Name, "hpvm.node.shared.both");
    L.addBuffer("a", Access::Out, Extent::constant(64));
    L.setDims({Extent::constant(16)});
    R.bind(L, 0, 0);
  }
  R.addDependency(*R.Children[0], *R.Children[1]);
  LLVMContext Ctx;
  auto M = graphModule(Ctx, G);
  std::vector<NVPTXKernel> Ks = build(*M);
  ASSERT_EQ(Ks.size(), 2u);
  EXPECT_EQ(Ks[0].NodePath, "shared/x");
  EXPECT_EQ(Ks[1].NodePath, "shared/y");
  for (const NVPTXKernel &K : Ks) {
    EXPECT_EQ(K.EntryName, "hpvm_nvptx_shared_both");
    EXPECT_NE(K.PTX.find(".visible .entry hpvm_nvptx_shared_both("),
              std::string::npos);
  }
}

TEST(NVPTXBackend, OnlyNvptxLeavesAndDeterministic) {
  Graph G = oneLeafGraph("only");
  LLVMContext Ctx;
  auto M = graphModule(Ctx, G);
  std::vector<NVPTXKernel> A = build(*M), B = build(*M);
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(B.size(), 1u);
  EXPECT_EQ(A[0].PTX, B[0].PTX);

  Graph H = oneLeafGraph("cpuonly");
  H.root().Children[0]->setTargets(TargetCPU | TargetSPIRV);
  auto N = graphModule(Ctx, H);
  EXPECT_TRUE(build(*N).empty());
}

TEST(NVPTXBackend, Options) {
  EXPECT_FALSE(errorToBool(checkNVPTXOptions({})));
  NVPTXOptions O;
  EXPECT_EQ(O.SM, 80u);
  EXPECT_EQ(O.PTXVersion, 78u);
  O.SM = 81;
  EXPECT_EQ(toString(checkNVPTXOptions(O))
                .find("sm_81 is not an "
                      "architecture LLVM's NVPTX "
                      "target knows"),
            0u);
  O.SM = 90;
  O.PTXVersion = 70;
  EXPECT_EQ(toString(checkNVPTXOptions(O)),
            "sm_90 needs PTX ISA 7.8 or later, not 7.0");
  O.PTXVersion = 80;
  EXPECT_FALSE(errorToBool(checkNVPTXOptions(O)));

  EXPECT_EQ(cantFail(parseNVPTXSM("sm_90")), 90u);
  EXPECT_EQ(cantFail(parseNVPTXSM("75")), 75u);
  EXPECT_TRUE(errorToBool(parseNVPTXSM("sm_").takeError()));
  EXPECT_TRUE(errorToBool(parseNVPTXSM("gfx90a").takeError()));
  EXPECT_EQ(cantFail(parsePTXVersion("8.0")), 80u);
  EXPECT_EQ(cantFail(parsePTXVersion("78")), 78u);
  EXPECT_TRUE(errorToBool(parsePTXVersion("8").takeError()));
  EXPECT_TRUE(errorToBool(parsePTXVersion("8.10").takeError()));

  // Options are checked before any leaf.
  Graph G = oneLeafGraph("opts");
  LLVMContext Ctx;
  auto M = graphModule(Ctx, G);
  NVPTXOptions Bad;
  Bad.SM = 12;
  EXPECT_NE(buildError(*M, Bad).find("sm_12"), std::string::npos);
  NVPTXOptions SM90;
  SM90.SM = 90;
  std::vector<NVPTXKernel> Ks = build(*M, SM90);
  ASSERT_EQ(Ks.size(), 1u);
  EXPECT_NE(Ks[0].PTX.find(".version 7.8\n.target sm_90\n"), std::string::npos);
}

TEST(NVPTXBackend, WhereLibdeviceIsLookedFor) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("hpvm-libdevice", Dir));
  SmallString<128> Missing(Dir), Present(Dir);
  sys::path::append(Missing, "missing", "libdevice.10.bc");
  sys::path::append(Present, "libdevice.10.bc");
  {
    std::error_code EC;
    raw_fd_ostream OS(Present, EC);
    ASSERT_FALSE(EC);
  }
  NVPTXOptions Search;
  EXPECT_EQ(cantFail(findLibdevice(Search,
                                   {Missing.str().str(), Present.str().str()})),
            Present.str().str());
  std::string None =
      toString(findLibdevice(Search, {Missing.str().str(), "/nonexistent/x.bc"})
                   .takeError());
  EXPECT_NE(None.find("no libdevice was found (looked for " +
                      Missing.str().str() + ", /nonexistent/x.bc"),
            std::string::npos)
      << None;
  // A named file must exist; there is no fallback to the search.
  NVPTXOptions Named;
  Named.LibdevicePath = Missing.str().str();
  EXPECT_NE(toString(findLibdevice(Named, {Present.str().str()}).takeError())
                .find("'" + Missing.str().str() + "', is not a file"),
            std::string::npos);

  // $CUDA_PATH comes first; /usr/local/cuda is always looked at.
  const char *Old = std::getenv("CUDA_PATH");
  std::string Saved = Old ? Old : "";
  setenv("CUDA_PATH", Dir.c_str(), 1);
  std::vector<std::string> Paths = libdeviceSearchPaths();
  if (Old)
    setenv("CUDA_PATH", Saved.c_str(), 1);
  else
    unsetenv("CUDA_PATH");
  ASSERT_FALSE(Paths.empty());
  EXPECT_EQ(Paths.front(), (Dir + "/nvvm/libdevice/libdevice.10.bc").str());
  EXPECT_TRUE(is_contained(
      Paths, std::string("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")));
  sys::fs::remove_directories(Dir);
}

// Math PTX has instructions for needs no libdevice at all; the rest does,
// and its absence is an error naming the function and the node.
TEST(NVPTXBackend, LibdeviceOnlyForWhatPTXLacks) {
  auto MathLeaf = [](const char *Fn) {
    return [Fn](Function &F, const Node &) {
      Module &M = *F.getParent();
      IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
      Value *Id = B.CreateCall(getInstanceIdFunction(M),
                               {B.getInt32(0), B.getInt32(0)});
      Value *P = B.CreateGEP(B.getFloatTy(), F.getArg(0), Id);
      FunctionCallee Math =
          M.getOrInsertFunction(Fn, B.getFloatTy(), B.getFloatTy());
      B.CreateStore(B.CreateCall(Math, {B.CreateLoad(B.getFloatTy(), P)}), P);
      B.CreateRetVoid();
    };
  };
  NVPTXOptions NoLibdevice;
  NoLibdevice.LibdevicePath = "/nonexistent/libdevice.10.bc";
  Graph G = oneLeafGraph("math");
  LLVMContext Ctx;

  auto Native = graphModule(Ctx, G, MathLeaf("sqrtf"));
  std::vector<NVPTXKernel> Ks = build(*Native, NoLibdevice);
  ASSERT_EQ(Ks.size(), 1u);
  EXPECT_FALSE(Ks[0].UsesLibdevice);
  EXPECT_NE(Ks[0].PTX.find("sqrt.rn.f32"), std::string::npos);

  auto Exp = graphModule(Ctx, G, MathLeaf("expf"));
  std::string E = buildError(*Exp, NoLibdevice);
  EXPECT_NE(E.find("node 'math/leaf' (leaf function '@hpvm.node.math.leaf'): "
                   "the nvptx backend cannot compile a call to 'expf', which "
                   "needs NVIDIA's libdevice: the libdevice named in the "
                   "options, '/nonexistent/libdevice.10.bc', is not a file"),
            std::string::npos)
      << E;

  auto Found = findLibdevice({});
  if (!Found)
    GTEST_SKIP() << "no libdevice to link: " << toString(Found.takeError());
  Ks = build(*Exp);
  ASSERT_EQ(Ks.size(), 1u);
  EXPECT_TRUE(Ks[0].UsesLibdevice);
  EXPECT_EQ(Ks[0].PTX.find(".extern"), std::string::npos);
  EXPECT_EQ(Ks[0].PTX.find("__nv_"), std::string::npos);
}

// What the other tests build, assembled by ptxas for its SM.
TEST(NVPTXBackend, PtxasAssemblesTheKernels) {
  std::string Ptxas = findPtxas();
  if (Ptxas.empty())
    GTEST_SKIP() << "ptxas not found (not on PATH, nor in bin/ of "
                    "$CUDA_PATH, $CUDA_HOME, /usr/local/cuda, /usr/lib/cuda)";
  LLVMContext Ctx;
  Graph A = nestedGraph(), B = oneLeafGraph("ptxas");
  std::vector<std::pair<std::unique_ptr<Module>, unsigned>> Inputs;
  Inputs.emplace_back(graphModule(Ctx, A), 80);
  Inputs.emplace_back(graphModule(Ctx, B), 80);
  Inputs.emplace_back(graphModule(Ctx, B), 90);
  Inputs.emplace_back(graphModule(Ctx, B), 75);
  unsigned Assembled = 0;
  for (auto &[M, SM] : Inputs) {
    NVPTXOptions O;
    O.SM = SM;
    for (const NVPTXKernel &K : build(*M, O)) {
      SmallString<128> Path;
      ASSERT_FALSE(sys::fs::createTemporaryFile("hpvm-kernel", "ptx", Path));
      {
        std::error_code EC;
        raw_fd_ostream OS(Path, EC);
        ASSERT_FALSE(EC);
        OS << K.PTX;
      }
      std::string Arch = "-arch=sm_" + std::to_string(SM);
      std::string Err;
      int RC = sys::ExecuteAndWait(Ptxas,
                                   {Ptxas, Arch, Path.str(), "-o", "/dev/null"},
                                   std::nullopt, {}, 0, 0, &Err);
      EXPECT_EQ(RC, 0) << "ptxas " << Arch << " rejects " << K.NodePath << Err
                       << "\n"
                       << K.PTX;
      sys::fs::remove(Path);
      ++Assembled;
    }
  }
  EXPECT_EQ(Assembled, 5u);
}
