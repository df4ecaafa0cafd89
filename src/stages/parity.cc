// The parity stage (doc/record-format.md §4): every input case of the record is run; a refusal as an
// invalid argument is `rejected`, any other runtime failure `error`; a valid batch that ran is compared
// element by element with the reference (stages/reference_outputs.h: the PyTorch network at run time)
// (|runtime - reference| <= atol + rtol * |reference|: base/tolerance_compare.h, whose one comparison also
// gives the case's margin). The stage fails with the first of runtime-error, mismatch, input-contract
// present among failing cases (parity_failure_class, record/record_format.h). Its detail carries the
// reference's name, the triangulation of every compared case and, when it fails, the blame
// (stages/triangulation.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/tolerance_compare.h"
#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/case_outcome.h"
#include "stages/module_stages.h"
#include "stages/reference_outputs.h"
#include "stages/stages.h"
#include "stages/triangulation.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace detail_key = rf::detail_key;

// What one case is measured against.
struct CaseReference {
  const std::vector<float>* reference = nullptr;  // null: not computed (`missing` says why)
  std::string missing;
};

// What the cases showed, for the blame.
struct ParityEvidence {
  bool runtime_departs = false;
  bool reference_departs = false;
  std::vector<CaseTriangulation> triangulation;
};

// The reason a run's outputs cannot be compared with the reference, or "" when they can.
std::string incomparable(const std::vector<TensorOutput>& outputs, const std::vector<std::int64_t>& expected_shape) {
  if (outputs.size() != 1) {
    return "the runtime returned " + std::to_string(outputs.size()) + " outputs, not exactly one";
  }
  const TensorOutput& out = outputs.front();
  if (out.dtype != "float") return "output " + out.name + " is " + out.dtype + ", not float32";
  if (out.shape != expected_shape) {
    return "output shape " + shape_text(out.shape) + " differs from the reference's " + shape_text(expected_shape);
  }
  return "";
}

std::size_t count_nonfinite(std::span<const float> values) {
  const auto nonfinite = [](float v) { return !std::isfinite(v); };
  return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), nonfinite));
}

// The record's errors (runtime against the reference) and the case's triangulation.
void compare_values(RecordCase& c, std::span<const float> runtime, std::span<const float> reference,
                    const StageContext& context, std::span<const float> input, ParityEvidence& evidence) {
  const double rtol = context.record.tolerances.rtol.value();
  const double atol = context.record.tolerances.atol.value();
  const ToleranceComparison errors = compare_to_tolerance(runtime, reference, Tolerance{rtol, atol});
  const bool match = errors.within;
  c.outcome = match ? rf::kOutcomeMatch : rf::kOutcomeMismatch;
  c.failure = match ? std::nullopt : std::optional<FailureClass>(FailureClass::mismatch);
  c.passed = match;
  c.max_abs_error = errors.max_abs;
  c.max_rel_error = errors.max_rel;
  c.detail.reset();

  // The margin over every row; the triangulation over the leading rows the oracle can afford.
  const std::int64_t rows = triangulation_rows(c.shape[0], context.model->config().weight_count());
  const auto width = static_cast<std::size_t>(context.model->output_width());
  const std::span<const float> sample = input.first(static_cast<std::size_t>(rows * c.shape[1]));
  const std::vector<double> oracle = context.model->forward_oracle(sample, rows);
  const std::vector<double> runtime64 = widen(runtime.first(rows * width));
  const std::vector<double> reference64 = widen(reference.first(rows * width));
  const std::vector<float> native = context.model->forward(sample, rows);
  CaseTriangulation t{c.name,
                      rows,
                      departure_of(errors),
                      departure(runtime64, oracle, rtol, atol),
                      departure(reference64, oracle, rtol, atol),
                      departure(widen(native), reference64, rtol, atol)};
  evidence.runtime_departs = evidence.runtime_departs || t.runtime_vs_oracle.beyond_tolerance();
  evidence.reference_departs = evidence.reference_departs || t.reference_vs_oracle.beyond_tolerance();
  evidence.triangulation.push_back(std::move(t));
}

