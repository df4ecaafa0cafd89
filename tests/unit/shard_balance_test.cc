// Shards balanced by recorded seconds (matrix/shard_balance.h): longest first to the least loaded shard, ties
// to the earlier cell and the lower shard; every split's shards are disjoint and together every cell.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "matrix/shard_balance.h"

namespace nnx::matrix {
namespace {

TEST(ShardBalance, TheLongestCellsGoFirstToTheShardWithTheLeastSecondsSoFar) {
  const std::vector<double> weights{1.0, 5.0, 3.0, 3.0};  // 5 -> shard 0; 3 -> 1; 3 -> 1 (3 < 5); 1 -> 0 (5 < 6)
  EXPECT_EQ(balanced_shard_cells(weights, Shard{0, 2}), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(balanced_shard_cells(weights, Shard{1, 2}), (std::vector<std::size_t>{2, 3}));
}

TEST(ShardBalance, EqualWeightsDealTheCellsInOrder) {
  const std::vector<double> weights(5, 2.0);
  EXPECT_EQ(balanced_shard_cells(weights, Shard{0, 2}), (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(balanced_shard_cells(weights, Shard{1, 2}), (std::vector<std::size_t>{1, 3}));
}

TEST(ShardBalance, EverySplitIsDisjointAndCoversEveryCell) {
  const std::vector<double> weights{0.3, 9.0, 0.0, 4.5, 4.5, 1.25, 7.0};
  for (std::size_t n = 1; n <= 8; ++n) {
    std::multiset<std::size_t> seen;
    for (std::size_t k = 0; k < n; ++k) {
      for (std::size_t cell : balanced_shard_cells(weights, Shard{k, n})) seen.insert(cell);
    }
    EXPECT_EQ(seen.size(), weights.size()) << n;
    EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), weights.size()) << n;
  }
}

}  // namespace
}  // namespace nnx::matrix
