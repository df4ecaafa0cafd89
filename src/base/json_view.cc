#include "base/json_view.h"

#include "base/json_python.h"

namespace nnx {

using json = nlohmann::json;

std::int64_t JsonView::integer() const {
  if (!tape_) return 0;
  if (kind() == Kind::integer) return token().integer;
  if (kind() == Kind::unsigned_integer) return static_cast<std::int64_t>(token().unsigned_integer);
  return 0;
}

std::uint64_t JsonView::unsigned_integer() const {
  if (!tape_) return 0;
  if (kind() == Kind::unsigned_integer) return token().unsigned_integer;
  if (kind() == Kind::integer) return static_cast<std::uint64_t>(token().integer);
  return 0;
}

namespace {

// A record's keys are short: comparing their bytes in place costs less than a call of memcmp (their
// lengths and first and last bytes, in the token, have already told most keys apart).
inline bool same_bytes(const char* chars, std::string_view key) {
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (chars[i] != key[i]) return false;
  }
  return true;
}

}  // namespace

std::string_view JsonView::string() const { return is_string() ? chars(*tape_, token()) : std::string_view(); }

JsonView JsonView::operator[](std::string_view key) const {
  if (!is_object()) return JsonView();
  const std::uint64_t edges = JsonTape::edges_of(key);
  std::size_t at = at_ + 1;
  for (std::uint64_t i = 0; i < token().size; ++i) {
    const Token& name = tape_->tokens_[at];
    if (name.size == key.size() && name.edges == edges && same_bytes(tape_->chars_.data() + name.offset, key)) {
      return JsonView(tape_, at + 1);
    }
    at = tape_->after(at + 1);
  }
  return JsonView();
}

json JsonView::to_json() const {
  if (!tape_) return json(nullptr);
  std::size_t at = at_;
  return tape_->build(at);
}

namespace {

// Two integers by value, whichever of them is stored signed or unsigned.
bool same_integer(const JsonView& a, const JsonView& b) {
  if (a.is_number_unsigned() != b.is_number_unsigned()) {
    const JsonView& i = a.is_number_unsigned() ? b : a;
    const JsonView& u = a.is_number_unsigned() ? a : b;
    return i.integer() >= 0 && static_cast<std::uint64_t>(i.integer()) == u.unsigned_integer();
  }
  return a.unsigned_integer() == b.unsigned_integer();
}

}  // namespace

bool operator==(const JsonView& a, const JsonView& b) {
  if (a.is_number() && b.is_number()) {  // nlohmann compares numbers by value across their kinds
    if (a.is_number_float() || b.is_number_float()) {
      double x = 0.0, y = 0.0;
      json_number(a, x);
      json_number(b, y);
      return x == y;
    }
    return same_integer(a, b);
  }
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  if (a.is_boolean() || b.is_boolean()) return a.is_boolean() && b.is_boolean() && a.boolean() == b.boolean();
  if (a.is_string() || b.is_string()) return a.is_string() && b.is_string() && a.string() == b.string();
  if (a.size() != b.size()) return false;
  if (a.is_array() && b.is_array()) {
    auto j = b.items().begin();
    for (const JsonView item : a.items()) {
      if (!(item == *j)) return false;
      ++j;
    }
    return true;
  }
  if (a.is_object() && b.is_object()) {  // by key, whatever order each holds them in (keys are unique in both)
    for (const auto& [key, value] : a.members()) {
      const JsonView other = b[key];
      if (!other.exists() || !(value == other)) return false;
    }
    return true;
  }
  return false;
}

bool same_canonical(const JsonView& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    if (a.is_number_unsigned() != b.is_number_unsigned()) {
      if (a.is_number_unsigned()) return b.get<std::int64_t>() >= 0 && static_cast<std::uint64_t>(b.get<std::int64_t>()) == a.unsigned_integer();
      return a.integer() >= 0 && static_cast<std::uint64_t>(a.integer()) == b.get<std::uint64_t>();
    }
    return a.unsigned_integer() == (b.is_number_unsigned() ? b.get<std::uint64_t>() : static_cast<std::uint64_t>(b.get<std::int64_t>()));
  }
  switch (b.type()) {
    case json::value_t::null: return a.is_null();
    case json::value_t::boolean: return a.is_boolean() && a.boolean() == b.get<bool>();
    case json::value_t::string: return a.is_text(b.get_ref<const std::string&>());
    case json::value_t::number_float: return a.is_number_float() && same_float(a.number(), b.get<double>());
    case json::value_t::array: {
      if (!a.is_array() || a.size() != b.size()) return false;
      std::size_t k = 0;
      for (const JsonView item : a.items()) {
        if (!same_canonical(item, b[k++])) return false;
      }
      return true;
    }
    case json::value_t::object: {
      if (!a.is_object() || a.size() != b.size()) return false;
      for (const auto& [key, value] : a.members()) {
        const auto it = b.find(key);
        if (it == b.end() || !same_canonical(value, *it)) return false;
      }
      return true;
    }
    default: return false;  // integers above; binary and discarded: no tape holds one
  }
}

bool same_canonical(const JsonView& a, const JsonView& b) {
  if (a.is_number_integer() && b.is_number_integer()) return same_integer(a, b);
  if (b.is_null()) return a.is_null();
  if (b.is_boolean()) return a.is_boolean() && a.boolean() == b.boolean();
  if (b.is_string()) return a.is_string() && a.string() == b.string();
  if (b.is_number_float()) return a.is_number_float() && same_float(a.number(), b.number());
  if (b.is_array()) {
    if (!a.is_array() || a.size() != b.size()) return false;
    auto want = b.items().begin();
    for (const JsonView item : a.items()) {
      if (!same_canonical(item, *want)) return false;
      ++want;
    }
    return true;
  }
  if (b.is_object()) {
    if (!a.is_object() || a.size() != b.size()) return false;
    // Members in the same order (the common case: both sorted) are paired as they come; any other is looked up.
    auto beside = b.members().begin();
    for (const auto& [key, value] : a.members()) {
      const auto& [b_key, b_value] = *beside;
      ++beside;
      const JsonView want = same_key(b_key, key) ? b_value : b[key];
      if (!want.exists() || !same_canonical(value, want)) return false;
    }
    return true;
  }
  return false;  // b is an integer and a is not
}

std::string json_type_name(const JsonView& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "float";
  if (v.is_boolean()) return "boolean";
  if (v.is_string()) return "string";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  return "null";
}

bool json_number(const JsonView& v, double& out) {
  if (v.is_number_float()) {
    out = v.number();
  } else if (v.is_number_unsigned()) {
    out = static_cast<double>(v.unsigned_integer());
  } else if (v.is_number_integer()) {
    out = static_cast<double>(v.integer());
  } else {
    return false;
  }
  return true;
}

}  // namespace nnx