void compare_case(RecordCase& c, const std::vector<TensorOutput>& outputs, const CaseReference& reference,
                  const StageContext& context, std::span<const float> input, ParityEvidence& evidence) {
  if (const std::string why = incomparable(outputs, {c.shape[0], context.model->output_width()}); !why.empty()) {
    evidence.runtime_departs = true;
    return set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, why);
  }
  if (reference.reference == nullptr) {
    evidence.reference_departs = true;
    return set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, "not compared: " + reference.missing);
  }
  const std::vector<float>& values = outputs.front().values;
  const std::size_t nonfinite_runtime = count_nonfinite(values);
  const std::size_t nonfinite_reference = count_nonfinite(*reference.reference);
  if (nonfinite_runtime || nonfinite_reference) {
    evidence.runtime_departs = evidence.runtime_departs || nonfinite_runtime;
    evidence.reference_departs = evidence.reference_departs || nonfinite_reference;
    return set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch,
                    std::to_string(nonfinite_runtime) + " runtime and " + std::to_string(nonfinite_reference) +
                        " reference values are not finite");
  }
  compare_values(c, values, *reference.reference, context, input, evidence);
}

// Runs one case and records its outcome.
void run_case(RecordCase& c, StageContext& context, const std::vector<float>& input, const CaseReference& reference,
              ParityEvidence& evidence) {
  const json& input_names = context.record.exporter.options[rf::exporter_key::kOptionInputNames];
  const std::string input_name = input_names[0].get<std::string>();
  std::vector<TensorOutput> outputs;
  try {
    outputs = context.session->run_float(input_name, input, c.shape);
  } catch (const RuntimeFailure& e) {
    evidence.runtime_departs = record_runtime_failure(c, e) || evidence.runtime_departs;
    return;
  }
  if (c.expect == rf::kExpectRejected) {
    std::string shapes;
    for (const auto& o : outputs) shapes += (shapes.empty() ? "" : ", ") + shape_text(o.shape);
    evidence.runtime_departs = record_unexpected_run(c, shapes);
    return;
  }
  compare_case(c, outputs, reference, context, input, evidence);
}

}  // namespace

void prepare_parity(StageContext& context) {
  switch (context.record.kind()) {
    case ModelKind::module:
    case ModelKind::onnx_file: return;  // its reference was stored by its export or import (§10, §11)
    case ModelKind::feed_forward: break;
  }
  PreparedParity prepared;
  std::vector<ReferenceInput> wanted;
  for (const auto& c : context.record.input_cases) {
    prepared.inputs.push_back(draw_input(c.shape, c.seed));
    if (c.expect == rf::kExpectMatch) wanted.push_back({c.name, {c.shape, prepared.inputs.back()}});
  }
  try {
    prepared.references = reference_outputs(context.reference, *context.model, context.exporter.get(), wanted);
  } catch (const WorkerError& e) {
    prepared.missing =
        "the " + std::string(reference_name(context.reference)) + " reference could not be computed: " + e.what();
    if (context.exporter) context.exporter->stop();
  }
  context.prepared_parity = std::move(prepared);
}

namespace {

// The stage's outcome from its cases (case_outcome.h), with the feed-forward detail.
bool record_parity_outcome(StageContext& context, ParityEvidence& evidence) {
  json triangulation = json::array();
  for (const auto& t : evidence.triangulation) triangulation.push_back(t.to_json());
  const WeightsVerdict& weights = context.weights;
  json detail{{detail_key::kReference, reference_name(context.reference)},
              {detail_key::kTriangulation, triangulation},
              {detail_key::kWeightsInModel, weights.match ? json(*weights.match) : json()}};
  if (!weights.problem.empty()) detail[detail_key::kWeightsProblem] = weights.problem;
  return record_parity_stage(context.record, std::move(detail), evidence.triangulation.size(),
                             {weights.match == false, evidence.runtime_departs, evidence.reference_departs});
}

}  // namespace

bool run_parity_stage(StageContext& context) {
  switch (context.record.kind()) {
    case ModelKind::module:
    case ModelKind::onnx_file: return run_module_parity_stage(context);
    case ModelKind::feed_forward: break;
  }
  Record& record = context.record;
  record.reset_input_cases();
  if (!context.prepared_parity) prepare_parity(context);
  const PreparedParity& prepared = *context.prepared_parity;
  ParityEvidence evidence;
  std::size_t next_reference = 0;
  for (std::size_t i = 0; i < record.input_cases.size(); ++i) {
    RecordCase& c = record.input_cases[i];
    CaseReference reference{nullptr, prepared.missing};
    if (c.expect == rf::kExpectMatch && next_reference < prepared.references.size()) {
      reference.reference = &prepared.references[next_reference++];
    }
    run_case(c, context, prepared.inputs[i], reference, evidence);
  }
  return record_parity_outcome(context, evidence);
}

}  // namespace nnx
