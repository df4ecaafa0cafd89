// `nnx-conformance run`: runs the chosen tested profiles and writes the report (record-format §8).
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "base/failure.h"
#include "profile/profile.h"
#include "record/report.h"
#include "app/run_profile.h"
#include "app/run_profiles.h"
#include "artifacts/root_lock.h"
#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "worker/worker_limits.h"
#include "worker/worker_process.h"

namespace nnx::cli {

void add_run_command(CLI::App& app, RunArgs& args) {
  auto* run = app.add_subcommand("run", "run tested profiles and write the report");
  run->add_option("--output", args.output, "report path (parents are created)")->required();
  run->add_option("--artifacts", args.artifacts, "exported files (default: <output stem>-artifacts next to it)");
  run->add_option("--profile", args.profiles, "a tested profile (repeatable; default: both)")->take_all();
  run->add_option("--source-revision", args.source_revision, "the revision to record (default: git)");
  run->add_flag("--force", args.force, "clear the chosen profiles' earlier artifacts");
  run->add_option("--onnxruntime", args.onnxruntime, "path of libonnxruntime.so.1 to use");
}

int run_command(const RunArgs& args) {
  // SIGINT/SIGTERM from here on stop the worker's process group and end the run without writing the
  // report (main() exits 128 + signal); see run_safety.h.
  install_interrupt_handlers();
  const std::filesystem::path output = args.output;
  if (output.filename().empty()) throw UsageError("--output must name a file, not " + args.output);
  std::filesystem::path artifacts = args.artifacts;
  if (artifacts.empty()) {
    artifacts = output.parent_path() / (output.stem().string() + "-artifacts");
  }
  const auto profiles = tested_profiles_named(args.profiles);
  RunOptions options;
  if (!args.onnxruntime.empty()) options.onnxruntime_library = args.onnxruntime;
  options.source_revision = args.source_revision;
  try {
    options.worker_timeout = default_worker_timeout();  // NNX_WORKER_TIMEOUT_SECONDS, else 600 s
    max_worker_output_bytes();                          // NNX_WORKER_MAX_OUTPUT_BYTES, else 1 GiB
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // Refused before anything runs: a report path that is a folder or cannot be written, an artifacts path
  // that is not a folder, a symlinked root with --force, a root another run holds.
  require_writable_file_path(output);
  check_artifact_root(artifacts, args.force);
  const ArtifactRootLock lock(artifacts);  // held until the report is written
  const auto records = run_profiles(profiles, artifacts, options, args.force);
  throw_if_interrupted();  // a signal during the run: the previous report stays as it was
  save_report(make_report(records), output);
  for (const auto& line : summary_lines(records)) std::cout << line << "\n";
  const int code = exit_code_for(records);
  std::cout << "report: " << output.string() << "\n"
            << "artifacts: " << artifacts.string() << "\n"
            << "exit code: " << code << "\n";
  return code;
}

}  // namespace nnx::cli
