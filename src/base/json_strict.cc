// Strict JSON reading: nlohmann's iterative SAX parser feeds a handler that builds the value and refuses
// what nlohmann would let through (duplicate keys, deep nesting, integers that silently became floats).
#include "base/json_strict.h"

#include "base/file_bytes.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>
#include <vector>


namespace nnx {
namespace {

// A byte iterator that counts how many bytes the lexer has taken, so the handler knows where it is.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* at, std::size_t* taken) : at_(at), taken_(taken) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    ++at_;
    ++*taken_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  std::size_t* taken_;
};

// Message-safe text: printable ASCII kept, every other byte written \xNN (messages stay valid UTF-8).
std::string printable(std::string_view bytes, std::size_t max_bytes = 80) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  if (bytes.size() > max_bytes) out += "...";
  return out;
}

std::string at(std::size_t offset) { return " at byte offset " + std::to_string(offset); }

// Offset of the opening quote of the string token whose closing quote is at `close`: the nearest quote
// before it that is preceded by an even number of backslashes (escaped quotes have an odd number).
std::size_t string_token_start(std::string_view text, std::size_t close) {
  for (std::size_t i = close; i-- > 0;) {
    if (text[i] != '"') continue;
    std::size_t backslashes = 0;
    while (backslashes < i && text[i - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return i;
  }
  return close;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class StrictBuilder {
 public:
  StrictBuilder(std::string_view text, const std::size_t& taken) : text_(text), taken_(taken) {}

  json& result() { return root_; }
  const std::string& error() const { return error_; }
  std::size_t error_offset() const { return error_offset_; }

  bool null() { return add(json(nullptr)); }
  bool boolean(bool value) { return add(json(value)); }
  bool number_integer(json::number_integer_t value) { return add(json(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return add(json(value)); }
  bool number_float(json::number_float_t value, const json::string_t& token) {
    // nlohmann turns an integer literal that fits neither int64 nor uint64 into a double: refuse it.
    if (std::all_of(token.begin(), token.end(), [](char c) { return is_digit(c) || c == '-'; })) {
      // The lexer read one byte past the number unless the number ends the text.
      const bool looked_ahead = taken_ == 0 || !is_digit(text_[taken_ - 1]);
      const std::size_t start = taken_ - token.size() - (looked_ahead ? 1 : 0);
      return fail("integer " + printable(token) + " does not fit in int64 or uint64", start);
    }
    return add(json(value));
  }
  bool string(json::string_t& value) { return add(json(std::move(value))); }
  bool binary(json::binary_t&) { return fail("binary values are not JSON", taken_); }

  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& name) {
    json& object = *stack_.back();
    if (object.contains(name)) {
      const std::size_t start = string_token_start(text_, taken_ - 1);
      const std::string shown =
          json(name.substr(0, 200)).dump(-1, ' ', false, json::error_handler_t::replace);
      return fail("duplicate object key " + shown + (name.size() > 200 ? "..." : ""), start);
    }
    member_ = &object[std::move(name)];
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) {
    std::string detail = ex.what();
    if (detail.starts_with("[json.exception.")) detail.erase(0, detail.find("] ") + 2);
    if (detail.starts_with("parse error")) detail.erase(0, detail.find(": ") + 2);
    detail = printable(detail, 400);

    // `position` counts the bytes read, the offending one included; a number token is read whole.
    std::size_t offset = position > 0 ? position - 1 : 0;
    std::string problem = "invalid JSON";
    if (ex.id == 406) {
      problem = "number out of range";
      offset = position >= last_token.size() ? position - last_token.size() : 0;
    } else if (detail.find("UTF-8") != std::string::npos) {
      problem = "invalid UTF-8";
    } else if (detail.find("surrogate") != std::string::npos) {
      problem = "invalid surrogate escape";
    } else if (const std::size_t start = non_finite_start(offset); start != std::string::npos) {
      problem = "NaN and Infinity are not JSON";
      offset = start;
    }
    return fail(problem + ": " + detail, std::min(offset, text_.size()));
  }

 private:
  // Where a NaN or Infinity literal starts when the lexer stopped at `offset` (on its first letter, or
  // just after a minus sign); npos when there is none.
  std::size_t non_finite_start(std::size_t offset) const {
    const auto names_one = [&](std::size_t at) {
      const std::string_view rest = text_.substr(std::min(at, text_.size()));
      return rest.starts_with("NaN") || rest.starts_with("Infinity");
    };
    if (!names_one(offset)) return std::string::npos;
    return offset > 0 && text_[offset - 1] == '-' ? offset - 1 : offset;
  }

  // Puts a value where the parser is: the root, the end of the open array, or the member just keyed.
  json* place(json&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  bool add(json&& value) {
    place(std::move(value));
    return true;
  }

  bool open(json::value_t type) {
    if (stack_.size() >= kMaxJsonDepth) {
      return fail("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels", taken_ - 1);
    }
    stack_.push_back(place(json(type)));
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  bool fail(std::string message, std::size_t offset) {
    error_ = message + at(offset);
    error_offset_ = offset;
    return false;
  }

  std::string_view text_;
  const std::size_t& taken_;
  json root_;
  std::vector<json*> stack_;
  json* member_ = nullptr;
  std::string error_;
  std::size_t error_offset_ = 0;
};

}  // namespace

json parse_strict_json(std::string_view text) {
  if (text.size() > kMaxJsonTextBytes) {
    throw JsonError("JSON text of " + std::to_string(text.size()) + " bytes is larger than the limit of " +
                    std::to_string(kMaxJsonTextBytes) + " bytes");
  }
  if (text.starts_with("\xEF\xBB\xBF")) {
    throw JsonError("a byte order mark is not allowed in strict JSON" + at(0), 0);
  }
  std::size_t taken = 0;
  StrictBuilder builder(text, taken);
  const char* begin = text.data();
  const bool ok = json::sax_parse(CountingIterator(begin, &taken),
                                  CountingIterator(begin + text.size(), &taken), &builder,
                                  json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/false);
  if (!ok) throw JsonError(builder.error(), builder.error_offset());
  return std::move(builder.result());
}

json read_strict_json_file(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_file_bytes(path, kMaxJsonTextBytes, "the JSON limit", ErrorKind::refused);
  } catch (const Error& e) {
    throw JsonError(e.what());
  }
  try {
    return parse_strict_json(text);
  } catch (const JsonError& e) {
    throw JsonError(path.string() + ": " + e.what(), e.byte_offset());
  }
}

}  // namespace nnx
