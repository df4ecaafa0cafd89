// The one tolerance comparison (base/tolerance_compare.h): |actual - expected| <= atol + rtol * |expected|,
// measured over a whole output into max_abs, max_rel, margin and within:
//  * NaN and infinities are never within, wherever they stand;
//  * a zero expected value divides by the floor 1e-30 for max_rel and allows only atol;
//  * an error exactly at the tolerance is within, with a margin of exactly 1;
//  * a zero allowed error where values differ is an infinite margin (nullopt), equal values are not;
//  * so is an error that is not finite or a ratio past double's range (a subnormal tolerance's): a margin is
//    always a finite number or nullopt, which the record writer can write (JSON has no infinity);
//  * a tolerance is 0 or at least 2^-126 (tolerance_problem): a subnormal one is refused, with the reason;
//  * an empty output is within with zero errors; only the common length is compared;
//  * float32 outputs compare exactly as their widened doubles;
//  * margin_within(margin) is `within`, for errors one double either side of the allowed error and for the
//    non-finite and zero-tolerance cases: the margin's verdict is the comparison's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "base/tolerance_compare.h"

namespace nnx {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ToleranceComparison compare(const std::vector<double>& actual, const std::vector<double>& expected, double rtol,
                            double atol) {
  return compare_to_tolerance(actual, expected, Tolerance{rtol, atol});
}

TEST(ToleranceCompare, ANaNOnEitherSideIsNeverWithinAnyTolerance) {
  EXPECT_FALSE(compare({kNaN}, {1.0}, 1.0, 1.0).within);
  EXPECT_FALSE(compare({1.0}, {kNaN}, 1.0, 1.0).within);
  EXPECT_FALSE(compare({1.0, kNaN, 1.0}, {1.0, 1.0, 1.0}, 1e9, 1e9).within);
}

TEST(ToleranceCompare, AnInfinityIsNeverWithinEvenAgainstTheSameInfinity) {
  const ToleranceComparison off = compare({kInf}, {1.0}, 0.0, 1.0);
  EXPECT_FALSE(off.within);
  EXPECT_EQ(off.max_abs, kInf);
  EXPECT_FALSE(off.margin.has_value());  // an infinite margin is nullopt, never infinity
  EXPECT_FALSE(compare({kInf}, {kInf}, 1.0, 1.0).within);  // inf - inf is NaN
}

TEST(ToleranceCompare, AZeroExpectedValueAllowsOnlyAtolAndItsRelativeErrorUsesTheFloor) {
  const ToleranceComparison beyond = compare({1e-6}, {0.0}, /*rtol=*/0.5, /*atol=*/0.0);
  EXPECT_FALSE(beyond.within);
  EXPECT_DOUBLE_EQ(beyond.max_rel, 1e-6 / 1e-30);
  EXPECT_FALSE(beyond.margin.has_value());  // allowed error 0 where the values differ: an infinite margin
  const ToleranceComparison inside = compare({1e-6}, {0.0}, 0.5, /*atol=*/1e-5);
  EXPECT_TRUE(inside.within);
  EXPECT_DOUBLE_EQ(*inside.margin, 1e-6 / 1e-5);
}

TEST(ToleranceCompare, AnErrorExactlyAtTheToleranceIsWithinWithAMarginOfOne) {
  const ToleranceComparison at = compare({1.5, 2.0}, {1.0, 2.0}, /*rtol=*/0.25, /*atol=*/0.25);
  EXPECT_TRUE(at.within);
  ASSERT_TRUE(at.margin.has_value());
  EXPECT_EQ(*at.margin, 1.0);
  EXPECT_EQ(at.max_abs, 0.5);
  EXPECT_EQ(at.max_rel, 0.5);
  const ToleranceComparison past = compare({1.5 + 1e-12}, {1.0}, 0.25, 0.25);
  EXPECT_FALSE(past.within);
  EXPECT_GT(*past.margin, 1.0);
}

TEST(ToleranceCompare, AMarginsVerdictIsTheComparisonsOneDoubleEitherSideOfTheAllowedError) {
  for (const double expected : {1.0, 3.0, 0.1, 1e-20, 12345.678}) {
    for (const double rtol : {0.0, 1e-4, 0.25}) {
      const double atol = 1e-5;
      const double allowed = atol + rtol * expected;
      for (const double err : {std::nextafter(allowed, 0.0), allowed, std::nextafter(allowed, 1e300)}) {
        const ToleranceComparison c = compare({expected + err}, {expected}, rtol, atol);
        EXPECT_EQ(margin_within(c.margin), c.within) << expected << " " << rtol << " " << err;
      }
    }
  }
  for (const auto& [actual, rtol, atol] : {std::tuple{kNaN, 0.1, 0.1}, {kInf, 0.1, 0.1}, {2.0, 0.0, 0.0}}) {
    const ToleranceComparison c = compare({actual}, {1.0}, rtol, atol);
    EXPECT_FALSE(c.within);
    EXPECT_FALSE(margin_within(c.margin));
  }
  EXPECT_TRUE(margin_within(0.0));
  EXPECT_TRUE(margin_within(1.0));
  EXPECT_FALSE(margin_within(std::nextafter(1.0, 2.0)));
  EXPECT_FALSE(margin_within(std::nullopt));
}

TEST(ToleranceCompare, EqualValuesUnderAZeroToleranceAreWithinWithAZeroMargin) {
  const ToleranceComparison same = compare({0.0, -3.0}, {0.0, -3.0}, 0.0, 0.0);
  EXPECT_TRUE(same.within);
  EXPECT_EQ(same.margin, 0.0);
  EXPECT_EQ(same.max_abs, 0.0);
  EXPECT_EQ(same.max_rel, 0.0);
}

TEST(ToleranceCompare, EachMaximumIsTakenOnItsOwnElement) {
  // The largest absolute error (element 0) and the largest relative error (element 1) differ.
  const ToleranceComparison c = compare({110.0, 0.5}, {100.0, 0.25}, 0.0, 1.0);
  EXPECT_EQ(c.max_abs, 10.0);
  EXPECT_EQ(c.max_rel, 1.0);
  EXPECT_EQ(*c.margin, 10.0);
  EXPECT_FALSE(c.within);
}

TEST(ToleranceCompare, AnEmptyOutputIsWithinWithZeroErrors) {
  const ToleranceComparison empty = compare({}, {}, 0.0, 0.0);
  EXPECT_TRUE(empty.within);
  EXPECT_EQ(empty.max_abs, 0.0);
  EXPECT_EQ(empty.max_rel, 0.0);
  EXPECT_EQ(empty.margin, 0.0);
}

TEST(ToleranceCompare, OnlyTheCommonLengthIsCompared) {
  const ToleranceComparison c = compare({1.0, 2.0, 99.0}, {1.0, 2.0}, 0.0, 0.0);
  EXPECT_TRUE(c.within);
  EXPECT_EQ(c.max_abs, 0.0);
}

TEST(ToleranceCompare, Float32OutputsCompareAsTheirWidenedDoubles) {
  const std::vector<float> actual{0.1f, -2.5f, 3.0e-8f}, expected{0.1000001f, -2.5f, 0.0f};
  const ToleranceComparison narrow = compare_to_tolerance(actual, expected, Tolerance{1e-5, 1e-7});
  const ToleranceComparison wide = compare(std::vector<double>(actual.begin(), actual.end()),
                                           std::vector<double>(expected.begin(), expected.end()), 1e-5, 1e-7);
  EXPECT_EQ(narrow.max_abs, wide.max_abs);
  EXPECT_EQ(narrow.max_rel, wide.max_rel);
  EXPECT_EQ(narrow.margin, wide.margin);
  EXPECT_EQ(narrow.within, wide.within);
  EXPECT_EQ(narrow.max_abs, static_cast<double>(0.1000001f) - static_cast<double>(0.1f));
}

TEST(ToleranceCompare, ASubnormalToleranceGivesANullMarginNeverAnInfiniteOne) {
  // 5e-324 is the smallest double: 1e-7 / (5e-324 + 5e-324 * 1) overflows; the finding that wrote no report.
  const double tiny = std::numeric_limits<double>::denorm_min();
  const ToleranceComparison c = compare({1.0 + 1e-7, 2.0}, {1.0, 2.0}, tiny, tiny);
  EXPECT_FALSE(c.within);
  EXPECT_FALSE(c.margin.has_value());
  EXPECT_TRUE(std::isfinite(c.max_abs) && std::isfinite(c.max_rel));
  const ToleranceComparison nan = compare({kNaN}, {1.0}, 1.0, 1.0);
  EXPECT_FALSE(nan.margin.has_value());  // a NaN error: no number, so null as well
}

TEST(ToleranceCompare, AToleranceIsZeroOrAtLeastFloat32sSmallestNormalNumber) {
  EXPECT_EQ(tolerance_problem(0.0, "0.0"), "");
  EXPECT_EQ(tolerance_problem(1e-5, "1e-05"), "");
  EXPECT_EQ(tolerance_problem(kMinNonzeroTolerance, "x"), "");
  EXPECT_EQ(kMinNonzeroTolerance, static_cast<double>(std::numeric_limits<float>::min()));
  EXPECT_EQ(tolerance_problem(-1.0, "-1"), "must be a finite number >= 0, not -1");
  EXPECT_EQ(tolerance_problem(kNaN, "NaN"), "must be a finite number >= 0, not NaN");
  EXPECT_EQ(tolerance_problem(kInf, "Infinity"), "must be a finite number >= 0, not Infinity");
  const std::string subnormal = tolerance_problem(5e-324, "5e-324");
  EXPECT_EQ(subnormal.rfind("must be 0 or at least 1.1754943508222875e-38 (float32's smallest normal number), "
                            "not 5e-324: ", 0), 0u) << subnormal;
  EXPECT_NE(subnormal.find("use 0 for exact equality"), std::string::npos);
  EXPECT_NE(tolerance_problem(std::nextafter(kMinNonzeroTolerance, 0.0), "x"), "");
}

}  // namespace
}  // namespace nnx
