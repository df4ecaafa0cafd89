// Python json.dumps compatible writer. Float digits come from std::to_chars (shortest round trip, ties to
// the closest value: the same digits as Python's repr); the layout follows CPython's float_repr_style
// 'short' and json.encoder.
#include "base/json_python.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace nnx {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, std::uint32_t unit) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xf];
}

// Decodes one UTF-8 sequence at s[i] (advancing i); throws JsonError unless it is well-formed (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF).
std::uint32_t decode_utf8(std::string_view s, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  std::size_t length = 0;
  std::uint32_t code = 0;
  std::uint32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, code = lead & 0x1F, minimum = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, code = lead & 0x0F, minimum = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, code = lead & 0x07, minimum = 0x10000;
  }
  bool ok = length != 0 && i + length <= s.size();
  for (std::size_t k = 1; ok && k < length; ++k) {
    const auto next = static_cast<unsigned char>(s[i + k]);
    ok = (next & 0xC0) == 0x80;
    code = (code << 6) | (next & 0x3F);
  }
  ok = ok && code >= minimum && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
  if (!ok) {
    throw JsonError("string is not valid UTF-8 (byte " + std::to_string(i) + " of the string)");
  }
  i += length;
  return code;
}

// Throws what append_string would for `s` (invalid UTF-8), without writing anything.
void check_string(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (i + 8 <= s.size()) {  // eight ASCII bytes at once: the common case
      std::uint64_t word = 0;
      std::memcpy(&word, s.data() + i, sizeof word);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    if (static_cast<unsigned char>(s[i]) >= 0x80) {
      decode_utf8(s, i);
    } else {
      ++i;
    }
  }
}

