// The parity stage of a module record (doc/record-format.md §10; module_stages.h): every case runs on the
// stored inputs it names (the verified bytes the load stage kept: stages/module_tensors.h); the graph's own
// inputs are fed by name (an input the exporter dropped is not fed, and the detail says so). A refusal as an
// invalid argument is `rejected`, any other runtime failure `error` (v1's case table). A case that ran is
// compared output by output, matched by name, with the stored reference outputs (or, for
// `execute --reference torch`, PyTorch's recomputed ones: context.module_references), every element
// within |runtime - reference| <= atol + rtol * |reference| (base/tolerance_compare.h); its errors are the
// largest over its outputs. An integer or bool output compares exactly, near ties judged by the oracle's
// stored scores, and a dtype that is not PyTorch's is a finding of its own (stages/exact_outputs.h). An output
// that cannot be compared (missing, another dtype or shape: a detector's boxes) makes the case a mismatch naming
// each such output and both shapes, the others still compared and their errors said; a stored oracle whose shape
// is not its output's (the float64 copy found other boxes) is not measured against, the reason stated. A
// floating output an all-zero output would pass in every case is stated (stages/vacuous_tolerance.h). A
// float16 or bfloat16 output is judged under its dtype's tolerance (base/dtype_tolerance.h), stated. Positions
// a mask input hides (`hides`) are excluded from every comparison and counted (stages/dont_care.h). The
// triangulation measures the runtime and the reference against the stored float64 oracle where it was
// computed (a stored oracle holding a value that is not finite is not measured against: both departures are
// {max_abs_error: null, margin: null, reason}, and the record stays valid); the blame is
// stages/triangulation.h's, with `weights` when the export found state-dict entries nothing in the graph
// explains.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "base/dtype_tolerance.h"
#include "base/error.h"
#include "base/module_record_vocabulary.h"
#include "base/tolerance_compare.h"
#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/case_outcome.h"
#include "stages/dont_care.h"
#include "stages/exact_outputs.h"
#include "stages/module_reference.h"
#include "stages/module_stages.h"
#include "stages/module_tensors.h"
#include "stages/stages.h"
#include "stages/triangulation.h"
#include "stages/vacuous_tolerance.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace detail_key = rf::detail_key;

struct Evidence {
  bool runtime_departs = false;
  bool reference_departs = false;
  json triangulation = json::array();
  json exact_outputs = json::array();  // integer and bool outputs (exact_outputs.h)
  json dtype_differs = json::array();
  VacuousTolerance vacuous;  // floating outputs an all-zero output would pass in every case
  json dtype_tolerances = json::array();  // the tolerance each half-precision output was judged by
  json dont_care = json::array();  // positions excluded from the comparison (dont_care.h)
};

// The tolerance output `reference` is judged by (base/dtype_tolerance.h), stated once per half output.
Tolerance judged_by(const Tensor& reference, const Tolerance& profile, Evidence& evidence) {
  namespace dk = rf::dtype_tolerance_key;
  const Tolerance used = tolerance_for(reference.dtype, profile);
  if (!half_epsilon(reference.dtype)) return used;
  for (const auto& entry : evidence.dtype_tolerances) {
    if (entry[dk::kOutput] == reference.name) return used;
  }
  evidence.dtype_tolerances.push_back({{dk::kOutput, reference.name},
                                       {dk::kDtype, std::string(dtype_name(reference.dtype))},
                                       {dk::kRtol, used.rtol},
                                       {dk::kAtol, used.atol}});
  return used;
}

std::string names_of(const std::vector<Tensor>& tensors) {
  std::string out;
  for (const auto& t : tensors) out += (out.empty() ? "" : ", ") + t.name;
  return out.empty() ? "none" : out;
}

