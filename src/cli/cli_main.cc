// Exit codes: 0 every profile passed; 10..18 the failure class of the first failing profile; 1 an error;
// 2 a usage error; 128 + signal after SIGINT/SIGTERM (base/error.h maps them, once). `--help` lists them and
// the tested profiles, `--version` names the build and its formats, and a mistyped flag or command is
// answered with the nearest one (cli/help_text.h). Whatever a verb prints on stdout and stderr shows control
// characters as text (`\x1b`): a record's or report's text never drives the terminal (base/terminal_text.h).
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "base/error.h"
#include "base/failure.h"
#include "base/front_end.h"
#include "base/terminal_text.h"
#include "cli/commands.h"
#include "cli/help_text.h"

namespace nnx::cli {
namespace {

// The long flags of the chosen verb (or of the command itself), as typed: "--output".
std::vector<std::string> known_flags(CLI::App& app) {
  std::vector<CLI::App*> scopes = app.get_subcommands();
  scopes.push_back(&app);
  std::vector<std::string> flags;
  for (CLI::App* scope : scopes) {
    for (const CLI::Option* option : scope->get_options()) {
      for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
    }
  }
  return flags;
}

// The commands a user may type (not the hidden matrix-cell, the matrix's own child).
std::vector<std::string> known_commands(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
    names.push_back(command->get_name());
  }
  return names;
}

// "; did you mean --output?" for the first leftover flag that is a near miss of a known one, or, when no
// command was recognised, "; did you mean run?" for a leftover word near a command; else "".
std::string suggestion(CLI::App& app, const std::vector<std::string>& leftovers) {
  const std::vector<std::string> flags = known_flags(app);
  const std::vector<std::string> commands =
      app.get_subcommands().empty() ? known_commands(app) : std::vector<std::string>{};
  for (const std::string& arg : leftovers) {
    const bool flag = arg.rfind("--", 0) == 0;
    if (!flag && arg.rfind('-', 0) == 0) continue;
    if (const auto nearest = nearest_name(arg, flag ? flags : commands)) return "; did you mean " + *nearest + "?";
  }
  return "";
}

int usage_error(CLI::App& app, const CLI::ParseError& e) {
  // A missing requirement is checked before leftover arguments; name the leftovers first, since an
  // unknown command or flag is usually why the requirement looks unmet.
  const std::vector<std::string> leftovers = app.remaining(true);
  std::string unexpected;
  for (const auto& arg : leftovers) unexpected += (unexpected.empty() ? "" : " ") + arg;
  std::cerr << "nnx-conformance: usage error: "
            << (unexpected.empty() || dynamic_cast<const CLI::ExtrasError*>(&e)
                    ? std::string(e.what())
                    : "unknown command or argument: " + unexpected + "; " + e.what())
            << suggestion(app, leftovers) << " (see --help)\n";
  return kExitUsage;
}

// What was printed reached standard output, or the exit code says it did not: `report R > /dev/full` must
// not exit 0 with nothing written (a failed write sets the stream's state; the C buffer fails at its flush).
int with_output_written(int code) {
  std::cout.flush();
  if (std::cout.good() && std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  std::cerr << "nnx-conformance: error: cannot write to standard output (" << std::strerror(errno)
            << "); what it printed is incomplete\n";
  return code == kExitPassed ? kExitError : code;
}

int report_error(const Error& e) {
  if (e.kind() == ErrorKind::interrupted) {
    std::cerr << "nnx-conformance: " << e.what() << hint(e.kind()) << "\n";
  } else {
    std::cerr << "nnx-conformance: " << error_label(e.kind()) << ": " << e.what() << hint(e.kind()) << "\n";
  }
  return exit_code_of(e);
}

int dispatch(int argc, char** argv, const Seams& seams) {
  set_front_end(FrontEnd::command_line);  // the core's messages name flags (base/front_end.h)
  CLI::App app{"nnx-conformance: executes exported networks in ONNX Runtime and records what they compute",
               "nnx-conformance"};
  app.require_subcommand(1);
  app.set_version_flag("--version", &version_line, "print the version and the formats it reads and writes");
  app.footer(&help_footer);  // built only when --help prints it, not at every start
  RunArgs run_args;
  add_run_command(app, run_args);
  CLI::App* check = add_check_command(app, run_args);
  RecordArgs record_args;
  add_record_commands(app, record_args);
  ReportArgs report_args;
  add_report_command(app, report_args);
  MatrixArgs matrix_args;
  add_matrix_commands(app, matrix_args);
  RejudgeArgs rejudge_args;
  add_rejudge_command(app, rejudge_args);
  KeygenArgs keygen_args;
  add_keygen_command(app, keygen_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e);
  }
  try {
    if (app.got_subcommand("run")) return run_command(run_args, seams);
    if (app.got_subcommand(check)) {
      run_args.profile_object = check_profile_object(check->remaining());
      run_args.command_flags = known_flags(app);
      return run_command(run_args, seams);
    }
    if (app.got_subcommand("report")) return report_command(report_args);
    if (app.got_subcommand("keygen")) return keygen_command(keygen_args);
    if (app.got_subcommand("rejudge")) return rejudge_command(rejudge_args);
    for (const char* verb : {"matrix", "matrix-merge", "matrix-cell"}) {
      if (app.got_subcommand(verb)) return matrix_command(app, matrix_args);
    }
    return record_command(app, record_args, seams);
  } catch (const Error& e) {
    return report_error(e);
  } catch (const std::exception& e) {
    std::cerr << "nnx-conformance: error: " << e.what() << "\n";
    return kExitError;
  } catch (...) {
    std::cerr << "nnx-conformance: error: an unexpected non-standard exception\n";
    return kExitError;
  }
}

}  // namespace

int cli_main(int argc, char** argv, const Seams& seams) {
  const TerminalStreams terminal;  // what the verbs print shows control characters as text (base/terminal_text.h)
  return with_output_written(dispatch(argc, argv, seams));
}

}  // namespace nnx::cli
