// The load stage (doc/record-format.md §4), shared by run and execute: the record's artifacts are verified
// against the folder FIRST (any problem: hash-mismatch, and nothing is loaded); then a session is created
// from the verified bytes (never from a path) on the declared provider with the record's session options.
// Failure to create it, or a first provider other than the declared one: load-error.
// External data: ONNX Runtime finds an in-memory external file by the location string the model holds, so
// every location model.onnx references (read with onnx_file/onnx_model_file.h) is handed over under the
// model's exact spelling ("./w.bin") with the verified bytes of the file it normalises to (artifact_path.h);
// a model the reader refuses (external data ONNX Runtime would read from its working directory is refused
// there, doc/external-data.md), or a location that names no file the record lists as external-data: load-error.
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "artifacts/artifact_path.h"
#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "onnx_file/onnx_model_file.h"
#include "record/record.h"
#include "stages/stages.h"
#include "stages/weights_check.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace detail_key = rf::detail_key;

// The verified bytes of the file a location of the model names: its normalised path must be a file the
// record lists as external-data. ConformanceError naming the location otherwise.
std::span<const std::byte> listed_external(const Record& record, const VerifyOutcome& verified,
                                           const std::string& location) {
  const std::string named = external_location_text(location) + " of " + record.artifacts.model;
  std::string why;
  const auto path = normalize_artifact_path(location, &why);
  if (!path) throw ConformanceError(named + " is not a valid artifact path (" + why + ")");
  for (const auto& f : record.artifacts.files) {
    if (normalize_artifact_path(f.path) != path) continue;
    if (f.role != rf::kRoleExternalData) {
      throw ConformanceError(named + " names " + *path + ", which the record lists as " + f.role + ", not " +
                             rf::kRoleExternalData);
    }
    return verified.contents.at(*path);
  }
  throw ConformanceError(named + " names " + *path + ", which the record does not list");
}

// The model whose weights the load stage checks in model.onnx: the built-in net's reference model (its values
// decoded and compared); none for a module or an ONNX file, whose weights the export accounts for (§10, §11),
// so only their names and sizes are read.
const ReferenceModel* weights_checked_against(const StageContext& context) {
  return model_kind_facts(context.record.kind()).native_net ? context.model : nullptr;
}

// Every location model.onnx references, under the model's own spelling, with the verified bytes of the
// external-data file it names; and whether model.onnx stores the model's weights (weights_check.h), read from the
// same parse. ConformanceError for a model the reader refuses or a location not listed.
std::vector<ExternalFile> external_files(StageContext& context, const VerifyOutcome& verified) {
  const Record& record = context.record;
  const ExternalBytes lookup = [&](const std::string& location) -> std::optional<std::span<const std::byte>> {
    return listed_external(record, verified, location);
  };
  const ReferenceModel* net = weights_checked_against(context);
  const OnnxModelFile model = read_onnx_model(verified.contents.at(record.artifacts.model), lookup,
                                              net != nullptr ? FloatValues::decoded : FloatValues::sizes_only);
  std::vector<ExternalFile> external;
  for (const auto& location : model.external_locations) external.push_back({location, *lookup(location)});
  if (net != nullptr) context.weights = weights_in_model(*net, model);
  return external;
}  // the parsed model (a copy of every initializer) is gone before the session is created

SessionSettings session_settings(const Record& record) {
  SessionSettings settings;
  settings.provider = record.runtime.provider;
  settings.intra_op_num_threads = static_cast<int>(record.runtime.session.intra_op_num_threads);
  settings.inter_op_num_threads = static_cast<int>(record.runtime.session.inter_op_num_threads);
  settings.graph_optimization_level = record.runtime.session.graph_optimization_level;
  settings.config.assign(record.runtime.session.config.begin(), record.runtime.session.config.end());
  settings.provider_options.assign(record.runtime.provider_options.begin(), record.runtime.provider_options.end());
  return settings;
}

bool load(StageContext& context) {
  const Record& record = context.record;
  VerifyOutcome verified;
  try {
    verified = verify_artifacts(record.artifacts.directory, record.artifacts.files, context.root,
                                /*keep_contents=*/true);
  } catch (const std::exception& e) {
    return stage_failed(context, kUnverifiedArtifacts,
                json{{detail_key::kError, std::string("artifacts cannot be verified: ") + e.what()}});
  }
  if (!verified.ok()) {
    return stage_failed(context, kUnverifiedArtifacts,
                json{{detail_key::kProblems, verified.problems}, {detail_key::kLoaded, false}});
  }
  std::vector<ExternalFile> external;
  try {
    external = external_files(context, verified);
  } catch (const ConformanceError& e) {
    return stage_failed(context, FailureClass::load_error, json{{detail_key::kError, e.what()}});
  }
  SessionSettings settings = session_settings(record);
  settings.run_timeout = context.case_timeout;
  try {
    context.session =
        context.runtime->create_session(verified.contents.at(record.artifacts.model), external, settings);
  } catch (const RuntimeFailure& e) {
    return stage_failed(context, FailureClass::load_error,
                json{{detail_key::kError, e.what()},
                     {detail_key::kCode, e.code_name()},
                     {detail_key::kProvider, settings.provider}});
  }
  const auto& providers = context.session->providers();
  if (providers.empty() || providers.front() != settings.provider) {
    json detail{{detail_key::kError, "the session's first provider is not " + settings.provider},
                {detail_key::kProviders, providers}};
    context.session.reset();
    return stage_failed(context, FailureClass::load_error, std::move(detail));
  }
  switch (model_kind_facts(record.kind()).form) {
    case RecordForm::named_tensors:  // its stored tensors, verified above, read again one at a time by parity
      context.stored = StoredTensors(profile_folder(context.root, record.artifacts.directory), record.artifacts.files);
      context.graph_input_names = context.session->input_names();
      break;
    case RecordForm::brief: break;
  }
  context.record.set_stage_passed(Stage::load, json{{detail_key::kProviders, providers}});
  return true;
}

}  // namespace

VerifiedModel verified_model(StageContext& context) {
  const Record& record = context.record;
  VerifiedModel out;
  out.verified = verify_artifacts(record.artifacts.directory, record.artifacts.files, context.root,
                                  /*keep_contents=*/true);
  if (!out.verified.ok()) {
    std::string problems;
    for (const auto& p : out.verified.problems) problems += (problems.empty() ? "" : "; ") + p;
    throw ConformanceError("the record's artifacts do not verify: " + problems);
  }
  const WeightsVerdict kept = context.weights;
  out.external = external_files(context, out.verified);
  context.weights = kept;
  out.model = out.verified.contents.at(record.artifacts.model);
  out.settings = session_settings(record);
  out.settings.run_timeout = context.case_timeout;
  return out;
}

bool run_load_stage(StageContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const bool passed = load(context);
  context.times.load_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return passed;
}

}  // namespace nnx