const Tensor* named(const std::vector<Tensor>& tensors, const std::string& name) {
  for (const auto& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// Whether a stored oracle has its output's shape (an exact output's scores: that shape + [candidates]); a
// detector's boxes need not (the float64 copy may find other boxes).
bool oracle_fits(const Tensor& oracle, const Tensor& reference) {
  if (!compares_exactly(reference.dtype)) return oracle.shape == reference.shape;
  return oracle.shape.size() == reference.shape.size() + 1 &&
         std::equal(reference.shape.begin(), reference.shape.end(), oracle.shape.begin());
}

// Why `actual` cannot be compared with `expected`, or "".
std::string incomparable(const Tensor* actual, const Tensor& expected, const std::vector<Tensor>& outputs) {
  if (actual == nullptr) return "the runtime returned no output named " + expected.name + " (it returned: " + names_of(outputs) + ")";
  if (actual->dtype != expected.dtype) {
    return "output " + expected.name + " is " + std::string(dtype_name(actual->dtype)) + ", not PyTorch's " +
           std::string(dtype_name(expected.dtype)) + " (a dtype finding: stages.parity.detail.dtype_differs)";
  }
  if (actual->shape != expected.shape) return "output " + expected.name + " has shape " + shape_text(actual->shape) +
                                              ", not the reference's " + shape_text(expected.shape);
  return "";
}

std::size_t nonfinite(const std::vector<double>& values) {
  return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }));
}

// A departure from the oracle that was not measured, and why: null errors, never a refused record.
json unmeasured(const std::string& reason) {
  namespace tk = rf::triangulation_key;
  return json{{tk::kMaxAbsError, nullptr}, {tk::kMargin, nullptr}, {tk::kReason, reason}};
}

// An integer or bool output (exact_outputs.h): its entry, and a counted difference makes the case fail with
// an infinite margin, departing the runtime (both sides where the oracle cannot tell).
void exact_output(const std::string& name, const Tensor& actual, const Tensor& reference,
                  const std::optional<Tensor>& scores, const Tolerance& tolerance, ToleranceComparison& worst,
                  Evidence& evidence) {
  ExactVerdict verdict = judge_exact_output(name, actual, reference, scores, tolerance);
  evidence.exact_outputs.push_back(std::move(verdict.entry));
  if (verdict.comparison.within()) return;
  worst.within = false;
  worst.margin.reset();
  evidence.runtime_departs = true;
  evidence.reference_departs = evidence.reference_departs || !verdict.comparison.near_ties;
}

