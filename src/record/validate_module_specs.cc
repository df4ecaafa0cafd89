// A module record's specs (doc/record-format.md §10): `module` (factory, class, the digests null while the
// export did not run), `inputs` (name, shape of fixed sizes and plain dim names, dtype, range), `dims`
// (every symbol's distinct values) and `outputs` (null or the outputs' names).
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "artifacts/layout.h"
#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "base/sha256.h"
#include "base/tensor.h"
#include "profile/module_spec.h"
#include "profile/module_spec_rules.h"
#include "record/validate_module.h"

namespace nnx::validation {
namespace {

bool is_input_dtype(const JsonView& v) { return v.is_string() && parse_dtype(v.string()).has_value(); }

// An integer input's dtype, which takes a range (profile/module_spec.h integer_input_bounds).
bool is_integer_dtype(std::string_view dtype) {
  const auto parsed = parse_dtype(dtype);
  return parsed && integer_input_bounds(*parsed).has_value();
}

// A size 1..kMaxDimSize.
std::optional<std::int64_t> dim_size(const JsonView& v) {
  if (!v.is_number_integer()) return std::nullopt;
  if (v.is_number_unsigned() && v.unsigned_integer() > std::uint64_t(module_limits::kMaxDimSize)) return std::nullopt;
  const std::int64_t n = v.integer();
  if (n < 1 || n > module_limits::kMaxDimSize) return std::nullopt;
  return n;
}

const char* const kSizeRule = "a positive integer (1..65536) or a plain name ([A-Za-z0-9._-])";

void check_module_object(const JsonView& record, const Stages& view, Problems& out) {
  namespace key = rf::module_key;
  const JsonView m = record[rf::kModule];
  if (!m.exists() || !is_object_or_report(m, rf::kModule, out)) return;
  exact_keys(m, rf::kModule, key::kKeys, out);
  const JsonView factory = m[key::kFactory];
  if (factory.exists() && (!factory.is_string() || factory.string().empty())) {
    out.push_back(at(rf::kModule, key::kFactory) + ": must be a non-empty string, not " + text_of(factory));
  }
  const JsonView cls = m[key::kClass];
  if (cls.exists() && !cls.is_null() && (!cls.is_string() || cls.string().empty())) {
    out.push_back(at(rf::kModule, key::kClass) + ": must be null or a non-empty string, not " + text_of(cls));
  }
  const bool not_exported = stage(view, Stage::export_model).status == StageStatus::not_run;
  for (const char* digest : {key::kSourceSha256, key::kStateSha256}) {
    const JsonView sha = m[digest];
    if (!sha.exists() || sha.is_null()) continue;
    if (!sha.is_string() || !is_sha256_hex(sha.string())) {
      out.push_back(at(rf::kModule, digest) + ": " + text_of(sha) + " is neither null nor 64 lowercase hex digits");
    } else if (not_exported) {
      out.push_back(at(rf::kModule, digest) + ": must be null while the export did not run");
    }
  }
}

// One input's range: null, or [low, high) integers with low < high, for an integer input only.
void check_range(const JsonView& range, const std::string& where, std::string_view dtype, Problems& out) {
  if (!range.exists() || range.is_null()) return;
  const std::string w = at(where, rf::input_key::kRange);
  if (!range.is_array() || range.size() != 2) {
    out.push_back(w + ": must be null or [low, high), not " + text_of(range));
    return;
  }
  JsonView low, high;
  std::size_t i = 0;
  for (const JsonView v : range.items()) (i++ == 0 ? low : high) = v;
  const auto low_value = low.int64(), high_value = high.int64();
  if (!low_value || !high_value || *low_value >= *high_value) {
    out.push_back(w + ": " + text_of(range) + " is not two integers low < high");
  } else if (!dtype.empty() && !is_integer_dtype(dtype)) {
    out.push_back(w + ": a range is for an integer input only, not " + quote(dtype));
  }
}

// One input spec; false when it cannot be compared with a case.
bool read_input(const JsonView& item, const std::string& where, SpecInput& in, Problems& out) {
  namespace key = rf::input_key;
  if (!is_object_or_report(item, where, out)) return false;
  const JsonView hides = item[key::kHides];
  bool ok = hides.exists() ? exact_keys(item, where, key::kKeysWithHides, out) : exact_keys(item, where, key::kKeys, out);
  const JsonView name = item[key::kName];
  if (name.is_string() && !name.string().empty()) {
    in.name = name.string();
  } else if (name.exists()) {
    out.push_back(at(where, key::kName) + ": must be a non-empty string, not " + text_of(name));
    ok = false;
  }
  const JsonView dtype = item[key::kDtype];
  if (is_input_dtype(dtype)) {
    in.dtype = dtype.string();
  } else if (dtype.exists()) {
    out.push_back(at(where, key::kDtype) +
                  ": must be one of float32, float64, float16, bfloat16, int64, int32, int8, uint8, bool, not " +
                  text_of(dtype));
    ok = false;
  }
  const JsonView shape = item[key::kShape];
  if (!shape.is_array() || shape.size() > module_limits::kMaxRank) {
    if (shape.exists()) out.push_back(at(where, key::kShape) + ": must be a list of at most 8 sizes, not " + text_of(shape));
    ok = false;
  }
  std::size_t i = 0;
  for (const JsonView d : shape.items()) {
    SpecSize size;
    if (const auto n = dim_size(d)) {
      size.fixed = n;
    } else if (d.is_string() && is_plain_name(std::string(d.string()))) {
      size.symbol = d.string();
    } else {
      out.push_back(at(where, key::kShape) + "[" + std::to_string(i) + "]: must be " + kSizeRule + ", not " + text_of(d));
      ok = false;
    }
    in.shape.push_back(std::move(size));
    ++i;
  }
  check_range(item[key::kRange], where, in.dtype, out);
  if (hides.exists()) {
    in.hides.emplace();
    for (const JsonView name : hides.items()) in.hides->emplace_back(name.is_string() ? name.string() : "");
    if (!hides.is_array() || std::find(in.hides->begin(), in.hides->end(), "") != in.hides->end()) {
      out.push_back(at(where, key::kHides) + ": must be a list of output names, not " + text_of(hides));
      in.hides.reset();
    }
  }
  return ok;
}

bool read_inputs(const JsonView& inputs, ModuleSpecs& specs, Problems& out) {
  if (!inputs.exists()) return false;
  if (!inputs.is_array() || inputs.empty() || inputs.size() > module_limits::kMaxInputs) {
    out.push_back(std::string(rf::kInputs) + ": must be a list of 1 to 16 inputs, not " + text_of(inputs));
    return false;
  }
  bool ok = true;
  std::set<std::string> names;
  std::size_t i = 0;
  for (const JsonView item : inputs.items()) {
    const std::string where = std::string(rf::kInputs) + "[" + std::to_string(i++) + "]";
    SpecInput in;
    if (!read_input(item, where, in, out)) ok = false;
    if (!in.name.empty() && !names.insert(in.name).second) {
      out.push_back(at(where, rf::input_key::kName) + ": " + quote(in.name) + " names an input before it");
      ok = false;
    }
    specs.inputs.push_back(std::move(in));
  }
  return ok;
}

bool read_dims(const JsonView& dims, ModuleSpecs& specs, Problems& out) {
  if (!dims.exists()) return false;
  if (!is_object_or_report(dims, rf::kDims, out)) return false;
  bool ok = true;
  for (const auto& [name, values] : dims.members()) {
    const std::string where = at(rf::kDims, name);
    std::vector<std::int64_t> sizes;
    bool good = values.is_array() && !values.empty() && is_plain_name(std::string(name));
    for (const JsonView v : values.items()) {
      const auto n = dim_size(v);
      if (!n || std::find(sizes.begin(), sizes.end(), *n) != sizes.end()) good = false;
      if (n) sizes.push_back(*n);
    }
    if (!good) {
      out.push_back(where + ": must be a plain name with a non-empty list of distinct integers 1..65536, not " +
                    text_of(values));
      ok = false;
    }
    specs.dims.emplace_back(std::string(name), std::move(sizes));
  }
  return ok;
}

// Every symbol an input uses has a dims entry, and every dims entry is used.
bool check_dims_used(const ModuleSpecs& specs, Problems& out) {
  bool ok = true;
  std::set<std::string> used;
  for (std::size_t i = 0; i < specs.inputs.size(); ++i) {
    for (std::size_t k = 0; k < specs.inputs[i].shape.size(); ++k) {
      const std::string& symbol = specs.inputs[i].shape[k].symbol;
      if (symbol.empty()) continue;
      used.insert(symbol);
      const bool known = std::any_of(specs.dims.begin(), specs.dims.end(), [&](const auto& d) { return d.first == symbol; });
      if (!known) {
        out.push_back(std::string(rf::kInputs) + "[" + std::to_string(i) + "]." + rf::input_key::kShape + "[" +
                      std::to_string(k) + "]: " + quote(symbol) + " has no entry in " + rf::kDims);
        ok = false;
      }
    }
  }
  for (const auto& [name, values] : specs.dims) {
    if (!used.count(name)) {
      out.push_back(at(rf::kDims, name) + ": no input's shape uses it");
      ok = false;
    }
  }
  return ok;
}

void read_outputs(const JsonView& outputs, ModuleSpecs& specs, Problems& out) {
  if (!outputs.exists() || outputs.is_null()) return;
  std::vector<std::string> names;
  bool good = outputs.is_array();
  for (const JsonView v : outputs.items()) {
    if (v.is_string()) names.emplace_back(v.string()); else good = false;
  }
  const std::string problem = good ? outputs_problem(names) : "not a list of names";
  if (!problem.empty()) {
    out.push_back(std::string(rf::kOutputs) + ": must be null or a non-empty list of distinct names, not " +
                  text_of(outputs) + ": " + problem);
    return;
  }
  specs.outputs = std::move(names);
}

}  // namespace

ModuleSpecs check_module_specs(const JsonView& record, const Stages& view, Problems& out) {
  if (record[rf::kFormat].is_text(kModelFormat)) {
    check_model_variant(record, view, out);  // §11: the kind's variant stands where `module` does
  } else {
    check_module_object(record, view, out);
  }
  ModuleSpecs specs;
  const bool inputs_ok = read_inputs(record[rf::kInputs], specs, out);
  const bool dims_ok = read_dims(record[rf::kDims], specs, out);
  const bool used_ok = inputs_ok && dims_ok && check_dims_used(specs, out);
  specs.usable = used_ok;
  read_outputs(record[rf::kOutputs], specs, out);
  for (std::size_t i = 0; i < specs.inputs.size(); ++i) {  // the one rule a profile was checked with
    const SpecInput& in = specs.inputs[i];
    if (!in.hides) continue;
    if (const std::string problem = hides_problem(in.dtype, *in.hides, specs.outputs); !problem.empty()) {
      out.push_back(std::string(rf::kInputs) + "[" + std::to_string(i) + "]." + rf::input_key::kHides + ": " + problem);
    }
  }
  return specs;
}

}  // namespace nnx::validation
