// The functions nnx._core exposes (src/python/module.cc only wires them; python/nnx/ calls them: the
// modules behind export_conformance.py, _matrix_cell.py for `matrix_cell`, __init__.py for `version`).
// Records, reports and profiles cross the boundary as JSON text: Python's json.dumps → the core's strict
// parser here, the core's canonical writer here → json.loads there (except validate and verify, which read
// the Python objects themselves: python_json.h). Nothing is decided in Python; every rule stays in the core
// (the tested names, the job count, the runtime library's search order: Python passes what its caller
// gave). Runs and executes go through the same app functions as the command line (app/run_report.h,
// app/execute_report.h), so Ctrl-C and the pre-checks behave the same.
//
// Errors: every refusal is an nnx::Error (base/error.h); `translate_error` (errors.cc) raises the matching
// class of nnx._errors (a ConformanceError, a ValueError) with the Python front end's hint, Interrupted as
// KeyboardInterrupt, and any other C++ exception as ConformanceError (never RuntimeError or SystemError).
// `ProblemList` carries the problems the core listed one by one.
#pragma once

#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace nnx::python {

struct ProblemList {
  std::string message;
  std::vector<std::string> problems;
  bool usage = false;  // raised as UsageError (a module profile's problems, as the profile file's are)
};

// Whether the problems of a profile given as `value` (JSON) are raised as UsageError: a module's and an ONNX
// file's are, as a profile file's are (python/nnx/_errors.py); the built-in net's keep ValueError.
bool usage_problems(const nlohmann::json& value);

// An argument of a type the function does not take (a count that is no whole number): raised as ArgumentError,
// a UsageError and a TypeError (python/nnx/_errors.py).
struct ArgumentProblem {
  std::string message;
};

// Raises the Python exception for `error` (registered as pybind11's exception translator).
void translate_error(std::exception_ptr error);

std::string version();
std::string bundled_onnxruntime();
std::string checkout_dir();

std::string format();
std::vector<std::string> stages();
std::vector<std::string> levels();
std::vector<std::tuple<std::string, std::string, int>> failures();
int exit_passed();
int exit_error();
int exit_usage();

std::string default_model();
std::string default_profile();
std::string tested_profiles();
std::string checked_profile(const std::string& profile_text);
// The kind of a profile object (the core's one reading, profile_kind_of_json), by its name in the kinds' table
// (model_kind_facts' profile_class): "built-in", "module" or "onnx-file"; python/nnx/_profiles.py picks the
// class of that name, deciding nothing itself.
std::string profile_kind(const std::string& profile_text);
std::vector<std::string> requirements(const std::string& profile_text);
std::vector<std::string> tested_names(const std::vector<std::string>& names);
std::string default_artifacts_root(const std::filesystem::path& report_path);
// The library a run or execute names as the caller's (runtime/library_search.h's order): `explicit_path` when
// given; None when NNX_ONNXRUNTIME_LIBRARY or the bootstrap's copy `bundled` applies (the core searches);
// else what `wheel_library()` finds (an installed onnxruntime wheel's library, or None: the system loader).
std::optional<std::string> onnxruntime_library(const std::optional<std::string>& explicit_path,
                                               const std::string& bundled, const pybind11::function& wheel_library);

// `localize`: None (a mismatch is localised), True (every module or imported-file record), False (none):
// stages/localisation.h, doc/localisation.md; the same for run_profiles, and for execute None and False are
// "none" (True implies the torch reference, and no repro is written: there is no output folder).
std::string run_profile(const std::string& profile_text, const std::filesystem::path& root,
                        const std::optional<std::string>& source_revision, bool force,
                        const std::optional<std::filesystem::path>& onnxruntime, const std::string& python,
                        const std::string& script, std::optional<bool> localize);
// `profiles_text`: a JSON list of tested names and profile objects, or null for every tested profile. Returns
// the report {format, status, profiles} the core's report writer makes (records in run order).
// `jobs`: what the caller gave — None (auto: app/run_profiles.h's `auto_workers`) or a whole number of lanes;
// anything else (a bool, a float, text) or a count below 1 is a usage error naming `jobs`. Called with the
// GIL, which it releases once `jobs` is read.
std::string run_profiles(const std::string& profiles_text, const std::filesystem::path& root,
                         const std::optional<std::string>& source_revision, bool force,
                         const std::optional<std::filesystem::path>& onnxruntime, const std::string& python,
                         const std::string& script, pybind11::handle jobs, std::optional<bool> localize);
// A profile file (profile/profile_file.h) as a JSON list of complete profile objects; every bad entry is
// named by its index in one usage error.
std::string load_profiles(const std::filesystem::path& file);
// Executes `record_text` (a record or report as JSON text) or, when `record_file` is given instead, the record
// or report read from that file (a module record's relative factory is then found beside it); returns the new
// record for a record, the new report (every record) for a report. `reference`: "torch" (PyTorch in the worker
// `python script`), "native", "stored", or none: each record's default, the core's rule
// (app/execute_record.h execution_reference); a usage error for any other name. Written atomically to
// `output` when given, with, for `keep_outputs`, the compared outputs beside it (stages/kept_outputs.h); the
// session settings given replace the record's own (app/run_options.h SessionOverride).
std::string execute(const std::optional<std::string>& record_text, const std::optional<std::filesystem::path>& record_file,
                    const std::filesystem::path& root, const std::optional<std::filesystem::path>& onnxruntime,
                    const std::optional<std::string>& reference, const std::string& python, const std::string& script,
                    std::optional<bool> localize, const std::optional<std::filesystem::path>& output,
                    bool keep_outputs, const std::optional<std::string>& optimization_level,
                    std::optional<std::int64_t> intra_op_threads, const std::map<std::string, std::string>& config,
                    const std::optional<std::string>& provider,
                    const std::map<std::string, std::string>& provider_options);
