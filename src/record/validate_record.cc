#include "record/validate_record.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "artifacts/artifact_path.h"
#include "artifacts/artifacts.h"
#include "base/failure.h"
#include "base/json_fields.h"
#include "base/json_python.h"
#include "profile/profile_limits.h"
#include "record/profile_rebuild.h"
#include "record/record.h"
#include "base/sha256.h"

namespace nnx {
namespace {

using Problems = std::vector<std::string>;

constexpr std::array<const char*, 17> kRecordKeys = {
    "format",   "profile",  "status",  "failure", "level",   "source",      "config",     "exporter",    "opset",
    "artifacts", "versions", "runtime", "dtype",   "input_cases", "tolerances", "model_state", "stages"};

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string text_of(const json& value) { return display_json(value); }

std::string quote(const std::string& s) { return text_of(json(s)); }

// "<where>.<key>: missing" / "<where>.<key>: unknown key" (the wording of FieldReader); true when no
// required key is missing.
bool exact_keys(const json& object, const std::string& where, std::initializer_list<const char*> keys,
                Problems& out) {
  bool complete = true;
  std::set<std::string> allowed;
  for (const char* k : keys) {
    allowed.insert(k);
    if (!object.contains(k)) {
      out.push_back(where + "." + k + ": missing");
      complete = false;
    }
  }
  for (const auto& [k, v] : object.items()) {
    if (!allowed.count(k)) out.push_back(where + "." + k + ": unknown key");
  }
  return complete;
}

bool is_object_or_report(const json& value, const std::string& where, Problems& out) {
  if (value.is_object()) return true;
  out.push_back(where + ": must be an object, not " + json_type_name(value));
  return false;
}

// ---- strict JSON ---------------------------------------------------------------------------------------

// Same value and same JSON type (an integer is never a float; floats compare bit for bit).
bool same_value(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) return a.dump() == b.dump();
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json::value_t::number_float: {
      const double x = a.get<double>(), y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case json::value_t::object: {
      if (a.size() != b.size()) return false;
      for (auto it = a.begin(); it != a.end(); ++it) {
        auto other = b.find(it.key());
        if (other == b.end() || !same_value(*it, *other)) return false;
      }
      return true;
    }
    case json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same_value(a[i], b[i])) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

void check_strict_json(const json& record, Problems& out) {
  // Non-finite numbers and values JSON cannot hold, found without recursion (any depth).
  std::size_t found = 0;
  std::vector<std::pair<const json*, std::string>> todo = {{&record, "record"}};
  while (!todo.empty()) {
    auto [value, path] = todo.back();
    todo.pop_back();
    if (value->is_number_float() && !std::isfinite(value->get<double>())) {
      const double d = value->get<double>();
      out.push_back("not strict JSON: " + path + " is " + (std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity"));
      ++found;
    } else if (value->is_binary() || value->is_discarded()) {
      out.push_back("not strict JSON: " + path + " is " + value->type_name() + ", not a JSON value");
      ++found;
    } else if (value->is_object()) {
      for (auto it = value->begin(); it != value->end(); ++it) todo.push_back({&*it, path + "." + it.key()});
    } else if (value->is_array()) {
      for (std::size_t i = 0; i < value->size(); ++i) {
        todo.push_back({&(*value)[i], path + "[" + std::to_string(i) + "]"});
      }
    }
  }
  if (found) return;
  try {
    if (!same_value(record, parse_strict_json(dumps_canonical(record)))) {
      out.push_back("not strict JSON: the record does not survive a canonical round trip unchanged");
    }
  } catch (const std::exception& e) {
    out.push_back(std::string("not strict JSON: ") + e.what());
  }
}

// ---- stages, status, failure, level --------------------------------------------------------------------

struct StageView {
  std::optional<std::string> status;  // a known status, else nullopt
  json failure;                       // as given, when it is a class of this stage; else null
};

using Stages = std::array<StageView, 5>;

Stages check_stages(const json& record, Problems& out) {
  Stages view;
  const json& stages = member(record, "stages");
  if (!record.contains("stages") || !is_object_or_report(stages, "stages", out)) return view;
  for (const auto& [k, v] : stages.items()) {
    if (!parse_stage(k)) out.push_back("stages." + k + ": not one of the five stages");
  }
  std::optional<std::string> blocked_by;  // the first stage that did not pass
  for (Stage s : kStages) {
    const std::string name(stage_name(s));
    const std::string where = "stages." + name;
    StageView& sv = view[stage_index(s)];
    if (!stages.contains(name)) {
      out.push_back(where + ": missing");
      continue;
    }
    const json& st = stages[name];
    if (!is_object_or_report(st, where, out)) continue;
    exact_keys(st, where, {"status", "failure", "detail"}, out);
    const json& status = member(st, "status");
    if (status == "passed" || status == "failed" || status == "not_run") {
      sv.status = status.get<std::string>();
    } else {
      out.push_back(where + ".status: unknown status " + text_of(status));
    }
    const json& failure = member(st, "failure");
    if (sv.status == "failed") {
      if (failure.is_null()) {
        out.push_back(where + ": failed without a failure class");
      } else if (!failure.is_string() || !parse_failure(failure.get<std::string>())) {
        out.push_back(where + ".failure: unknown failure class " + text_of(failure));
      } else if (const Stage owner = failure_stage(*parse_failure(failure.get<std::string>())); owner != s) {
        out.push_back(where + ".failure: " + text_of(failure) + " is a failure class of stage " +
                      std::string(stage_name(owner)) + ", not " + name);
      } else {
        sv.failure = failure;
      }
    } else if (sv.status && !failure.is_null()) {
      out.push_back(where + ".failure: " + text_of(failure) + " on a stage that did not fail (status \"" +
                    *sv.status + "\")");
    }
    if (blocked_by && sv.status && *sv.status != "not_run") {
      out.push_back(where + ": ran after " + *blocked_by + " did not pass");
    }
    if (!blocked_by && sv.status && *sv.status != "passed") blocked_by = name;
  }
  return view;
}

const StageView& stage(const Stages& view, Stage s) { return view[stage_index(s)]; }

void check_summary(const json& record, const Stages& view, Problems& out) {
  const json& status = member(record, "status");
  const json& failure = member(record, "failure");
  const json& level = member(record, "level");
  const bool status_known = status == "passed" || status == "failed";
  if (record.contains("status") && !status_known) out.push_back("status: unknown status " + text_of(status));
  const bool failure_known = failure.is_null() || (failure.is_string() && parse_failure(failure.get<std::string>()));
  if (record.contains("failure") && !failure_known) {
    out.push_back("failure: unknown failure class " + text_of(failure));
  }
  const bool level_known = level.is_string() && parse_level(level.get<std::string>());
  if (record.contains("level") && !level_known) out.push_back("level: unknown level " + text_of(level));

  for (const auto& sv : view) {
    if (!sv.status) return;  // the stages are already refused; nothing to compare with
  }
  bool all_passed = true;
  json first_failure = nullptr;
  std::string first_failed_stage;
  for (Stage s : kStages) {
    const StageView& sv = stage(view, s);
    if (*sv.status != "passed") all_passed = false;
    if (first_failed_stage.empty() && *sv.status == "failed") {
      first_failed_stage = stage_name(s);
      first_failure = sv.failure;
    }
  }
  const std::string want_status = all_passed ? "passed" : "failed";
  if (status_known && status != want_status) {
    out.push_back("status: " + text_of(status) + " contradicts the stages (they give \"" + want_status + "\")");
  }
  const bool first_failure_known = first_failed_stage.empty() || !first_failure.is_null();
  if (failure_known && first_failure_known && failure != first_failure) {
    out.push_back("failure: " + text_of(failure) + " contradicts the stages (they give " + text_of(first_failure) +
                  (first_failed_stage.empty() ? "" : ", the class of the first failed stage " + first_failed_stage) +
                  ")");
  }
  const std::string want_level = *stage(view, Stage::parity).status == "passed" ? "executed"
                                 : *stage(view, Stage::check).status == "passed" ? "structural"
                                                                                 : "none";
  if (level_known && level != want_level) {
    out.push_back("level: " + text_of(level) + " contradicts the stages (they give \"" + want_level + "\")");
  }
}

// ---- input cases ---------------------------------------------------------------------------------------

bool is_error_value(const json& v) {
  double d = 0.0;
  return v.is_null() || (json_number(v, d) && std::isfinite(d) && d >= 0.0);
}

bool is_seed(const json& v) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() < limits::kMaxSeed;
  return v.get<std::int64_t>() >= 0;
}

bool is_case_shape(const json& v) {
  if (!v.is_array() || v.size() != 2) return false;
  std::int64_t product = 1;
  for (const auto& d : v) {
    if (!d.is_number_integer()) return false;
    if (d.is_number_unsigned() && d.get<std::uint64_t>() > std::uint64_t(limits::kMaxCaseWidth)) return false;
    const std::int64_t n = d.get<std::int64_t>();
    if (n < 1 || n > limits::kMaxCaseWidth) return false;
    product *= n;
  }
  return product <= limits::kMaxCaseValues;
}

// The failure the case table of §5 gives an (outcome, expect) pair; nullopt when no run gives that pair.
std::optional<json> table_failure(const std::string& outcome, const std::string& expect) {
  if (outcome == "error") return json("runtime-error");
  if (expect == "match") {
    if (outcome == "match") return json(nullptr);
    if (outcome == "mismatch") return json("mismatch");
    if (outcome == "rejected") return json("input-contract");
  } else {
    if (outcome == "rejected") return json(nullptr);
    if (outcome == "accepted") return json("input-contract");
  }
  return std::nullopt;
}

// One case's keys and types; true when the case table may be applied to it.
bool check_case_fields(const json& c, const std::string& label, Problems& out) {
  bool ok = exact_keys(c, label, {"name", "shape", "seed", "expect", "outcome", "passed", "failure",
                                  "max_abs_error", "max_rel_error", "detail"},
                       out);
  auto bad = [&](const std::string& what) {
    out.push_back(label + "." + what);
    ok = false;
  };
  const json& name = member(c, "name");
  if (!name.is_string() || name.get<std::string>().empty()) bad("name: must be a non-empty string, not " + text_of(name));
  const json& shape = member(c, "shape");
  if (!is_case_shape(shape)) {
    bad("shape: " + text_of(shape) + " is not two integers, each 1..65537, with a product <= 2^24");
  }
  const json& seed = member(c, "seed");
  if (!is_seed(seed)) bad("seed: " + text_of(seed) + " is not an integer in [0, 2^63)");
  const json& expect = member(c, "expect");
  if (expect != "match" && expect != "rejected") bad("expect: must be \"match\" or \"rejected\", not " + text_of(expect));
  const json& outcome = member(c, "outcome");
  if (!outcome.is_null() && outcome != "match" && outcome != "mismatch" && outcome != "rejected" &&
      outcome != "accepted" && outcome != "error") {
    bad("outcome: " + text_of(outcome) + " is an outcome no run gives");
  }
  if (!member(c, "passed").is_boolean()) bad("passed: must be a boolean, not " + json_type_name(member(c, "passed")));
  const json& failure = member(c, "failure");
  if (!failure.is_null()) {
    const auto cls = failure.is_string() ? parse_failure(failure.get<std::string>()) : std::nullopt;
    if (!cls) {
      bad("failure: unknown failure class " + text_of(failure));
    } else if (failure_stage(*cls) != Stage::parity) {
      bad("failure: " + text_of(failure) + " is a failure class of stage " + std::string(stage_name(failure_stage(*cls))) +
          ", not parity");
    }
  }
  for (const char* key : {"max_abs_error", "max_rel_error"}) {
    if (!is_error_value(member(c, key))) bad(std::string(key) + ": must be null or a finite number >= 0, not " +
                                             text_of(member(c, key)));
  }
  const json& detail = member(c, "detail");
  if (!detail.is_null() && !detail.is_string()) bad("detail: must be null or a string, not " + json_type_name(detail));
  return ok;
}

// The case table of §5 for a case whose fields are well typed.
void check_case_table(const json& c, const std::string& label, Problems& out) {
  const json& outcome = c["outcome"];
  const json& failure = c["failure"];
  const bool passed = c["passed"].get<bool>();
  const bool has_abs = !c["max_abs_error"].is_null(), has_rel = !c["max_rel_error"].is_null();
  const bool has_detail = !c["detail"].is_null();
  if (outcome.is_null()) {
    if (passed || !failure.is_null() || has_abs || has_rel || has_detail) {
      out.push_back(label + ": a case without an outcome must be blank (passed false; failure, errors and detail null)");
    }
    return;
  }
  const std::string o = outcome.get<std::string>();
  const std::string expect = c["expect"].get<std::string>();
  const auto want = table_failure(o, expect);
  if (!want) {
    out.push_back(label + ": outcome \"" + o + "\" is not an outcome any run gives for expect \"" + expect + "\"");
  } else if (failure != *want) {
    out.push_back(label + ": outcome \"" + o + "\" with failure " + text_of(failure) +
                  " is not allowed for expect \"" + expect + "\" (the table gives " + text_of(*want) + ")");
  }
  if (passed != failure.is_null()) {
    out.push_back(label + ": passed " + (passed ? "true" : "false") + " with failure " + text_of(failure) +
                  " (a case passes iff its failure is null)");
  }
  const bool compared = o == "match" || (o == "mismatch" && (has_abs || has_rel));
  if (compared) {
    if (!has_abs || !has_rel) {
      out.push_back(label + ": compared outcome \"" + o + "\" must carry both max_abs_error and max_rel_error");
    }
    if (has_detail) out.push_back(label + ": compared outcome \"" + o + "\" must carry a null detail");
  } else {
    if (has_abs || has_rel) out.push_back(label + ": outcome \"" + o + "\" must carry null errors");
    if (!has_detail) out.push_back(label + ": outcome \"" + o + "\" must carry a string detail");
  }
}

void check_cases(const json& record, const Stages& view, Problems& out) {
  if (!record.contains("input_cases")) return;
  const json& cases = record["input_cases"];
  if (!cases.is_array()) {
    out.push_back("input_cases: must be a list, not " + json_type_name(cases));
    return;
  }
  const auto& parity = stage(view, Stage::parity);
  std::size_t valid_cases = 0;
  bool all_well_typed = true;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    std::string label = "input_cases[" + std::to_string(i) + "]";
    if (member(c, "name").is_string()) label += " (" + c["name"].get<std::string>() + ")";
    if (!is_object_or_report(c, label, out)) {
      all_well_typed = false;
      continue;
    }
    if (c.contains("expect") && c["expect"] == "match") ++valid_cases;
    if (!check_case_fields(c, label, out)) {
      all_well_typed = false;
      continue;
    }
    check_case_table(c, label, out);
    const json& outcome = c["outcome"];
    if (parity.status == "not_run" && !outcome.is_null()) {
      out.push_back(label + ": outcome " + text_of(outcome) + " although parity did not run");
    }
    if ((parity.status == "passed" || parity.status == "failed") && outcome.is_null()) {
      out.push_back(label + ": no outcome although parity ran");
    }
    if (parity.status == "passed" && c["passed"] != true) {
      out.push_back("stages.parity: passed although " + label + " did not pass");
    }
  }
  if (valid_cases == 0) out.push_back("input_cases: no valid (\"match\") case");

  // A failed parity names the first class (runtime-error, mismatch, input-contract) among its failing cases.
  if (parity.status == "failed" && !parity.failure.is_null() && all_well_typed) {
    json first = nullptr;
    for (const char* cls : {"runtime-error", "mismatch", "input-contract"}) {
      for (const auto& c : cases) {
        if (first.is_null() && c["failure"] == cls) first = cls;
      }
    }
    if (first.is_null()) {
      out.push_back("stages.parity: failed with " + text_of(parity.failure) + " but no input case failed");
    } else if (parity.failure != first) {
      out.push_back("stages.parity.failure: " + text_of(parity.failure) +
                    " is not the first class named by its failing cases (" + text_of(first) + ")");
    }
  }
}

// ---- model_state ---------------------------------------------------------------------------------------

void check_model_state(const json& record, const Stages& view, Problems& out) {
  if (!record.contains("model_state")) return;
  const json& state = record["model_state"];
  std::vector<std::string> unchanged_false;  // parts showing a change
  bool well_formed = true;
  if (!state.is_null()) {
    if (!state.is_object()) {
      out.push_back("model_state: must be null or an object, not " + json_type_name(state));
      return;
    }
    exact_keys(state, "model_state", {"parameters", "gradients", "modes"}, out);
    for (const char* part : {"parameters", "gradients", "modes"}) {
      const json& v = member(state, part);
      if (!v.is_boolean()) {
        if (state.contains(part)) out.push_back(std::string("model_state.") + part + ": must be a boolean, not " +
                                                json_type_name(v));
        well_formed = false;
      } else if (!v.get<bool>()) {
        unchanged_false.push_back(part);
      }
    }
  }
  const StageView& exported = stage(view, Stage::export_model);
  if (!exported.status) return;
  std::string changed;
  for (const auto& p : unchanged_false) changed += (changed.empty() ? "" : ", ") + p;
  if (*exported.status == "not_run") {
    if (!state.is_null()) out.push_back("model_state: present although the export did not run");
    return;
  }
  if (!well_formed) return;
  if (*exported.status == "passed") {
    if (state.is_null()) {
      out.push_back("model_state: null after a passed export");
    } else if (!unchanged_false.empty()) {
      out.push_back("model_state: not all true after a passed export (" + changed + " changed)");
    }
    return;
  }
  if (exported.failure == "state-changed") {
    if (state.is_null()) {
      out.push_back("model_state: null after state-changed (it must show the change)");
    } else if (unchanged_false.empty()) {
      out.push_back("model_state: shows no change after state-changed");
    }
  } else if (!exported.failure.is_null() && !unchanged_false.empty()) {
    out.push_back("model_state: shows a change (" + changed + ") after " + text_of(exported.failure));
  }
}

// ---- artifacts and opset -------------------------------------------------------------------------------

void check_artifact_files(const json& files, const std::string& model_path, bool checked, Problems& out) {
  if (!files.is_array()) {
    out.push_back("artifacts.files: must be a list, not " + json_type_name(files));
    return;
  }
  std::map<std::string, std::size_t> seen;  // normalised path -> first index
  std::size_t model_entries = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string where = "artifacts.files[" + std::to_string(i) + "]";
    const json& f = files[i];
    if (!is_object_or_report(f, where, out)) continue;
    exact_keys(f, where, {"path", "role", "bytes", "sha256"}, out);
    const json& path = member(f, "path");
    std::optional<std::string> normal;
    if (!path.is_string()) {
      out.push_back(where + ".path: must be a string, not " + json_type_name(path));
    } else {
      std::string why;
      normal = normalize_artifact_path(path.get<std::string>(), &why);
      if (!normal) {
        out.push_back(where + ".path: " + text_of(path) + " is not a valid artifact path (" + why + ")");
      } else if (auto [it, fresh] = seen.emplace(*normal, i); !fresh) {
        out.push_back(where + ".path: " + text_of(path) + " names the same file as artifacts.files[" +
                      std::to_string(it->second) + "] (" + quote(*normal) + ")");
      }
    }
    const json& role = member(f, "role");
    if (role != "model" && role != "external-data" && role != "sidecar") {
      out.push_back(where + ".role: unknown role " + text_of(role) + " (model, external-data or sidecar)");
    } else if (role == "model") {
      ++model_entries;
      if (normal && *normal != model_path) {
        out.push_back(where + ": role \"model\" but path " + text_of(path) + " is not artifacts.model (" +
                      quote(model_path) + ")");
      }
    }
    const json& bytes = member(f, "bytes");
    if (!bytes.is_number_integer() || (!bytes.is_number_unsigned() && bytes.get<std::int64_t>() < 0)) {
      out.push_back(where + ".bytes: must be a non-negative integer, not " + text_of(bytes));
    }
    const json& sha = member(f, "sha256");
    if (!sha.is_string() || !is_sha256_hex(sha.get<std::string>())) {
      out.push_back(where + ".sha256: " + text_of(sha) + " is not 64 lowercase hex digits");
    }
  }
  if (checked && model_entries != 1) {
    out.push_back("artifacts.files: a checked record must list exactly one model entry (" + quote(model_path) +
                  "), found " + std::to_string(model_entries));
  }
}

void check_artifacts(const json& record, const Stages& view, Problems& out) {
  if (!record.contains("artifacts")) return;
  const json& artifacts = record["artifacts"];
  if (!is_object_or_report(artifacts, "artifacts", out)) return;
  exact_keys(artifacts, "artifacts", {"directory", "model", "files"}, out);
  if (artifacts.contains("directory") && !artifacts["directory"].is_string()) {
    out.push_back("artifacts.directory: must be a string, not " + json_type_name(artifacts["directory"]));
  }
  if (artifacts.contains("model") && artifacts["model"] != kModelFile) {
    out.push_back("artifacts.model: must be \"" + std::string(kModelFile) + "\", not " + text_of(artifacts["model"]));
  }
  const bool checked = stage(view, Stage::check).status == "passed";
  if (artifacts.contains("files")) check_artifact_files(artifacts["files"], kModelFile, checked, out);
}

void check_opset(const json& record, const Stages& view, Problems& out) {
  if (!record.contains("opset")) return;
  const json& opset = record["opset"];
  if (!is_object_or_report(opset, "opset", out)) return;
  exact_keys(opset, "opset", {"requested", "model"}, out);
  if (opset.contains("requested")) {
    const json& requested = opset["requested"];
    const json& options = member(member(record, "exporter"), "options");
    const json& wanted = member(options, "opset_version");
    if (!requested.is_number_integer()) {
      out.push_back("opset.requested: must be an integer, not " + text_of(requested));
    } else if (options.is_object() && (!wanted.is_number_integer() || text_of(requested) != text_of(wanted))) {
      out.push_back("opset.requested: " + text_of(requested) + " is not the options' integer opset_version (" +
                    text_of(wanted) + ")");
    }
  }
  if (!opset.contains("model") || !stage(view, Stage::check).status) return;
  const json& model = opset["model"];
  if (stage(view, Stage::check).status != "passed") {
    if (!model.is_null()) out.push_back("opset.model: must be null until check passed");
    return;
  }
  if (!model.is_object() || model.empty()) {
    out.push_back("opset.model: a checked record must state the model's opset (a non-empty object), not " +
                  text_of(model));
    return;
  }
  for (const auto& [domain, version] : model.items()) {
    if (!version.is_number_integer()) {
      out.push_back("opset.model." + domain + ": must be an integer version, not " + text_of(version));
    }
  }
}

// ---- the other sections --------------------------------------------------------------------------------

void check_tolerances(const json& record, Problems& out) {
  if (!record.contains("tolerances")) return;
  const json& tolerances = record["tolerances"];
  if (!is_object_or_report(tolerances, "tolerances", out)) return;
  exact_keys(tolerances, "tolerances", {"rtol", "atol"}, out);
  for (const char* key : {"rtol", "atol"}) {
    if (!tolerances.contains(key)) continue;
    double d = 0.0;
    if (!json_number(tolerances[key], d) || !std::isfinite(d) || d < 0.0) {
      out.push_back(std::string("tolerances.") + key + ": must be a finite number >= 0, not " +
                    text_of(tolerances[key]));
    }
  }
}

void check_sections(const json& record, Problems& out) {
  if (record.contains("format") && record["format"] != kFormat) {
    out.push_back("format: must be \"" + std::string(kFormat) + "\", not " + text_of(record["format"]));
  }
  if (record.contains("profile") && !record["profile"].is_string()) {
    out.push_back("profile: must be a string, not " + json_type_name(record["profile"]));
  }
  for (const char* key : {"source", "versions"}) {
    if (record.contains(key)) is_object_or_report(record[key], key, out);
  }
  if (record.contains("config") && is_object_or_report(record["config"], "config", out)) {
    const json& sha = member(record["config"], "weights_sha256");
    if (!record["config"].contains("weights_sha256")) {
      out.push_back("config.weights_sha256: missing");
    } else if (!sha.is_string() || !is_sha256_hex(sha.get<std::string>())) {
      out.push_back("config.weights_sha256: " + text_of(sha) + " is not 64 lowercase hex digits");
    }
  }
  if (record.contains("exporter") && is_object_or_report(record["exporter"], "exporter", out)) {
    const json& exporter = record["exporter"];
    exact_keys(exporter, "exporter", {"name", "options"}, out);
    const json& options = member(exporter, "options");
    if (exporter.contains("options")) is_object_or_report(options, "exporter.options", out);
    if (exporter.contains("name") && member(options, "exporter") != exporter["name"]) {
      out.push_back("exporter.name: " + text_of(exporter["name"]) + " is unlike exporter.options.exporter " +
                    text_of(member(options, "exporter")));
    }
  }
  if (record.contains("runtime") && is_object_or_report(record["runtime"], "runtime", out)) {
    const json& runtime = record["runtime"];
    exact_keys(runtime, "runtime", {"name", "version", "provider", "session"}, out);
    if (runtime.contains("session") && text_of(runtime["session"]) != text_of(session_options_json())) {
      out.push_back("runtime.session: other session options " + text_of(runtime["session"]) + " than " +
                    text_of(session_options_json()));
    }
  }
}

void add_unique(Problems& all, const Problems& found) {
  std::set<std::string> seen(all.begin(), all.end());
  for (const auto& p : found) {
    if (seen.insert(p).second) all.push_back(p);
  }
}

}  // namespace

