// Private to src/record/validate_*.cc: a module record's own rules (doc/record-format.md §10), beside the
// rules both formats share (validate_internal.h). Every check appends "<where>: <what>" and never throws.
// The rules on what a profile states itself (outputs, the cases' names, a refusal case's folder) are
// profile/module_spec_rules.h's, which the profile check calls too.
//
//   validate_module_specs.cc   module, inputs, dims, outputs: the specs a module record's cases are read against
//   validate_module_cases.cc   each case's dims, inputs and outputs against the specs and the stored-tensor
//                              layout (artifacts/layout.h); the files the cases name against artifacts.files
//   validate_exact_outputs.cc  parity's exact_outputs and dtype_differs (integer and bool outputs) against the cases
//   validate_vacuous_tolerance.cc  parity's vacuous_tolerance against the record's tolerances
//   validate_dtype_tolerances.cc   parity's dtype_tolerances (half outputs) against the record's tolerances
//   validate_precision.cc      tolerances.precision and the precision details of export and parity
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/precision.h"
#include "base/tolerance_compare.h"
#include "record/validate_internal.h"

namespace nnx::validation {

// One size of an input spec's shape: fixed, or a symbolic dim's name.
struct SpecSize {
  std::optional<std::int64_t> fixed;
  std::string symbol;
};

struct SpecInput {
  std::string name;
  std::string dtype;
  std::vector<SpecSize> shape;
  std::optional<std::vector<std::string>> hides;  // when given: checked against outputs (module_spec_rules.h)
};

// The record's inputs, dims and outputs as far as they are well formed.
struct ModuleSpecs {
  bool usable = false;  // inputs and dims are well formed: a case can be compared with them
  std::vector<SpecInput> inputs;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> dims;  // in the record's order
  std::optional<std::vector<std::string>> outputs;                       // the names, when stated
};

// validate_model_variant.cc: the `model` of an nnx.model-conformance/1 record (§11), in place of `module`.
void check_model_variant(const JsonView& record, const Stages& view, Problems& out);

// validate_module_specs.cc: module (factory, class, the digests against the export stage), inputs, dims
// and outputs.
ModuleSpecs check_module_specs(const JsonView& record, const Stages& view, Problems& out);

// A stored tensor's file a case names, and where.
struct NamedFile {
  std::string path;
  std::string where;
};

// validate_module_cases.cc: check_module_specs, then the input cases (check_case_list with the module's
// case keys); returns the files the cases name.
std::vector<NamedFile> check_module_record(const JsonView& record, const Stages& view, Problems& out);
// validate_exact_outputs.cc: `check` on each entry of a module record's stages.parity.detail.<key> with its
// place ("stages.parity.detail.<key>[i]") when the key is present; a problem instead when it is not a
// non-empty list.
void for_each_parity_entry(const JsonView& record, const char* key, Problems& out,
                           const std::function<void(const JsonView& entry, const std::string& where)>& check);
// validate_exact_outputs.cc: stages.parity.detail's exact_outputs and dtype_differs, where present.
void check_exact_outputs(const JsonView& record, Problems& out);
// validate_dtype_tolerances.cc: stages.parity.detail.dtype_tolerances, where present; the record's tolerances
// (nullopt when they are not numbers; a precision's own when they name one), and the tolerance an output was judged by (its dtype's, else those).
void check_dtype_tolerances(const JsonView& record, Problems& out);
std::optional<Tolerance> record_tolerance(const JsonView& record);
Tolerance tolerance_of_output(const JsonView& record, std::string_view output, const Tolerance& profile);
// validate_precision.cc: tolerances.precision and the export's and parity's `precision` details; the precision
// a record's tolerances name (nullopt: float32, or not a precision).
void check_precision(const JsonView& record, Problems& out);
// Whether a record's kind may have a precision: a kind the tool exports from the user's model (model_kind.h).
bool takes_precision(const JsonView& record);
std::optional<Precision> record_precision(const JsonView& record);
// validate_vacuous_tolerance.cc: stages.parity.detail.vacuous_tolerance, where present.
void check_vacuous_tolerance(const JsonView& record, Problems& out);
// Once check passed: every named file is listed with the role stored_tensor_role gives, and every listed
// stored tensor is named by a case.
void check_stored_files(const std::vector<NamedFile>& named, const std::vector<ListedFile>& listed,
                        const Stages& view, Problems& out);

}  // namespace nnx::validation
