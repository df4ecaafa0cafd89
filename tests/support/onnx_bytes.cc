// Test support: a minimal model.onnx in protobuf's wire format (onnx_bytes.h).
#include "support/onnx_bytes.h"

#include <cstdint>
#include <cstring>

namespace nnx::test_support {
namespace {

enum WireType : std::uint32_t { kVarint = 0, kLengthDelimited = 2 };

void varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void key(std::string& out, std::uint32_t field, WireType type) { varint(out, (field << 3) | type); }

void varint_field(std::string& out, std::uint32_t field, std::uint64_t value) {
  key(out, field, kVarint);
  varint(out, value);
}

void bytes_field(std::string& out, std::uint32_t field, const std::string& bytes) {
  key(out, field, kLengthDelimited);
  varint(out, bytes.size());
  out += bytes;
}

// onnx.TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9.
std::string tensor(const Parameter& p) {
  std::string out;
  for (std::int64_t d : p.shape) varint_field(out, 1, static_cast<std::uint64_t>(d));
  varint_field(out, 2, 1);  // FLOAT
  bytes_field(out, 8, p.name);
  std::string raw(p.values.size() * sizeof(float), '\0');
  if (!raw.empty()) std::memcpy(raw.data(), p.values.data(), raw.size());  // little endian, as ONNX stores it
  bytes_field(out, 9, raw);
  return out;
}

// onnx.TensorProto of one float whose data is external: external_data = 13 ({key = 1, value = 2}),
// data_location = 14 (EXTERNAL = 1).
std::string external_tensor(const std::string& location) {
  std::string out;
  varint_field(out, 1, 1);
  varint_field(out, 2, 1);  // FLOAT
  bytes_field(out, 8, "external");
  std::string entry;
  bytes_field(entry, 1, "location");
  bytes_field(entry, 2, location);
  bytes_field(out, 13, entry);
  varint_field(out, 14, 1);
  return out;
}

std::string model_of(const std::vector<std::string>& tensors) {
  std::string graph;  // onnx.GraphProto: name = 2, initializer = 5
  bytes_field(graph, 2, "tiny");
  for (const auto& t : tensors) bytes_field(graph, 5, t);
  std::string opset;  // onnx.OperatorSetIdProto: domain = 1, version = 2
  bytes_field(opset, 1, "");
  varint_field(opset, 2, 17);
  std::string model;  // onnx.ModelProto: ir_version = 1, graph = 7, opset_import = 8
  varint_field(model, 1, 8);
  bytes_field(model, 7, graph);
  bytes_field(model, 8, opset);
  return model;
}

}  // namespace

std::string onnx_model_bytes(const std::vector<Parameter>& initializers) {
  std::vector<std::string> tensors;
  for (const auto& p : initializers) tensors.push_back(tensor(p));
  return model_of(tensors);
}

std::string onnx_model_external_bytes(const std::string& location) { return model_of({external_tensor(location)}); }

}  // namespace nnx::test_support
