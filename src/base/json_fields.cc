#include "base/json_fields.h"

#include <limits>

#include "base/limits.h"
#include "base/nearest_name.h"

namespace nnx {

bool is_json_integer(const json& v) { return v.is_number_integer(); }

bool json_number(const json& v, double& out) {
  if (v.is_number_float()) {
    out = v.get<double>();
    return true;
  }
  if (v.is_number_unsigned()) {
    out = static_cast<double>(v.get<std::uint64_t>());
    return true;
  }
  if (v.is_number_integer()) {
    out = static_cast<double>(v.get<std::int64_t>());
    return true;
  }
  return false;
}

const json& json_member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto found = object.find(key);
  return found == object.end() ? kNull : *found;
}

std::string json_type_name(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "float";
  return v.type_name();
}

FieldReader::FieldReader(const json& object, std::string where, std::vector<std::string>& problems)
    : object_(object), where_(std::move(where)), problems_(problems), valid_object_(object.is_object()) {
  if (!valid_object_) {
    problems_.push_back(where_ + ": must be an object, not " + json_type_name(object));
    ok_ = false;
  }
}

void FieldReader::problem(const std::string& key, const std::string& what) {
  problems_.push_back(where_ + "." + key + ": " + what);
  ok_ = false;
}

const json* FieldReader::find(const std::string& key) {
  if (!valid_object_) return nullptr;
  seen_.insert(key);
  auto it = object_.find(key);
  if (it == object_.end()) {
    problem(key, "missing");
    return nullptr;
  }
  return &*it;
}

bool FieldReader::string(const std::string& key, std::string& out) {
  const json* v = find(key);
  if (!v) return false;
  if (!v->is_string()) {
    problem(key, "must be a string, not " + json_type_name(*v));
    return false;
  }
  out = v->get<std::string>();
  return true;
}

bool FieldReader::integer(const std::string& key, std::int64_t& out) {
  const json* v = find(key);
  if (!v) return false;
  if (!v->is_number_integer()) {
    problem(key, "must be an integer, not " + json_type_name(*v));
    return false;
  }
  if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(
                                                             std::numeric_limits<std::int64_t>::max())) {
    problem(key, "integer out of range");
    return false;
  }
  out = v->get<std::int64_t>();
  return true;
}

bool FieldReader::boolean(const std::string& key, bool& out) {
  const json* v = find(key);
  if (!v) return false;
  if (!v->is_boolean()) {
    problem(key, "must be a boolean, not " + json_type_name(*v));
    return false;
  }
  out = v->get<bool>();
  return true;
}

bool FieldReader::number(const std::string& key, double& out) {
  const json* v = find(key);
  if (!v) return false;
  if (!json_number(*v, out)) {
    problem(key, "must be a number, not " + json_type_name(*v));
    return false;
  }
  return true;
}

bool FieldReader::seed(const std::string& key, std::uint64_t& out) {
  const json* v = find(key);
  if (!v) return false;
  if (!v->is_number_integer()) {
    problem(key, "must be an integer, not " + json_type_name(*v));
    return false;
  }
  if (!v->is_number_unsigned() && v->get<std::int64_t>() < 0) {
    problem(key, "must lie in [0, 2^63)");
    return false;
  }
  out = v->get<std::uint64_t>();
  if (out >= limits::kMaxSeed) {
    problem(key, "must lie in [0, 2^63)");
    return false;
  }
  return true;
}

bool FieldReader::integer_list(const std::string& key, std::vector<std::int64_t>& out) {
  const json* v = find(key);
  if (!v) return false;
  if (!v->is_array()) {
    problem(key, "must be a list of integers, not " + json_type_name(*v));
    return false;
  }
  out.clear();
  for (const auto& item : *v) {
    if (!item.is_number_integer() ||
        (item.is_number_unsigned() &&
         item.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      problem(key, "must be a list of integers; found " + json_type_name(item));
      return false;
    }
    out.push_back(item.get<std::int64_t>());
  }
  return true;
}

bool FieldReader::string_list(const std::string& key, std::vector<std::string>& out) {
  const json* v = find(key);
  if (!v) return false;
  if (!v->is_array()) {
    problem(key, "must be a list of strings, not " + json_type_name(*v));
    return false;
  }
  out.clear();
  for (const auto& item : *v) {
    if (!item.is_string()) {
      problem(key, "must be a list of strings; found " + json_type_name(item));
      return false;
    }
    out.push_back(item.get<std::string>());
  }
  return true;
}

const json* FieldReader::object(const std::string& key) {
  const json* v = find(key);
  if (!v) return nullptr;
  if (!v->is_object()) {
    problem(key, "must be an object, not " + json_type_name(*v));
    return nullptr;
  }
  return v;
}

const json* FieldReader::array(const std::string& key) {
  const json* v = find(key);
  if (!v) return nullptr;
  if (!v->is_array()) {
    problem(key, "must be a list, not " + json_type_name(*v));
    return nullptr;
  }
  return v;
}

const json* FieldReader::any(const std::string& key) { return find(key); }

void FieldReader::finish() {
  if (!valid_object_) return;
  std::vector<std::string> absent;  // what a mistyped key may have meant
  for (const auto& candidates : {std::vector<std::string>(seen_.begin(), seen_.end()), known_}) {
    for (const auto& key : candidates) {
      if (!object_.contains(key)) absent.push_back(key);
    }
  }
  for (const auto& [key, value] : object_.items()) {
    if (!seen_.count(key)) problem(key, "unknown key" + did_you_mean(key, absent));
  }
}

}  // namespace nnx
