// encode_tensor_proto / decode_tensor_proto (src/onnx_file/tensor_proto.h).
//
// The refused messages are written field by field in protobuf's wire format here (onnx.proto's field
// numbers), not with the generated classes the reader itself uses, so that a hostile message can say what
// those classes would never let a writer say. Interop with the onnx package itself is
// tests/e2e/test_tensor_proto_interop.py.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "base/error.h"
#include "onnx_file/tensor_proto.h"

namespace nnx {
namespace {

constexpr std::uint64_t kLimit = 1 << 20;

// onnx.TensorProto's field numbers.
enum Field : std::uint32_t {
  kDims = 1, kDataType = 2, kSegment = 3, kFloatData = 4, kInt32Data = 5, kInt64Data = 7, kName = 8,
  kRawData = 9, kDoubleData = 10, kDataLocation = 14
};

void varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}
void varint_field(std::string& out, std::uint32_t field, std::uint64_t value) {
  varint(out, field << 3);
  varint(out, value);
}
void bytes_field(std::string& out, std::uint32_t field, const std::string& bytes) {
  varint(out, (field << 3) | 2);
  varint(out, bytes.size());
  out += bytes;
}
template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (values.size() != 0) std::memcpy(out.data(), std::data(values), out.size());
  return out;
}
std::string packed_varints(std::initializer_list<std::int64_t> values) {
  std::string out;
  for (const std::int64_t v : values) varint(out, static_cast<std::uint64_t>(v));
  return out;
}

// A message with `dims`, `data_type` and name "x"; the caller appends the data.
std::string header(std::initializer_list<std::int64_t> dims, std::int32_t data_type) {
  std::string out;
  for (const std::int64_t d : dims) varint_field(out, kDims, static_cast<std::uint64_t>(d));
  varint_field(out, kDataType, static_cast<std::uint64_t>(data_type));
  bytes_field(out, kName, "x");
  return out;
}

std::span<const std::byte> span_of(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

Tensor decode(const std::string& s, std::uint64_t max_bytes = kLimit) {
  return decode_tensor_proto(span_of(s), "input_0.pb", max_bytes);
}
// The message decoding `s` is refused with ("" when it is not refused).
std::string refusal(const std::string& s, std::uint64_t max_bytes = kLimit) {
  try {
    decode(s, max_bytes);
  } catch (const ConformanceError& e) {
    return e.what();
  }
  return "";
}
#define EXPECT_REFUSED(message, needle)                                        \
  do {                                                                         \
    const std::string why_ = (message);                                        \
    EXPECT_EQ(why_.rfind("input_0.pb: ", 0), 0u) << why_;                      \
    EXPECT_NE(why_.find(needle), std::string::npos) << why_;                   \
  } while (0)

template <typename T>
Tensor tensor_of(DType dtype, std::vector<std::int64_t> shape, std::initializer_list<T> values) {
  const std::string bytes = raw(values);
  const auto* first = reinterpret_cast<const std::byte*>(bytes.data());
  return Tensor{"t", dtype, std::move(shape), {first, first + bytes.size()}};
}

void expect_round_trip(const Tensor& t) {
  const Tensor back = decode(encode_tensor_proto(t));
  EXPECT_EQ(back.name, t.name);
  EXPECT_EQ(back.dtype, t.dtype);
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.bytes, t.bytes);
}

TEST(TensorProto, EveryDtypeRoundTrips) {
  expect_round_trip(tensor_of<float>(DType::float32, {2, 2}, {1.5f, -0.0f, std::numeric_limits<float>::infinity(),
                                                               std::numeric_limits<float>::denorm_min()}));
  expect_round_trip(tensor_of<double>(DType::float64, {3}, {0.1, -1e300, std::numeric_limits<double>::quiet_NaN()}));
  expect_round_trip(tensor_of<std::int64_t>(DType::int64, {1, 2}, {std::numeric_limits<std::int64_t>::min(), 7}));
  expect_round_trip(tensor_of<std::int32_t>(DType::int32, {2, 1}, {-3, std::numeric_limits<std::int32_t>::max()}));
  expect_round_trip(tensor_of<std::uint8_t>(DType::boolean, {3}, {1, 0, 1}));
  expect_round_trip(tensor_of<float>(DType::float32, {}, {42.0f}));   // a scalar
  expect_round_trip(tensor_of<float>(DType::float32, {0, 4}, {}));    // no element
}

