// Strict JSON reading (doc/record-format.md §6): RFC 8259 text, refused with a JsonError naming the problem and
// its byte offset when it holds invalid UTF-8 (overlong forms, encoded surrogates), a lone surrogate
// escape, NaN/Infinity, a duplicate object key (any depth), trailing data, a leading byte order mark,
// nesting deeper than kMaxJsonDepth, more than kMaxJsonTextBytes bytes, a number that overflows double,
// or an integer that fits neither int64 nor uint64. Integers stay integers (17 is not 17.0); -0.0 stays
// negative. Parsing is iterative (nlohmann SAX) and never crashes or recurses without bound on any input.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace nnx {

using json = nlohmann::json;

// Largest text parse_strict_json accepts (and largest file read_strict_json_file reads): 256 MiB.
inline constexpr std::size_t kMaxJsonTextBytes = std::size_t{256} * 1024 * 1024;
// Deepest nesting accepted: 128 arrays/objects inside one another (a top-level array is depth 1).
// The Python-compatible writer (json_python.h) refuses to write deeper values.
inline constexpr std::size_t kMaxJsonDepth = 128;

// A JSON text that could not be read, or a value that could not be written.
class JsonError : public Error {
 public:
  static constexpr std::size_t kNoOffset = static_cast<std::size_t>(-1);

  explicit JsonError(const std::string& message, std::size_t byte_offset = kNoOffset)
      : Error(ErrorKind::refused, message), byte_offset_(byte_offset) {}

  // Where in the text the problem was found, or kNoOffset (file and writer errors).
  std::size_t byte_offset() const noexcept { return byte_offset_; }

 private:
  std::size_t byte_offset_;
};

// Parses `text` as one strict JSON value; throws JsonError (message: problem and "byte offset N").
json parse_strict_json(std::string_view text);

// Reads and parses a file. A file over kMaxJsonTextBytes is refused before it is read; an unreadable
// file is refused with the OS error. Messages name the path.
json read_strict_json_file(const std::filesystem::path& path);

}  // namespace nnx
