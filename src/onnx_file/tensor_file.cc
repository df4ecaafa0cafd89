// One tensor file read with one copy of its values (tensor_file.h).
#include "onnx_file/tensor_file.h"

#include <fstream>
#include <optional>
#include <vector>

#include "base/error.h"
#include "onnx_file/tensor_proto.h"

namespace nnx {
namespace {

// TensorProto's field numbers (onnx.proto).
constexpr std::uint32_t kDims = 1, kDataType = 2, kName = 8, kRawData = 9;

std::optional<std::uint64_t> varint(std::istream& in) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const int c = in.get();
    if (c == EOF) return std::nullopt;
    value |= std::uint64_t(c & 0x7f) << shift;
    if (!(c & 0x80)) return value;
  }
  return std::nullopt;
}

[[noreturn]] void refuse(const std::string& what, const std::string& why) {
  throw ConformanceError(what + ": " + why);
}

Tensor decode_whole(const std::filesystem::path& path, const std::string& what, std::uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::byte> bytes;
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  if (!in || size > max_bytes + (std::uint64_t{1} << 20)) refuse(what, "cannot be read, or larger than its limit");
  bytes.resize(size);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (!in) refuse(what, "cannot be read");
  return decode_tensor_proto(std::move(bytes), what, max_bytes);
}

}  // namespace

Tensor read_tensor_file(const std::filesystem::path& path, const std::string& what, std::uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(what, "cannot be opened");
  Tensor tensor;
  std::optional<DType> dtype;
  bool raw = false;
  while (in.peek() != EOF) {
    const auto key = varint(in);
    if (!key) refuse(what, "does not parse as onnx.TensorProto");
    const auto field = static_cast<std::uint32_t>(*key >> 3), wire = static_cast<std::uint32_t>(*key & 7);
    if (field == kDims && wire == 0) {
      const auto d = varint(in);
      if (!d || static_cast<std::int64_t>(*d) < 0) refuse(what, "a dim that does not parse or is negative");
      tensor.shape.push_back(static_cast<std::int64_t>(*d));
    } else if (field == kDataType && wire == 0) {
      const auto t = varint(in);
      dtype = t ? dtype_of_onnx_element_type(static_cast<std::int32_t>(*t)) : std::nullopt;
      if (!dtype) refuse(what, "a data_type the core does not support");
    } else if ((field == kName || field == kRawData) && wire == 2) {
      const auto length = varint(in);
      if (!length || *length > max_bytes) refuse(what, "a field longer than its limit");
      if (field == kName) {
        tensor.name.resize(*length);
        in.read(tensor.name.data(), static_cast<std::streamsize>(*length));
      } else {
        tensor.bytes.resize(*length);
        in.read(reinterpret_cast<char*>(tensor.bytes.data()), static_cast<std::streamsize>(*length));
        raw = true;
      }
      if (!in) refuse(what, "ends inside a field");
    } else {
      return decode_whole(path, what, max_bytes);  // packed dims, typed values, segments: the full decoder's
    }
  }
  if (!dtype || !raw) return decode_whole(path, what, max_bytes);
  tensor.dtype = *dtype;
  if (!tensor.consistent()) refuse(what, "raw_data's length is not what its dims and dtype say");
  return tensor;
}

}  // namespace nnx
