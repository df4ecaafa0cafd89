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

void JsonTape::record(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return null();
    case json::value_t::boolean: return boolean(value.get<bool>());
    case json::value_t::number_integer: return integer(value.get<std::int64_t>());
    case json::value_t::number_unsigned: return unsigned_integer(value.get<std::uint64_t>());
    case json::value_t::number_float: return number(value.get<double>());
    case json::value_t::string: return string(value.get_ref<const std::string&>());
    case json::value_t::array: {
      const std::size_t slot = open_array();
      for (const auto& item : value) record(item);
      return close(slot, value.size());
    }
    case json::value_t::object: {
      const std::size_t slot = open_object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        string(it.key());
        record(*it);
      }
      return close(slot, value.size());
    }
    case json::value_t::binary:
    case json::value_t::discarded: return null();  // no JSON value: strict readers refuse it before (json_strict.h)
  }
}

JsonTape JsonTape::from_json(const json& value) {
  JsonTape tape;
  tape.record(value);
  return tape;
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
      at = after(at);
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
