//===- WorkGroupKernelTest.cpp - Choosing a work-group leaf's kernel ------===//
//
// A work-group leaf (a node with `group`: docs/ir.md §3.4) may come with a
// second artifact of a GPU target, its work-group kernel, whose entry is the
// other's followed by HPVM_WORK_GROUP_ENTRY_SUFFIX (hpvm_rt.h). The executor
// launches it, as one device work-group per instance, where the device says
// the group fits (Device::fitsWorkGroup), and the other artifact elsewhere.
// These tests check the choice, the group the device is given, and what a
// program may contain.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

using namespace hpvm;
using namespace hpvm::rttest;

namespace {

constexpr uint64_t Groups = 6;

/// out[g] = 1 + 10 * g: a group's work as the kernel every leaf has does it.
void groupKernel(void *const *Args, void *const *, const uint64_t *,
                 const uint64_t *, uint64_t Begin, uint64_t End) {
  int64_t *Out = buffer<int64_t>(Args, 0);
  for (uint64_t G = Begin; G != End; ++G)
    Out[G] = 1 + 10 * int64_t(G);
}

/// The same result, marked: what the fake device runs for the work-group
/// kernel (it runs artifacts' cpu_fn).
void workGroupKernel(void *const *Args, void *const *, const uint64_t *,
                     const uint64_t *, uint64_t Begin, uint64_t End) {
  int64_t *Out = buffer<int64_t>(Args, 0);
  for (uint64_t G = Begin; G != End; ++G)
    Out[G] = 2 + 10 * int64_t(G);
}

/// One leaf of Groups work-groups of 4 x 8 work-items (8 along x), on a
/// fake GPU only.
Graph groupsGraph(const char *Name) {
  Graph G(Name);
  Node &Root = G.root();
  Root.addBuffer("out", Access::Out, Extent::constant(Groups * 8));
  Node &Leaf = Root.addLeaf("leaf", "leaf_fn");
  Leaf.addBuffer("out", Access::Out, Extent::constant(Groups * 8));
  Leaf.setDims({Extent::constant(Groups)}).setTargets(TargetNVPTX);
  Leaf.Group = {Extent::constant(4), Extent::constant(8)};
  Root.bind(Leaf, 0, 0);
  return G;
}

/// Launches Name's graph; the value each group wrote (1 or 2: which kernel).
std::vector<int64_t> run(TestProgram &P, const char *Name) {
  std::vector<int64_t> Out(Groups, 0);
  int64_t *Ptr = Out.data();
  EXPECT_EQ(P.launch(Name, {&Ptr}), HPVM_OK);
  for (int64_t &V : Out)
    V %= 10;
  return Out;
}

std::string workGroupEntry(const char *Entry) {
  return std::string(Entry) + HPVM_WORK_GROUP_ENTRY_SUFFIX;
}

TEST(WorkGroupKernels, TheDeviceRunsItWhereTheGroupFits) {
  auto Fake = std::make_unique<FakeDevice>("fake-groups", HPVM_TARGET_NVPTX);
  Fake->MaxGroupItems = 32;
  ScopedDevice Gpu(std::move(Fake));
  Graph G = groupsGraph("fits");
  TestProgram P({&G}, {{"fits/leaf", HPVM_TARGET_NVPTX, groupKernel, "", "k"},
                       {"fits/leaf", HPVM_TARGET_NVPTX, workGroupKernel, "",
                        workGroupEntry("k")}});
  EXPECT_EQ(run(P, "fits"), std::vector<int64_t>(Groups, 2));
  EXPECT_TRUE(Gpu->LastWorkGroup);
  // Along x, y, z: the group's last extent is x.
  EXPECT_EQ(Gpu->LastGroupDims[0], 8u);
  EXPECT_EQ(Gpu->LastGroupDims[1], 4u);
  EXPECT_EQ(Gpu->LastGroupDims[2], 1u);

  // A device whose work-groups are smaller runs a thread per group.
  Gpu->MaxGroupItems = 31;
  EXPECT_EQ(run(P, "fits"), std::vector<int64_t>(Groups, 1));
  EXPECT_FALSE(Gpu->LastWorkGroup);
}

TEST(WorkGroupKernels, ItMayComeFirst) {
  auto Fake = std::make_unique<FakeDevice>("fake-first", HPVM_TARGET_NVPTX);
  Fake->MaxGroupItems = 1024;
  ScopedDevice Gpu(std::move(Fake));
  Graph G = groupsGraph("first");
  TestProgram P({&G},
                {{"first/leaf", HPVM_TARGET_NVPTX, workGroupKernel, "",
                  workGroupEntry("k")},
                 {"first/leaf", HPVM_TARGET_NVPTX, groupKernel, "", "k"}});
  EXPECT_EQ(run(P, "first"), std::vector<int64_t>(Groups, 2));
}

TEST(WorkGroupKernels, WhatAProgramMayContain) {
  ScopedDevice Gpu(std::make_unique<FakeDevice>("fake-bad", HPVM_TARGET_NVPTX));
  int64_t Out[Groups * 8];
  int64_t *Ptr = Out;
  {
    // Two kernels whose entries are not a pair: a duplicate.
    Graph G = groupsGraph("dup");
    TestProgram P({&G},
                  {{"dup/leaf", HPVM_TARGET_NVPTX, groupKernel, "", "k"},
                   {"dup/leaf", HPVM_TARGET_NVPTX, groupKernel, "", "j"}});
    expectError(P.launch("dup", {&Ptr}), HPVM_ERR_BAD_PROGRAM,
                "artifact #1 (node 'dup/leaf') is a second nvptx artifact for "
                "the node (the first is #0)");
  }
  {
    // A work-group kernel for a node without work-groups.
    Graph G = groupsGraph("plain");
    G.root().Children[0]->Group.clear();
    TestProgram P({&G},
                  {{"plain/leaf", HPVM_TARGET_NVPTX, groupKernel, "", "k"},
                   {"plain/leaf", HPVM_TARGET_NVPTX, workGroupKernel, "",
                    workGroupEntry("k")}});
    expectError(P.launch("plain", {&Ptr}), HPVM_ERR_BAD_PROGRAM,
                "is a work-group kernel (entry \"k" HPVM_WORK_GROUP_ENTRY_SUFFIX
                "\"), but the node has no work-groups");
  }
  {
    // A third one.
    Graph G = groupsGraph("third");
    TestProgram P({&G},
                  {{"third/leaf", HPVM_TARGET_NVPTX, groupKernel, "", "k"},
                   {"third/leaf", HPVM_TARGET_NVPTX, workGroupKernel, "",
                    workGroupEntry("k")},
                   {"third/leaf", HPVM_TARGET_NVPTX, workGroupKernel, "",
                    workGroupEntry("k")}});
    expectError(P.launch("third", {&Ptr}), HPVM_ERR_BAD_PROGRAM,
                "artifact #2 (node 'third/leaf') is a second nvptx artifact");
  }
}

} // namespace
