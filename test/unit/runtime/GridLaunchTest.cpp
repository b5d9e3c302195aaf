//===- GridLaunchTest.cpp - One launch for a whole replicated parent ------===//
//
// A replicated internal node whose child graph is one replicated leaf
// without outputs runs as one grid launch on a device that can take it
// (Device::canLaunchGrid): the CPU device runs all parent instances x leaf
// instances as one parallel loop. Results must be those of one launch per
// parent instance, which is what devices that cannot (the fake GPU here,
// Vulkan) still get; the statistics tell the two apart.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "hpvm/rt/Stats.h"

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

// cell(out, n, cols, bytes), dims [n], inside a replicated parent [rows,
// cols] (level 1) inside a replicated root [planes] (level 2):
// out[((plane * rows + row) * cols + col) * n + i] = plane, row, col, i.
void cellKernel(void *const *Args, void *const *Outs, const uint64_t *Dims,
                const uint64_t *OuterIds, uint64_t Begin, uint64_t End) {
  int64_t *Out = buffer<int64_t>(Args, 0);
  uint64_t N = value<uint64_t>(Args, 1), Cols = value<uint64_t>(Args, 2);
  uint64_t Rows = value<uint64_t>(Args, 4);
  EXPECT_EQ(Outs, nullptr);
  EXPECT_EQ(Dims[0], N);
  uint64_t Row = OuterIds[0], Col = OuterIds[1], Plane = OuterIds[3];
  EXPECT_EQ(OuterIds[2], 0u);
  EXPECT_EQ(OuterIds[4], 0u);
  EXPECT_EQ(OuterIds[5], 0u);
  for (uint64_t I = Begin; I != End; ++I)
    Out[((Plane * Rows + Row) * Cols + Col) * N + I] =
        static_cast<int64_t>(Plane * 1000000 + Row * 10000 + Col * 100 + I);
}

void nopKernel(void *const *, void *const *, const uint64_t *, const uint64_t *,
               uint64_t, uint64_t) {}

/// planes [p] -> grid [rows, cols] -> cell [n]; with Extra, the grid node
/// has a second child, which makes it ineligible for a grid launch.
Graph cellGraph(const std::string &Name, bool Extra) {
  Graph G(Name);
  Node &R = G.root();
  unsigned Out = R.addBuffer("out", Access::Out, Extent::param(5));
  unsigned N = R.addValue("n", ScalarType::I64);
  unsigned Rows = R.addValue("rows", ScalarType::I64);
  unsigned Cols = R.addValue("cols", ScalarType::I64);
  unsigned Planes = R.addValue("planes", ScalarType::I64);
  unsigned Bytes = R.addValue("bytes", ScalarType::I64);
  R.setDims({Extent::param(Planes)});
  Node &Grid = R.addInternal("grid");
  unsigned GOut = Grid.addBuffer("out", Access::Out, Extent::param(5));
  unsigned GN = Grid.addValue("n", ScalarType::I64);
  unsigned GRows = Grid.addValue("rows", ScalarType::I64);
  unsigned GCols = Grid.addValue("cols", ScalarType::I64);
  Grid.addValue("planes", ScalarType::I64);
  unsigned GBytes = Grid.addValue("bytes", ScalarType::I64);
  Grid.setDims({Extent::param(GRows), Extent::param(GCols)});
  for (unsigned K : {Out, N, Rows, Cols, Planes, Bytes})
    R.bind(Grid, K, K);
  Node &Cell = Grid.addLeaf("cell", "cell");
  Cell.addBuffer("out", Access::Out, Extent::param(3));
  Cell.addValue("n", ScalarType::I64);
  Cell.addValue("cols", ScalarType::I64);
  Cell.addValue("bytes", ScalarType::I64);
  Cell.addValue("rows", ScalarType::I64);
  Cell.setDims({Extent::param(1)});
  Grid.bind(Cell, 0, GOut);
  Grid.bind(Cell, 1, GN);
  Grid.bind(Cell, 2, GCols);
  Grid.bind(Cell, 3, GBytes);
  Grid.bind(Cell, 4, GRows);
  if (Extra)
    Grid.addLeaf("extra", "extra");
  return G;
}

uint64_t launchesOf(const std::string &Path, const std::string &Device) {
  return launchesByDevice(Path)[Device];
}

