// A JSON value written flat ("tape"): one token per value in document order and the bytes of every string in
// one buffer, so that a value can be recorded with a few allocations in total and turned into a `json`
// later, on another thread (python/bindings.cc records Python objects this way under the GIL and lets the
// validating threads build the values: record/validate_batch.h).
//
// A container token holds how many members follow and where the container ends (so that a reader passes
// over it in one step: base/json_view.h); an object's members are (key string token, value) pairs. The
// writer is the one that checks: a tape holds only what `to_json` can build (strings are stored as given;
// the caller states they are valid UTF-8, as a Python str's UTF-8 form is).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

class JsonTape {
 public:
  // Inline: a front end calls these once per value (they are most of what it does under the GIL).
  void null() { tokens_.push_back(Token{Kind::null, 0, 0, {}}); }
  void boolean(bool value) {
    Token t{Kind::boolean, 0, 0, {}};
    t.boolean = value;
    tokens_.push_back(t);
  }
  void integer(std::int64_t value) {
    Token t{Kind::integer, 0, 0, {}};
    t.integer = value;
    tokens_.push_back(t);
  }
  void unsigned_integer(std::uint64_t value) {
    Token t{Kind::unsigned_integer, 0, 0, {}};
    t.unsigned_integer = value;
    tokens_.push_back(t);
  }
  void number(double value) {
    Token t{Kind::number, 0, 0, {}};
    t.number = value;
    tokens_.push_back(t);
  }
  void string(std::string_view value) {
    if (value.size() >= kMaxStringBytes) throw std::length_error("a string of 1 TiB or more");
    Token t{Kind::string, edges_of(value), value.size(), {}};
    t.offset = chars_.size();
    chars_.append(value);
    tokens_.push_back(t);
  }
  // Opens a container; returns its slot for `close`, which records how many members were written.
  std::size_t open_object() {
    tokens_.push_back(Token{Kind::object, 0, 0, {}});
    return tokens_.size() - 1;
  }
  std::size_t open_array() {
    tokens_.push_back(Token{Kind::array, 0, 0, {}});
    return tokens_.size() - 1;
  }
  void close(std::size_t slot, std::size_t members) {
    Token& t = tokens_.at(slot);
    t.size = members;
    t.end = tokens_.size();
  }

  bool empty() const { return tokens_.empty(); }
  // Forgets the value but keeps the memory, so that a reused tape records the next value without allocating.
  void clear() {
    tokens_.clear();
    chars_.clear();
  }
  // The value recorded (one complete value, written in order); an empty tape is null.
  nlohmann::json to_json() const;
  // A value recorded as it is (objects in their key order; every value and string as the value holds it).
  static JsonTape from_json(const nlohmann::json& value);
  // When the value is an object: an object holding only its member `key` (none when it has no such member),
  // the other members skipped without being built; otherwise the whole value, as to_json.
  nlohmann::json member_to_json(std::string_view key) const;

 private:
  enum class Kind : std::uint8_t { null, boolean, integer, unsigned_integer, number, string, object, array };
  static constexpr std::uint64_t kMaxStringBytes = std::uint64_t(1) << 40;
  struct Token {
    Kind kind : 8;
    std::uint64_t edges : 16;  // string: its first and last bytes, so that most keys are told apart here
    std::uint64_t size : 40;   // string: length; container: members (16 bytes a token in all)
    union {
      bool boolean;
      std::int64_t integer;
      std::uint64_t unsigned_integer;
      double number;
      std::uint64_t offset;  // string: where in chars_
      std::uint64_t end;     // container: the index of the token after its last member
    };
  };
  static std::uint64_t edges_of(std::string_view s) {
    return s.empty() ? 0 : std::uint64_t(static_cast<unsigned char>(s.front())) |
                               std::uint64_t(static_cast<unsigned char>(s.back())) << 8;
  }
  friend class JsonView;
  // The index of the token after the value at `at` (a container is passed over whole, in one step).
  std::size_t after(std::size_t at) const {
    const Token& t = tokens_[at];
    return (t.kind == Kind::object || t.kind == Kind::array) ? t.end : at + 1;
  }
  nlohmann::json build(std::size_t& at) const;
  void record(const nlohmann::json& value);

  std::vector<Token> tokens_;
  std::string chars_;
};

}  // namespace nnx
