// The comparison of an integer or bool output (base/exact_compare.h): exact, a count of differing elements;
// a differing index is a near tie (not counted) only where the float64 oracle's scores put the runtime's and
// the reference's candidates within the tolerance of each other; without scores the oracle cannot tell and
// every difference counts.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "base/exact_compare.h"

namespace nnx {
namespace {

template <typename T>
Tensor tensor_of(DType dtype, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  Tensor t{"out", dtype, std::move(shape), std::vector<std::byte>(values.size() * sizeof(T))};
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

Tensor labels(const std::vector<std::int64_t>& values) {
  return tensor_of(DType::int64, {static_cast<std::int64_t>(values.size())}, values);
}

// Three rows of three candidates: row 0 has a near tie between 0 and 1, rows 1 and 2 are well separated.
Tensor scores() {
  return tensor_of(DType::float64, {3, 3}, std::vector<double>{5.0, 5.0 + 1e-7, -1.0, 0.0, 9.0, 1.0, 3.0, 2.0, 1.0});
}

constexpr Tolerance kTolerance{1e-4, 1e-5};

TEST(ExactCompare, IntegersAndBoolCompareExactlyFloatsDoNot) {
  EXPECT_TRUE(compares_exactly(DType::int64));
  EXPECT_TRUE(compares_exactly(DType::int32));
  EXPECT_TRUE(compares_exactly(DType::boolean));
  EXPECT_FALSE(compares_exactly(DType::float32));
  EXPECT_FALSE(compares_exactly(DType::float64));
}

TEST(ExactCompare, EqualOutputsDifferInNothing) {
  const auto result = compare_exactly(labels({1, 1, 0}), labels({1, 1, 0}), nullptr, kTolerance);
  EXPECT_EQ(result.elements, 3);
  EXPECT_EQ(result.differing, 0);
  EXPECT_FALSE(result.near_ties.has_value());
  EXPECT_TRUE(result.within());
}

TEST(ExactCompare, WithoutScoresTheOracleCannotTellAndEveryDifferenceCounts) {
  const auto result = compare_exactly(labels({0, 1, 0}), labels({1, 1, 0}), nullptr, kTolerance);
  EXPECT_EQ(result.differing, 1);
  EXPECT_FALSE(result.near_ties.has_value());
  EXPECT_EQ(result.counted(), 1);
  EXPECT_FALSE(result.within());
}

TEST(ExactCompare, AnIndexThatDiffersOverANearTieIsNotCounted) {
  const Tensor s = scores();
  const auto result = compare_exactly(labels({0, 1, 0}), labels({1, 1, 0}), &s, kTolerance);
  EXPECT_EQ(result.differing, 1);
  EXPECT_EQ(result.near_ties, 1);
  EXPECT_TRUE(result.within());
}

TEST(ExactCompare, AnIndexThatDiffersWhereTheOracleSeparatesTheCandidatesCounts) {
  const Tensor s = scores();
  const auto result = compare_exactly(labels({1, 0, 1}), labels({1, 1, 0}), &s, kTolerance);
  EXPECT_EQ(result.differing, 2);
  EXPECT_EQ(result.near_ties, 0);
  EXPECT_EQ(result.counted(), 2);
  EXPECT_FALSE(result.within());
}

TEST(ExactCompare, AnIndexOutsideTheCandidatesIsNeverANearTie) {
  const Tensor s = scores();
  EXPECT_EQ(compare_exactly(labels({7, 1, 0}), labels({1, 1, 0}), &s, kTolerance).counted(), 1);
  EXPECT_EQ(compare_exactly(labels({-1, 1, 0}), labels({1, 1, 0}), &s, kTolerance).counted(), 1);
}

TEST(ExactCompare, ScoresOfAnotherShapeCannotTell) {
  const Tensor wrong = tensor_of(DType::float64, {3}, std::vector<double>{5.0, 5.0, 5.0});
  const auto result = compare_exactly(labels({0, 1, 0}), labels({1, 1, 0}), &wrong, kTolerance);
  EXPECT_FALSE(result.near_ties.has_value());
  EXPECT_EQ(result.counted(), 1);
}

TEST(ExactCompare, BoolMasksCountTheirDifferingElements) {
  const auto mask = [](std::vector<std::uint8_t> v) { return tensor_of(DType::boolean, {2, 2}, v); };
  const auto result = compare_exactly(mask({1, 0, 0, 1}), mask({1, 1, 0, 0}), nullptr, kTolerance);
  EXPECT_EQ(result.elements, 4);
  EXPECT_EQ(result.differing, 2);
  EXPECT_FALSE(result.within());
}

TEST(ExactCompare, Int64ValuesBeyondDoublePrecisionStillDiffer) {
  const std::int64_t big = (std::int64_t{1} << 60);
  const auto result = compare_exactly(labels({big + 1}), labels({big}), nullptr, kTolerance);
  EXPECT_EQ(result.differing, 1);
}

}  // namespace
}  // namespace nnx