// Compares every reference output; fills the case and its triangulation entry. A stored oracle output that
// holds a value that is not finite is not measured against (its departures are `unmeasured`, with the reason).
void compare_outputs(RecordCase& c, const std::vector<Tensor>& outputs, const std::vector<Tensor>& references,
                     const std::vector<std::optional<Tensor>>& oracle, const Tolerance& profile_tolerance,
                     Evidence& evidence) {
  ToleranceComparison worst;
  Departure runtime_oracle, reference_oracle;
  bool triangulated = !oracle.empty();
  bool measured = false;  // a floating output measured against the oracle (an exact output never is)
  std::string oracle_unusable;  // why the stored oracle cannot be measured against, or ""
  std::string differences;      // the outputs that cannot be compared (missing, another dtype or shape)
  std::size_t compared = 0;     // the outputs that could be
  for (std::size_t j = 0; j < references.size(); ++j) {
    const Tensor* actual = named(outputs, references[j].name);
    if (const std::string why = incomparable(actual, references[j], outputs); !why.empty()) {
      evidence.runtime_departs = true;
      if (actual != nullptr && actual->dtype != references[j].dtype) {
        evidence.dtype_differs.push_back(dtype_finding(c.name, references[j].name, actual->dtype, references[j].dtype));
      }
      const bool oracle_stored = actual != nullptr && j < oracle.size() && oracle[j];
      differences += (differences.empty() ? "" : "; ") + why +
                     (oracle_stored ? " (the float64 oracle's: " + shape_text(oracle[j]->shape) + ")" : "");
      continue;  // the other outputs are still compared, and said below
    }
    if (j < oracle.size() && oracle[j] && !oracle_fits(*oracle[j], references[j])) {  // a data-dependent shape
      oracle_unusable = "the float64 oracle's " + references[j].name + " has shape " + shape_text(oracle[j]->shape) +
                        ", PyTorch's " + shape_text(references[j].shape) + " (a shape that depends on the values)";
      triangulated = false;
      if (compares_exactly(references[j].dtype)) {
        exact_output(c.name, *actual, references[j], std::nullopt, profile_tolerance, worst, evidence);
        ++compared;
        continue;
      }
    }
    if (compares_exactly(references[j].dtype)) {
      exact_output(c.name, *actual, references[j], j < oracle.size() ? oracle[j] : std::nullopt, profile_tolerance,
                   worst, evidence);
      ++compared;
      continue;
    }
    const Tolerance tolerance = judged_by(references[j], profile_tolerance, evidence);
    const auto runtime = actual->as_doubles();
    const auto reference = references[j].as_doubles();
    if (const auto bad_runtime = nonfinite(runtime), bad_reference = nonfinite(reference); bad_runtime || bad_reference) {
      evidence.runtime_departs = evidence.runtime_departs || bad_runtime;
      evidence.reference_departs = evidence.reference_departs || bad_reference;
      return set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch,
                      "output " + references[j].name + ": " + std::to_string(bad_runtime) + " runtime and " +
                          std::to_string(bad_reference) + " reference values are not finite");
    }
    evidence.vacuous.observe(references[j].name, reference, tolerance);
    const ToleranceComparison errors = compare_to_tolerance(runtime, reference, tolerance);
    ++compared;
    worst.max_abs = std::max(worst.max_abs, errors.max_abs);
    worst.max_rel = std::max(worst.max_rel, errors.max_rel);
    worst.within = worst.within && errors.within;
    if (!errors.margin || (worst.margin && *errors.margin > *worst.margin)) worst.margin = errors.margin;
    const bool fits = j < oracle.size() && oracle[j] && oracle_fits(*oracle[j], references[j]);
    const auto exact = fits ? oracle[j]->as_doubles() : std::vector<double>{};
    if (const std::size_t bad = nonfinite(exact)) {
      oracle_unusable = "the stored oracle of output " + references[j].name + " holds " + std::to_string(bad) +
                        " value(s) that are not finite";
      triangulated = false;
    } else if (fits) {
      const Departure ro = departure(runtime, exact, tolerance.rtol, tolerance.atol);
      const Departure fo = departure(reference, exact, tolerance.rtol, tolerance.atol);
      if (!ro.margin || (runtime_oracle.margin && *ro.margin > *runtime_oracle.margin)) runtime_oracle = ro;
      if (!fo.margin || (reference_oracle.margin && *fo.margin > *reference_oracle.margin)) reference_oracle = fo;
      runtime_oracle.max_abs_error = std::max(runtime_oracle.max_abs_error, ro.max_abs_error);
      reference_oracle.max_abs_error = std::max(reference_oracle.max_abs_error, fo.max_abs_error);
      measured = true;
    } else {
      triangulated = false;
    }
  }
  if (!differences.empty()) {  // stated output by output, then what the outputs that could be compared showed
    const std::string others = compared > 0 ? "; the outputs that could be compared: max_abs_error " +
                                   std::to_string(worst.max_abs) + (worst.within ? ", within tolerance" : ", beyond tolerance")
                                                                    : "";
    return set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, differences + others);
  }
  triangulated = triangulated && measured;
  c.outcome = worst.within ? rf::kOutcomeMatch : rf::kOutcomeMismatch;
  c.failure = worst.within ? std::nullopt : std::optional<FailureClass>(FailureClass::mismatch);
  c.passed = worst.within;
  c.max_abs_error = worst.max_abs;
  c.max_rel_error = worst.max_rel;
  c.detail.reset();
  namespace tk = rf::triangulation_key;
  json entry{{tk::kCase, c.name}, {tk::kMargin, departure_of(worst).to_json()[tk::kMargin]}};
  const json untriangulated = oracle_unusable.empty() ? json() : unmeasured(oracle_unusable);
  entry[tk::kRuntimeVsOracle] = triangulated ? runtime_oracle.to_json() : untriangulated;
  entry[tk::kReferenceVsOracle] = triangulated ? reference_oracle.to_json() : untriangulated;
  if (triangulated) {
    evidence.runtime_departs = evidence.runtime_departs || runtime_oracle.beyond_tolerance();
    evidence.reference_departs = evidence.reference_departs || reference_oracle.beyond_tolerance();
  } else if (!worst.within) {
    evidence.runtime_departs = evidence.reference_departs = true;  // no oracle: either side may be off
  }
  evidence.triangulation.push_back(std::move(entry));
}

// The stored tensors of a case's outputs (reference and, where stored, oracle).
struct CaseTruth {
  std::vector<Tensor> references;
  std::vector<std::optional<Tensor>> oracle;  // empty when no output has an oracle file
};