// Throws what Writer::write would for `value` (same order, same messages), without writing anything.
void check_value(const json& value, std::size_t depth) {
  switch (value.type()) {
    case json::value_t::null:
    case json::value_t::boolean:
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return;
    case json::value_t::number_float:
      if (!std::isfinite(value.get<double>())) throw JsonError("NaN and Infinity cannot be written as JSON");
      return;
    case json::value_t::string: check_string(value.get_ref<const std::string&>()); return;
    case json::value_t::array:
    case json::value_t::object: {
      if (depth + 1 > kMaxJsonDepth) {
        throw JsonError("value nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
      const bool is_object = value.is_object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (is_object) check_string(it.key());
        check_value(*it, depth + 1);
      }
      return;
    }
    case json::value_t::binary: throw JsonError("binary values cannot be written as JSON");
    case json::value_t::discarded: break;
  }
  throw JsonError("a discarded value cannot be written as JSON");
}

// A JSON string literal as json.dumps(ensure_ascii=True) writes it.
void append_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::uint32_t code = decode_utf8(s, i);
      if (code < 0x10000) {
        append_u_escape(out, code);
      } else {
        append_u_escape(out, 0xD800 + ((code - 0x10000) >> 10));
        append_u_escape(out, 0xDC00 + ((code - 0x10000) & 0x3FF));
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          append_u_escape(out, c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// Writes values; `indent` < 0 is the one-line canonical layout, otherwise spaces per level.
class Writer {
 public:
  explicit Writer(int indent) : indent_(indent) {}

  void write(const json& value, std::size_t depth) {
    switch (value.type()) {
      case json::value_t::null: out_ += "null"; return;
      case json::value_t::boolean: out_ += value.get<bool>() ? "true" : "false"; return;
      case json::value_t::number_integer: out_ += std::to_string(value.get<std::int64_t>()); return;
      case json::value_t::number_unsigned: out_ += std::to_string(value.get<std::uint64_t>()); return;
      case json::value_t::number_float: out_ += python_float_repr(value.get<double>()); return;
      case json::value_t::string: append_string(out_, value.get_ref<const std::string&>()); return;
      case json::value_t::array:
      case json::value_t::object: write_container(value, depth + 1); return;
      case json::value_t::binary: throw JsonError("binary values cannot be written as JSON");
      case json::value_t::discarded: break;
    }
    throw JsonError("a discarded value cannot be written as JSON");
  }

  std::string take() { return std::move(out_); }

 private:
  void write_container(const json& value, std::size_t depth) {
    if (depth > kMaxJsonDepth) {
      throw JsonError("value nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    const bool is_object = value.is_object();
    if (value.empty()) {
      out_ += is_object ? "{}" : "[]";
      return;
    }
    out_ += is_object ? '{' : '[';
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {  // std::map order: UTF-8 bytes = code points
      if (!first) out_ += indent_ < 0 ? ", " : ",";
      first = false;
      newline(depth);
      if (is_object) {
        append_string(out_, it.key());
        out_ += ": ";
      }
      write(*it, depth);
    }
    newline(depth - 1);
    out_ += is_object ? '}' : ']';
  }

  void newline(std::size_t depth) {
    if (indent_ < 0) return;
    out_ += '\n';
    out_.append(depth * static_cast<std::size_t>(indent_), ' ');
  }

  int indent_;
  std::string out_;
};

}  // namespace

std::string python_float_repr(double value) {
  if (!std::isfinite(value)) throw JsonError("NaN and Infinity cannot be written as JSON");

  // Shortest round-trip digits in scientific form: "-d.ddde±XX".
  char buffer[64];
  const auto [end, error] =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  if (error != std::errc()) throw JsonError("cannot format a float");
  const std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
  const std::size_t e = text.find('e');
  const bool negative = text.front() == '-';
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c >= '0' && c <= '9') digits += c;
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());

  std::string out = negative ? "-" : "";
  const int point = exponent + 1;  // digits are 0.ddd * 10^point
  const int count = static_cast<int>(digits.size());
  if (point <= -4 || point > 16) {
    out += digits[0];
    if (count > 1) out += "." + digits.substr(1);
    const int magnitude = std::abs(exponent);
    out += exponent < 0 ? "e-" : "e+";
    if (magnitude < 10) out += '0';
    out += std::to_string(magnitude);
  } else if (point <= 0) {
    out += "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  } else if (point >= count) {
    out += digits + std::string(static_cast<std::size_t>(point - count), '0') + ".0";
  } else {
    const auto split = static_cast<std::size_t>(point);
    out += digits.substr(0, split) + "." + digits.substr(split);
  }
  return out;
}

std::string dumps_canonical(const json& value) {
  Writer writer(-1);
  writer.write(value, 0);
  return writer.take();
}

void check_writable(const json& value) { check_value(value, 0); }

std::string dumps_pretty(const json& value) {
  Writer writer(2);
  writer.write(value, 0);
  return writer.take();
}

bool same_float(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::memcmp(&x, &y, sizeof x) == 0;
}

bool same_canonical(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    if (a.is_number_unsigned() != b.is_number_unsigned()) {
      const json& u = a.is_number_unsigned() ? a : b;
      const json& i = a.is_number_unsigned() ? b : a;
      return i.get<std::int64_t>() >= 0 && static_cast<std::uint64_t>(i.get<std::int64_t>()) == u.get<std::uint64_t>();
    }
    return a == b;
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json::value_t::number_float: return same_float(a.get<double>(), b.get<double>());
    case json::value_t::object: {
      if (a.size() != b.size()) return false;
      for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {  // both in key order
        if (i.key() != j.key() || !same_canonical(*i, *j)) return false;
      }
      return true;
    }
    case json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (std::size_t k = 0; k < a.size(); ++k) {
        if (!same_canonical(a[k], b[k])) return false;
      }
      return true;
    }
    case json::value_t::binary:
    case json::value_t::discarded: return display_json(a) == display_json(b);
    default: return a == b;  // null, boolean, string
  }
}

std::string display_json(const json& value) {
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    const double d = value.get<double>();
    return std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
  }
  try {
    return dumps_canonical(value);
  } catch (const std::exception&) {
    return value.dump(-1, ' ', true, json::error_handler_t::replace);
  }
}

}  // namespace nnx
