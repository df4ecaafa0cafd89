#include "python/bindings.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <bit>
#include <limits>
#include <mutex>

#include <pthread.h>

#include "app/check_document.h"
#include "app/execute_record.h"
#include "app/execute_report.h"
#include "app/run_profiles.h"
#include "profile/profile_file.h"
#include "profile/profile_module.h"
#include "app/run_report.h"
#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "artifacts/output_paths.h"
#include "base/build_info.h"
#include "base/error.h"
#include "base/failure.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "model/model_config.h"
#include "model/reference_model.h"
#include "profile/profile.h"
#include "record/report.h"
#include "runtime/library_search.h"
#include "record/validate_batch.h"
#include "record/validate_record.h"
#include "python/python_json.h"
#include "worker/worker_process.h"

namespace nnx::python {
namespace py = pybind11;
using nlohmann::json;

namespace {

// Runs and executes are serialised: ONNX Runtime's C++ wrapper keeps one process-wide API table. A child forked
// (os.fork, multiprocessing) while another thread's call holds the lock gets a lock of its own: that thread
// does not exist there, so its lock would never be released and the child's every call would wait for good.
// The lock is never held across a fork nor replaced in the parent; the child's copy of the held one is left.
std::mutex* g_run_mutex = new std::mutex;

std::unique_lock<std::mutex> run_lock() {
  static const int registered = ::pthread_atfork(nullptr, nullptr, [] { g_run_mutex = new std::mutex; });
  (void)registered;
  return std::unique_lock<std::mutex>(*g_run_mutex);
}

json parse(const std::string& text, const std::string& what) {
  try {
    return parse_strict_json(text);
  } catch (const JsonError& e) {
    throw ConformanceError(what + " is not strict JSON: " + e.what());
  }
}

std::string dump(const json& value) { return dumps_canonical(value); }

// A profile object (the JSON of a Python Profile or ModuleProfile), checked by the core; every problem listed.
// A module profile's problems are a usage error, as the same object's in a profile file (profile_file.h).
Profile profile_of(const json& value) {
  std::vector<std::string> problems;
  Profile p = profile_from_json(value, problems);
  if (problems.empty()) problems = p.problems();
  if (problems.empty()) return p;
  std::string message = "invalid profile";
  if (value.is_object() && value.contains(rf::profile_key::kName) && value[rf::profile_key::kName].is_string()) {
    message += " \"" + value[rf::profile_key::kName].get<std::string>() + "\"";
  }
  message += ":";
  for (const auto& item : problems) message += "\n  - " + item;
  throw ProblemList{message, problems, usage_problems(value)};
}

// A tested name (an unknown one is the usage error every front end gives: profile/profile.h) or a profile
// object.
Profile profile_or_name(const json& value) {
  if (value.is_string()) return tested_profile_named(value.get<std::string>());
  return profile_of(value);
}

// A list of records, one record, or a report. A bare {"profiles": [...]} mapping is enough too (the original
// API's callers build one: only "profiles" is read); a report with a format or status is checked whole.
std::vector<json> records_from(const json& value) {
  if (value.is_array()) return value.get<std::vector<json>>();
  if (is_report(value) && value.size() == 1) {
    const json& profiles = value[rf::report_key::kProfiles];
    if (!profiles.is_array()) throw ConformanceError("report: profiles must be a list");
    return profiles.get<std::vector<json>>();
  }
  return records_of(value);
}

// Python's `localize` (None: the front end's default) as the core's LocaliseWhen.
LocaliseWhen localise_when(std::optional<bool> localize, LocaliseWhen by_default) {
  return !localize ? by_default : *localize ? LocaliseWhen::always : LocaliseWhen::never;
}

RunOptions run_options(const std::optional<std::string>& source_revision,
                       const std::optional<std::filesystem::path>& onnxruntime, const std::string& python,
                       const std::string& script) {
  RunOptions options;
  options.source_revision = source_revision;
  options.onnxruntime_library = onnxruntime;
  options.worker = resolve_worker_command(WorkerCommand{python, script, {}});
  return options;
}

RunOutcome run(std::vector<Profile> profiles, const std::filesystem::path& root, bool force, RunOptions options) {
  RunRequest request{std::move(profiles), root, std::nullopt, force, std::move(options)};
  const auto lock = run_lock();
  return run_to_report(request);
}

}  // namespace

// What the caller gave as `jobs`: None, or a whole number (a bool is not one) that fits an int, else an
// ArgumentProblem; the count's own rule (at least 1) is run_jobs's for profiles (app/run_profiles.h),
// runtime_matrix's for runtimes.
std::optional<int> job_count(py::handle jobs, const char* at_once) {
  if (jobs.is_none()) return std::nullopt;
  if (PyLong_Check(jobs.ptr()) && !PyBool_Check(jobs.ptr())) {
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(jobs.ptr(), &overflow);
    if (overflow == 0 && value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max()) {
      return static_cast<int>(value);
    }
  }
  const std::string given = py::repr(jobs).cast<std::string>();
  throw ArgumentProblem{std::string("jobs must be a whole number of ") + at_once + " at once or None, not " + given};
}


std::string version() { return build_version(); }
std::string bundled_onnxruntime() { return build_bundled_onnxruntime(); }
std::string checkout_dir() { return build_checkout_dir(); }

std::string format() { return std::string(kFormat); }

std::vector<std::string> stages() {
  std::vector<std::string> out;
  for (auto s : kStages) out.emplace_back(stage_name(s));
  return out;
}

std::vector<std::string> levels() {
  std::vector<std::string> out;
  for (auto l : {Level::executed, Level::structural, Level::none}) out.emplace_back(level_name(l));
  return out;
}

std::vector<std::tuple<std::string, std::string, int>> failures() {
  std::vector<std::tuple<std::string, std::string, int>> out;
  for (auto f : kFailureClasses) {  // §1's nine: the vocabulary of the brief's format, as the original publishes it
    if (!is_v1_failure(f)) continue;  // a successor class (tool-error) is a module record's, not this vocabulary's
    out.emplace_back(std::string(failure_name(f)), std::string(stage_name(failure_stage(f))), nnx::exit_code(f));
  }
  return out;
}

int exit_passed() { return kExitPassed; }
int exit_error() { return kExitError; }
int exit_usage() { return kExitUsage; }

std::string default_model() { return dump(ModelConfig{}.to_json()); }
std::string default_profile() { return dump(Profile{}.to_json()); }

std::string tested_profiles() {
  json out = json::array();
  for (const auto& p : nnx::tested_profiles()) out.push_back(p.to_json());
  return dump(out);
}

std::string checked_profile(const std::string& text) { return dump(profile_of(parse(text, "the profile")).to_json()); }
std::string profile_kind(const std::string& profile_text) {
  return std::string(model_kind_facts(profile_kind_of_json(parse(profile_text, "the profile"))).profile_class);
}

std::vector<std::string> requirements(const std::string& profile_text) {
  return profile_or_name(parse(profile_text, "the profile")).requirements();
}

std::vector<std::string> tested_names(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& p : tested_profiles_named(names)) out.push_back(p.name);
  return out;
}