CaseTruth truth_of(const StageContext& context, const RecordCase& c) {
  CaseTruth truth;
  if (context.module_references) {
    const auto it = context.module_references->find(c.name);
    if (it == context.module_references->end()) {
      throw ConformanceError("not compared: " + (context.module_reference_missing.empty()
                                                     ? std::string("the torch reference has no outputs for it")
                                                     : context.module_reference_missing));
    }
    truth.references = it->second;
    return truth;
  }
  bool any_oracle = false;
  for (const auto& out : *c.module->outputs) {
    truth.references.push_back(stored_tensor(context.stored, out, out.file));  // ConformanceError: not the record's
    if (out.oracle_file) {
      truth.oracle.push_back(stored_oracle(context.stored, out, *out.oracle_file));
      any_oracle = true;
    } else {
      truth.oracle.push_back(std::nullopt);
    }
  }
  if (!any_oracle) truth.oracle.clear();
  return truth;
}

// The case's stored inputs the graph takes, by name; the names it does not take go to `unused`.
std::vector<Tensor> graph_inputs(const StageContext& context, const RecordCase& c, std::vector<std::string>& unused) {
  std::vector<Tensor> inputs;
  for (const auto& in : c.module->inputs) {
    const auto& names = context.graph_input_names;
    if (std::find(names.begin(), names.end(), in.name) == names.end()) {
      if (std::find(unused.begin(), unused.end(), in.name) == unused.end()) unused.push_back(in.name);
      continue;
    }
    inputs.push_back(stored_tensor(context.stored, in, in.file));
  }
  return inputs;
}

// For a match case, the first of its dimensions the export detail's dims_in_graph says the graph fixes
// (frozen, or static) at a size other than the case's: "the graph fixes <dim> at <size>[ (<op> '<node>')]".
std::optional<std::string> frozen_dimension(const Record& record, const RecordCase& c) {
  const json& detail = record.stage(Stage::export_model).detail;
  if (c.expect != rf::kExpectMatch || !c.module || !record.module || !detail.is_object()) return std::nullopt;
  const json dims = detail.value(rf::graph_dims_key::kDimsInGraph, json());
  for (const auto& [name, size] : c.module->dims) {
    const json state = dims.is_object() && dims.contains(name) ? dims[name] : json();
    const json declared = record.module->dims.is_object() ? record.module->dims.value(name, json()) : json();
    if (!declared.is_array() || declared.empty() || !declared[0].is_number_integer()) continue;
    const std::int64_t exported = declared[0].get<std::int64_t>();
    if (size == exported) continue;
    const std::string fixed = "the graph fixes " + name + " at " + std::to_string(exported);
    if (state.is_string() && state.get<std::string>() == rf::graph_dims_key::kStatic) return fixed;
    if (state.is_object()) {
      return fixed + " (" + state.value(rf::graph_dims_key::kOp, std::string()) + " '" +
             state.value(rf::graph_dims_key::kNode, std::string()) + "')";
    }
  }
  return std::nullopt;
}

// Excludes the positions the case's mask inputs hide (dont_care.h) from its outputs, reference and oracle
// alike; "" when done, else why an output cannot be hidden so (the case's mismatch).
std::string hide_dont_care(const StageContext& context, const RecordCase& c, std::vector<Tensor>& outputs,
                           CaseTruth& truth, Evidence& evidence) {
  namespace dk = rf::dont_care_key;
  for (const HiddenOutput& h : hidden_outputs(context.record.module->inputs)) {
    const auto in = std::find_if(c.module->inputs.begin(), c.module->inputs.end(),
                                 [&](const CaseTensor& t) { return t.name == h.input; });
    const auto ref = std::find_if(truth.references.begin(), truth.references.end(),
                                  [&](const Tensor& t) { return t.name == h.output; });
    if (in == c.module->inputs.end() || ref == truth.references.end()) continue;  // a missing output is named later
    const Tensor mask = stored_tensor(context.stored, *in, in->file);
    const auto hidden = hide_positions(*ref, mask);
    if (!hidden) {
      return "output " + h.output + " " + shape_text(ref->shape) + " does not begin with the shape of " + h.input + " " +
             shape_text(mask.shape) + ", whose zeros `hides` says hide its positions";
    }
    const std::size_t j = static_cast<std::size_t>(ref - truth.references.begin());
    for (Tensor& actual : outputs) {
      if (actual.name == h.output && actual.shape == ref->shape) hide_positions(actual, mask);
    }
    if (j < truth.oracle.size() && truth.oracle[j]) hide_positions(*truth.oracle[j], mask);
    evidence.dont_care.push_back({{dk::kCase, c.name}, {dk::kOutput, h.output}, {dk::kInput, h.input}, {dk::kExcluded, *hidden}});
  }
  return "";
}