std::vector<std::string> record_problems(const json& record) {
  if (!record.is_object()) return {"record: must be an object, not " + json_type_name(record)};
  Problems out;
  for (const char* key : kRecordKeys) {
    if (!record.contains(key)) out.push_back(std::string("record.") + key + ": missing");
  }
  for (const auto& [key, value] : record.items()) {
    if (std::find(kRecordKeys.begin(), kRecordKeys.end(), key) == kRecordKeys.end()) {
      out.push_back("record." + key + ": unknown key");
    }
  }
  check_strict_json(record, out);
  check_sections(record, out);
  const Stages view = check_stages(record, out);
  check_summary(record, view, out);
  check_cases(record, view, out);
  check_model_state(record, view, out);
  check_artifacts(record, view, out);
  check_opset(record, view, out);
  check_tolerances(record, out);
  Problems unique;
  add_unique(unique, out);
  add_unique(unique, settings_problems(record));
  return unique;
}

void validate_record(const json& record) {
  const Problems problems = record_problems(record);
  if (problems.empty()) return;
  std::string message = "invalid record";
  if (record.is_object() && member(record, "profile").is_string()) {
    message += " for profile " + quote(record["profile"].get<std::string>());
  }
  message += " (" + std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems") + "):";
  for (const auto& p : problems) message += "\n  - " + p;
  throw ConformanceError(message);
}

}  // namespace nnx