std::optional<std::string> onnxruntime_library(const std::optional<std::string>& explicit_path,
                                               const std::string& bundled, const py::function& wheel_library) {
  std::optional<std::filesystem::path> given;
  if (explicit_path) given = *explicit_path;
  const LibrarySearch search = library_search(given, bundled);
  if (search.step == LibraryStep::caller) return explicit_path;
  if (search.step != LibraryStep::loader) return std::nullopt;  // the core's own search finds it
  const py::object found = wheel_library();
  if (found.is_none()) return std::nullopt;
  return found.cast<std::string>();
}

std::string default_artifacts_root(const std::filesystem::path& report_path) {
  return nnx::default_artifacts_root(report_path).string();
}

std::string run_profile(const std::string& profile_text, const std::filesystem::path& root,
                        const std::optional<std::string>& source_revision, bool force,
                        const std::optional<std::filesystem::path>& onnxruntime, const std::string& python,
                        const std::string& script, std::optional<bool> localize) {
  const Profile profile = profile_or_name(parse(profile_text, "the profile"));
  RunOptions options = run_options(source_revision, onnxruntime, python, script);
  options.localize = localise_when(localize, LocaliseWhen::parity_failed);
  return dump(run({profile}, root, force, std::move(options)).records.front());
}

std::string run_profiles(const std::string& profiles_text, const std::filesystem::path& root,
                         const std::optional<std::string>& source_revision, bool force,
                         const std::optional<std::filesystem::path>& onnxruntime, const std::string& python,
                         const std::string& script, py::handle jobs_given, std::optional<bool> localize) {
  RunOptions counted;
  counted.jobs = job_count(jobs_given, "profiles");  // under the GIL: it reads a Python object
  run_jobs(counted);  // a count below 1 is the core's usage error, before anything else is looked at
  const py::gil_scoped_release released;
  const json items = parse(profiles_text, "the profiles");
  if (!items.is_null() && !items.is_array()) throw ConformanceError("profiles must be a list of names or profiles");
  std::vector<Profile> profiles;
  if (items.is_null()) {
    profiles = tested_profiles_named({});  // every tested profile, in run order
  } else {
    for (const auto& item : items) profiles.push_back(profile_or_name(item));  // all checked before anything runs
  }
  RunOptions options = run_options(source_revision, onnxruntime, python, script);
  options.jobs = counted.jobs;
  options.localize = localise_when(localize, LocaliseWhen::parity_failed);
  return dump(run(std::move(profiles), root, force, std::move(options)).report);
}

