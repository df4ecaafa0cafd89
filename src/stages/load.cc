// The load stage (doc/record-format.md §4), shared by run and execute: the record's artifacts are verified
// against the folder FIRST (any problem: hash-mismatch, and nothing is loaded); then a session is created
// from the verified bytes (never from a path) on the declared provider with the record's session options.
// Failure to create it, or a first provider other than the declared one: load-error.
#include <chrono>
#include <string>
#include <vector>

#include "artifacts/artifact_path.h"
#include "artifacts/artifacts.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using nlohmann::json;

bool fail(StageContext& context, FailureClass failure, json detail) {
  set_stage_failed(context.record, Stage::load, failure, std::move(detail));
  return false;
}

// The verified bytes of every external-data file, under its normalised path (artifact_path.h).
std::vector<ExternalFile> external_files(const json& record, const VerifyOutcome& verified) {
  std::vector<ExternalFile> external;
  for (const auto& f : record["artifacts"]["files"]) {
    if (f["role"] != "external-data") continue;
    const std::string path = *normalize_artifact_path(f["path"].get<std::string>());
    external.push_back({path, verified.contents.at(path)});
  }
  return external;
}

SessionSettings session_settings(const json& record) {
  SessionSettings settings;
  settings.provider = record["runtime"]["provider"].get<std::string>();
  const json& session = record["runtime"]["session"];
  settings.intra_op_num_threads = session["intra_op_num_threads"].get<int>();
  settings.inter_op_num_threads = session["inter_op_num_threads"].get<int>();
  settings.graph_optimization_level = session["graph_optimization_level"].get<std::string>();
  return settings;
}

bool load(StageContext& context) {
  json& record = context.record;
  VerifyOutcome verified;
  try {
    verified = verify_artifacts(record, context.root, /*keep_contents=*/true);
  } catch (const std::exception& e) {
    return fail(context, FailureClass::hash_mismatch,
                json{{"error", std::string("artifacts cannot be verified: ") + e.what()}});
  }
  if (!verified.ok()) {
    return fail(context, FailureClass::hash_mismatch, json{{"problems", verified.problems}, {"loaded", false}});
  }
  const std::string model_path = record["artifacts"]["model"].get<std::string>();
  const SessionSettings settings = session_settings(record);
  try {
    context.session = context.runtime->create_session(verified.contents.at(model_path),
                                                      external_files(record, verified), settings);
  } catch (const RuntimeFailure& e) {
    return fail(context, FailureClass::load_error,
                json{{"error", e.what()}, {"code", e.code_name()}, {"provider", settings.provider}});
  }
  const auto& providers = context.session->providers();
  if (providers.empty() || providers.front() != settings.provider) {
    json detail{{"error", "the session's first provider is not " + settings.provider}, {"providers", providers}};
    context.session.reset();
    return fail(context, FailureClass::load_error, std::move(detail));
  }
  set_stage_passed(record, Stage::load, json{{"providers", providers}});
  return true;
}

}  // namespace

bool run_load_stage(StageContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const bool passed = load(context);
  context.times.load_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return passed;
}

}  // namespace nnx
