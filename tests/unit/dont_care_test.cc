// Don't-care positions (stages/dont_care.h): a mask's zeros hide every element of an output whose leading
// indices they index, in any dtype (the bytes set to zero), the count returned; an output whose shape does not
// begin with the mask's is left as it was; the (output, input) pairs are read from a record's input specs.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "stages/dont_care.h"

namespace nnx {
namespace {

Tensor of(DType dtype, std::vector<std::int64_t> shape, const std::vector<double>& values) {
  Tensor t{"t", dtype, std::move(shape), {}};
  t.bytes.resize(values.size() * dtype_size(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::byte* at = t.bytes.data() + i * dtype_size(dtype);
    if (dtype == DType::float32) {
      const float v = static_cast<float>(values[i]);
      std::memcpy(at, &v, sizeof v);
    } else if (dtype == DType::int64) {
      const std::int64_t v = static_cast<std::int64_t>(values[i]);
      std::memcpy(at, &v, sizeof v);
    } else {  // bool, the only other dtype these tests use
      const std::uint8_t v = values[i] != 0.0;
      std::memcpy(at, &v, sizeof v);
    }
  }
  return t;
}

TEST(DontCare, AMasksZerosHideWholeRowsOfTheTrailingAxes) {
  Tensor logits = of(DType::float32, {2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor mask = of(DType::int64, {2, 3}, {0, 1, 1, 1, 1, 0});
  EXPECT_EQ(hide_positions(logits, mask), 4);
  EXPECT_EQ(logits.as_doubles(), (std::vector<double>{0, 0, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0}));
}

TEST(DontCare, ABoolMaskHidesAnOutputOfItsOwnShape) {
  Tensor scores = of(DType::int64, {2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(hide_positions(scores, of(DType::boolean, {2, 2}, {1, 0, 0, 1})), 2);
  EXPECT_EQ(scores.as_doubles(), (std::vector<double>{5, 0, 0, 8}));
}

TEST(DontCare, AnOutputNotBeginningWithTheMasksShapeIsLeftAsItWas) {
  Tensor mean = of(DType::float32, {2}, {1, 2});
  EXPECT_EQ(hide_positions(mean, of(DType::boolean, {2, 6}, std::vector<double>(12, 0))), std::nullopt);
  Tensor other = of(DType::float32, {3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(hide_positions(other, of(DType::boolean, {2}, {0, 0})), std::nullopt);
  EXPECT_EQ(other.as_doubles(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(DontCare, ThePairsComeFromTheInputSpecsThatHide) {
  const auto specs = nlohmann::json::parse(R"([{"name": "ids"}, {"name": "mask", "hides": ["logits", "hidden"]}])");
  const auto pairs = hidden_outputs(specs);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].output, "logits");
  EXPECT_EQ(pairs[1].output, "hidden");
  EXPECT_EQ(pairs[1].input, "mask");
  EXPECT_TRUE(hidden_outputs(nlohmann::json()).empty());
}

}  // namespace
}  // namespace nnx
