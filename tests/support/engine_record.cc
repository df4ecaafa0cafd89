// Test support: the one builder of engine-written records (engine_record.h).
#include "support/engine_record.h"

#include <cstdint>
#include <utility>

namespace nnx::test_support {
namespace {

json signature(const char* name, const Profile& p, std::int64_t width) {
  json batch = p.feed_forward().dynamic_batch ? json("batch") : json(p.feed_forward().export_batch);
  return json::array({{{"name", name}, {"dtype", "float"}, {"shape", {batch, width}}}});
}

// Parity as a run fills it: every case passes (a match compared, a refusal expected); with `failure`, the
// first case fails with that class and so does the stage.
void fill_parity(json& r, std::optional<FailureClass> failure) {
  for (auto& c : r["input_cases"]) {
    const bool match = c["expect"] == "match";
    c["outcome"] = match ? "match" : "rejected";
    c["passed"] = true;
    if (match) {
      c["max_abs_error"] = 1.1920928955078125e-07;
      c["max_rel_error"] = 3.4e-06;
    } else {
      c["detail"] = "refused as an invalid argument: Got invalid dimensions for input: features";
    }
  }
  if (!failure) {
    set_stage_passed(r, Stage::parity,
                     json{{"cases", r["input_cases"].size()}, {"compared", r["input_cases"].size() - 1}});
    return;
  }
  json& c = r["input_cases"][0];
  c["passed"] = false;
  c["failure"] = failure_name(*failure);
  c["outcome"] = *failure == FailureClass::mismatch         ? "mismatch"
                 : *failure == FailureClass::input_contract ? "rejected"
                                                            : "error";
  if (*failure != FailureClass::mismatch) {
    c["max_abs_error"] = nullptr;
    c["max_rel_error"] = nullptr;
    c["detail"] = "it failed";
  }
  set_stage_failed(r, Stage::parity, *failure, json{{"failed_cases", {c["name"]}}});
}

}  // namespace

Profile named_profile(const std::string& name) {
  if (auto tested = tested_profile(name)) return *tested;
  Profile p;
  p.name = name;
  return p;
}

json engine_record(const Profile& p, Stage last, std::optional<FailureClass> failure) {
  SourceInfo source;
  source.revision = "0123456789abcdef0123456789abcdef01234567";
  source.origin = "given";
  json r = blank_record(p, source, kWeightsSha);
  r["versions"]["python"] = "3.11.9";
  r["versions"]["torch"] = "2.4.1";
  // Whether the stage `s` ran and passed, so that the next one runs.
  auto ran = [&](Stage s, json pass_detail) {
    if (stage_index(s) > stage_index(last)) return false;
    if (s == last && failure) {
      set_stage_failed(r, s, *failure, json{{"error", "it failed"}});
      return false;
    }
    set_stage_passed(r, s, std::move(pass_detail));
    return s != last;
  };
  bool go = ran(Stage::dependencies, json{{"onnx", "1.16.0"}, {"onnxruntime", "1.18.0"}});
  if (go && failure != FailureClass::export_error) {  // an exporter exception leaves model_state null
    r["model_state"] = {{"parameters", true}, {"gradients", true}, {"modes", failure != FailureClass::state_changed}};
  }
  go = go && ran(Stage::export_model, json{{"warnings", json::array()}});
  if (go && !(last == Stage::check && failure)) {
    r["opset"]["model"] = {{"ai.onnx", 17}};
    r["artifacts"]["files"] =
        json::array({{{"path", "model.onnx"}, {"role", "model"}, {"bytes", 1234}, {"sha256", kModelSha}}});
  }
  go = go && ran(Stage::check, json{{"opset", {{"ai.onnx", 17}}},
                                   {"ir_version", 8},
                                   {"producer", "pytorch 2.4.1"},
                                   {"inputs", signature("features", p, p.feed_forward().model.input_dim)},
                                   {"outputs", signature("logits", p, p.feed_forward().model.output_dim)}});
  if (go) r["runtime"]["version"] = "1.18.0";
  go = go && ran(Stage::load, json{{"providers", {"CPUExecutionProvider"}}});
  if (go) fill_parity(r, failure);
  finalize_record(r);
  return r;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += "\n  " + p;
  return out;
}

}  // namespace nnx::test_support
