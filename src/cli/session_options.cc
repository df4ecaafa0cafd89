// The session-settings flags of run, check, execute and a matrix's cell, and the one KEY=VALUE parser of
// --session-config and --provider-option (a matrix's too) (commands.h SessionArgs; app/run_options.h
// SessionOverride, doc/record-format.md §11 "session settings").
#include <CLI/CLI.hpp>

#include "base/error.h"
#include "base/record_vocabulary.h"
#include "cli/commands.h"

namespace nnx::cli {

void add_session_options(CLI::App& command, SessionArgs& args, bool with_provider) {
  namespace key = rf::session_key;
  command
      .add_option("--optimization-level", args.optimization_level,
                  "the session's graph optimisation level (a module or successor-format record's; default: the "
                  "record's own, ORT_ENABLE_ALL)")
      ->check(CLI::IsMember(std::vector<std::string>(key::kOptimizationLevels.begin(), key::kOptimizationLevels.end())));
  command
      .add_option("--intra-op-threads", args.intra_op_threads,
                  "the session's intra-op threads (a module or successor-format record's; default: the record's own, "
                  "1); more than one runs each case twice and says whether the runs agree")
      ->check(CLI::Range(std::int64_t{1}, key::kMaxIntraOpThreads));
  command.add_option("--session-config", args.config,
                     "a session config entry KEY=VALUE (repeatable), e.g. session.set_denormal_as_zero=1");
  command.add_option("--provider-option", args.provider_options,
                     "an option KEY=VALUE given to the execution provider when the session appends it (repeatable; a "
                     "module or successor-format record's provider, e.g. precision=FP32 for OpenVINOExecutionProvider; "
                     "CPUExecutionProvider takes none)");
  if (!with_provider) return;  // run and check: a profile names its provider itself
  command.add_option("--provider", args.provider,
                     "the execution provider (a module or successor-format record's; default: the record's own, "
                     "CPUExecutionProvider); one the runtime lacks is the record's load-error naming it");
}

namespace {

// KEY=VALUE entries of `flag`, the one parser of --session-config and --provider-option (a later KEY replaces).
std::map<std::string, std::string> key_values(const std::vector<std::string>& entries, const std::string& flag) {
  std::map<std::string, std::string> out;
  for (const auto& entry : entries) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) throw UsageError(flag + " takes KEY=VALUE, not " + entry);
    out[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return out;
}

}  // namespace

SessionOverride session_override(const SessionArgs& args) {
  SessionOverride session;
  if (!args.optimization_level.empty()) session.optimization_level = args.optimization_level;
  if (args.intra_op_threads > 0) session.intra_op_threads = args.intra_op_threads;
  if (!args.provider.empty()) session.provider = args.provider;
  session.config = key_values(args.config, "--session-config");
  session.provider_options = key_values(args.provider_options, "--provider-option");
  return session;
}

}  // namespace nnx::cli