void run_case(RecordCase& c, StageContext& context, std::vector<std::string>& unused, Evidence& evidence) {
  std::vector<Tensor> outputs;
  try {
    const std::vector<Tensor> inputs = graph_inputs(context, c, unused);
    outputs = context.session->run(inputs);
  } catch (const RuntimeFailure& e) {
    const auto frozen = frozen_dimension(context.record, c);
    const bool departs = frozen ? record_frozen_size_failure(c, e, *frozen) : record_runtime_failure(c, e);
    evidence.runtime_departs = departs || evidence.runtime_departs;
    return;
  }
  if (c.expect == rf::kExpectRejected) {
    std::string shapes;
    for (const auto& o : outputs) shapes += (shapes.empty() ? "" : ", ") + o.name + " " + shape_text(o.shape);
    evidence.runtime_departs = record_unexpected_run(c, shapes);
    return;
  }
  CaseTruth truth = truth_of(context, c);
  if (const std::string why = hide_dont_care(context, c, outputs, truth, evidence); !why.empty()) {
    return set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, why);
  }
  const Tolerance tolerance{context.record.tolerances.rtol.value(), context.record.tolerances.atol.value()};
  compare_outputs(c, outputs, truth.references, truth.oracle, tolerance, evidence);
}

// Whether the export found state-dict entries that nothing in the graph explains (worker/PROTOCOL.md).
bool weights_missing(const Record& record, json& missing) {
  const json& detail = record.stage(Stage::export_model).detail;
  if (!detail.is_object() || !detail.contains(rf::detail_key::kWeights)) return false;
  const json& weights = detail[rf::detail_key::kWeights];
  if (!weights.is_object() || !weights.contains("missing") || !weights["missing"].is_array()) return false;
  missing = weights["missing"];
  return !missing.empty();
}

bool record_outcome(StageContext& context, Evidence& evidence, const std::vector<std::string>& unused) {
  json missing = json::array();
  const bool weights_differ = weights_missing(context.record, missing);
  json detail{{detail_key::kReference, reference_name(context.reference)},
              {detail_key::kTriangulation, evidence.triangulation},
              {rf::detail_key::kUnusedInputs, unused},
              {rf::detail_key::kMissingWeights, missing}};
  if (!context.module_reference_ran.is_null()) detail[detail_key::kFactoryRun] = context.module_reference_ran;
  if (!evidence.exact_outputs.empty()) detail[rf::exact_key::kExactOutputs] = evidence.exact_outputs;
  if (!evidence.dtype_differs.empty()) detail[rf::exact_key::kDtypeDiffers] = evidence.dtype_differs;
  if (!evidence.dont_care.empty()) detail[rf::dont_care_key::kDontCare] = evidence.dont_care;
  if (!evidence.dtype_tolerances.empty()) detail[rf::dtype_tolerance_key::kDtypeTolerances] = evidence.dtype_tolerances;
  if (json vacuous = evidence.vacuous.to_json(); !vacuous.is_null()) {
    detail[rf::vacuous_key::kVacuousTolerance] = std::move(vacuous);
  }
  return record_parity_stage(context.record, std::move(detail), evidence.triangulation.size(),
                             {weights_differ, evidence.runtime_departs, evidence.reference_departs});
}

// The module record's reference provider, by kind (reference_outputs.h): a run's export stored PyTorch's
// outputs just now (torch, with a profile), execute compares with those stored outputs (stored) or rebuilds
// the module from its factory, checked first (torch, module_reference.h).
void provide_reference(StageContext& context) {
  switch (context.reference) {
    case ReferenceKind::torch:
      if (context.profile == nullptr) recompute_module_references(context);
      return;
    case ReferenceKind::native:  // reference_for gives a module record none: its reference without Python is
    case ReferenceKind::stored:  // its stored outputs, which truth_of reads
      return;
  }
}

}  // namespace

bool run_module_parity_stage(StageContext& context) {
  provide_reference(context);
  Record& record = context.record;
  record.reset_input_cases();
  Evidence evidence;
  std::vector<std::string> unused;
  for (RecordCase& c : record.input_cases) {
    try {
      run_case(c, context, unused, evidence);
    } catch (const ConformanceError& e) {  // a stored tensor that is not the record's, a reference not computed
      evidence.reference_departs = true;
      set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, e.what());
    }
  }
  return record_outcome(context, evidence, unused);
}

}  // namespace nnx
