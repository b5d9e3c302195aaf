//===- EagerDownloadsTest.cpp - When a launch's own copy of a result counts
//===//
//
// The table's rules without a device: a slot is served only while it holds
// the buffer's current contents, and only once its launch has finished.
//
//===----------------------------------------------------------------------===//

#include "EagerDownloads.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using hpvm::rt::EagerDownloads;

namespace {

/// A table, the host memory of its slots, and a device's part played by
/// hand: each launch's copy fills its slot with one byte value.
class EagerDownloadsTest : public testing::Test {
protected:
  EagerDownloads E;
  std::vector<char> Arena =
      std::vector<char>(EagerDownloads::NumSlots * EagerDownloads::SlotBytes);

  /// T's launch copied Value into its slot (64 bytes) and finished.
  void finish(const EagerDownloads::Ticket &T, char Value) {
    ASSERT_TRUE(T.hasSlot());
    std::memset(Arena.data() + T.offset(), Value, 64);
    E.done(T, /*Ran=*/true);
  }
  /// What read() gives for bytes [0, 16) of B: the first byte, or -1 if
  /// not served.
  int readFirst(const void *B) {
    char Out[16] = {};
    return E.read(B, 0, sizeof Out, Out, Arena.data()) ? Out[0] : -1;
  }
};

int BufA, BufB;

TEST_F(EagerDownloadsTest, ServedOnceItsLaunchHasFinished) {
  EagerDownloads::Ticket T = E.write(&BufA, 64);
  ASSERT_TRUE(T.hasSlot());
  std::memset(Arena.data() + T.offset(), 7, 64); // copied, not yet known
  EXPECT_EQ(readFirst(&BufA), -1) << "its launch is in flight";
  E.done(T, /*Ran=*/true);
  EXPECT_EQ(readFirst(&BufA), 7);
  // Any part of it, but not past its end.
  char Out[8] = {};
  EXPECT_TRUE(E.read(&BufA, 63, 1, Out, Arena.data()));
  EXPECT_FALSE(E.read(&BufA, 60, 8, Out, Arena.data()));
  EXPECT_EQ(readFirst(&BufB), -1) << "another buffer has no slot";
  EXPECT_EQ(E.served(), 17u);
}

TEST_F(EagerDownloadsTest, ALaterWriteMakesTheSlotStale) {
  EagerDownloads::Ticket First = E.write(&BufA, 64);
  finish(First, 1);
  EagerDownloads::Ticket Second = E.write(&BufA, 64);
  EXPECT_EQ(readFirst(&BufA), -1) << "a writer is in flight";
  finish(Second, 2);
  EXPECT_EQ(readFirst(&BufA), 2);
}

TEST_F(EagerDownloadsTest, WritersInFlightTogetherGetNoSlot) {
  // On CUDA the second kernel may run beside the first on another stream:
  // neither copy would hold both kernels' writes.
  EagerDownloads::Ticket First = E.write(&BufA, 64);
  EagerDownloads::Ticket Second = E.write(&BufA, 64);
  EXPECT_TRUE(First.hasSlot());
  EXPECT_FALSE(Second.hasSlot());
  finish(First, 1);
  EXPECT_EQ(readFirst(&BufA), -1);
  E.done(Second, true);
  EXPECT_EQ(readFirst(&BufA), -1) << "the first copy misses the second "
                                     "kernel's writes";
  // Whichever order they finish in.
  EagerDownloads::Ticket Third = E.write(&BufB, 64);
  EagerDownloads::Ticket Fourth = E.write(&BufB, 64);
  E.done(Fourth, true);
  finish(Third, 3);
  EXPECT_EQ(readFirst(&BufB), -1);
  // Alone again: a slot.
  EagerDownloads::Ticket Fifth = E.write(&BufB, 64);
  finish(Fifth, 5);
  EXPECT_EQ(readFirst(&BufB), 5);
}

TEST_F(EagerDownloadsTest, UploadsAndFreeingEndTheSlot) {
  EagerDownloads::Ticket T = E.write(&BufA, 64);
  finish(T, 1);
  E.forget(&BufA);
  EXPECT_EQ(readFirst(&BufA), -1);
  // Forgotten while in flight: stale when it finishes.
  T = E.write(&BufA, 64);
  E.forget(&BufA);
  finish(T, 2);
  EXPECT_EQ(readFirst(&BufA), -1);
}

TEST_F(EagerDownloadsTest, ALaunchThatDidNotRunLeavesNothing) {
  EagerDownloads::Ticket T = E.write(&BufA, 64);
  E.done(T, /*Ran=*/false);
  EXPECT_EQ(readFirst(&BufA), -1);
  T = E.write(&BufA, 64);
  EXPECT_TRUE(T.hasSlot()) << "no writer is left in flight";
  E.done(T, true);
}

TEST_F(EagerDownloadsTest, BigBuffersAndFullTablesGetNoSlot) {
  EagerDownloads::Ticket Big = E.write(&BufA, EagerDownloads::SlotBytes + 1);
  EXPECT_FALSE(Big.hasSlot());
  E.done(Big, true);
  EXPECT_EQ(readFirst(&BufA), -1);
  // Every slot filling: the next writer gets none, until one finishes.
  std::vector<char> Buffers(EagerDownloads::NumSlots + 1);
  std::vector<EagerDownloads::Ticket> Ts;
  for (unsigned I = 0; I != EagerDownloads::NumSlots; ++I) {
    Ts.push_back(E.write(&Buffers[I], 64));
    EXPECT_TRUE(Ts.back().hasSlot()) << I;
  }
  EagerDownloads::Ticket Last = E.write(&Buffers[EagerDownloads::NumSlots], 64);
  EXPECT_FALSE(Last.hasSlot());
  E.done(Last, true);
  for (unsigned I = 0; I != EagerDownloads::NumSlots; ++I) {
    finish(Ts[I], static_cast<char>(I + 1));
  }
  for (unsigned I = 0; I != EagerDownloads::NumSlots; ++I)
    EXPECT_EQ(readFirst(&Buffers[I]), static_cast<int>(I + 1)) << I;
  // A finished slot is reused (the oldest first); the others stay.
  EagerDownloads::Ticket Again = E.write(&BufB, 64);
  ASSERT_TRUE(Again.hasSlot());
  finish(Again, 9);
  EXPECT_EQ(readFirst(&BufB), 9);
  EXPECT_EQ(readFirst(&Buffers[0]), -1);
  EXPECT_EQ(readFirst(&Buffers[1]), 2);
}

} // namespace
