// A module record's input cases (doc/record-format.md §10): v1's case rules (check_case_list) with each
// case's dims, inputs and outputs checked against the record's specs and the stored-tensor layout of
// artifacts/layout.h; then the files the cases name against artifacts.files once check passed.
#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>

#include "artifacts/layout.h"
#include "base/json_fields.h"
#include "base/module_record_vocabulary.h"
#include "base/tensor.h"
#include "profile/module_spec_rules.h"
#include "record/validate_module.h"

namespace nnx::validation {
namespace {

namespace case_key = rf::case_key;
namespace mkey = rf::module_case_key;

// v1's case keys with shape replaced by dims, inputs and outputs, in the record's order (§10).
constexpr std::array<const char*, 12> kModuleCaseKeys = {
    case_key::kName,    mkey::kDims,            mkey::kInputs,          mkey::kOutputs,
    case_key::kSeed,    case_key::kExpect,      case_key::kOutcome,     case_key::kPassed,
    case_key::kFailure, case_key::kMaxAbsError, case_key::kMaxRelError, case_key::kDetail};
constexpr std::array<const char*, 4> kInputKeys = {rf::input_key::kName, rf::input_key::kDtype, rf::input_key::kShape,
                                                   mkey::kFile};
// An input a data set gave (profile/given_inputs.h) also names the file it was given as.
constexpr std::array<const char*, 5> kGivenInputKeys = {rf::input_key::kName, rf::input_key::kDtype,
                                                        rf::input_key::kShape, mkey::kFile, mkey::kGiven};
constexpr std::array<const char*, 5> kOutputKeys = {rf::input_key::kName, rf::input_key::kDtype, rf::input_key::kShape,
                                                    mkey::kFile, mkey::kOracleFile};

struct CaseWalk {
  const ModuleSpecs& specs;
  std::optional<StageStatus> exported;
  std::size_t match_cases = 0;              // the k of the next case expected to match
  CaseNames names;                           // the cases' names, each with the label of its first case
  std::vector<NamedFile> named;
};

// One case: where its tensors are stored, and the dims' values it states (when they are the specs').
struct CaseAt {
  const std::string& label;
  std::optional<std::size_t> match;  // k, for a case expected to match
  bool refusal = false;
  std::string name;
  std::optional<std::map<std::string, std::int64_t>> dims;
};

std::string sizes_text(const std::vector<std::int64_t>& sizes) { return text_of(json(sizes)); }

// A shape of sizes >= `least`; nullopt when it is not one.
std::optional<std::vector<std::int64_t>> read_shape(const JsonView& shape, std::int64_t least) {
  if (!shape.is_array()) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const JsonView d : shape.items()) {
    const auto size = d.int64();
    if (!size || *size < least) return std::nullopt;
    out.push_back(*size);
  }
  return out;
}

bool check_case_dims(const ModuleSpecs& specs, const JsonView& dims, CaseAt& c, Problems& out) {
  const std::string where = at(c.label, mkey::kDims);
  if (!is_object_or_report(dims, where, out)) return false;
  if (!specs.usable) return true;
  std::vector<std::string> names, want;
  for (const auto& m : dims.members()) names.emplace_back(m.key);
  for (const auto& d : specs.dims) want.push_back(d.first);
  if (names != want) {
    out.push_back(where + ": names " + text_of(json(names)) + ", not every dim of " + rf::kDims + " in its order (" +
                  text_of(json(want)) + ")");
    return false;
  }
  bool ok = true;
  std::map<std::string, std::int64_t> values;
  for (const auto& [name, sizes] : specs.dims) {
    const JsonView v = dims[name];
    const auto value = v.int64();
    const bool known = value && std::find(sizes.begin(), sizes.end(), *value) != sizes.end();
    if (!known) {
      out.push_back(at(where, name) + ": " + text_of(v) + " is not one of " + at(rf::kDims, name) + " " + sizes_text(sizes));
      ok = false;
    } else {
      values[name] = *value;
    }
  }
  if (ok) c.dims = std::move(values);
  return ok;
}

// The file a stored tensor must have (empty when the case's kind is unknown).
std::string expected_file(const CaseAt& c, std::size_t j, bool output, bool oracle = false) {
  if (c.match && oracle) return oracle_output_path(*c.match, j);
  if (c.match) return output ? test_output_path(*c.match, j) : test_input_path(*c.match, j);
  if (c.refusal && !output) return refusal_input_path(c.name, j);
  return "";
}

void check_file(CaseWalk& walk, const JsonView& file, const std::string& where, const std::string& want, Problems& out) {
  if (!file.is_string() || file.string() != want) {
    out.push_back(where + ": " + text_of(file) + " is not " + quote(want) + " (the stored-tensor layout)");
  }
  if (file.is_string()) walk.named.push_back({std::string(file.string()), where});
}

// A `given` input's file as a data set names it, in a case expected to match.
bool given_input_ok(const JsonView& given, const CaseAt& c) {
  static const std::regex kGivenFile("test_data_set_[0-9]{1,9}/input_[0-9]{1,4}\\.pb");
  return c.match && given.is_string() && std::regex_match(std::string(given.string()), kGivenFile);
}

// One input against its spec; adds to `differing` the fixed sizes a refusal case changes.
bool check_case_input(CaseWalk& walk, const JsonView& t, const std::string& w, const CaseAt& c, std::size_t j,
                      std::size_t& differing, Problems& out) {
  if (!is_object_or_report(t, w, out)) return false;
  const JsonView given = t[mkey::kGiven];
  bool ok = given.exists() ? exact_keys(t, w, kGivenInputKeys, out) : exact_keys(t, w, kInputKeys, out);
  if (given.exists() && !given_input_ok(given, c)) {
    out.push_back(at(w, mkey::kGiven) + ": " + text_of(given) + " is not test_data_set_<N>/input_<j>.pb of a case " +
                  "expected to match (the data-set file that gave the input)");
    ok = false;
  }
  const SpecInput* spec = walk.specs.usable ? &walk.specs.inputs[j] : nullptr;
  const JsonView name = t[rf::input_key::kName], dtype = t[rf::input_key::kDtype];
  if (spec && !name.is_text(spec->name)) {
    out.push_back(at(w, rf::input_key::kName) + ": " + text_of(name) + " is not " + quote(spec->name) + ", the name of " +
                  rf::kInputs + "[" + std::to_string(j) + "]");
    ok = false;
  }
  if (spec && !dtype.is_text(spec->dtype)) {
    out.push_back(at(w, rf::input_key::kDtype) + ": " + text_of(dtype) + " is not " + quote(spec->dtype));
    ok = false;
  }
  const auto shape = read_shape(t[rf::input_key::kShape], 1);
  if (!shape) {
    out.push_back(at(w, rf::input_key::kShape) + ": " + text_of(t[rf::input_key::kShape]) +
                  " is not a list of positive integers");
    ok = false;
  } else if (spec && c.dims) {
    std::vector<std::int64_t> want;
    for (const auto& s : spec->shape) want.push_back(s.fixed ? *s.fixed : c.dims->at(s.symbol));
    bool symbolic_differs = shape->size() != want.size();
    for (std::size_t i = 0; !symbolic_differs && i < want.size(); ++i) {
      if ((*shape)[i] == want[i]) continue;
      if (spec->shape[i].fixed) ++differing; else symbolic_differs = true;
    }
    if (symbolic_differs || (!c.refusal && *shape != want)) {
      out.push_back(at(w, rf::input_key::kShape) + ": " + sizes_text(*shape) + " is not " + rf::kInputs + "[" +
                    std::to_string(j) + "]'s shape at the case's dims (" + sizes_text(want) + ")" +
                    (c.refusal ? " but for one fixed size" : ""));
      ok = false;
    }
  }
  const std::string want = expected_file(c, j, false);
  if (!want.empty()) check_file(walk, t[mkey::kFile], at(w, mkey::kFile), want, out);
  return ok;
}

bool check_case_inputs(CaseWalk& walk, const JsonView& inputs, const CaseAt& c, Problems& out) {
  const std::string where = at(c.label, mkey::kInputs);
  if (!inputs.is_array() || (walk.specs.usable && inputs.size() != walk.specs.inputs.size())) {
    out.push_back(where + ": must be a list of the " + std::to_string(walk.specs.inputs.size()) + " inputs of " +
                  rf::kInputs + ", not " + text_of(inputs));
    return false;
  }
  bool ok = true;
  std::size_t j = 0, differing = 0;
  for (const JsonView t : inputs.items()) {
    const std::string w = where + "[" + std::to_string(j) + "]";
    if (!check_case_input(walk, t, w, c, j++, differing, out)) ok = false;
  }
  if (ok && c.refusal && c.dims && walk.specs.usable && differing != 1) {
    out.push_back(where + ": a refusal case differs from " + rf::kInputs + " at its dims in exactly one fixed size, not " +
                  std::to_string(differing));
    ok = false;
  }
  return ok;
}

bool check_case_output(CaseWalk& walk, const JsonView& o, const std::string& w, const CaseAt& c, std::size_t j,
                       Problems& out) {
  if (!is_object_or_report(o, w, out)) return false;
  bool ok = exact_keys(o, w, kOutputKeys, out);
  const JsonView name = o[rf::input_key::kName];
  const auto& names = walk.specs.outputs;
  if (!name.is_string() || name.string().empty() || (names && j < names->size() && name.string() != (*names)[j])) {
    out.push_back(at(w, rf::input_key::kName) + ": " + text_of(name) + " is not " +
                  (names && j < names->size() ? quote((*names)[j]) + ", " + rf::kOutputs + "[" + std::to_string(j) + "]"
                                              : std::string("a non-empty string")));
    ok = false;
  }
  const JsonView dtype = o[rf::input_key::kDtype];
  if (!dtype.is_string() || !parse_dtype(dtype.string())) {
    out.push_back(at(w, rf::input_key::kDtype) + ": " + text_of(dtype) + " is not a tensor dtype (base/tensor.h)");
    ok = false;
  }
  if (!read_shape(o[rf::input_key::kShape], 0)) {
    out.push_back(at(w, rf::input_key::kShape) + ": " + text_of(o[rf::input_key::kShape]) + " is not a list of sizes >= 0");
    ok = false;
  }
  if (!c.match) return ok;
  check_file(walk, o[mkey::kFile], at(w, mkey::kFile), expected_file(c, j, true), out);
  if (const JsonView oracle = o[mkey::kOracleFile]; !oracle.is_null()) {
    check_file(walk, oracle, at(w, mkey::kOracleFile), expected_file(c, j, true, true), out);
  }
  return ok;
}

bool check_case_outputs(CaseWalk& walk, const JsonView& outputs, const CaseAt& c, Problems& out) {
  const std::string where = at(c.label, mkey::kOutputs);
  const bool exported = walk.exported == StageStatus::passed;
  if (outputs.is_null()) {
    if (!c.match || !exported) return true;
    out.push_back(where + ": null although the export passed (a case expected to match has outputs then)");
    return false;
  }
  if (c.refusal) {
    out.push_back(where + ": must be null for a case expected to be rejected, not " + text_of(outputs));
    return false;
  }
  bool ok = true;
  if (walk.exported && !exported) {
    out.push_back(where + ": must be null until the export passed");
    ok = false;
  }
  const auto& names = walk.specs.outputs;
  if (!outputs.is_array() || outputs.empty() || (names && outputs.size() != names->size())) {
    out.push_back(where + ": must be null or a list of the outputs" +
                  (names ? " (" + std::to_string(names->size()) + ", as " + rf::kOutputs + ")" : std::string()) +
                  ", not " + text_of(outputs));
    return false;
  }
  std::size_t j = 0;
  for (const JsonView o : outputs.items()) {
    const std::string w = where + "[" + std::to_string(j) + "]";
    if (!check_case_output(walk, o, w, c, j++, out)) ok = false;
  }
  return ok;
}

// The module's part of one case: its name's uniqueness, dims, inputs and outputs (CaseShapeRule).
bool check_module_case(CaseWalk& walk, const JsonView& item, const std::string& label, Problems& out) {
  CaseAt c{label, std::nullopt, false, "", std::nullopt};
  const JsonView name = item[case_key::kName];
  if (name.is_string()) c.name = name.string();
  bool ok = true;
  if (!c.name.empty()) {
    if (const auto earlier = walk.names.add(c.name, label)) {
      out.push_back(at(label, case_key::kName) + ": names the same case as " + *earlier);
    }
  }
  const JsonView expect = item[case_key::kExpect];
  if (expect.is_text(rf::kExpectMatch)) c.match = walk.match_cases++;
  c.refusal = expect.is_text(rf::kExpectRejected);
  const std::string refusal_problem = c.refusal && !c.name.empty() ? refusal_name_problem(c.name) : "";
  if (!refusal_problem.empty()) {
    out.push_back(at(label, case_key::kName) + ": " + quote(c.name) + " " + refusal_problem);
    c.refusal = false;  // no folder to compare with
    ok = false;
  }
  if (!check_case_dims(walk.specs, item[mkey::kDims], c, out)) ok = false;
  if (!check_case_inputs(walk, item[mkey::kInputs], c, out)) ok = false;
  if (!check_case_outputs(walk, item[mkey::kOutputs], c, out)) ok = false;
  return ok;
}

}  // namespace