std::string load_profiles(const std::filesystem::path& file) {
  json out = json::array();
  for (const auto& p : profiles_from_file(file)) out.push_back(p.to_json());
  return dump(out);
}

std::string execute(const std::optional<std::string>& record_text, const std::optional<std::filesystem::path>& record_file,
                    const std::filesystem::path& root, const std::optional<std::filesystem::path>& onnxruntime,
                    const std::optional<std::string>& reference, const std::string& python, const std::string& script,
                    std::optional<bool> localize, const std::optional<std::filesystem::path>& output,
                    bool keep_outputs, const std::optional<std::string>& optimization_level,
                    std::optional<std::int64_t> intra_op_threads, const std::map<std::string, std::string>& config,
                    const std::optional<std::string>& provider,
                    const std::map<std::string, std::string>& provider_options) {
  ExecuteRequest request{record_file ? read_strict_json_file(*record_file) : parse(record_text.value_or(""), "the record"),
                         root, output, {}, record_file, keep_outputs};
  // execute_record.h session_to_run, provider_options_to_run
  request.options.session = {optimization_level, intra_op_threads, config, provider, provider_options};
  request.options.onnxruntime_library = onnxruntime;
  if (reference) request.options.reference = reference_named(*reference);  // else each record's own (the core's)
  request.options.worker = resolve_worker_command(WorkerCommand{python, script, {}});  // started for torch only
  request.options.localize = localise_when(localize, LocaliseWhen::never);
  const auto lock = run_lock();
  const ExecuteOutcome outcome = execute_report(request);
  return dump(is_report(request.document) ? nnx::make_report(outcome.records) : outcome.records.front());
}

// One tape per thread, reused: a record is recorded without allocating (the GIL is held while it is filled).
static JsonTape& reused_tape() {
  thread_local JsonTape tape;
  return tape;
}

// The records as a tuple of our own: reading one record may call back into Python and change the caller's list.
static py::tuple records_held(py::handle records) { return py::tuple(py::reinterpret_borrow<py::object>(records)); }

std::vector<std::string> verify_artifacts(py::handle record, const std::filesystem::path& root) {
  JsonTape& tape = reused_tape();
  tape_from_python(record, "the record", tape);  // the whole record read: strict JSON everywhere
  const py::gil_scoped_release released;
  return artifact_problems(tape.member_to_json(rf::kArtifacts), root);  // all it reads (app/check_document.h)
}