// Found by fuzz/onnx_model_fuzzer.cc: dims whose product overflows before a zero dim hold no element for
// the reader and for Tensor alike (the decoded tensor is consistent and round-trips).
TEST(TensorProto, AZeroDimAfterDimsThatWouldOverflowHoldsNoElement) {
  const Tensor empty{"x", DType::float32, {std::int64_t{1} << 40, std::int64_t{1} << 40, 0}, {}};
  EXPECT_EQ(empty.element_count(), std::optional<std::int64_t>(0));
  EXPECT_TRUE(empty.consistent());
  const std::string bytes = encode_tensor_proto(empty);
  const Tensor back = decode_tensor_proto(std::as_bytes(std::span(bytes)), "x.pb", 1024);
  EXPECT_TRUE(back.consistent());
  EXPECT_EQ(back.shape, empty.shape);
}

TEST(TensorProto, TheEncodingIsNameDimsDataTypeAndRawData) {
  Tensor t = tensor_of<std::int32_t>(DType::int32, {2}, {5, -1});
  t.name = "x";
  std::string expected = header({2}, 6);  // INT32
  bytes_field(expected, kRawData, raw<std::int32_t>({5, -1}));
  EXPECT_EQ(encode_tensor_proto(t), expected);
}

TEST(TensorProto, TypedFieldsAreRead) {
  std::string f = header({2}, 1);
  bytes_field(f, kFloatData, raw<float>({0.5f, -2.0f}));
  EXPECT_EQ(decode(f).bytes, tensor_of<float>(DType::float32, {2}, {0.5f, -2.0f}).bytes);
  std::string d = header({1}, 11);
  bytes_field(d, kDoubleData, raw<double>({1e-300}));
  EXPECT_EQ(decode(d).bytes, tensor_of<double>(DType::float64, {1}, {1e-300}).bytes);
  std::string l = header({2}, 7);
  bytes_field(l, kInt64Data, packed_varints({-5, std::int64_t{1} << 40}));
  EXPECT_EQ(decode(l).bytes, tensor_of<std::int64_t>(DType::int64, {2}, {-5, std::int64_t{1} << 40}).bytes);
  std::string i = header({2}, 6);
  bytes_field(i, kInt32Data, packed_varints({-7, 9}));
  EXPECT_EQ(decode(i).bytes, tensor_of<std::int32_t>(DType::int32, {2}, {-7, 9}).bytes);
  std::string b = header({3}, 9);
  bytes_field(b, kInt32Data, packed_varints({1, 0, 1}));
  const Tensor booleans = decode(b);
  EXPECT_EQ(booleans.dtype, DType::boolean);
  EXPECT_EQ(booleans.bytes, tensor_of<std::uint8_t>(DType::boolean, {3}, {1, 0, 1}).bytes);
}

TEST(TensorProto, MalformedBytesAreRefused) {
  EXPECT_REFUSED(refusal(std::string(16, '\xff')), "do not parse as onnx.TensorProto");
  std::string truncated = header({2}, 1);
  bytes_field(truncated, kRawData, raw<float>({1.0f, 2.0f}));
  truncated.pop_back();
  EXPECT_REFUSED(refusal(truncated), "do not parse as onnx.TensorProto");
}

TEST(TensorProto, AnUnsupportedDataTypeIsRefusedByName) {
  std::string complex = header({1}, 14);
  bytes_field(complex, kRawData, std::string(8, '\0'));
  EXPECT_REFUSED(refusal(complex), "unsupported data_type COMPLEX64 (14)");
  EXPECT_REFUSED(refusal(header({1}, 8)), "unsupported data_type STRING (8)");
  EXPECT_REFUSED(refusal(header({1}, 0)), "unsupported data_type UNDEFINED (0)");
  EXPECT_REFUSED(refusal(header({1}, 999)), "unsupported data_type 999");
}

TEST(TensorProto, NegativeDimsAreRefused) {
  std::string t = header({2, -1}, 1);
  bytes_field(t, kRawData, "");
  EXPECT_REFUSED(refusal(t), "negative dim -1 in dims [2, -1]");
}

