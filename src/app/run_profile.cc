#include "app/run_profile.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/source.h"
#include "artifacts/layout.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using Clock = std::chrono::steady_clock;

void print_timing(const Profile& profile, const StageContext& context, Clock::time_point started) {
  const char* timing = std::getenv("NNX_TIMING");
  if (timing == nullptr || *timing == '\0' || std::string(timing) == "0") return;
  std::fprintf(stderr, "nnx-timing: profile=%s total_s=%.6f worker_s=%.6f load_s=%.6f runtime_open_s=%.6f\n",
               profile.name.c_str(), std::chrono::duration<double>(Clock::now() - started).count(),
               context.exporter ? context.exporter->seconds() : 0.0, context.times.load_seconds,
               context.times.runtime_open_seconds);
}

}  // namespace

nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options) {
  require_valid(profile);
  require_free_profile_folder(root, profile.name);
  const Clock::time_point started = Clock::now();
  const auto model = make_reference_model(profile.model);
  Record record = blank_record_of(profile, detect_source(options.source_revision), model->weights_sha256());
  StageContext context{record, root, *model, &profile};
  context.open_runtime = options.open_runtime;
  context.runtime_library = options.onnxruntime_library;
  context.worker_command = options.worker ? *options.worker : default_worker_command();
  context.worker_timeout = options.worker_timeout ? *options.worker_timeout : default_worker_timeout();
  run_stages(context, kRunPipeline);
  if (context.exporter) context.exporter->stop();
  record.finalize();
  print_timing(profile, context, started);
  return record.to_json();
}

}  // namespace nnx