// matrix/rejudge_document.h: the nnx.rejudged/1 document as JSON text, written to `output` when given.
std::string rejudge(const std::filesystem::path& document, std::optional<double> rtol, std::optional<double> atol,
                    const std::optional<std::filesystem::path>& output);

// The runtime matrix (src/matrix/run_matrix.h) of the report file `report` under each of `runtimes` (a library
// path, or X.Y.Z for a release of the runtime cache); cells run as `child_command` (the Python package's
// `python -c "... from nnx._matrix_cell import main ..." PACKAGE_PARENT`, which imports this very package
// whatever sys.path says). Returns the matrix document as JSON text; writes it to `output` when given.
// `jobs`: None (the number of cores) or a whole number of at least 1, else a usage error naming `jobs`;
// called with the GIL, which it releases once `jobs` is read.
// The settings axes (matrix/cell_settings.h settings_product): `optimization_levels`, `intra_op_threads`,
// `providers` (each empty: the brief's value), `session_config` and `provider_options`, every cell's.
std::string runtime_matrix(const std::filesystem::path& report, const std::filesystem::path& root,
                           const std::vector<std::string>& runtimes, pybind11::handle jobs,
                           const std::vector<std::string>& child_command,
                           const std::optional<std::filesystem::path>& output,
                           const std::vector<std::string>& optimization_levels,
                           const std::vector<std::int64_t>& intra_op_threads, const std::vector<std::string>& providers,
                           const std::map<std::string, std::string>& session_config,
                           const std::map<std::string, std::string>& provider_options);
// One matrix cell in this process (matrix/cell_child.h), progress on stdout: what nnx._matrix_cell runs;
// `settings` its parent's --settings argument ("": the brief's).
int matrix_cell(const std::filesystem::path& report, const std::filesystem::path& root,
                const std::filesystem::path& library, const std::filesystem::path& cell_dir, std::size_t first,
                const std::string& settings);
// What the caller gave as `jobs` (None, or a whole number that fits an int; else an ArgumentProblem saying
// "... of `at_once` at once"); called with the GIL.
std::optional<int> job_count(pybind11::handle jobs, const char* at_once);

// Records cross as Python objects, converted by python_json.h (the strictness of `_dumps`, without text);
// the core then works with the GIL released.
std::vector<std::string> verify_artifacts(pybind11::handle record, const std::filesystem::path& root);
// verify_artifacts of each record of a sequence under the same root, in order.
std::vector<std::vector<std::string>> verify_artifacts_many(pybind11::handle records, const std::filesystem::path& root);
void validate_record(pybind11::handle record);
// Every problem of each record of a sequence (record-format §6), in order; an empty list for a valid record.
// One call for many records: each is converted under the GIL while worker threads validate the ones before
// (record/validate_batch.h); "record <i> is not strict JSON: ..." refuses the call.
std::vector<std::vector<std::string>> validate_records(pybind11::handle records);

// `records_text`: a list of records, one record, a report, or a bare {"profiles": [...]} mapping (the original
// API's report shape: only "profiles" is read; a format or status that is present is still checked).
int exit_code(const std::string& records_text);
std::vector<std::string> summary_lines(const std::string& records_text);
std::string make_report(const std::string& records_text);
void save_report(const std::string& report_text, const std::filesystem::path& path);
// Signed documents (base/document_signature.h): `sign_document` writes `<document>.sig` with the private key
// file `key`; `check_signature` refuses (ConformanceError) a document whose `.sig` is missing, by another key
// than the public key file's or over other bytes; `write_key_pair` writes KEY and KEY.pub (never replacing).
void sign_document(const std::filesystem::path& document, const std::filesystem::path& key);
void check_signature(const std::filesystem::path& document, const std::filesystem::path& public_key);
void write_key_pair(const std::filesystem::path& key, const std::string& comment);
// The output-path rule (artifacts/output_paths.h) over (label, path) pairs: UsageError when it is broken.
using LabelledPaths = std::vector<std::pair<std::string, std::filesystem::path>>;
void check_output_paths(const LabelledPaths& outputs, const LabelledPaths& inputs, const LabelledPaths& roots);

// A model config's parameters as the core draws them (model/reference_model.h, PyTorch-exact): a tuple
// (parameters, weights_sha256, config) — parameters a list of (name, shape, raw little-endian float32 bytes)
// in PyTorch's order; config the full config as JSON text, with weights_sha256. A config carrying a
// weights_sha256 other than its own is refused. Returns Python objects (bytes cannot cross as std::string).
pybind11::tuple model_weights(const std::string& config_text);

}  // namespace nnx::python