std::vector<std::vector<std::string>> verify_artifacts_many(py::handle records, const std::filesystem::path& root) {
  const py::tuple items = records_held(records);
  std::vector<JsonTape> tapes;
  tapes.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) tapes.push_back(tape_from_python(items[i], "record " + std::to_string(i)));
  const py::gil_scoped_release released;
  std::vector<std::vector<std::string>> problems;
  problems.reserve(tapes.size());
  for (const auto& tape : tapes) problems.push_back(artifact_problems(tape.member_to_json(rf::kArtifacts), root));
  return problems;
}

void validate_record(py::handle record) {
  JsonTape& tape = reused_tape();
  tape_from_python(record, "the record", tape);  // the GIL is needed only here
  const py::gil_scoped_release released;
  const JsonView value(tape);  // validated where it lies: no value built
  const std::vector<std::string> problems = record_problems(value);
  if (problems.empty()) return;
  try {
    nnx::validate_record(value);
  } catch (const ConformanceError& e) {
    throw ProblemList{e.what(), problems};
  }
}

std::vector<std::vector<std::string>> validate_records(py::handle records) {
  // Each record is read under the GIL, one by one, while the queue's workers validate the ones before.
  const py::tuple items = records_held(records);
  const std::size_t count = items.size();
  ValidationQueue queue(count, ValidationQueue::workers_for(count));
  for (std::size_t i = 0; i < count; ++i) {
    JsonTape tape = queue.spare_tape();  // memory a validated record left: no tape grows from nothing
    tape_from_python(items[i], "record " + std::to_string(i), tape);
    queue.push(i, std::move(tape));
  }
  const py::gil_scoped_release released;
  return queue.finish();
}

int exit_code(const std::string& records_text) { return exit_code_for(records_from(parse(records_text, "the records"))); }

std::vector<std::string> summary_lines(const std::string& records_text) {
  return nnx::summary_lines(records_from(parse(records_text, "the records")));
}

std::string make_report(const std::string& records_text) {
  return dump(nnx::make_report(records_from(parse(records_text, "the records"))));
}

void save_report(const std::string& report_text, const std::filesystem::path& path) {
  const json value = parse(report_text, "the report");
  if (!value.is_array() && !is_report(value)) throw ConformanceError("save_report takes a list of records or a report");
  // records_from refuses a malformed report; the file's format and status are the core's
  nnx::save_report(nnx::make_report(records_from(value)), path);
}

void check_output_paths(const LabelledPaths& outputs, const LabelledPaths& inputs, const LabelledPaths& roots) {
  auto named = [](const LabelledPaths& pairs) {
    std::vector<NamedPath> paths;
    for (const auto& [label, path] : pairs) paths.push_back({label, path});
    return paths;
  };
  nnx::check_output_paths({named(outputs), named(inputs), named(roots)});
}

py::tuple model_weights(const std::string& config_text) {
  static_assert(std::endian::native == std::endian::little, "the parameters cross as little-endian float32");
  const json value = parse(config_text, "the model config");
  std::vector<std::string> problems;
  const ModelConfig config = model_config_from_json(value, problems);
  if (problems.empty()) problems = config.problems();
  if (!problems.empty()) {
    std::string message = "invalid model config:";
    for (const auto& item : problems) message += "\n  - " + item;
    throw ProblemList{message, problems, usage_problems(value)};
  }
  const auto model = make_reference_model(config);
  const std::string digest = model->weights_sha256();
  const char* digest_key = rf::config_key::kWeightsSha256;
  if (value.contains(digest_key) && value[digest_key] != digest) {
    throw ConformanceError("the model config's weights_sha256 differs from its weights' digest " + digest);
  }
  py::list parameters;
  for (const auto& p : model->parameters()) {
    const auto* data = reinterpret_cast<const char*>(p.values.data());
    parameters.append(py::make_tuple(p.name, py::cast(p.shape), py::bytes(data, p.values.size() * sizeof(float))));
  }
  json full = config.to_json();
  full[digest_key] = digest;
  return py::make_tuple(parameters, digest, dump(full));
}

}  // namespace nnx::python
