// A read-only view of one value of a JsonTape (base/json_tape.h), so that rules can read a recorded value
// where it lies instead of building an nlohmann::json first (record/validate_record.h reads records so).
//
// A view is a tape and a token index: copying one is free and nothing is allocated while reading. Its
// questions are nlohmann::json's, with the same answers for the same value (an integer is never a float or
// a boolean; `integer()` of an unsigned value is its int64 cast, as get<std::int64_t>()). A member that is
// not there (or asked of a value that is not an object) is an absent view: it answers `exists()` false and
// otherwise reads as null, as the rules' `member(object, key)` read a missing key.
//
// Members are in the order the tape holds them (a Python dict's order; a json object's key order), and a
// key is looked up by comparing keys in that order. A view lives no longer than its tape.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "base/json_tape.h"

namespace nnx {

struct JsonMember;  // an object's member: its key and a view of its value (below)

class JsonView {
 public:
  JsonView() = default;  // absent
  // The tape's whole value; absent for an empty tape.
  explicit JsonView(const JsonTape& tape) : tape_(tape.tokens_.empty() ? nullptr : &tape) {}

  bool exists() const { return tape_ != nullptr; }
  bool is_null() const { return !tape_ || kind() == Kind::null; }
  bool is_boolean() const { return tape_ && kind() == Kind::boolean; }
  bool is_number_integer() const { return tape_ && (kind() == Kind::integer || kind() == Kind::unsigned_integer); }
  bool is_number_unsigned() const { return tape_ && kind() == Kind::unsigned_integer; }
  bool is_number_float() const { return tape_ && kind() == Kind::number; }
  bool is_number() const { return is_number_integer() || is_number_float(); }
  bool is_string() const { return tape_ && kind() == Kind::string; }
  bool is_object() const { return tape_ && kind() == Kind::object; }
  bool is_array() const { return tape_ && kind() == Kind::array; }

  // The value, for a view of that kind (otherwise false, 0 or empty).
  bool boolean() const { return is_boolean() && token().boolean; }
  std::int64_t integer() const;
  std::uint64_t unsigned_integer() const;
  // An integer as int64, whether the tape holds it signed or unsigned (a parsed 5 is unsigned, a written 5
  // signed); nullopt for anything else or an unsigned value above INT64_MAX.
  std::optional<std::int64_t> int64() const {
    if (is_number_unsigned()) {
      const std::uint64_t u = unsigned_integer();
      return u <= static_cast<std::uint64_t>(INT64_MAX) ? std::optional<std::int64_t>(static_cast<std::int64_t>(u)) : std::nullopt;
    }
    return is_number_integer() ? std::optional<std::int64_t>(integer()) : std::nullopt;
  }
  double number() const { return is_number_float() ? token().number : 0.0; }
  std::string_view string() const;
  // true when this is a string equal to `s`.
  bool is_text(std::string_view s) const { return is_string() && string() == s; }

  // Members of an object, items of an array; 0 for anything else.
  std::size_t size() const { return (is_object() || is_array()) ? token().size : 0; }
  bool empty() const { return size() == 0; }
  // The member `key` of an object; absent when there is none or this is not an object.
  JsonView operator[](std::string_view key) const;
  bool contains(std::string_view key) const { return (*this)[key].exists(); }

  using Member = JsonMember;
  // Forward iteration over an array's items (a JsonView each) or an object's members (a Member each).
  template <typename Item>
  class Iterator {
   public:
    Item operator*() const {
      if constexpr (std::is_same_v<Item, Member>) {
        return Item{chars(*tape_, tape_->tokens_[at_]), JsonView(tape_, at_ + 1)};  // Item: complete by now
      } else {
        return JsonView(tape_, at_);
      }
    }
    Iterator& operator++() {
      at_ = tape_->after(std::is_same_v<Item, Member> ? at_ + 1 : at_);
      --left_;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return left_ != other.left_; }

