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

using nlohmann::json;

namespace {

void set_case(json& c, const char* outcome, json failure, json detail) {
  c["outcome"] = outcome;
  c["failure"] = std::move(failure);
  c["passed"] = c["failure"].is_null();
  c["detail"] = std::move(detail);
  c["max_abs_error"] = nullptr;
  c["max_rel_error"] = nullptr;
}

void compare_case(json& c, const std::vector<TensorOutput>& outputs, const ReferenceModel& native,
                  const std::vector<float>& input, std::int64_t batch, double rtol, double atol) {
  if (outputs.size() != 1) {
    set_case(c, "mismatch", "mismatch", "the runtime returned " + std::to_string(outputs.size()) +
                                            " outputs, not exactly one");
    return;
  }
  const TensorOutput& out = outputs.front();
  if (out.dtype != "float") {
    set_case(c, "mismatch", "mismatch", "output " + out.name + " is " + out.dtype + ", not float32");
    return;
  }
  const std::vector<std::int64_t> expected_shape = {batch, native.output_width()};
  if (out.shape != expected_shape) {
    set_case(c, "mismatch", "mismatch",
             "output shape " + shape_text(out.shape) + " differs from the native " + shape_text(expected_shape));
    return;
  }
  const std::vector<float> reference = native.forward(input, batch);
  std::size_t nonfinite_runtime = 0, nonfinite_native = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (!std::isfinite(out.values[i])) ++nonfinite_runtime;
    if (!std::isfinite(reference[i])) ++nonfinite_native;
  }
  if (nonfinite_runtime || nonfinite_native) {
    set_case(c, "mismatch", "mismatch",
             std::to_string(nonfinite_runtime) + " runtime and " + std::to_string(nonfinite_native) +
                 " native values are not finite");
    return;
  }
  double max_abs = 0.0, max_rel = 0.0;
  bool match = true;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double native_value = reference[i];
    const double err = std::fabs(static_cast<double>(out.values[i]) - native_value);
    max_abs = std::max(max_abs, err);
    max_rel = std::max(max_rel, err / std::max(std::fabs(native_value), 1e-30));
    if (!(err <= atol + rtol * std::fabs(native_value))) match = false;
  }
  c["outcome"] = match ? "match" : "mismatch";
  c["failure"] = match ? json(nullptr) : json("mismatch");
  c["passed"] = match;
  c["max_abs_error"] = max_abs;
  c["max_rel_error"] = max_rel;
  c["detail"] = nullptr;
}

// Runs one case and records its outcome.
void run_case(json& c, Session& session, const ReferenceModel& native, const std::string& input_name, double rtol,
              double atol) {
  const std::vector<std::int64_t> shape = c["shape"].get<std::vector<std::int64_t>>();
  const std::string expect = c["expect"].get<std::string>();
  const std::vector<float> input = draw_input(shape, c["seed"].get<std::uint64_t>());
  std::vector<TensorOutput> outputs;
  try {
    outputs = session.run(input_name, input, shape);
  } catch (const RuntimeFailure& e) {
    if (e.invalid_argument()) {
      set_case(c, "rejected", expect == "rejected" ? json(nullptr) : json("input-contract"),
               std::string("refused as an invalid argument: ") + e.what());
    } else {
      set_case(c, "error", "runtime-error", "runtime failed (" + e.code_name() + "): " + e.what());
    }
    return;
  }
  if (expect == "rejected") {
    std::string shapes;
    for (const auto& o : outputs) shapes += (shapes.empty() ? "" : ", ") + shape_text(o.shape);
    set_case(c, "accepted", "input-contract", "a refusal was expected, but the runtime ran it (output " + shapes + ")");
    return;
  }
  compare_case(c, outputs, native, input, shape[0], rtol, atol);
}

// The stage's outcome from its cases: passed, or the first of runtime-error, mismatch, input-contract.
bool record_parity_outcome(json& record, std::size_t compared) {
  std::vector<std::string> failed;
  bool has[3] = {false, false, false};  // runtime-error, mismatch, input-contract
  for (const auto& c : record["input_cases"]) {
    if (c["failure"].is_null()) continue;
    failed.push_back(c["name"].get<std::string>());
    if (c["failure"] == "runtime-error") has[0] = true;
    if (c["failure"] == "mismatch") has[1] = true;
    if (c["failure"] == "input-contract") has[2] = true;
  }
  if (failed.empty()) {
    set_stage_passed(record, Stage::parity, json{{"cases", record["input_cases"].size()}, {"compared", compared}});
    return true;
  }
  const FailureClass cls = has[0] ? FailureClass::runtime_error
                           : has[1] ? FailureClass::mismatch
                                    : FailureClass::input_contract;
  set_stage_failed(record, Stage::parity, cls, json{{"failed_cases", failed}});
  return false;
}

}  // namespace

bool run_parity_stage(StageContext& context) {
  json& record = context.record;
  reset_input_cases(record);
  const double rtol = record["tolerances"]["rtol"].get<double>();
  const double atol = record["tolerances"]["atol"].get<double>();
  const std::string input_name = record["exporter"]["options"]["input_names"][0].get<std::string>();
  std::size_t compared = 0;
  for (auto& c : record["input_cases"]) {
    run_case(c, *context.session, context.model, input_name, rtol, atol);
    if (!c["max_abs_error"].is_null()) ++compared;
  }
  return record_parity_outcome(record, compared);
}

}  // namespace nnx
