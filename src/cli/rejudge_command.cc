// `nnx-conformance rejudge DOCUMENT [--rtol X] [--atol Y] --output OUT` (doc/rejudge.md): the verdicts of a
// report, a record or a runtime matrix re-judged from the outputs kept beside it (`execute --keep-outputs`, a
// matrix; stages/kept_outputs.h) under other tolerances, with nothing run again (matrix/rejudge_document.h,
// the sequence every front end calls). Prints one line per verdict that changes and a count, writes the
// nnx.rejudged/1 document atomically (never the document re-judged) and exits as `execute` would for the
// re-judged records; a document whose records do not validate, kept outputs that are missing, changed or
// another document's are refused.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"
#include "matrix/rejudge_document.h"

namespace nnx::cli {

void add_rejudge_command(CLI::App& app, RejudgeArgs& args) {
  auto* rejudge = app.add_subcommand(
      "rejudge", "re-judge a report's or matrix's verdicts from its kept outputs under other tolerances (nothing runs)");
  rejudge->add_option("DOCUMENT", args.document, "a report, record or runtime matrix whose outputs were kept")->required();
  rejudge->add_option("--rtol", args.rtol, "relative tolerance (default: each record's own)")
      ->check(CLI::NonNegativeNumber);
  rejudge->add_option("--atol", args.atol, "absolute tolerance (default: each record's own)")
      ->check(CLI::NonNegativeNumber);
  rejudge->add_option("--output", args.output, "write the re-judged document (nnx.rejudged/1) here")->required();
}

int rejudge_command(const RejudgeArgs& args) {
  const RejudgeOutcome outcome = matrix::rejudge_document(args.document, args.rtol, args.atol, args.output);
  for (const auto& line : outcome.changes) std::cout << "rejudge: " << line << "\n";
  std::cout << "rejudge: " << outcome.changes.size() << " verdict(s) change\n";
  std::cout << "output: " << args.output << "\n";
  std::cout << "exit code: " << outcome.exit_code << "\n";
  return outcome.exit_code;
}

}  // namespace nnx::cli
