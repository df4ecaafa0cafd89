// `nnx-conformance run`: runs the chosen tested profiles and writes the report (record-format §8).
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "failure.h"
#include "profile.h"
#include "report.h"
#include "run_profile.h"

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

namespace {

std::vector<Profile> chosen_profiles(const std::vector<std::string>& names) {
  std::vector<Profile> chosen;
  if (names.empty()) return tested_profiles();
  for (const auto& name : names) {
    auto p = tested_profile(name);
    if (!p) {
      std::string known;
      for (const auto& t : tested_profiles()) known += (known.empty() ? "" : ", ") + t.name;
      throw UsageError("unknown profile \"" + name + "\" (tested profiles: " + known + ")");
    }
    bool seen = false;
    for (const auto& c : chosen) seen = seen || c.name == name;
    if (!seen) chosen.push_back(*p);
  }
  return chosen;
}

void clear_profile_folder(const std::filesystem::path& root, const std::string& name) {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(root, ec);
  if (!ec && st.type() == std::filesystem::file_type::symlink) {
    throw UsageError("--force refuses a symlinked artifacts folder " + root.string());
  }
  const auto folder = root / name;
  const auto fst = std::filesystem::symlink_status(folder, ec);
  if (ec || fst.type() == std::filesystem::file_type::not_found) return;
  if (fst.type() == std::filesystem::file_type::symlink) {
    throw UsageError("--force refuses a symlinked profile folder " + folder.string());
  }
  std::filesystem::remove_all(folder, ec);
  if (ec) throw std::runtime_error("cannot clear " + folder.string() + ": " + ec.message());
}

}  // namespace

int run_command(const RunArgs& args) {
  const std::filesystem::path output = args.output;
  if (output.filename().empty()) throw UsageError("--output must name a file, not " + args.output);
  std::filesystem::path artifacts = args.artifacts;
  if (artifacts.empty()) {
    artifacts = output.parent_path() / (output.stem().string() + "-artifacts");
  }
  const auto profiles = chosen_profiles(args.profiles);
  for (const auto& p : profiles) {
    if (args.force) {
      clear_profile_folder(artifacts, p.name);
    } else {
      require_free_profile_folder(artifacts, p.name);
    }
  }
  RunOptions options;
  if (!args.onnxruntime.empty()) options.onnxruntime_library = args.onnxruntime;
  options.source_revision = args.source_revision;
  std::vector<json> records;
  for (const auto& p : profiles) records.push_back(run_profile(p, artifacts, options));
  save_report(make_report(records), output);
  for (const auto& line : summary_lines(records)) std::cout << line << "\n";
  const int code = exit_code_for(records);
  std::cout << "report: " << output.string() << "\n"
            << "artifacts: " << artifacts.string() << "\n"
            << "exit code: " << code << "\n";
  return code;
}

}  // namespace nnx::cli
