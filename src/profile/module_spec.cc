// A module profile's model and its cases (module_spec.h; doc/record-format.md §10).
#include "profile/module_spec.h"

#include <algorithm>
#include <limits>
#include <set>

#include "artifacts/layout.h"
#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "base/module_record_vocabulary.h"
#include "base/record_vocabulary.h"
#include "profile/module_factory.h"
#include "profile/module_spec_rules.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace ik = rf::input_key;

std::int64_t export_value(const ModuleSpec& spec, const std::string& symbol) {
  for (const auto& [name, values] : spec.dims) {
    if (name == symbol && !values.empty()) return values.front();
  }
  return 1;  // unknown symbol: problems() names it
}

std::vector<std::vector<std::int64_t>> shapes_with(const ModuleSpec& spec,
                                                   const std::vector<std::pair<std::string, std::int64_t>>& dims) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (const auto& input : spec.inputs) {
    std::vector<std::int64_t> shape;
    for (const auto& size : input.shape) {
      if (size.fixed) {
        shape.push_back(*size.fixed);
        continue;
      }
      std::int64_t value = export_value(spec, size.symbol);
      for (const auto& [name, v] : dims) {
        if (name == size.symbol) value = v;
      }
      shape.push_back(value);
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

std::vector<std::pair<std::string, std::int64_t>> export_dims(const ModuleSpec& spec) {
  std::vector<std::pair<std::string, std::int64_t>> dims;
  for (const auto& [name, values] : spec.dims) dims.emplace_back(name, values.empty() ? 1 : values.front());
  return dims;
}

template <typename T>
std::optional<std::pair<std::int64_t, std::int64_t>> bounds_of_type() {
  return std::make_pair(std::int64_t{std::numeric_limits<T>::min()}, std::int64_t{std::numeric_limits<T>::max()});
}

void input_problems(const InputSpec& input, const std::string& where, std::vector<std::string>& out) {
  if (!is_plain_name(input.name)) out.push_back(where + ".name: \"" + input.name + "\" is not a plain name ([A-Za-z0-9._-]+)");
  if (input.shape.size() > module_limits::kMaxRank) {
    out.push_back(where + ".shape: more than " + std::to_string(module_limits::kMaxRank) + " dimensions");
  }
  for (const auto& size : input.shape) {
    if (size.fixed && (*size.fixed < 1 || *size.fixed > module_limits::kMaxDimSize)) {
      out.push_back(where + ".shape: a fixed size must lie in 1.." + std::to_string(module_limits::kMaxDimSize));
    }
    if (!size.fixed && !is_plain_name(size.symbol)) {
      out.push_back(where + ".shape: \"" + size.symbol + "\" is not a plain dimension name");
    }
  }
  const auto bounds = integer_input_bounds(input.dtype);
  if (!bounds && input.range) out.push_back(where + ".range: only integer inputs take a range");
  if (input.range && input.range->first >= input.range->second) out.push_back(where + ".range: low must be below high");
  if (input.range && bounds && input.range->first < input.range->second &&
      (input.range->first < bounds->first || input.range->second - 1 > bounds->second)) {
    const std::string dtype(dtype_name(input.dtype));
    out.push_back(where + ".range: [" + std::to_string(input.range->first) + ", " +
                  std::to_string(input.range->second) + ") of the " + dtype + " input " + input.name +
                  " holds values " + (dtype == "uint8" ? "a " : "an ") + dtype + " cannot; " + dtype + " holds " +
                  std::to_string(bounds->first) + ".." + std::to_string(bounds->second));
  }
}

// The cases' names, by the rules a module record's cases are validated with (module_spec_rules.h).
void case_name_problems(const std::vector<ModuleCase>& cases, std::vector<std::string>& out) {
  CaseNames names;
  for (const auto& c : cases) {
    const bool refusal = c.expect == rf::kExpectRejected;
    const std::string kind = refusal ? "a refusal case (<input>-axis<k>-<size>)" : "a match case (<dim>-<value>)";
    if (const auto earlier = names.add(c.name, kind)) {
      out.push_back("cases: " + *earlier + " and " + kind + " are both named \"" + c.name +
                    "\"; no two cases may share a name: rename the dimension or the input");
    }
    if (!refusal) continue;
    if (const std::string problem = refusal_name_problem(c.name); !problem.empty()) {
      out.push_back("cases: the refusal case \"" + c.name.substr(0, 64) + "\" " + problem);
    }
  }
}

void size_problems(const ModuleSpec& spec, std::vector<std::string>& out) {
  const auto cases = spec.cases();
  if (cases.size() > module_limits::kMaxCases) {
    out.push_back("cases: " + std::to_string(cases.size()) + " cases, more than the limit of " +
                  std::to_string(module_limits::kMaxCases) + " (fewer dims values)");
  }
  std::uint64_t total = 0;
  for (const auto& c : cases) {
    for (std::size_t i = 0; i < c.input_shapes.size() && i < spec.inputs.size(); ++i) {
      Tensor probe{spec.inputs[i].name, spec.inputs[i].dtype, c.input_shapes[i], {}};
      const auto count = probe.element_count();
      const std::uint64_t bytes = count ? static_cast<std::uint64_t>(*count) * dtype_size(probe.dtype) : UINT64_MAX;
      if (bytes > module_limits::kMaxTensorBytes) {
        out.push_back("case " + c.name + ": input " + probe.name + " would hold more than " +
                      std::to_string(module_limits::kMaxTensorBytes >> 20) + " MiB");
        return;
      }
      total += bytes;
    }
  }
  if (total > module_limits::kMaxStoredBytes) {
    out.push_back("cases: the stored inputs would hold more than " +
                  std::to_string(module_limits::kMaxStoredBytes >> 20) + " MiB");
  }
}

}  // namespace

std::optional<std::pair<std::int64_t, std::int64_t>> integer_input_bounds(DType dtype) {
  switch (dtype) {
    case DType::int64: return bounds_of_type<std::int64_t>();
    case DType::int32: return bounds_of_type<std::int32_t>();
    case DType::int8: return bounds_of_type<std::int8_t>();
    case DType::uint8: return bounds_of_type<std::uint8_t>();
    case DType::float32:
    case DType::float64:
    case DType::float16:
    case DType::bfloat16:
    case DType::boolean: return std::nullopt;
  }
  return std::nullopt;
}

json DimSize::to_json() const { return fixed ? json(*fixed) : json(symbol); }

json InputSpec::to_json() const {
  json shape_json = json::array();
  for (const auto& size : shape) shape_json.push_back(size.to_json());
  json out{{ik::kName, name},
           {ik::kShape, shape_json},
           {ik::kDtype, std::string(dtype_name(dtype))},
           {ik::kRange, range ? json::array({range->first, range->second}) : json()}};
  if (!hides.empty()) out[ik::kHides] = hides;
  return out;
}

std::optional<std::string> ModuleSpec::factory_file() const {
  const auto colon = factory.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string target = factory.substr(0, colon);
  if (!target.ends_with(".py")) return std::nullopt;
  return target;
}

std::string ModuleSpec::factory_name() const {
  const auto colon = factory.rfind(':');
  return colon == std::string::npos ? std::string() : factory.substr(colon + 1);
}

std::vector<std::string> ModuleSpec::symbols() const {
  std::vector<std::string> out;
  for (const auto& input : inputs) {
    for (const auto& size : input.shape) {
      if (!size.fixed && std::find(out.begin(), out.end(), size.symbol) == out.end()) out.push_back(size.symbol);
    }
  }
  return out;
}

json ModuleSpec::every_dim_json() const {
  json out = json::object();
  for (const auto& [name, values] : dims) out[name] = values;
  return out;
}

std::vector<std::vector<std::int64_t>> ModuleSpec::export_shapes() const { return shapes_with(*this, export_dims(*this)); }

std::uint64_t input_seed(std::uint64_t case_seed, std::size_t index) {
  return case_seed + (static_cast<std::uint64_t>(index) << 32);
}

namespace {

bool has_refusal_cases(const ModuleSpec& spec) {
  for (const auto& input : spec.inputs) {
    for (const auto& size : input.shape) {
      if (size.fixed) return true;
    }
  }
  return false;
}

}  // namespace

bool ModuleSpec::draws_input(std::size_t index) const {
  if (data_dims.empty() || has_refusal_cases(*this)) return true;
  for (const auto& set : given) {
    const auto gives = [&](const GivenInput& g) { return g.input == index; };
    if (std::none_of(set.inputs.begin(), set.inputs.end(), gives)) return true;
  }
  return false;
}

std::vector<ModuleCase> ModuleSpec::cases() const {
  std::vector<ModuleCase> out;
  const bool drawn_dims = data_dims.empty() || given.empty();  // a dim from the data sets: no case of the dims
  const auto base = drawn_dims ? export_dims(*this) : given.front().dims;
  auto add = [&](std::string name, std::vector<std::pair<std::string, std::int64_t>> dims,
                 std::vector<std::vector<std::int64_t>> shapes, std::uint64_t seed, const char* expect) {
    out.push_back({std::move(name), std::move(dims), std::move(shapes), seed, expect, std::nullopt});
  };
  if (drawn_dims) {
    const std::string first = dims.empty() ? std::string("export") : dims.front().first + "-" +
                                                                        std::to_string(base.front().second);
    add(first, base, shapes_with(*this, base), 1000, rf::kExpectMatch);
    for (std::size_t d = 0; d < dims.size(); ++d) {
      for (std::size_t v = 1; v < dims[d].second.size(); ++v) {
        auto case_dims = base;
        case_dims[d].second = dims[d].second[v];
        std::string name = dims[d].first + "-" + std::to_string(dims[d].second[v]);
        auto shapes = shapes_with(*this, case_dims);
        const std::uint64_t seed = 1000 + out.size();
        add(std::move(name), std::move(case_dims), std::move(shapes), seed, rf::kExpectMatch);
      }
    }
  }
  for (std::size_t k = 0; k < given.size(); ++k) {
    add("data-set-" + std::to_string(given[k].number), given[k].dims, shapes_with(*this, given[k].dims), 1000 + out.size(),
        rf::kExpectMatch);
    out.back().data_set = k;
  }
  std::uint64_t refusal = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (std::size_t axis = 0; axis < inputs[i].shape.size(); ++axis) {
      if (!inputs[i].shape[axis].fixed) continue;
      auto shapes = shapes_with(*this, base);
      shapes[i][axis] += 1;
      std::string name = inputs[i].name + "-axis" + std::to_string(axis) + "-" + std::to_string(shapes[i][axis]);
      add(std::move(name), base, std::move(shapes), 2000 + refusal++, rf::kExpectRejected);
    }
  }
  return out;
}