std::vector<NamedFile> check_module_record(const JsonView& record, const Stages& view, Problems& out) {
  const ModuleSpecs specs = check_module_specs(record, view, out);
  CaseWalk walk{specs, stage(view, Stage::export_model).status, 0, {}, {}};
  const CaseShapeRule rule = [&walk](const JsonView& item, const std::string& label, Problems& problems) {
    return check_module_case(walk, item, label, problems);
  };
  check_case_list(record, view, kModuleCaseKeys, rule, out);
  check_exact_outputs(record, out);
  check_dtype_tolerances(record, out);
  check_vacuous_tolerance(record, out);
  check_precision(record, out);
  return std::move(walk.named);
}

void check_stored_files(const std::vector<NamedFile>& named, const std::vector<ListedFile>& listed,
                        const Stages& view, Problems& out) {
  if (stage(view, Stage::check).status != StageStatus::passed) return;
  std::map<std::string, const ListedFile*> by_path;
  for (const auto& f : listed) by_path.emplace(f.path, &f);
  std::set<std::string> names;
  for (const auto& n : named) {
    names.insert(n.path);
    const auto it = by_path.find(n.path);
    const char* role = stored_tensor_role(n.path);
    if (it == by_path.end()) {
      out.push_back(n.where + ": " + quote(n.path) + " is not listed in " + at(rf::kArtifacts, rf::artifacts_key::kFiles));
    } else if (role && it->second->role != role) {
      out.push_back(at(it->second->where, rf::file_key::kRole) + ": " + quote(it->second->role) + ", but " +
                    quote(n.path) + " is a stored tensor of role " + quote(role));
    }
  }
  for (const auto& f : listed) {
    const bool stored = std::any_of(rf::kModuleRoles.begin(), rf::kModuleRoles.end(),
                                    [&](const char* r) { return f.role == r; });
    if (stored && !names.count(f.path)) {
      out.push_back(f.where + ": stored tensor " + quote(f.path) + " is named by no input case");
    }
  }
}

}  // namespace nnx::validation
