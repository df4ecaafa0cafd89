// Case inputs drawn from their seeds (input_draw.h).
#include "model/input_draw.h"

#include <cstring>
#include <stdexcept>

#include "base/exact_compare.h"
#include "model/torch_random.h"

namespace nnx {
namespace {

template <typename T>
void put(std::vector<std::byte>& bytes, std::size_t index, T value) {
  std::memcpy(bytes.data() + index * sizeof(T), &value, sizeof(T));
}

// A drawn float32 value as an element of a floating dtype (half precisions rounded to nearest, ties to even).
void put_float(std::vector<std::byte>& bytes, std::size_t index, DType dtype, float value) {
  switch (dtype) {
    case DType::float32: return put(bytes, index, value);
    case DType::float64: return put(bytes, index, static_cast<double>(value));
    case DType::float16: return put(bytes, index, float16_bits(value));
    case DType::bfloat16: return put(bytes, index, bfloat16_bits(value));
    case DType::int64:
    case DType::int32:
    case DType::int8:
    case DType::uint8:
    case DType::boolean: break;
  }
  throw std::invalid_argument(std::string("a ") + std::string(dtype_name(dtype)) + " input is not drawn as a float");
}

// A drawn integer (within the dtype: the range was checked against it) as an element of an integer or bool dtype.
void put_integer(std::vector<std::byte>& bytes, std::size_t index, DType dtype, std::int64_t value) {
  switch (dtype) {
    case DType::int64: return put(bytes, index, value);
    case DType::int32: return put(bytes, index, static_cast<std::int32_t>(value));
    case DType::int8: return put(bytes, index, static_cast<std::int8_t>(value));
    case DType::uint8: return put(bytes, index, static_cast<std::uint8_t>(value));
    case DType::boolean: return put(bytes, index, static_cast<std::uint8_t>(value != 0));
    case DType::float32:
    case DType::float64:
    case DType::float16:
    case DType::bfloat16: break;
  }
  throw std::invalid_argument(std::string("a ") + std::string(dtype_name(dtype)) + " input is not drawn as an integer");
}

}  // namespace

std::vector<float> draw_randn(const std::vector<std::int64_t>& shape, std::uint64_t seed) {
  std::size_t count = 1;
  for (const std::int64_t d : shape) count *= static_cast<std::size_t>(d);
  std::vector<float> values(count);
  TorchGenerator(seed).randn(values);
  return values;
}

Tensor draw_input(std::string name, DType dtype, const std::vector<std::int64_t>& shape, std::uint64_t seed,
                  const std::optional<std::pair<std::int64_t, std::int64_t>>& range) {
  Tensor t{std::move(name), dtype, shape, {}};
  const auto count = static_cast<std::size_t>(t.element_count().value_or(0));
  t.bytes.resize(count * dtype_size(dtype));
  if (!compares_exactly(dtype)) {  // a float: N(0, 1) in float32 first
    const std::vector<float> values = draw_randn(shape, seed);
    for (std::size_t i = 0; i < count; ++i) put_float(t.bytes, i, dtype, values[i]);
    return t;
  }
  const auto [low, high] = range.value_or(std::make_pair(std::int64_t{0}, std::int64_t{2}));
  const auto span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  Mt19937 engine(seed);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t word = (static_cast<std::uint64_t>(engine()) << 32) | engine();
    put_integer(t.bytes, i, dtype, low + static_cast<std::int64_t>(word % span));
  }
  return t;
}

}  // namespace nnx
