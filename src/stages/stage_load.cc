#include "stages/stage_load.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "artifacts/artifact_folder.h"
#include "artifacts/artifact_path.h"
#include "artifacts/artifacts.h"
#include "base/failure.h"
#include "record/record.h"
#include "base/interrupt.h"

namespace nnx {
namespace {

// ---- TEST HOOK: for tests only (tests/e2e/test_hostile_swap.py, tests/e2e/test_hostile_signals_and_lock.py) ----
// NNX_TEST_PAUSE_AFTER_VERIFY=<path>: after the artifacts are verified and their bytes kept, and BEFORE
// the session is created from those bytes, the engine writes the line "<profile> verified" to <path>
// (a temporary file renamed into place, so it appears complete), says so on stderr, and waits until <path>
// is removed (at most 600 s; SIGINT/SIGTERM end the wait). A test swaps an artifact in that window to
// prove that the bytes hashed are the bytes executed. Production never sets it; the load stage's detail
// names the hook whenever it was active, so a record made under it says so.
std::optional<std::string> test_hook_pause_after_verify(const json& record) {
  const char* value = std::getenv("NNX_TEST_PAUSE_AFTER_VERIFY");
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::filesystem::path path = value;
  const std::filesystem::path part = path.string() + ".part";
  {
    std::ofstream out(part, std::ios::trunc);
    out << record.value("profile", std::string("?")) << " verified\n";
  }
  std::error_code ec;
  std::filesystem::rename(part, path, ec);
  std::cerr << "nnx-conformance: TEST HOOK NNX_TEST_PAUSE_AFTER_VERIFY: paused after verifying the artifacts; "
            << (ec ? "cannot write " + path.string() + ": " + ec.message() : "remove " + path.string() + " to go on")
            << std::endl;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(600);
  while (!ec && std::filesystem::exists(path, ec) && std::chrono::steady_clock::now() < deadline &&
         interrupt_signal() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "NNX_TEST_PAUSE_AFTER_VERIFY paused the load stage after verification (" + path.string() + ")";
}

}  // namespace

std::unique_ptr<InferenceSession> run_load(json& record, const std::filesystem::path& root,
                                           const std::shared_ptr<OrtLibrary>& library) {
  VerifyOutcome verified;
  try {
    verified = verify_artifacts(record, root, /*keep_contents=*/true);
  } catch (const std::exception& e) {
    set_stage_failed(record, Stage::load, FailureClass::hash_mismatch,
                     json{{"error", std::string("artifacts cannot be verified: ") + e.what()}});
    return nullptr;
  }
  if (!verified.ok()) {
    set_stage_failed(record, Stage::load, FailureClass::hash_mismatch,
                     json{{"problems", verified.problems}, {"loaded", false}});
    return nullptr;
  }
  const std::string model_path = record["artifacts"]["model"].get<std::string>();
  std::vector<ExternalFile> external;
  for (const auto& f : record["artifacts"]["files"]) {
    if (f["role"] == "external-data") {
      // Verified bytes are kept under the normalised path (artifact_path.h), the one the record means.
      const std::string path = *normalize_artifact_path(f["path"].get<std::string>());
      external.push_back({path, verified.contents.at(path)});
    }
  }
  const std::string provider = record["runtime"]["provider"].get<std::string>();
  const std::optional<std::string> test_hook = test_hook_pause_after_verify(record);  // tests only
  try {
    SessionSettings settings;
    settings.provider = provider;
    auto session = std::make_unique<InferenceSession>(library, verified.contents.at(model_path), external, settings);
    if (session->providers().empty() || session->providers().front() != provider) {
      set_stage_failed(record, Stage::load, FailureClass::load_error,
                       json{{"error", "the session's first provider is not " + provider},
                            {"providers", session->providers()}});
      return nullptr;
    }
    json detail{{"providers", session->providers()}};
    if (test_hook) detail["test_hook"] = *test_hook;
    set_stage_passed(record, Stage::load, detail);
    return session;
  } catch (const RuntimeFailure& e) {
    set_stage_failed(record, Stage::load, FailureClass::load_error,
                     json{{"error", e.what()}, {"code", e.code_name()}, {"provider", provider}});
    return nullptr;
  }
}

void reset_input_cases(json& record) {
  for (auto& c : record["input_cases"]) {
    c["outcome"] = nullptr;
    c["passed"] = false;
    c["failure"] = nullptr;
    c["max_abs_error"] = nullptr;
    c["max_rel_error"] = nullptr;
    c["detail"] = nullptr;
  }
}

namespace {

void set_case(json& c, const char* outcome, json failure, json detail) {
  c["outcome"] = outcome;
  c["failure"] = std::move(failure);
  c["passed"] = c["failure"].is_null();
  c["detail"] = std::move(detail);
  c["max_abs_error"] = nullptr;
  c["max_rel_error"] = nullptr;
}

void compare_case(json& c, const std::vector<TensorOutput>& outputs, const FeedFwdNN& native,
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
  const std::vector<std::int64_t> expected_shape = {batch, native.config().output_dim};
  if (out.shape != expected_shape) {
    set_case(c, "mismatch", "mismatch",
             "output shape " + shape_text(out.shape) + " differs from the native " + shape_text(expected_shape));
    return;
  }
  const std::vector<float> reference = native.forward_eval(input, batch);
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

}  // namespace

void run_parity(json& record, InferenceSession& session, const FeedFwdNN& native) {
  reset_input_cases(record);
  const double rtol = record["tolerances"]["rtol"].get<double>();
  const double atol = record["tolerances"]["atol"].get<double>();
  const std::string input_name = record["exporter"]["options"]["input_names"][0].get<std::string>();
  std::size_t compared = 0;
  for (auto& c : record["input_cases"]) {
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
      continue;
    }
    if (expect == "rejected") {
      std::string shapes;
      for (const auto& o : outputs) shapes += (shapes.empty() ? "" : ", ") + shape_text(o.shape);
      set_case(c, "accepted", "input-contract", "a refusal was expected, but the runtime ran it (output " + shapes + ")");
      continue;
    }
    compare_case(c, outputs, native, input, shape[0], rtol, atol);
    if (!c["max_abs_error"].is_null()) ++compared;
  }
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
    set_stage_passed(record, Stage::parity,
                     json{{"cases", record["input_cases"].size()}, {"compared", compared}});
    return;
  }
  const FailureClass cls = has[0] ? FailureClass::runtime_error
                           : has[1] ? FailureClass::mismatch
                                    : FailureClass::input_contract;
  set_stage_failed(record, Stage::parity, cls, json{{"failed_cases", failed}});
}

}  // namespace nnx
