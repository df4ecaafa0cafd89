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
  context.record.set_stage_failed(Stage::load, failure, std::move(detail));
  return false;
}

// The verified bytes of every external-data file, under its normalised path (artifact_path.h).
std::vector<ExternalFile> external_files(const Record& record, const VerifyOutcome& verified) {
  std::vector<ExternalFile> external;
  for (const auto& f : record.artifacts.files) {
    if (f.role != rf::kRoleExternalData) continue;
    const std::string path = *normalize_artifact_path(f.path);
    external.push_back({path, verified.contents.at(path)});
  }
  return external;
}

SessionSettings session_settings(const Record& record) {
  SessionSettings settings;
  settings.provider = record.runtime.provider;
  settings.intra_op_num_threads = static_cast<int>(record.runtime.session.intra_op_num_threads);
  settings.inter_op_num_threads = static_cast<int>(record.runtime.session.inter_op_num_threads);
  settings.graph_optimization_level = record.runtime.session.graph_optimization_level;
  return settings;
}

bool load(StageContext& context) {
  const Record& record = context.record;
  VerifyOutcome verified;
  try {
    verified = verify_artifacts(record.artifacts.directory, record.artifacts.files, context.root,
                                /*keep_contents=*/true);
  } catch (const std::exception& e) {
    return fail(context, FailureClass::hash_mismatch,
                json{{"error", std::string("artifacts cannot be verified: ") + e.what()}});
  }
  if (!verified.ok()) {
    return fail(context, FailureClass::hash_mismatch, json{{"problems", verified.problems}, {"loaded", false}});
  }
  const SessionSettings settings = session_settings(record);
  try {
    context.session = context.runtime->create_session(verified.contents.at(record.artifacts.model),
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
  context.record.set_stage_passed(Stage::load, json{{"providers", providers}});
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
