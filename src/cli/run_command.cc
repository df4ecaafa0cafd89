// `nnx-conformance run`: runs the chosen tested profiles (`--profile`), or the profiles of a `--profile-file`
// (profile/profile_file.h; with `--profile NAME`, only those it names: app/run_profiles.h, profiles_named), or
// `check`'s one profile named by flags (cli/check_command.cc), and writes the report (doc/record-format.md §8).
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/run_profiles.h"
#include "app/run_report.h"
#include "artifacts/layout.h"
#include "base/error.h"
#include "cli/commands.h"
#include "cli/flag_bounds.h"
#include "cli/run_progress.h"
#include "profile/profile_file.h"
#include "record/report.h"

namespace nnx::cli {

void add_run_command(CLI::App& app, RunArgs& args) {
  auto* run = app.add_subcommand("run", "run tested profiles, or your own model's (--profile-file with a module "
                                        "profile, doc/profile-files.md; from Python: nnx.check_module; one profile "
                                        "without a file: check), and write the report");
  run->add_option("--profile", args.profiles, "a tested profile, or with --profile-file one of the file's "
                                              "(repeatable; default: every one)")->take_all();
  run->add_option("--profile-file", args.profile_file, "a JSON list of profiles to run instead; your own "
                                                    "nn.Module: a module profile (doc/profile-files.md)");
  add_run_options(*run, args);
}

void add_run_options(CLI::App& run, RunArgs& args) {
  run.add_option("--output", args.output, "report path (parents are created)")->required();
  run.add_option("--artifacts", args.artifacts, "exported files (default: <output stem>-artifacts next to it)");
  run.add_option("--timings", args.timings, "write the run's phase breakdown (JSON) to this file");
  run.add_flag("--quiet", args.quiet, "no live progress on stderr");
  run.add_option("--jobs", args.jobs, "profiles exported at once, each by its own worker (default: auto, one worker plus those the run's exports pay for, at most one per core)")
      ->check(whole_number_from(1));
  run.add_option("--memory-limit", args.memory_limit_mib,
                  "MiB the run's input cases may cost in memory, the torch reference's (default: half of the "
                  "memory available; one case a quarter of it)")
      ->check(whole_number_from(1));
  run.add_option("--source-revision", args.source_revision, "the revision to record (default: git)");
  run.add_flag("--force", args.force, "clear the chosen profiles' earlier artifacts");
  run.add_option("--onnxruntime", args.onnxruntime, "path of libonnxruntime.so.1 to use");
  add_localise_options(run, args.localise, /*run=*/true);
  add_session_options(run, args.session, false);
  add_render_options(run, args.render);
  add_sign_key_option(run, args.sign_key);
}

int run_command(const RunArgs& args, const Seams& seams) {
  const std::filesystem::path output = args.output;
  if (output.filename().empty()) throw UsageError("--output must name a file, not " + args.output);
  RunRequest request;
  request.root = args.artifacts.empty() ? default_artifacts_root(output) : std::filesystem::path(args.artifacts);
  request.report_path = output;
  if (args.profile_object) {
    request.profiles = {profile_from_flags(*args.profile_object, std::filesystem::current_path(), args.command_flags)};
  } else {
    request.profiles = args.profile_file.empty()
                           ? tested_profiles_named(args.profiles)
                           : profiles_named(profiles_from_file(args.profile_file), args.profiles, args.profile_file);
  }
  request.force = args.force;
  if (!args.onnxruntime.empty()) request.options.onnxruntime_library = args.onnxruntime;
  request.options.source_revision = args.source_revision;
  request.options.open_runtime = seams.open_runtime;
  request.options.jobs = args.jobs;
  if (args.memory_limit_mib) request.options.memory_limit_bytes = std::uint64_t(*args.memory_limit_mib) << 20;
  request.options.localize = localise_when(args.localise, LocaliseWhen::parity_failed);
  request.options.localise_limits = localise_limits(args.localise);
  request.options.session = session_override(args.session);
  PathUse use{{{"--output", output}}, {}, {{"the artifacts root", request.root}}};
  if (!args.timings.empty()) use.outputs.push_back({"--timings", args.timings});
  if (!args.profile_file.empty()) use.inputs.push_back({"--profile-file", args.profile_file});
  if (!args.onnxruntime.empty()) use.inputs.push_back({"--onnxruntime", args.onnxruntime});
  const DocumentSigner signer(args.sign_key, output, use);
  check_outputs(use, args.render);
  if (!args.timings.empty()) require_timings_path(args.timings);
  RunProgress progress(!args.quiet, args.timings);
  request.options.observer = progress.observer();
  const RunOutcome outcome = run_to_report(request);
  progress.finish();
  signer.sign();
  const std::vector<std::string> file_lines = write_render_targets(outcome.report, args.render);
  for (const auto& line : summary_lines(outcome.records)) std::cout << line << "\n";
  std::cout << "report: " << output.string() << "\n"
            << "artifacts: " << request.root.string() << "\n";
  signer.print();
  for (const auto& line : file_lines) std::cout << line << "\n";
  std::cout << "exit code: " << outcome.exit_code << "\n";
  return outcome.exit_code;
}

}  // namespace nnx::cli
