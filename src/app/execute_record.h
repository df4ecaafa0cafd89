// Re-executing a saved record (doc/record-format.md §7). The reference is `execution_reference`'s, per
// record: with the native forward, or the stored outputs of a module record or an ONNX file's record (§11),
// in C++ only (no Python, no PyTorch, none of the record's code); with the torch reference parity compares
// with PyTorch computed in the exporter worker, as a run does (a module record's factory is checked against
// its source_sha256 before it is imported: stages/module_reference.h).
//
// `execute_record` validates the record, refuses one whose check did not pass, opens the record's runtime
// (RuntimeUnavailable when it cannot: exit 10 on the command line), rebuilds the built-in net's model from
// `config` (a kind with a native net only: model_kind_facts, Record::brief) and refuses when its digest
// differs from `weights_sha256`, replaces versions with the environment that produces the new evidence (this software, the runtime and its
// library, the platform, the reference; python, torch and numpy for the torch reference; the previous
// versions kept under `exported_with`) and runtime.version, resets the input cases and runs load (hashes
// verified first) and parity again, then, with `localize`, the localisation (app/repro_record.h; it implies the
// torch reference, another one asked for is a UsageError; its repro goes under `repro_root`). The
// dependencies, export and check stages, and everything else, are kept. Refusals throw ConformanceError.
#pragma once

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/run_options.h"
#include "base/failure.h"
#include "record/record.h"

namespace nnx {

using json = nlohmann::json;

json execute_record(const json& record, const std::filesystem::path& root, const ExecuteOptions& options = {});

// The reference `record` is executed with when its caller asked for `asked` (nullopt: named none): the one
// rule, stages/reference_kind.h reference_for, for the process's front end (base/front_end.h).
ReferenceKind execution_reference(const Record& record, std::optional<ReferenceKind> asked);

// What execute_report asks of every record, beside executable_record, before the first is executed: a module
// record executed with the torch reference names a factory file that exists beside the record's file, or
// lists its copy in its artifacts under `root`, holding the bytes it records (stages/module_reference.h
// factory_to_run; UsageError or ConformanceError).
void require_executable_with(const Record& record, const std::filesystem::path& root, const ExecuteOptions& options);

// The session `record` is run or executed with under `wanted` (run_options.h SessionOverride): its own with
// each part given replaced (run_report.h and run_profile.h ask it too); a level or thread count outside §11's is
// a UsageError naming the ones there are. A v1 record (a tested profile's) given other settings than the
// brief's is written in the successor format (Record::settle_format_for_settings, §11's kind "built-in").
// require_executable_with asks it of every record before any runs.
SessionOptions session_to_run(const Record& record, const SessionOverride& wanted);
// The execution provider `record` is run or executed on under `wanted.provider`: its own unless one is given (a
// v1 record on another is written as §11's kind "built-in", as above). Whether the runtime has it is the
// session's to say (the record's load-error names the provider and what the release offers).
std::string provider_to_run(const Record& record, const SessionOverride& wanted);
// The provider options `record` is run or executed with under `wanted` (runtime.provider_options): its own with
// each option given replaced, or only those given when `wanted` names another provider than the record's. Any
// for a v1 record is a UsageError as for other session settings; any for CPUExecutionProvider, which takes none,
// or one with an empty KEY, a UsageError saying so. Whether the provider takes them is the session's to say (the
// record's load-error quotes ONNX Runtime).
std::map<std::string, std::string> provider_options_to_run(const Record& record, const SessionOverride& wanted);

// True when the record's check stage did not pass: no artifacts were recorded, so there is nothing to
// execute. execute_report and a runtime matrix keep such a record of a report as it is (byte for byte);
// one record alone is refused (executable_record).
bool nothing_to_execute(const Record& record);

// What execute_record asks of a record before anything runs: valid (ConformanceError naming every problem),
// something to execute (nothing_to_execute false, else ConformanceError), its profile folder present under
// `root` (UsageError naming the path: artifacts/layout.h require_profile_folder_exists).
Record executable_record(const json& record, const std::filesystem::path& root);

// What execute_report and a runtime matrix ask of each record of `document` (a record or a report) before
// the first is executed: nullopt when the record is kept as it is (a report's record with nothing to
// execute, validated first), else executable_record's record (or its refusal: one record alone with nothing
// to execute is refused).
std::optional<Record> record_to_execute(const json& document, const json& record, const std::filesystem::path& root);

// A record whose execution could not finish (a runtime that could not be opened, or whose process crashed or
// hung: src/matrix/): the same record execute_record would have written had the failing stage recorded it.
// load_error: load failed with {"error"}, parity not_run, cases blank. runtime_error: load passed, every case
// an `error` (the one named in failed_case says what happened to it, the others that they did not complete)
// and parity failed with {"error", "failed_cases"}. versions as execute writes them (the reference without
// Python: native, or a module record's stored outputs).
struct FailedExecution {
  std::optional<std::string> runtime_version;  // null when the runtime never said
  std::string library;
  FailureClass failure = FailureClass::load_error;  // load_error or runtime_error
  std::string error;                                // what happened, in the runtime's or the OS's words
  std::string failed_case;                          // runtime_error: the case being run, if known
};
json failed_execution_record(const json& record, const FailedExecution& failed);

// True when `value` is a report ({format, status, profiles}) rather than one record (base/document_kind.h).
bool is_report(const json& value);
// The records of a report, or the record itself; a malformed report or a value that is no document of ours
// throws ConformanceError saying what it is, a runtime matrix UsageError (it is validated, not verified).
std::vector<json> records_of(const json& value);

}  // namespace nnx
