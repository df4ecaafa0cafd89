// nnx_tensor_proto decode FILE.pb | encode FILE.json OUT.pb
// decode: reads FILE.pb with decode_tensor_proto (src/onnx_file/tensor_proto.h) and prints one JSON line,
//   {"name": ..., "dtype": "float32", "shape": [...], "hex": "<the tensor's bytes, lowercase hex>"}.
// encode: reads that JSON from FILE.json and writes encode_tensor_proto of it to OUT.pb.
// Exit 0 on success, 1 when the core refuses (message on stderr), 2 on a usage error.
// Used by tests/e2e/test_tensor_proto_interop.py to check the codec against the onnx package.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file_bytes.h"
#include "onnx_file/tensor_proto.h"

namespace {

constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;

std::string hex_of(const std::vector<std::byte>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (const std::byte b : bytes) {
    out.push_back(digits[std::to_integer<int>(b) >> 4]);
    out.push_back(digits[std::to_integer<int>(b) & 15]);
  }
  return out;
}

std::vector<std::byte> bytes_of_hex(const std::string& hex) {
  std::vector<std::byte> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

int decode(const std::string& path) {
  const std::string bytes = nnx::read_file_bytes(path, kMaxFileBytes, "the tool's limit", nnx::ErrorKind::unreadable);
  const nnx::Tensor t = nnx::decode_tensor_proto(std::as_bytes(std::span(bytes.data(), bytes.size())), path,
                                                 kMaxFileBytes);
  const nlohmann::json out = {
      {"name", t.name}, {"dtype", std::string(nnx::dtype_name(t.dtype))}, {"shape", t.shape}, {"hex", hex_of(t.bytes)}};
  std::cout << out.dump() << '\n' << std::flush;
  return std::cout ? 0 : 1;
}

int encode(const std::string& json_path, const std::string& out_path) {
  const nlohmann::json in = nlohmann::json::parse(
      nnx::read_file_bytes(json_path, kMaxFileBytes, "the tool's limit", nnx::ErrorKind::unreadable));
  const auto dtype = nnx::parse_dtype(in.at("dtype").get<std::string>());
  if (!dtype) throw nnx::UsageError("unknown dtype " + in.at("dtype").dump());
  const nnx::Tensor t{in.at("name").get<std::string>(), *dtype, in.at("shape").get<std::vector<std::int64_t>>(),
                      bytes_of_hex(in.at("hex").get<std::string>())};
  const std::string bytes = nnx::encode_tensor_proto(t);
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out.good() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc >= 2 ? argv[1] : "";
  if (!((mode == "decode" && argc == 3) || (mode == "encode" && argc == 4))) {
    std::cerr << "usage: nnx_tensor_proto decode FILE.pb | encode FILE.json OUT.pb\n";
    return 2;
  }
  try {
    return mode == "decode" ? decode(argv[2]) : encode(argv[2], argv[3]);
  } catch (const nnx::UsageError& e) {
    std::cerr << "nnx_tensor_proto: " << e.what() << '\n';
    return 2;
  } catch (const nnx::Error& e) {
    std::cerr << "nnx_tensor_proto: " << e.what() << '\n';
    return 1;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "nnx_tensor_proto: " << argv[2] << " is not a tensor's JSON: " << e.what() << '\n';
    return 2;
  }
}
