// `nnx-conformance check`: the one-line form of a profile (doc/profile-files.md, "The one-line form"). Every
// word after check's own flags (those of `run`, add_run_options) is a `--KEY VALUE` pair, KEY a key of a
// profile object and VALUE its JSON value (a string may be given bare: `--module m.py:make`). The words make
// exactly one profile object, which `run` reads as a profile file's entry (profile/profile_file.h
// profile_from_flags): one reader, one set of checks, and an unknown KEY is answered by the reader's own
// nearest key. No list of keys is written here.
#include <CLI/CLI.hpp>

#include "base/error.h"
#include "base/json_strict.h"
#include "cli/commands.h"

namespace nnx::cli {
namespace {

// The help's examples, one per kind; tests/e2e/test_one_line_form.py runs both as printed.
constexpr const char* kCheckFooter =
    "Every key of a profile object (doc/profile-files.md) is a flag, --KEY VALUE, VALUE the key's JSON value (a\n"
    "string may be given bare). Relative paths are relative to the current folder. The same object in a\n"
    "profile file, run by `run --profile-file`, gives the same record.\n"
    "Examples:\n"
    "  your own nn.Module (from the repository's root):\n"
    "    nnx-conformance check --output check/gru.json --name gru --exporter torchscript"
    " --module tests/models/zoo.py:gru --inputs '[{\"name\": \"sequence\", \"shape\": [\"batch\", 12, 8]}]'"
    " --dims '{\"batch\": [2, 1]}'\n"
    "  your own ONNX file against its data sets (test_data_set_N/input_j.pb, output_j.pb):\n"
    "    nnx-conformance check --output check/mine.json --name mine --onnx model.onnx --data data";

// VALUE as JSON, else (a bare word) as a string; a value that opens as JSON but is not is refused.
nlohmann::json flag_value(const std::string& flag, const std::string& value) {
  try {
    return parse_strict_json(value);
  } catch (const JsonError& e) {
    const auto first = value.find_first_not_of(" \t\n");
    if (first != std::string::npos && std::string("{[\"").find(value[first]) != std::string::npos) {
      throw UsageError(flag + ": " + value + " is not JSON: " + e.what() + " (quote the value for the shell)");
    }
    return value;
  }
}

}  // namespace

CLI::App* add_check_command(CLI::App& app, RunArgs& args) {
  auto* check = app.add_subcommand("check", "check one profile named by flags, without a profile file: each key of "
                                            "a profile object is a flag (--name, --exporter, --module, --inputs, "
                                            "--onnx, --data, ...), and write the report");
  check->allow_extras();
  add_run_options(*check, args);
  check->footer(kCheckFooter);
  return check;
}

nlohmann::json check_profile_object(const std::vector<std::string>& words) {
  nlohmann::json object = nlohmann::json::object();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.rfind("--", 0) != 0 || word.size() == 2) {
      throw UsageError("check takes --KEY VALUE pairs, each KEY a key of a profile object, not " + word);
    }
    const auto equals = word.find('=');
    const std::string flag = word.substr(0, equals);
    std::string value;
    if (equals != std::string::npos) {
      value = word.substr(equals + 1);
    } else if (i + 1 < words.size()) {
      value = words[++i];
    } else {
      throw UsageError(flag + " needs a value: the key's JSON value (a string may be given bare)");
    }
    const std::string key = flag.substr(2);
    if (object.contains(key)) throw UsageError(flag + " is given twice");
    object[key] = flag_value(flag, value);
  }
  if (object.empty()) {
    throw UsageError("check names its profile by flags, --name NAME --exporter ... (see check --help)");
  }
  return object;
}

}  // namespace nnx::cli
