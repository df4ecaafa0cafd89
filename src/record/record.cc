#include "record/record.h"

#include "artifacts/artifacts.h"

namespace nnx {

json session_options_json() {
  return json{{"intra_op_num_threads", 1}, {"inter_op_num_threads", 1}, {"graph_optimization_level", "ORT_ENABLE_ALL"}};
}

json blank_input_case(const InputCase& c) {
  return json{{"name", c.name},       {"shape", c.shape},       {"seed", c.seed},
              {"expect", c.expect},   {"outcome", nullptr},     {"passed", false},
              {"failure", nullptr},   {"max_abs_error", nullptr}, {"max_rel_error", nullptr},
              {"detail", nullptr}};
}

json blank_record(const Profile& profile, const SourceInfo& source, const std::string& weights_sha256) {
  json config = profile.model.to_json();
  config["weights_sha256"] = weights_sha256;
  json cases = json::array();
  for (const auto& c : profile.input_cases()) cases.push_back(blank_input_case(c));
  json stages = json::object();
  for (Stage s : kStages) {
    stages[std::string(stage_name(s))] = {{"status", "not_run"}, {"failure", nullptr}, {"detail", nullptr}};
  }
  return json{
      {"format", kFormat},
      {"profile", profile.name},
      {"status", "failed"},
      {"failure", nullptr},
      {"level", "none"},
      {"source", {{"revision", source.revision}, {"origin", source.origin}, {"dirty", source.dirty},
                  {"version", NNX_VERSION}}},
      {"config", config},
      {"exporter", {{"name", profile.exporter}, {"options", profile.exporter_options()}}},
      {"opset", {{"requested", profile.opset_version}, {"model", nullptr}}},
      {"artifacts", {{"directory", profile.name}, {"model", kModelFile}, {"files", json::array()}}},
      {"versions", {{"nnx", NNX_VERSION}}},
      {"runtime", {{"name", profile.runtime}, {"version", nullptr}, {"provider", profile.provider},
                   {"session", session_options_json()}}},
      {"dtype", profile.dtype},
      {"input_cases", cases},
      {"tolerances", {{"rtol", profile.rtol}, {"atol", profile.atol}}},
      {"model_state", nullptr},
      {"stages", stages},
  };
}

void set_stage_passed(json& record, Stage stage, json detail) {
  record["stages"][std::string(stage_name(stage))] = {{"status", "passed"}, {"failure", nullptr},
                                                      {"detail", std::move(detail)}};
}

void set_stage_failed(json& record, Stage stage, FailureClass failure, json detail) {
  record["stages"][std::string(stage_name(stage))] = {
      {"status", "failed"}, {"failure", failure_name(failure)}, {"detail", std::move(detail)}};
}

void finalize_record(json& record) {
  bool all_passed = true;
  json failure = nullptr;
  for (Stage s : kStages) {
    const json& st = record["stages"][std::string(stage_name(s))];
    if (st["status"] != "passed") all_passed = false;
    if (failure.is_null() && st["status"] == "failed") failure = st["failure"];
  }
  record["status"] = all_passed ? "passed" : "failed";
  record["failure"] = failure;
  if (record["stages"]["parity"]["status"] == "passed") {
    record["level"] = "executed";
  } else if (record["stages"]["check"]["status"] == "passed") {
    record["level"] = "structural";
  } else {
    record["level"] = "none";
  }
}

}  // namespace nnx
