#include "hpvm/ir/Graph.h"
#include <gtest/gtest.h>
TEST(GraphBuilder, RootIsInternalByDefault) {
  hpvm::Graph G("g");
  EXPECT_TRUE(G.root().isInternal());
}
