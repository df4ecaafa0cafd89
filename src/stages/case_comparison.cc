// One module case's outputs compared (case_comparison.h).
#include "stages/case_comparison.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/dtype_tolerance.h"
#include "base/module_record_vocabulary.h"
#include "model/feedfwd.h"
#include "stages/case_outcome.h"
#include "stages/exact_outputs.h"
#include "stages/triangulation.h"

namespace nnx {
namespace {

using nlohmann::json;

// The tolerance output `reference` is judged by (base/dtype_tolerance.h), stated once per half output.
Tolerance judged_by(const Tensor& reference, const Tolerance& profile, CaseEvidence& evidence) {
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

std::size_t nonfinite(std::span<const double> values) {
  return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }));
}

// The elements as doubles: a float64 tensor's own (not copied: the float64 oracle of a 64 MiB output is
// 64 MiB), any other's widened into `widened`.
std::span<const double> doubles_of(const Tensor& t, std::vector<double>& widened) {
  if (t.dtype == DType::float64) return {reinterpret_cast<const double*>(t.bytes.data()), t.bytes.size() / sizeof(double)};
  widened = t.as_doubles();
  return widened;
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
                  CaseEvidence& evidence) {
  ExactVerdict verdict = judge_exact_output(name, actual, reference, scores, tolerance);
  evidence.exact_outputs.push_back(std::move(verdict.entry));
  if (verdict.comparison.within()) return;
  worst.within = false;
  worst.margin.reset();
  evidence.runtime_departs = true;
  evidence.reference_departs = evidence.reference_departs || !verdict.comparison.near_ties;
}

// The walk over one case's outputs: the worst comparison, the departures from the oracle, what could not be
// compared and why the oracle could not be measured against.
struct OutputWalk {
  ToleranceComparison worst;
  Departure runtime_oracle, reference_oracle;
  bool triangulated = false;
  bool measured = false;        // a floating output measured against the oracle (an exact output never is)
  std::string oracle_unusable;  // why the stored oracle cannot be measured against, or ""
  std::string differences;      // the outputs that cannot be compared (missing, another dtype or shape)
  std::string nonfinite;        // the first output holding values that are not finite, said, or ""
  std::size_t compared = 0;     // the outputs that could be
};

// A floating output within the tolerance it is judged by, and against `oracle` (the stored oracle when it fits
// the output's shape, else nullptr: not triangulated).
void compare_floating(const Tensor& actual, const Tensor& reference_tensor, const Tensor* oracle,
                      const Tolerance& profile_tolerance, OutputWalk& walk, CaseEvidence& evidence) {
  const Tolerance tolerance = judged_by(reference_tensor, profile_tolerance, evidence);
  const auto runtime = actual.as_doubles();
  const auto reference = reference_tensor.as_doubles();
  if (const auto bad_runtime = nonfinite(runtime), bad_reference = nonfinite(reference); bad_runtime || bad_reference) {
    evidence.runtime_departs = evidence.runtime_departs || bad_runtime;
    evidence.reference_departs = evidence.reference_departs || bad_reference;
    walk.nonfinite = "output " + reference_tensor.name + ": " + std::to_string(bad_runtime) + " runtime and " +
                     std::to_string(bad_reference) + " reference values are not finite";
    return;
  }
  evidence.vacuous.observe(reference_tensor.name, reference, tolerance);
  const ToleranceComparison errors = compare_to_tolerance(runtime, reference, tolerance);
  ++walk.compared;
  ToleranceComparison& worst = walk.worst;
  worst.max_abs = std::max(worst.max_abs, errors.max_abs);
  worst.max_rel = std::max(worst.max_rel, errors.max_rel);
  worst.within = worst.within && errors.within;
  if (!errors.margin || (worst.margin && *errors.margin > *worst.margin)) worst.margin = errors.margin;
  std::vector<double> widened;
  const std::span<const double> exact = oracle ? doubles_of(*oracle, widened) : std::span<const double>{};
  if (const std::size_t bad = nonfinite(exact)) {
    walk.oracle_unusable = "the stored oracle of output " + reference_tensor.name + " holds " + std::to_string(bad) +
                           " value(s) that are not finite";
    walk.triangulated = false;
  } else if (oracle) {
    const Departure ro = departure(runtime, exact, tolerance.rtol, tolerance.atol);
    const Departure fo = departure(reference, exact, tolerance.rtol, tolerance.atol);
    if (!ro.margin || (walk.runtime_oracle.margin && *ro.margin > *walk.runtime_oracle.margin)) walk.runtime_oracle = ro;
    if (!fo.margin || (walk.reference_oracle.margin && *fo.margin > *walk.reference_oracle.margin)) walk.reference_oracle = fo;
    walk.runtime_oracle.max_abs_error = std::max(walk.runtime_oracle.max_abs_error, ro.max_abs_error);
    walk.reference_oracle.max_abs_error = std::max(walk.reference_oracle.max_abs_error, fo.max_abs_error);
    walk.measured = true;
  } else {
    walk.triangulated = false;
  }
}

