// The command line's verbs. Each returns the process exit code; errors propagate as exceptions that
// main() maps: UsageError → 2, anything else → 1.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace nnx::cli {

struct RunArgs {
  std::string output;
  std::string artifacts;
  std::vector<std::string> profiles;
  std::optional<std::string> source_revision;
  bool force = false;
  std::string onnxruntime;
};

struct RecordArgs {
  std::string file;
  std::string root;
  std::string output;
  std::string onnxruntime;
};

void add_run_command(CLI::App& app, RunArgs& args);
int run_command(const RunArgs& args);

void add_record_commands(CLI::App& app, RecordArgs& args);
int record_command(CLI::App& app, const RecordArgs& args);

}  // namespace nnx::cli
