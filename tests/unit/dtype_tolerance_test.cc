// Half-precision outputs (base/tensor.h, base/dtype_tolerance.h): float16 and bfloat16 elements widen to
// double exactly (normal, subnormal, infinite, NaN, negative); int8 and uint8 widen with their sign; a half
// output's tolerance is the profile's rtol and atol each widened to the dtype's epsilon, every other dtype's
// is the profile's own.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/dtype_tolerance.h"
#include "base/tensor.h"

namespace nnx {
namespace {

Tensor bits(DType dtype, const std::vector<std::uint16_t>& values) {
  Tensor t{"out", dtype, {static_cast<std::int64_t>(values.size())}, std::vector<std::byte>(values.size() * 2)};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

TEST(HalfPrecision, Float16BitsWidenExactly) {
  const auto v = bits(DType::float16, {0x3c00, 0xc000, 0x0001, 0x7bff, 0x7c00, 0x7e00, 0x3555}).as_doubles();
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], -2.0);
  EXPECT_EQ(v[2], std::ldexp(1.0, -24));  // the smallest subnormal
  EXPECT_EQ(v[3], 65504.0);               // the largest finite
  EXPECT_TRUE(std::isinf(v[4]));
  EXPECT_TRUE(std::isnan(v[5]));
  EXPECT_EQ(v[6], 0.333251953125);
}

TEST(HalfPrecision, Bfloat16IsTheUpperHalfOfAFloat32) {
  const auto v = bits(DType::bfloat16, {0x3f80, 0xc040, 0x3eab}).as_doubles();
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], -3.0);
  EXPECT_EQ(v[2], 0.333984375);
}

TEST(HalfPrecision, EightBitIntegersWidenWithTheirSign) {
  Tensor signed_bytes{"s", DType::int8, {2}, {std::byte{0xff}, std::byte{0x7f}}};
  Tensor unsigned_bytes{"u", DType::uint8, {2}, {std::byte{0xff}, std::byte{0x7f}}};
  EXPECT_EQ(signed_bytes.as_doubles(), (std::vector<double>{-1.0, 127.0}));
  EXPECT_EQ(unsigned_bytes.as_doubles(), (std::vector<double>{255.0, 127.0}));
}

TEST(HalfPrecision, AHalfOutputIsJudgedUnderItsEpsilonAtLeast) {
  const Tolerance profile{1e-4, 1e-5};
  const Tolerance half = tolerance_for(DType::float16, profile);
  EXPECT_EQ(half.rtol, 0.0009765625);
  EXPECT_EQ(half.atol, 0.0009765625);
  const Tolerance brain = tolerance_for(DType::bfloat16, profile);
  EXPECT_EQ(brain.rtol, 0.0078125);
  EXPECT_EQ(brain.atol, 0.0078125);
  const Tolerance wide = tolerance_for(DType::float16, Tolerance{0.01, 0.5});
  EXPECT_EQ(wide.rtol, 0.01);  // a profile's wider tolerance is kept
  EXPECT_EQ(wide.atol, 0.5);
}

TEST(HalfPrecision, EveryOtherDtypeKeepsTheProfilesTolerance) {
  const Tolerance profile{1e-4, 1e-5};
  for (DType d : {DType::float32, DType::float64, DType::int64, DType::int32, DType::int8, DType::uint8, DType::boolean}) {
    EXPECT_FALSE(half_epsilon(d).has_value()) << dtype_name(d);
    EXPECT_EQ(tolerance_for(d, profile).rtol, profile.rtol);
    EXPECT_EQ(tolerance_for(d, profile).atol, profile.atol);
  }
}

TEST(HalfPrecision, TheNewDtypesHaveTheirOnnxNamesAndSizes) {
  EXPECT_EQ(parse_dtype("float16"), DType::float16);
  EXPECT_EQ(onnx_element_type(DType::float16), 10);
  EXPECT_EQ(onnx_element_type(DType::bfloat16), 16);
  EXPECT_EQ(onnx_element_type(DType::int8), 3);
  EXPECT_EQ(onnx_element_type(DType::uint8), 2);
  EXPECT_EQ(dtype_size(DType::bfloat16), 2u);
  EXPECT_EQ(dtype_of_onnx_element_type(16), DType::bfloat16);
}

}  // namespace
}  // namespace nnx
