// The localisation flags of run and execute (commands.h LocaliseArgs; stages/localisation.h).
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/flag_bounds.h"

namespace nnx::cli {

void add_localise_options(CLI::App& command, LocaliseArgs& args, bool run) {
  auto* always = command.add_flag(
      "--localize", args.always,
      run ? "localise every record, a passing one too (default: those whose parity found a mismatch): the first "
            "node whose output departs from PyTorch's (ONNX's reference evaluator's for data alone), whether it "
            "introduces the error, and a repro (doc/localisation.md)"
          : "localise each record: the first node whose output departs from PyTorch's (ONNX's reference "
            "evaluator's for data alone), whether it introduces the error, and a repro (doc/localisation.md); "
            "implies --reference torch where the record has a module or network to rebuild");
  if (run) {
    command.add_flag("--no-localize", args.never, "never localise a failure (default: a mismatch is localised)")
        ->excludes(always);
  }
  command.add_option("--localize-memory", args.memory_mib,
                     "MiB of intermediate values one localisation session holds at most (default 256)")
      ->check(whole_number_from(1));
  command.add_option("--localize-seconds", args.seconds,
                     "seconds after which a localisation starts no new group of values (default 600)")
      ->check(whole_number_from(1));
}

LocaliseWhen localise_when(const LocaliseArgs& args, LocaliseWhen by_default) {
  if (args.always) return LocaliseWhen::always;
  if (args.never) return LocaliseWhen::never;
  return by_default;
}

LocaliseLimits localise_limits(const LocaliseArgs& args) {
  LocaliseLimits limits;
  if (args.memory_mib) limits.memory_bytes = std::uint64_t(*args.memory_mib) << 20;
  if (args.seconds) limits.time_cap = std::chrono::seconds(*args.seconds);
  return limits;
}

}  // namespace nnx::cli
