// Private to src/record/validate_*.cc: the helpers the checks of validate_record share, and the checks
// each file contributes (doc/record-format.md §6). Every check appends "<where>: <what>" problems and never throws.
// The checks read the record where it lies (a JsonView of its tape: base/json_view.h); a value is built
// only to be quoted in a problem.
//
//   validate_record.cc     record_problems: top-level keys, strict JSON, the simple sections, tolerances;
//                          the dispatch on `format` (v1, §6; a module record, §10)
//   validate_stages.cc     stages, the summary (status/failure/level via derive_outcome), model_state
//   validate_cases.cc      input cases against the case table and the parity stage (either format's cases)
//   validate_artifacts.cc artifacts (paths, roles, sizes, hashes, the model entry) and opset
//   validate_triangulation.cc  parity's triangulation against the cases it names (a case's margin, its verdict)
//   validate_module_*.cc   a module record's own parts (validate_module.h)
//   validate_built_in.cc   §11's kind "built-in": the encoding of a valid v1 record (built_in_record_problems)
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_view.h"
#include "record/record_format.h"

namespace nnx::validation {

using json = nlohmann::json;
using Problems = std::vector<std::string>;

// object[key], or absent (read as null) when object is not an object or lacks key.
inline JsonView member(const JsonView& object, std::string_view key) { return object[key]; }
// The canonical text of a value (NaN and friends by name), as problems quote values; "null" when absent.
std::string text_of(const JsonView& value);
std::string text_of(const json& value);
std::string quote(std::string_view s);
// value == s for a JSON string value.
inline bool is_text(const JsonView& value, std::string_view s) { return value.is_text(s); }
// "<where>.<key>"
std::string at(std::string_view where, std::string_view key);

// "<where>.<key>: missing" / "<where>.<key>: unknown key" (the wording of FieldReader); true when no
// required key is missing.
// Unknown keys are named in key order, whatever order the object holds them in.
bool exact_keys(const JsonView& object, std::string_view where, std::span<const char* const> keys, Problems& out);
// "<where>.<key>: unknown key" for each member not in `keys`, in key order.
void report_unknown_keys(const JsonView& object, std::string_view where, std::span<const char* const> keys, Problems& out);
// exact_keys of an object read once against its keys (KnownMembers, base/json_view.h).
template <std::size_t N>
bool exact_keys(const KnownMembers<N>& object, std::string_view where, Problems& out) {
  bool complete = true;
  for (std::size_t i = 0; i < N; ++i) {
    if (!object.at(i).exists()) {
      out.push_back(at(where, object.keys()[i]) + ": missing");
      complete = false;
    }
  }
  if (object.known() != object.object().size()) report_unknown_keys(object.object(), where, object.keys(), out);
  return complete;
}
template <std::size_t N>
JsonView member(const KnownMembers<N>& object, const char* key) {
  return object[key];
}
// "<where>: must be an object, not <type>" unless value is an object.
bool is_object_or_report(const JsonView& value, std::string_view where, Problems& out);

// A stage as the checks after check_stages see it.
struct StageView {
  std::optional<StageStatus> status;   // a known status, else nullopt
  std::optional<FailureClass> failure;  // the stated class, when it is a class of this stage
};
using Stages = std::array<StageView, kStageCount>;
const StageView& stage(const Stages& view, Stage s);

// validate_record.cc: a module or successor-format record's session (§11, "session settings").
void check_settings(const JsonView& session, Problems& out);
// ... and its runtime.provider_options (§11), where present.
void check_provider_options(const JsonView& runtime, Problems& out);

// validate_built_in.cc: every problem of a record of §11's kind "built-in" (record_problems' answer for it).
Problems built_in_record_problems(const json& record);

// validate_stages.cc
Stages check_stages(const JsonView& record, Problems& out);
void check_summary(const JsonView& record, const Stages& view, Problems& out);
void check_model_state(const JsonView& record, const Stages& view, Problems& out);

// validate_cases.cc
// The rule of a case's own fields beside the shared ten (v1's `shape`; a module record's dims, inputs and
// outputs): called once per case object, in order, at the place of `shape`; false when the case table
// may not be applied to the case.
using CaseShapeRule = std::function<bool(const JsonView& item, const std::string& label, Problems& out)>;
// The input cases of a record whose cases hold `keys`: every case's fields (name, seed, expect, outcome,
// passed, failure, errors, detail; `shape_rule` for the rest), the case table, the parity stage.
template <std::size_t N>
void check_case_list(const JsonView& record, const Stages& view, const std::array<const char*, N>& keys,
                     const CaseShapeRule& shape_rule, Problems& out);
extern template void check_case_list(const JsonView&, const Stages&, const std::array<const char*, 10>&,
                                     const CaseShapeRule&, Problems&);
extern template void check_case_list(const JsonView&, const Stages&, const std::array<const char*, 12>&,
                                     const CaseShapeRule&, Problems&);
// v1's cases (§5): check_case_list with `shape`.
void check_cases(const JsonView& record, const Stages& view, Problems& out);

// validate_triangulation.cc (either format's): each entry of stages.parity.detail.triangulation names a
// compared case once, and its margin's verdict (margin_within, base/tolerance_compare.h) is the case's.
void check_triangulation(const JsonView& record, Problems& out);

// validate_artifacts.cc
// One entry of artifacts.files with a valid path and a known role: its normalised path, role and place.
struct ListedFile {
  std::string path;
  std::string role;
  std::string where;
};
// `module_roles`: the record may list stored tensors (rf::kModuleRoles, §10) besides v1's roles.
std::vector<ListedFile> check_artifacts(const JsonView& record, const Stages& view, bool module_roles,
                                        Problems& out);
void check_opset(const JsonView& record, const Stages& view, Problems& out);

}  // namespace nnx::validation
