// Reading a module profile's fields from a profile object (module_spec.h; doc/record-format.md §10).
#include <string>

#include "base/json_fields.h"
#include "base/module_record_vocabulary.h"
#include "base/nearest_name.h"
#include "base/record_vocabulary.h"
#include "profile/module_spec.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace ik = rf::input_key;

std::optional<DimSize> dim_size_of(const json& size) {
  if (is_json_integer(size)) return DimSize{size.get<std::int64_t>(), {}};
  if (size.is_string()) return DimSize{std::nullopt, size.get<std::string>()};
  return std::nullopt;
}

void read_range(FieldReader& reader, const json& object, const std::string& where, InputSpec& input,
                std::vector<std::string>& problems) {
  if (!object.contains(ik::kRange) || object[ik::kRange].is_null()) {
    reader.allow_extra(ik::kRange);
    return;
  }
  std::vector<std::int64_t> range;
  if (!reader.integer_list(ik::kRange, range)) return;
  if (range.size() != 2) {
    problems.push_back(where + ".range: must be [low, high)");
    return;
  }
  input.range = std::make_pair(range[0], range[1]);
}

InputSpec input_spec_of(const json& object, const std::string& where, std::vector<std::string>& problems) {
  InputSpec input;
  FieldReader reader(object, where, problems);
  reader.string(ik::kName, input.name);
  if (const json* shape = reader.array(ik::kShape)) {
    for (const auto& size : *shape) {
      if (auto d = dim_size_of(size)) {
        input.shape.push_back(*d);
      } else {
        problems.push_back(where + ".shape: each size is an integer or a dimension's name, not " + json_type_name(size));
      }
    }
  }
  std::string dtype = "float32";
  reader.may_hold({ik::kDtype, ik::kHides});
  if (object.contains(ik::kDtype)) reader.string(ik::kDtype, dtype);
  if (const auto parsed = parse_dtype(dtype)) {
    input.dtype = *parsed;
  } else {
    std::vector<std::string> names;
    for (const DType d : {DType::float32, DType::float64, DType::float16, DType::bfloat16, DType::int64,
                          DType::int32, DType::int8, DType::uint8, DType::boolean}) {
      names.emplace_back(dtype_name(d));
    }
    std::string listed;
    for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
    problems.push_back(where + ".dtype: unknown dtype \"" + dtype + "\" (" + listed + ")" + did_you_mean(dtype, names));
  }
  read_range(reader, object, where, input, problems);
  if (object.is_object() && object.contains(ik::kHides) && reader.string_list(ik::kHides, input.hides) &&
      input.hides.empty()) {
    problems.push_back(where + ".hides: an empty list hides nothing (leave it out)");
  }
  reader.finish();
  return input;
}

}  // namespace

void read_dims(const json& dims, ModuleSpec& spec, std::vector<std::string>& problems) {
  if (!dims.is_object()) {
    problems.push_back("profile.dims: must be an object {name: [values]}, not " + json_type_name(dims));
    return;
  }
  for (const auto& [name, values] : dims.items()) {
    std::vector<std::int64_t> list;
    if (!values.is_array()) {
      problems.push_back("profile.dims." + name + ": must be a list of sizes");
      continue;
    }
    for (const auto& v : values) {
      if (is_json_integer(v)) list.push_back(v.get<std::int64_t>());
      else problems.push_back("profile.dims." + name + ": each value is an integer, not " + json_type_name(v));
    }
    spec.dims.emplace_back(name, std::move(list));
  }
}

ModuleSpec module_spec_from_json(const json& value, std::vector<std::string>& problems) {
  ModuleSpec spec;
  if (const auto it = value.find(rf::kModule); it != value.end()) {
    if (it->is_string()) spec.factory = it->get<std::string>();
    else problems.push_back("profile.module: must be a string FILE.py:FACTORY or package.module:FACTORY");
  }
  if (const auto it = value.find(rf::kInputs); it == value.end()) {
    problems.push_back("profile.inputs: missing (each input's name, shape and dtype)");
  } else if (!it->is_array()) {
    problems.push_back("profile.inputs: must be a list of {name, shape, dtype}");
  } else {
    for (std::size_t i = 0; i < it->size(); ++i) {
      spec.inputs.push_back(input_spec_of((*it)[i], "profile.inputs[" + std::to_string(i) + "]", problems));
    }
  }
  if (const auto it = value.find(rf::kDims); it != value.end()) read_dims(*it, spec, problems);
  if (const auto it = value.find(rf::kOutputs); it != value.end() && !it->is_null()) {
    std::vector<std::string> names;
    bool ok = it->is_array();
    for (const auto& n : ok ? *it : json::array()) {
      if (n.is_string()) names.push_back(n.get<std::string>());
      else ok = false;
    }
    if (ok) spec.outputs = names;
    else problems.push_back("profile.outputs: must be a list of names");
  }
  return spec;
}

}  // namespace nnx
