// Strict, problem-collecting reads of JSON objects: each call reads one required key with an exact type
// (an integer is never a boolean or 2.0; a number is never a boolean), and `finish` names unknown keys.
// Problems are appended as "<where>.<key>: <what is wrong>"; reads never throw. An unknown key is answered with
// the nearest key the object may hold (read, allowed or named by `may_hold`; base/nearest_name.h), e.g.
// "profile.dim: unknown key; did you mean \"dims\"?".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

using json = nlohmann::json;

class FieldReader {
 public:
  FieldReader(const json& object, std::string where, std::vector<std::string>& problems);

  void allow_extra(const std::string& key) { seen_.insert(key); }
  // Keys the object may hold beside those read (optional keys read only when present): `finish` may suggest them.
  void may_hold(std::initializer_list<const char*> keys) { known_.insert(known_.end(), keys.begin(), keys.end()); }
  // Each returns false (and records a problem) when the key is missing or has the wrong type.
  bool string(const std::string& key, std::string& out);
  bool integer(const std::string& key, std::int64_t& out);
  bool boolean(const std::string& key, bool& out);
  bool number(const std::string& key, double& out);
  bool seed(const std::string& key, std::uint64_t& out);
  bool integer_list(const std::string& key, std::vector<std::int64_t>& out);
  bool string_list(const std::string& key, std::vector<std::string>& out);
  const json* object(const std::string& key);
  const json* array(const std::string& key);
  const json* any(const std::string& key);
  // Names every key present but not read (or allowed).
  void finish();
  bool ok() const { return ok_; }

 private:
  const json* find(const std::string& key);
  void problem(const std::string& key, const std::string& what);

  const json& object_;
  std::string where_;
  std::vector<std::string>& problems_;
  std::set<std::string> seen_;
  std::vector<std::string> known_;
  bool valid_object_;
  bool ok_ = true;
};

// `object[key]` when `object` is an object holding it, else null: JSON of any shape read without throwing.
const json& json_member(const json& object, const char* key);

bool is_json_integer(const json& v);
// A JSON number (integer or float, never a boolean) as double.
bool json_number(const json& v, double& out);
std::string json_type_name(const json& v);

}  // namespace nnx