// One output: stated when it cannot be compared, else compared exactly or within the tolerance.
void compare_output(const std::string& case_name, const std::vector<Tensor>& outputs, const Tensor& reference,
                    const std::optional<Tensor>* oracle, const Tolerance& profile_tolerance, OutputWalk& walk,
                    CaseEvidence& evidence) {
  const Tensor* actual = named(outputs, reference.name);
  if (const std::string why = incomparable(actual, reference, outputs); !why.empty()) {
    evidence.runtime_departs = true;
    if (actual != nullptr && actual->dtype != reference.dtype) {
      evidence.dtype_differs.push_back(dtype_finding(case_name, reference.name, actual->dtype, reference.dtype));
    }
    const bool oracle_stored = actual != nullptr && oracle && *oracle;
    walk.differences += (walk.differences.empty() ? "" : "; ") + why +
                        (oracle_stored ? " (the float64 oracle's: " + shape_text((*oracle)->shape) + ")" : "");
    return;  // the other outputs are still compared, and said
  }
  const bool fits = oracle && *oracle && oracle_fits(**oracle, reference);
  if (oracle && *oracle && !fits) {  // a shape that depends on the values: the float64 copy found others
    walk.oracle_unusable = "the float64 oracle's " + reference.name + " has shape " + shape_text((*oracle)->shape) +
                           ", PyTorch's " + shape_text(reference.shape) + " (a shape that depends on the values)";
    walk.triangulated = false;
  }
  if (compares_exactly(reference.dtype)) {
    exact_output(case_name, *actual, reference, fits ? **oracle : std::optional<Tensor>(), profile_tolerance,
                 walk.worst, evidence);
    ++walk.compared;
    return;
  }
  compare_floating(*actual, reference, fits ? &**oracle : nullptr, profile_tolerance, walk, evidence);
}

}  // namespace

std::optional<ComparedCase> compare_case_outputs(RecordCase& c, const std::vector<Tensor>& outputs,
                                                 const std::vector<Tensor>& references,
                                                 const std::vector<std::optional<Tensor>>& oracle,
                                                 const Tolerance& profile_tolerance, CaseEvidence& evidence) {
  OutputWalk walk;
  walk.triangulated = !oracle.empty();
  for (std::size_t j = 0; j < references.size(); ++j) {
    compare_output(c.name, outputs, references[j], j < oracle.size() ? &oracle[j] : nullptr, profile_tolerance, walk,
                   evidence);
    if (!walk.nonfinite.empty()) {
      set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, walk.nonfinite);
      return std::nullopt;
    }
  }
  const ToleranceComparison& worst = walk.worst;
  if (!walk.differences.empty()) {  // stated output by output, then what the outputs that could be compared showed
    const std::string others = walk.compared > 0 ? "; the outputs that could be compared: max_abs_error " +
                                   std::to_string(worst.max_abs) + (worst.within ? ", within tolerance" : ", beyond tolerance")
                                                                    : "";
    set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, walk.differences + others);
    return std::nullopt;
  }
  c.outcome = worst.within ? rf::kOutcomeMatch : rf::kOutcomeMismatch;
  c.failure = worst.within ? std::nullopt : std::optional<FailureClass>(FailureClass::mismatch);
  c.passed = worst.within;
  c.max_abs_error = worst.max_abs;
  c.max_rel_error = worst.max_rel;
  c.detail.reset();
  return ComparedCase{worst, walk.runtime_oracle, walk.reference_oracle, walk.triangulated && walk.measured,
                      walk.oracle_unusable};
}

void triangulate_against_stored_oracle(const RecordCase& c, const ComparedCase& compared, CaseEvidence& evidence) {
  namespace tk = rf::triangulation_key;
  json entry{{tk::kCase, c.name}, {tk::kMargin, departure_of(compared.worst).to_json()[tk::kMargin]}};
  const json untriangulated = compared.oracle_unusable.empty() ? json() : unmeasured(compared.oracle_unusable);
  entry[tk::kRuntimeVsOracle] = compared.triangulated ? compared.runtime_vs_oracle.to_json() : untriangulated;
  entry[tk::kReferenceVsOracle] = compared.triangulated ? compared.reference_vs_oracle.to_json() : untriangulated;
  if (compared.triangulated) {
    evidence.runtime_departs = evidence.runtime_departs || compared.runtime_vs_oracle.beyond_tolerance();
    evidence.reference_departs = evidence.reference_departs || compared.reference_vs_oracle.beyond_tolerance();
  } else if (!compared.worst.within) {
    evidence.runtime_departs = evidence.reference_departs = true;  // no oracle: either side may be off
  }
  evidence.triangulation.push_back(std::move(entry));
}

}  // namespace nnx