   private:
    friend class JsonView;
    Iterator(const JsonTape* tape, std::size_t at, std::size_t left) : tape_(tape), at_(at), left_(left) {}
    const JsonTape* tape_;
    std::size_t at_;
    std::size_t left_;
  };
  template <typename Item>
  struct Range {
    Iterator<Item> first, last;
    Iterator<Item> begin() const { return first; }
    Iterator<Item> end() const { return last; }
  };
  Range<JsonView> items() const {  // empty unless an array
    const std::size_t n = is_array() ? token().size : 0;
    return {Iterator<JsonView>(tape_, at_ + 1, n), Iterator<JsonView>(tape_, 0, 0)};
  }
  Range<Member> members() const {  // empty unless an object
    const std::size_t n = is_object() ? token().size : 0;
    return {Iterator<Member>(tape_, at_ + 1, n), Iterator<Member>(tape_, 0, 0)};
  }

  // The value built as nlohmann::json (null when absent): for messages and the rare comparisons that need it.
  nlohmann::json to_json() const;

 private:
  using Kind = JsonTape::Kind;
  using Token = JsonTape::Token;
  JsonView(const JsonTape* tape, std::size_t at) : tape_(tape), at_(at) {}
  const Token& token() const { return tape_->tokens_[at_]; }
  Kind kind() const { return token().kind; }
  static std::string_view chars(const JsonTape& tape, const Token& t) {
    return std::string_view(tape.chars_.data() + t.offset, t.size);
  }

  const JsonTape* tape_ = nullptr;
  std::size_t at_ = 0;
};

struct JsonMember {
  std::string_view key;
  JsonView value;
};

// a == b for two keys, the short strings a record's objects hold: lengths and first bytes tell most apart,
// and the bytes are compared in place (a call of memcmp costs more than these few bytes).
inline bool same_key(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || (!a.empty() && a[0] != b[0])) return false;
  for (std::size_t i = 1; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// An object read once against a fixed list of keys, for rules that ask many of its members: each listed
// member's view by its key's place in the list (absent when the object lacks it), found in one pass over
// the members. `operator[]` takes one of the listed keys (the same pointer is found at once, another
// pointer by its text) and answers as the object's own `operator[]`; any other key reads absent.
template <std::size_t N>
class KnownMembers {
 public:
  KnownMembers(const JsonView& object, const std::array<const char*, N>& keys) : object_(object), keys_(keys) {
    std::array<std::string_view, N> texts;
    for (std::size_t i = 0; i < N; ++i) texts[i] = keys[i];
    for (const auto& [key, value] : object.members()) {
      for (std::size_t i = 0; i < N; ++i) {
        if (same_key(texts[i], key)) {
          values_[i] = value;
          ++known_;
          break;
        }
      }
    }
  }
  JsonView operator[](const char* key) const {
    for (std::size_t i = 0; i < N; ++i) {
      if (keys_[i] == key) return values_[i];
    }
    for (std::size_t i = 0; i < N; ++i) {
      if (std::string_view(keys_[i]) == key) return values_[i];
    }
    return JsonView();
  }
  const JsonView& object() const { return object_; }
  const std::array<const char*, N>& keys() const { return keys_; }
  // The listed member at `i` (its key keys()[i]).
  const JsonView& at(std::size_t i) const { return values_[i]; }
  // How many of the object's members are listed keys (all of them when it equals object().size()).
  std::size_t known() const { return known_; }

 private:
  JsonView object_;
  const std::array<const char*, N>& keys_;
  std::array<JsonView, N> values_{};
  std::size_t known_ = 0;
};

// What nlohmann::json's == answers for the two values built (numbers by value across kinds, objects by key).
bool operator==(const JsonView& a, const JsonView& b);
// same_canonical (base/json_python.h) of the built value and `b`, decided in place.
bool same_canonical(const JsonView& a, const nlohmann::json& b);
// The same of two views: same_canonical(a, b.to_json()) without building either.
bool same_canonical(const JsonView& a, const JsonView& b);
// json_type_name (base/json_fields.h) of the built value: "integer", "float", "string", "null" ...
std::string json_type_name(const JsonView& v);
// json_number (base/json_fields.h): a number (never a boolean) as double.
bool json_number(const JsonView& v, double& out);

}  // namespace nnx
