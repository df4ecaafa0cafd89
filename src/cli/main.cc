// nnx-conformance: the command line. Verbs: run, validate, verify, execute (see README).
//
// Exit codes: 0 every profile passed; 10..18 the failure class of the first failing profile (failure.h is
// the one place that maps classes to codes); 1 an error; 2 a usage error.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "base/failure.h"
#include "artifacts/root_lock.h"
#include "base/atomic_file.h"
#include "base/interrupt.h"

int main(int argc, char** argv) {
  CLI::App app{"nnx-conformance: executes exported networks in ONNX Runtime and records what they compute",
               "nnx-conformance"};
  app.require_subcommand(1);
  nnx::cli::RunArgs run_args;
  nnx::cli::add_run_command(app, run_args);
  nnx::cli::RecordArgs record_args;
  nnx::cli::add_record_commands(app, record_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A missing requirement is checked before leftover arguments; name the leftovers first, since an
    // unknown command or flag is usually why the requirement looks unmet.
    std::string unexpected;
    for (const auto& arg : app.remaining(true)) unexpected += (unexpected.empty() ? "" : " ") + arg;
    std::cerr << "nnx-conformance: usage error: "
              << (unexpected.empty() || dynamic_cast<const CLI::ExtrasError*>(&e)
                      ? std::string(e.what())
                      : "unknown command or argument: " + unexpected + "; " + e.what())
              << " (see --help)\n";
    return nnx::kExitUsage;
  }
  try {
    if (app.got_subcommand("run")) return nnx::cli::run_command(run_args);
    return nnx::cli::record_command(app, record_args);
  } catch (const nnx::Interrupted& e) {
    // SIGINT/SIGTERM during `run`: the worker's process group was killed; no report was written.
    std::cerr << "nnx-conformance: " << e.what()
              << ": the exporter worker was stopped and no report was written (an earlier report is unchanged)\n";
    return 128 + e.signal();
  } catch (const nnx::UsageError& e) {
    std::cerr << "nnx-conformance: usage error: " << e.what() << "\n";
    return nnx::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "nnx-conformance: error: " << e.what() << "\n";
    return nnx::kExitError;
  } catch (...) {
    std::cerr << "nnx-conformance: error: an unexpected non-standard exception\n";
    return nnx::kExitError;
  }
}
