// The parity stage (doc/record-format.md §4): every input case of the record is run; a refusal as an
// invalid argument is `rejected`, any other runtime failure `error`; a valid batch that ran is compared
// element by element with the reference model (|runtime - reference| <= atol + rtol * |reference|). The
// stage fails with the first of runtime-error, mismatch, input-contract present among failing cases.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using nlohmann::json;

// An outcome without compared values: errors null, a detail saying what happened.
void set_case(RecordCase& c, const char* outcome, std::optional<FailureClass> failure, std::string detail) {
  c.outcome = outcome;
  c.failure = failure;
  c.passed = !failure;
  c.detail = std::move(detail);
  c.max_abs_error.reset();
  c.max_rel_error.reset();
}

// The reason a run's outputs cannot be compared with the reference, or "" when they can.
std::string incomparable(const std::vector<TensorOutput>& outputs, const std::vector<std::int64_t>& expected_shape) {
  if (outputs.size() != 1) {
    return "the runtime returned " + std::to_string(outputs.size()) + " outputs, not exactly one";
  }
  const TensorOutput& out = outputs.front();
  if (out.dtype != "float") return "output " + out.name + " is " + out.dtype + ", not float32";
  if (out.shape != expected_shape) {
    return "output shape " + shape_text(out.shape) + " differs from the native " + shape_text(expected_shape);
  }
  return "";
}

void compare_case(RecordCase& c, const std::vector<TensorOutput>& outputs, const ReferenceModel& native,
                  const std::vector<float>& input, std::int64_t batch, double rtol, double atol) {
  if (const std::string why = incomparable(outputs, {batch, native.output_width()}); !why.empty()) {
    return set_case(c, rf::kOutcomeMismatch, FailureClass::mismatch, why);
  }
  const std::vector<float>& values = outputs.front().values;
  const std::vector<float> reference = native.forward(input, batch);
  std::size_t nonfinite_runtime = 0, nonfinite_native = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (!std::isfinite(values[i])) ++nonfinite_runtime;
    if (!std::isfinite(reference[i])) ++nonfinite_native;
  }
  if (nonfinite_runtime || nonfinite_native) {
    return set_case(c, rf::kOutcomeMismatch, FailureClass::mismatch,
                    std::to_string(nonfinite_runtime) + " runtime and " + std::to_string(nonfinite_native) +
                        " native values are not finite");
  }
  double max_abs = 0.0, max_rel = 0.0;
  bool match = true;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double native_value = reference[i];
    const double err = std::fabs(static_cast<double>(values[i]) - native_value);
    max_abs = std::max(max_abs, err);
    max_rel = std::max(max_rel, err / std::max(std::fabs(native_value), 1e-30));
    if (!(err <= atol + rtol * std::fabs(native_value))) match = false;
  }
  c.outcome = match ? rf::kOutcomeMatch : rf::kOutcomeMismatch;
  c.failure = match ? std::nullopt : std::optional<FailureClass>(FailureClass::mismatch);
  c.passed = match;
  c.max_abs_error = max_abs;
  c.max_rel_error = max_rel;
  c.detail.reset();
}

// Runs one case and records its outcome.
void run_case(RecordCase& c, Session& session, const ReferenceModel& native, const std::string& input_name,
              double rtol, double atol) {
  const std::vector<float> input = draw_input(c.shape, c.seed);
  std::vector<TensorOutput> outputs;
  try {
    outputs = session.run(input_name, input, c.shape);
  } catch (const RuntimeFailure& e) {
    if (e.invalid_argument()) {
      const bool expected = c.expect == rf::kExpectRejected;
      return set_case(c, rf::kOutcomeRejected, expected ? std::nullopt : std::optional(FailureClass::input_contract),
                      std::string("refused as an invalid argument: ") + e.what());
    }
    return set_case(c, rf::kOutcomeError, FailureClass::runtime_error,
                    "runtime failed (" + e.code_name() + "): " + e.what());
  }
  if (c.expect == rf::kExpectRejected) {
    std::string shapes;
    for (const auto& o : outputs) shapes += (shapes.empty() ? "" : ", ") + shape_text(o.shape);
    return set_case(c, rf::kOutcomeAccepted, FailureClass::input_contract,
                    "a refusal was expected, but the runtime ran it (output " + shapes + ")");
  }
  compare_case(c, outputs, native, input, c.shape[0], rtol, atol);
}

// The stage's outcome from its cases: passed, or the first of runtime-error, mismatch, input-contract.
bool record_parity_outcome(Record& record, std::size_t compared) {
  std::vector<std::string> failed;
  bool has[3] = {false, false, false};  // runtime-error, mismatch, input-contract
  for (const auto& c : record.input_cases) {
    if (!c.failure) continue;
    failed.push_back(c.name);
    if (*c.failure == FailureClass::runtime_error) has[0] = true;
    if (*c.failure == FailureClass::mismatch) has[1] = true;
    if (*c.failure == FailureClass::input_contract) has[2] = true;
  }
  if (failed.empty()) {
    record.set_stage_passed(Stage::parity, json{{"cases", record.input_cases.size()}, {"compared", compared}});
    return true;
  }
  const FailureClass cls = has[0] ? FailureClass::runtime_error
                           : has[1] ? FailureClass::mismatch
                                    : FailureClass::input_contract;
  record.set_stage_failed(Stage::parity, cls, json{{"failed_cases", failed}});
  return false;
}

}  // namespace

bool run_parity_stage(StageContext& context) {
  Record& record = context.record;
  record.reset_input_cases();
  const double rtol = record.tolerances.rtol.value();
  const double atol = record.tolerances.atol.value();
  const std::string input_name = record.exporter.options["input_names"][0].get<std::string>();
  std::size_t compared = 0;
  for (auto& c : record.input_cases) {
    run_case(c, *context.session, context.model, input_name, rtol, atol);
    if (c.max_abs_error) ++compared;
  }
  return record_parity_outcome(record, compared);
}

}  // namespace nnx