TEST(TensorProto, SizesAreCheckedAgainstTheLimitBeforeTheData) {
  std::string overflow = header({std::int64_t{1} << 40, std::int64_t{1} << 40}, 1);
  bytes_field(overflow, kRawData, raw<float>({1.0f}));
  EXPECT_REFUSED(refusal(overflow), "dims [1099511627776, 1099511627776] hold more elements than a size can count");
  std::string times_size = header({std::int64_t{1} << 62}, 7);  // 2^62 elements of 8 bytes
  bytes_field(times_size, kRawData, "");
  EXPECT_REFUSED(refusal(times_size), "more elements than a size can count");
  std::string big = header({1024, 1024}, 1);  // 4 MiB, over the 1 MiB limit; one float held
  bytes_field(big, kRawData, raw<float>({1.0f}));
  EXPECT_REFUSED(refusal(big), "dims [1024, 1024] need 4194304 bytes, more than the limit of 1048576");
  std::string at_limit = header({4}, 1);
  bytes_field(at_limit, kRawData, raw<float>({1, 2, 3, 4}));
  EXPECT_EQ(decode(at_limit, 16).bytes.size(), 16u);
  EXPECT_REFUSED(refusal(at_limit, 15), "need 16 bytes, more than the limit of 15");
  std::string zero = header({std::int64_t{1} << 62, std::int64_t{1} << 62, 0}, 1);  // no element at all
  bytes_field(zero, kRawData, "");
  EXPECT_TRUE(decode(zero).bytes.empty());
}

TEST(TensorProto, DataWhoseLengthIsNotWhatTheDimsSayIsRefused) {
  std::string short_raw = header({3}, 1);
  bytes_field(short_raw, kRawData, raw<float>({1.0f, 2.0f}));
  EXPECT_REFUSED(refusal(short_raw), "raw_data holds 8 bytes but its dims need 3 elements of 4 bytes");
  std::string long_raw = header({1}, 7);
  bytes_field(long_raw, kRawData, raw<std::int64_t>({1, 2}));
  EXPECT_REFUSED(refusal(long_raw), "raw_data holds 16 bytes but its dims need 1 elements of 8 bytes");
  std::string few = header({3}, 7);
  bytes_field(few, kInt64Data, packed_varints({1, 2}));
  EXPECT_REFUSED(refusal(few), "int64_data holds 2 values but its dims need 3");
  EXPECT_REFUSED(refusal(header({2}, 1)), "float_data holds 0 values but its dims need 2");
}

TEST(TensorProto, ValuesInAFieldTheDataTypeDoesNotUseAreRefused) {
  std::string wrong = header({1}, 1);  // FLOAT with int64_data
  bytes_field(wrong, kInt64Data, packed_varints({1}));
  EXPECT_REFUSED(refusal(wrong), "int64_data holds values beside float_data of a FLOAT (1) tensor");
  std::string both = header({1}, 1);
  bytes_field(both, kRawData, raw<float>({1.0f}));
  bytes_field(both, kFloatData, raw<float>({1.0f}));
  EXPECT_REFUSED(refusal(both), "float_data holds values beside raw_data");
}

TEST(TensorProto, ABoolThatIsNeitherZeroNorOneIsRefused) {
  std::string typed = header({2}, 9);
  bytes_field(typed, kInt32Data, packed_varints({1, 2}));
  EXPECT_REFUSED(refusal(typed), "bool value 2 is neither 0 nor 1");
  std::string raw_bool = header({2}, 9);
  bytes_field(raw_bool, kRawData, std::string("\x01\x07", 2));
  EXPECT_REFUSED(refusal(raw_bool), "bool byte 7 is neither 0 nor 1");
}

TEST(TensorProto, ExternalDataAndSegmentsAreRefused) {
  std::string external = header({1}, 1);
  std::string entry;  // StringStringEntryProto: key 1, value 2
  bytes_field(entry, 1, "location");
  bytes_field(entry, 2, "w.bin");
  bytes_field(external, 13, entry);  // external_data
  varint_field(external, kDataLocation, 1);  // EXTERNAL
  EXPECT_REFUSED(refusal(external), "its data is external (data_location EXTERNAL)");
  std::string segment = header({1}, 1);
  std::string range;  // Segment: begin 1, end 2
  varint_field(range, 1, 0);
  varint_field(range, 2, 1);
  bytes_field(segment, kSegment, range);
  bytes_field(segment, kRawData, raw<float>({1.0f}));
  EXPECT_REFUSED(refusal(segment), "segment");
}

TEST(TensorProto, AnInconsistentTensorIsNotEncoded) {
  Tensor t = tensor_of<float>(DType::float32, {3}, {1.0f, 2.0f});
  EXPECT_THROW(encode_tensor_proto(t), ConformanceError);
  t.shape = {-2};
  EXPECT_THROW(encode_tensor_proto(t), ConformanceError);
  EXPECT_THROW(encode_tensor_proto(tensor_of<std::uint8_t>(DType::boolean, {1}, {3})), ConformanceError);
}

}  // namespace
}  // namespace nnx
