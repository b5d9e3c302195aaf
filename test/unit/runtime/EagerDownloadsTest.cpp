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

/// The host memory of the slots, and what a device's copy would put there.
struct Arena {
  std::vector<char> Bytes =
      std::vector<char>(EagerDownloads::NumSlots * EagerDownloads::SlotBytes);
  void fill(const EagerDownloads::Ticket &T, char Value, size_t N) {
    ASSERT_TRUE(T.hasSlot());
    std::memset(Bytes.data() + T.offset(), Value, N);
  }
};

/// What read() gives for bytes [0, N) of B: the first byte, or -1 if not
/// served.
int readFirst(EagerDownloads &E, Arena &A, const void *B, size_t N = 16) {
  std::vector<char> Out(N, 0);
  if (!E.read(B, 0, N, Out.data(), A.Bytes.data()))
    return -1;
  return Out[0];
}

int BufA, BufB;

TEST(EagerDownloads, ServedOnceItsLaunchHasFinished) {
  EagerDownloads E;
  Arena A;
  EagerDownloads::Ticket T = E.write(&BufA, 64);
  A.fill(T, 7, 64);
  EXPECT_EQ(readFirst(E, A, &BufA), -1) << "its launch is in flight";
  E.done(T, /*Ran=*/true);
  EXPECT_EQ(readFirst(E, A, &BufA), 7);
  // Any part of it, but not past its end.
  char Out[8] = {};
  EXPECT_TRUE(E.read(&BufA, 63, 1, Out, A.Bytes.data()));
  EXPECT_FALSE(E.read(&BufA, 60, 8, Out, A.Bytes.data()));
  EXPECT_EQ(readFirst(E, A, &BufB), -1) << "another buffer has no slot";
  EXPECT_EQ(E.served(), 17u);
}

TEST(EagerDownloads, ALaterWriteMakesTheSlotStale) {
  EagerDownloads E;
  Arena A;
  EagerDownloads::Ticket First = E.write(&BufA, 64);
  A.fill(First, 1, 64);
  E.done(First, true);
  EagerDownloads::Ticket Second = E.write(&BufA, 64);
  EXPECT_EQ(readFirst(E, A, &BufA), -1) << "a writer is in flight";
  A.fill(Second, 2, 64);
  E.done(Second, true);
  EXPECT_EQ(readFirst(E, A, &BufA), 2);
}

TEST(EagerDownloads, WritersInFlightTogetherGetNoSlot) {
  // On CUDA the second kernel may run beside the first on another stream:
  // neither copy would hold both kernels' writes.
  EagerDownloads E;
  Arena A;
  EagerDownloads::Ticket First = E.write(&BufA, 64);
  EagerDownloads::Ticket Second = E.write(&BufA, 64);
  EXPECT_TRUE(First.hasSlot());
  EXPECT_FALSE(Second.hasSlot());
  A.fill(First, 1, 64);
  E.done(First, true);
  EXPECT_EQ(readFirst(E, A, &BufA), -1);
  E.done(Second, true);
  EXPECT_EQ(readFirst(E, A, &BufA), -1) << "the first copy misses the second "
                                           "kernel's writes";
  // Whichever order they finish in.
  EagerDownloads::Ticket Third = E.write(&BufB, 64);
  EagerDownloads::Ticket Fourth = E.write(&BufB, 64);
  E.done(Fourth, true);
  A.fill(Third, 3, 64);
  E.done(Third, true);
  EXPECT_EQ(readFirst(E, A, &BufB), -1);
  // Alone again: a slot.
  EagerDownloads::Ticket Fifth = E.write(&BufB, 64);
  A.fill(Fifth, 5, 64);
  E.done(Fifth, true);
  EXPECT_EQ(readFirst(E, A, &BufB), 5);
}

TEST(EagerDownloads, UploadsAndFreeingEndTheSlot) {
  EagerDownloads E;
  Arena A;
  EagerDownloads::Ticket T = E.write(&BufA, 64);
  A.fill(T, 1, 64);
  E.done(T, true);
  E.forget(&BufA);
  EXPECT_EQ(readFirst(E, A, &BufA), -1);
  // Forgotten while in flight: stale when it finishes.
  T = E.write(&BufA, 64);
  E.forget(&BufA);
  A.fill(T, 2, 64);
  E.done(T, true);
  EXPECT_EQ(readFirst(E, A, &BufA), -1);
}

TEST(EagerDownloads, ALaunchThatDidNotRunLeavesNothing) {
  EagerDownloads E;
  Arena A;
  EagerDownloads::Ticket T = E.write(&BufA, 64);
  E.done(T, /*Ran=*/false);
  EXPECT_EQ(readFirst(E, A, &BufA), -1);
  T = E.write(&BufA, 64);
  EXPECT_TRUE(T.hasSlot()) << "no writer is left in flight";
  E.done(T, true);
}

TEST(EagerDownloads, BigBuffersAndFullTablesGetNoSlot) {
  EagerDownloads E;
  Arena A;
  EagerDownloads::Ticket Big = E.write(&BufA, EagerDownloads::SlotBytes + 1);
  EXPECT_FALSE(Big.hasSlot());
  E.done(Big, true);
  EXPECT_EQ(readFirst(E, A, &BufA), -1);
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
    A.fill(Ts[I], static_cast<char>(I + 1), 64);
    E.done(Ts[I], true);
  }
  for (unsigned I = 0; I != EagerDownloads::NumSlots; ++I)
    EXPECT_EQ(readFirst(E, A, &Buffers[I]), static_cast<int>(I + 1)) << I;
  // A finished slot is reused (the oldest first); the others stay.
  EagerDownloads::Ticket Again = E.write(&BufB, 64);
  ASSERT_TRUE(Again.hasSlot());
  A.fill(Again, 9, 64);
  E.done(Again, true);
  EXPECT_EQ(readFirst(E, A, &BufB), 9);
  EXPECT_EQ(readFirst(E, A, &Buffers[0]), -1);
  EXPECT_EQ(readFirst(E, A, &Buffers[1]), 2);
}

} // namespace
