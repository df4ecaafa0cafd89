// A localisation's repro as a record of its own (repro_record.h).
#include "app/repro_record.h"

#include <iostream>

#include "app/run_profile.h"
#include "app/worker_pool.h"
#include "artifacts/layout.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "base/tolerance_compare.h"
#include "profile/profile_file.h"
#include "record/report.h"

namespace nnx {
namespace {

using nlohmann::json;

// The repro's profile file: the cut and its data set, judged by the departure test's allowed error.
std::filesystem::path write_repro_profile(const std::filesystem::path& folder, const std::string& name,
                                          const json& localisation) {
  const json allowed = localisation["first_departing"]["rerun"]["errors"].value("allowed", json(0.0));
  double atol = allowed.is_number() ? allowed.get<double>() : 0.0;
  if (atol > 0.0 && atol < kMinNonzeroTolerance) atol = kMinNonzeroTolerance;
  const json profiles = json::array({{{"name", name + "-repro"},
                                      {"onnx", "model.onnx"},
                                      {"data", "."},
                                      {"rtol", 0},
                                      {"atol", atol}}});
  const std::filesystem::path file = folder / "profile.json";
  write_file_atomically(file, profiles.dump(2) + "\n");
  return file;
}

void make_repro_record(const std::filesystem::path& folder, const std::string& name, json& localisation,
                       const RunOptions& options) {
  RunOptions run = options;
  run.localize = LocaliseWhen::never;
  run.observer = nullptr;
  run.jobs = 1;
  const std::vector<Profile> profiles = profiles_from_file(write_repro_profile(folder, name, localisation));
  const json record = run_profile(profiles.front(), folder / "artifacts", run);
  write_file_atomically(folder / "report.json", make_report({record}).dump(2) + "\n");
  json& repro = localisation["repro"];
  repro["record"] = {{"report", "report.json"}, {"artifacts", "artifacts"}, {"profile", "profile.json"},
                     {"status", record.value("status", json())}, {"failure", record.value("failure", json())}};
}

}  // namespace

void localise_record(StageContext& context, LocaliseWhen when, const LocaliseLimits& limits,
                     const std::optional<std::filesystem::path>& repro_beside, const RunOptions& repro_run) {
  if ((!context.exporter || !context.exporter->running()) && !context.worker_command.script.empty()) {
    // run handed its worker on: an idle one whose exporter modules are imported already, when there is one
    context.exporter = take_warm_worker(context.worker_command, context.worker_timeout);
  }
  const auto folder = localise_after_parity(context, when, limits, repro_beside);
  if (!folder) return;
  json& localisation = context.record.stage(Stage::parity).detail["localisation"];
  try {
    make_repro_record(*folder, context.record.profile, localisation, repro_run);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    localisation["repro"]["record_error"] = e.what();
  }
  if (context.profile && !localisation["repro"].value("beside_the_record", false)) {
    list_repro_files(context.record, folder->parent_path());  // <profile folder>/repro
  }
}

}  // namespace nnx
