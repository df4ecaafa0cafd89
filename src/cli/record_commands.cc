// `nnx-conformance validate | verify | execute`: records that can be trusted later.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "failure.h"

namespace nnx::cli {

void add_record_commands(CLI::App& app, RecordArgs& args) {
  (void)app;
  (void)args;
}

int record_command(CLI::App& app, const RecordArgs& args) {
  (void)args;
  throw UsageError("unknown command " + app.get_subcommands().front()->get_name());
}

}  // namespace nnx::cli