void runCells(TestProgram &P, const char *Name, int64_t Planes, int64_t Rows,
              int64_t Cols, int64_t N) {
  std::vector<int64_t> Out(Planes * Rows * Cols * N, -1);
  int64_t *PO = Out.data();
  int64_t Bytes = static_cast<int64_t>(Out.size() * sizeof(int64_t));
  ASSERT_EQ(P.launch(Name, {&PO, &N, &Rows, &Cols, &Planes, &Bytes}), HPVM_OK)
      << hpvm_error_message();
  for (int64_t Pl = 0; Pl != Planes; ++Pl)
    for (int64_t R = 0; R != Rows; ++R)
      for (int64_t C = 0; C != Cols; ++C)
        for (int64_t I = 0; I != N; ++I)
          ASSERT_EQ(Out[((Pl * Rows + R) * Cols + C) * N + I],
                    Pl * 1000000 + R * 10000 + C * 100 + I)
              << "plane " << Pl << " row " << R << " col " << C << " i " << I;
}

TEST(GridLaunch, CpuRunsAWholeReplicatedParentAsOneLaunch) {
  Graph G = cellGraph("cells", /*Extra=*/false);
  TestProgram P({&G}, {{"cells/grid/cell", HPVM_TARGET_CPU, cellKernel}});
  // Uneven shapes, so that chunks of the one parallel loop start and end
  // inside a parent instance; one instance of everything; an empty leaf.
  const int64_t Shapes[][4] = {
      {2, 3, 5, 7}, {3, 7, 1, 1000}, {1, 1, 1, 1}, {2, 2, 3, 0}};
  for (const auto &S : Shapes) {
    uint64_t Before = launchesOf("cells/grid/cell", "cpu");
    uint64_t GridBefore = launchesOf("cells/grid", "host");
    runCells(P, "cells", S[0], S[1], S[2], S[3]);
    // One launch per instance of the planes root, none per grid instance.
    EXPECT_EQ(launchesOf("cells/grid/cell", "cpu") - Before, uint64_t(S[0]));
    EXPECT_EQ(launchesOf("cells/grid", "host") - GridBefore, uint64_t(S[0]));
  }
}

TEST(GridLaunch, ParentWithMoreThanTheLeafRunsPerInstance) {
  Graph G = cellGraph("cells_extra", /*Extra=*/true);
  TestProgram P({&G}, {{"cells_extra/grid/cell", HPVM_TARGET_CPU, cellKernel},
                       {"cells_extra/grid/extra", HPVM_TARGET_CPU, nopKernel}});
  uint64_t Before = launchesOf("cells_extra/grid/cell", "cpu");
  runCells(P, "cells_extra", 2, 3, 5, 7);
  EXPECT_EQ(launchesOf("cells_extra/grid/cell", "cpu") - Before, 2u * 3 * 5);
}

TEST(GridLaunch, DeviceThatCannotGetsOneLaunchPerParentInstance) {
  // The fake GPU does not implement canLaunchGrid: the executor falls back
  // to launching per instance, with the right outer ids.
  ScopedDevice Gpu(
      std::make_unique<FakeDevice>("fake-grid", HPVM_TARGET_NVPTX));
  Graph G = cellGraph("cells_gpu", /*Extra=*/false);
  TestProgram P({&G}, {{"cells_gpu/grid/cell", HPVM_TARGET_NVPTX, cellKernel}});
  runCells(P, "cells_gpu", 2, 3, 5, 7);
  EXPECT_EQ(Gpu->Launches.load(), 2u * 3 * 5);
  EXPECT_EQ(launchesOf("cells_gpu/grid/cell", "fake-grid"), 2u * 3 * 5);
}

TEST(GridLaunch, TraceShowsOneLeafEventPerGridLaunch) {
  rt::Trace &T = rt::Runtime::get().trace();
  T.clear();
  T.enable(testing::TempDir() + "grid-trace.json");
  Graph G = cellGraph("cells_traced", /*Extra=*/false);
  TestProgram P({&G},
                {{"cells_traced/grid/cell", HPVM_TARGET_CPU, cellKernel}});
  runCells(P, "cells_traced", 1, 4, 6, 9);
  std::string Text = T.json();
  T.disable();
  T.clear();
  Json J;
  std::string Error;
  ASSERT_TRUE(parseJson(Text, J, Error)) << Error;
  unsigned Leaf = 0;
  for (const Json &E : J.get("traceEvents")->Items)
    if (const Json *N = E.get("name");
        N && N->Str == "cells_traced/grid/cell") {
      ++Leaf;
      EXPECT_EQ(E.get("args")->get("instances")->Num, 4 * 6 * 9);
    }
  EXPECT_EQ(Leaf, 1u);
}

} // namespace