json ModuleSpec::to_json() const {
  json inputs_json = json::array();
  for (const auto& input : inputs) inputs_json.push_back(input.to_json());
  json dims_json = json::object();
  for (const auto& [name, values] : dims) {  // the profile's own: a dim the data sets gave is left out again
    if (std::find(data_dims.begin(), data_dims.end(), name) == data_dims.end()) dims_json[name] = values;
  }
  json out{{rf::kModule, factory},
           {rf::kInputs, inputs_json},
           {rf::kDims, dims_json},
           {rf::kOutputs, outputs ? json(*outputs) : json()}};
  if (!data.empty()) out[rf::model_key::kData] = data;
  if (precision != Precision::float32) out[rf::precision_key::kPrecision] = std::string(precision_name(precision));
  return out;
}

std::vector<std::string> ModuleSpec::problems(bool data_to_read) const {
  std::vector<std::string> out = factory_problems(factory);
  if (inputs.empty()) out.push_back("inputs: at least one input is needed");
  if (inputs.size() > module_limits::kMaxInputs) {
    out.push_back("inputs: more than " + std::to_string(module_limits::kMaxInputs) + " inputs");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    input_problems(inputs[i], "inputs[" + std::to_string(i) + "]", out);
    if (!names.insert(inputs[i].name).second) out.push_back("inputs: the name " + inputs[i].name + " is given twice");
  }
  const std::vector<std::string> symbols_used = symbols();
  const std::set<std::string> used(symbols_used.begin(), symbols_used.end());
  std::set<std::string> with_values;
  for (const auto& [name, values] : dims) {
    with_values.insert(name);
    if (!used.count(name)) out.push_back("dims." + name + ": no input uses this dimension");
    if (values.empty()) out.push_back("dims." + name + ": needs at least one value (the first is the export's)");
    std::set<std::int64_t> seen;
    for (const auto v : values) {
      if (v < 1 || v > module_limits::kMaxDimSize) {
        out.push_back("dims." + name + ": values must lie in 1.." + std::to_string(module_limits::kMaxDimSize));
      }
      if (!seen.insert(v).second) out.push_back("dims." + name + ": the value " + std::to_string(v) + " is given twice");
    }
  }
  for (const auto& symbol : used) {
    if (!with_values.count(symbol) && !data_to_read) {
      out.push_back("dims: the dimension \"" + symbol + "\" has no values (give them in dims, or give every input "
                    "that uses it in data sets: \"data\")");
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (integer_input_bounds(inputs[i].dtype) && !inputs[i].range && !data_to_read && draws_input(i)) {
      out.push_back("inputs[" + std::to_string(i) + "].range: an integer input needs \"range\": [low, high)" +
                    std::string(data_dims.empty() ? "" : " (it is drawn: a data set leaves it out, or a refusal case "
                                                         "draws it)"));
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].hides.empty()) continue;
    const std::string problem = hides_problem(std::string(dtype_name(inputs[i].dtype)), inputs[i].hides, outputs);
    if (!problem.empty()) out.push_back("inputs[" + std::to_string(i) + "].hides: " + problem);
  }
  if (outputs) {
    if (const std::string problem = outputs_problem(*outputs); !problem.empty()) out.push_back("outputs: " + problem);
    for (const auto& name : *outputs) {
      if (!name.empty() && !is_plain_name(name)) out.push_back("outputs: \"" + name + "\" is not a plain name");
    }
  }
  if (out.empty()) case_name_problems(cases(), out);
  if (out.empty()) size_problems(*this, out);
  return out;
}

}  // namespace nnx
