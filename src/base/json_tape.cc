#include "base/json_tape.h"

namespace nnx {

using json = nlohmann::json;

json JsonTape::build(std::size_t& at) const {
  const Token& t = tokens_.at(at++);
  switch (t.kind) {
    case Kind::null: return json(nullptr);
    case Kind::boolean: return json(t.boolean);
    case Kind::integer: return json(t.integer);
    case Kind::unsigned_integer: return json(t.unsigned_integer);
    case Kind::number: return json(t.number);
    case Kind::string: return json(std::string(chars_.data() + t.offset, t.size));
    case Kind::array: {
      json out(json::value_t::array);
      auto& items = out.get_ref<json::array_t&>();
      items.reserve(t.size);
      for (std::uint64_t i = 0; i < t.size; ++i) items.push_back(build(at));
      return out;
    }
    case Kind::object: {
      json out(json::value_t::object);
      auto& members = out.get_ref<json::object_t&>();
      for (std::uint64_t i = 0; i < t.size; ++i) {
        const Token& key = tokens_.at(at++);
        std::string name(chars_.data() + key.offset, key.size);
        json value = build(at);
        if (members.empty() || members.rbegin()->first < name) {  // keys in order (a written record's): O(1)
          members.emplace_hint(members.end(), std::move(name), std::move(value));
        } else {
          members.insert_or_assign(std::move(name), std::move(value));  // a repeated key: the last one, as Python
        }
      }
      return out;
    }
  }
  return json(nullptr);
}

void JsonTape::skip(std::size_t& at) const {
  std::uint64_t pending = 1;  // values still to pass over (a container adds its members; an object's keys too)
  while (pending > 0) {
    const Token& t = tokens_.at(at++);
    --pending;
    if (t.kind == Kind::array) pending += t.size;
    if (t.kind == Kind::object) pending += 2 * t.size;
  }
}

json JsonTape::member_to_json(std::string_view key) const {
  if (tokens_.empty() || tokens_.front().kind != Kind::object) return to_json();
  json out(json::value_t::object);
  std::size_t at = 1;
  for (std::uint64_t i = 0; i < tokens_.front().size; ++i) {
    const Token& name = tokens_.at(at++);
    if (std::string_view(chars_.data() + name.offset, name.size) == key) {
      out[std::string(key)] = build(at);  // a repeated key: the last one, as to_json
    } else {
      skip(at);
    }
  }
  return out;
}

json JsonTape::to_json() const {
  if (tokens_.empty()) return json(nullptr);
  std::size_t at = 0;
  return build(at);
}

}  // namespace nnx
