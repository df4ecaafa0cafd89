// nnx._core: the C++ core as the Python package nnx sees it (python/nnx/export_conformance.py).
//
// Records, reports and profiles cross the boundary as JSON text: Python's json.dumps → parse_strict_json
// here, dumps_canonical here → json.loads there. Nothing is decided in Python; every rule stays in the core.
// The GIL is released while a profile runs or a record executes (the exporter worker is a process of its
// own); those calls are serialised, since ONNX Runtime's C++ wrapper keeps one process-wide API table.
//
// Errors become the exception classes of nnx._errors (all ConformanceError, a ValueError):
//   FolderInUse → FolderInUse, UsageError (RootInUse: another run holds the root) → UsageError, RuntimeUnavailable → RuntimeUnavailable,
//   ArtifactIoError → ArtifactIOError, ConformanceError / JsonError → ConformanceError (with `problems`
//   when the core listed them).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "artifacts/artifact_folder.h"
#include "artifacts/artifacts.h"
#include "app/execute_record.h"
#include "base/failure.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "runtime/onnx_runtime.h"
#include "profile/profile.h"
#include "record/report.h"
#include "app/run_profile.h"
#include "app/run_profiles.h"
#include "artifacts/root_lock.h"
#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "record/validate_record.h"
#include "worker/worker_process.h"

namespace py = pybind11;
using nnx::json;

namespace {

// A refusal whose problems the core listed one by one.
struct Problems {
  std::string message;
  std::vector<std::string> problems;
};

std::mutex g_run_mutex;

json parse(const std::string& text, const std::string& what) {
  try {
    return nnx::parse_strict_json(text);
  } catch (const nnx::JsonError& e) {
    throw nnx::ConformanceError(what + " is not strict JSON: " + e.what());
  }
}

std::string dump(const json& value) { return nnx::dumps_canonical(value); }

json profile_to_json(const nnx::Profile& p) {
  return json{{"name", p.name},         {"exporter", p.exporter},   {"opset_version", p.opset_version},
              {"export_batch", p.export_batch}, {"dynamic_batch", p.dynamic_batch}, {"batches", p.batches},
              {"rtol", p.rtol},         {"atol", p.atol},           {"runtime", p.runtime},
              {"provider", p.provider}, {"dtype", p.dtype},         {"model", p.model.to_json()}};
}

// A profile object (the JSON of a Python Profile), checked by the core.
nnx::Profile profile_of(const json& value) {
  std::vector<std::string> problems;
  nnx::Profile p = nnx::profile_from_json(value, problems);
  if (problems.empty()) problems = p.problems();
  if (!problems.empty()) {
    std::string message = "invalid profile";
    if (value.is_object() && value.contains("name") && value["name"].is_string()) {
      message += " \"" + value["name"].get<std::string>() + "\"";
    }
    message += ":";
    for (const auto& item : problems) message += "\n  - " + item;
    throw Problems{message, problems};
  }
  return p;
}

// A tested name (string) or a profile object.
nnx::Profile profile_or_name(const json& value) {
  if (value.is_string()) {
    const auto name = value.get<std::string>();
    if (auto p = nnx::tested_profile(name)) return *p;
    std::string known;
    for (const auto& t : nnx::tested_profiles()) known += (known.empty() ? "" : ", ") + t.name;
    throw nnx::ConformanceError("unknown profile \"" + name + "\" (tested profiles: " + known + ")");
  }
  return profile_of(value);
}

std::vector<json> records_from(const json& value) {
  if (value.is_array()) return value.get<std::vector<json>>();
  return nnx::records_of(value);
}

nnx::RunOptions run_options(const std::optional<std::string>& source_revision,
                            const std::optional<std::filesystem::path>& onnxruntime, const std::string& python,
                            const std::string& script) {
  nnx::RunOptions options;
  options.source_revision = source_revision;
  options.onnxruntime_library = onnxruntime;
  options.worker = nnx::resolve_worker_command(nnx::WorkerCommand{python, script, {}});
  return options;
}

py::object errors_module() { return py::module_::import("nnx._errors"); }

void raise(const char* cls, const std::string& message, const std::vector<std::string>& problems = {}) {
  py::object type = errors_module().attr(cls);
  py::object instance = type(message, py::cast(problems));
  PyErr_SetObject(type.ptr(), instance.ptr());
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "The nnx-conformance C++ core (use nnx.export_conformance).";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Problems& e) {
      raise("ConformanceError", e.message, e.problems);
    } catch (const nnx::FolderInUse& e) {
      raise("FolderInUse", e.what());
    } catch (const nnx::UsageError& e) {
      raise("UsageError", e.what());
    } catch (const nnx::RuntimeUnavailable& e) {
      raise("RuntimeUnavailable", e.what());
    } catch (const nnx::ArtifactIoError& e) {
      raise("ArtifactIOError", e.what());
    } catch (const nnx::JsonError& e) {
      raise("ConformanceError", e.what());
    } catch (const nnx::ConformanceError& e) {
      raise("ConformanceError", e.what());
    }
  });

  m.def("version", [] { return std::string(NNX_VERSION); });
  m.def("bundled_onnxruntime", [] { return std::string(NNX_BUNDLED_ORT); },
        "The bootstrap's ONNX Runtime path baked into this build ('' for a wheel).");
  m.def("checkout_dir", [] { return std::string(NNX_SOURCE_DIR); },
        "The checkout this build belongs to ('' for a wheel).");

  // The vocabulary, from the core's tables (failure.h).
  m.def("format", [] { return std::string(nnx::kFormat); });
  m.def("stages", [] {
    std::vector<std::string> out;
    for (auto s : nnx::kStages) out.emplace_back(nnx::stage_name(s));
    return out;
  });
  m.def("levels", [] {
    std::vector<std::string> out;
    for (auto l : {nnx::Level::executed, nnx::Level::structural, nnx::Level::none}) {
      out.emplace_back(nnx::level_name(l));
    }
    return out;
  });
  m.def("failures", [] {
    std::vector<std::tuple<std::string, std::string, int>> out;
    for (auto f : nnx::kFailureClasses) {
      out.emplace_back(std::string(nnx::failure_name(f)), std::string(nnx::stage_name(nnx::failure_stage(f))),
                       nnx::exit_code(f));
    }
    return out;
  }, "(failure class, stage, exit code) in the core's order.");
  m.def("exit_passed", [] { return nnx::kExitPassed; });
  m.def("exit_error", [] { return nnx::kExitError; });
  m.def("exit_usage", [] { return nnx::kExitUsage; });

  // Profiles.
  m.def("default_model", [] { return dump(nnx::ModelConfig{}.to_json()); });
  m.def("default_profile", [] { return dump(profile_to_json(nnx::Profile{})); });
  m.def("tested_profiles", [] {
    json out = json::array();
    for (const auto& p : nnx::tested_profiles()) out.push_back(profile_to_json(p));
    return dump(out);
  });
  m.def("checked_profile", [](const std::string& text) { return dump(profile_to_json(profile_of(parse(text, "the profile")))); },
        "The profile as the core reads it (defaults filled in), or ConformanceError naming every problem.");

  m.def("requirements", [](const std::string& text) { return profile_or_name(parse(text, "the profile")).requirements(); },
        "What a profile needs at run time: Python modules for the worker, and onnxruntime.");

  // Running.
  m.def(
      "run_profile",
      [](const std::string& profile_text, const std::filesystem::path& root,
         const std::optional<std::string>& source_revision, const std::optional<std::filesystem::path>& onnxruntime,
         const std::string& python, const std::string& script) {
        const auto profile = profile_or_name(parse(profile_text, "the profile"));
        const auto options = run_options(source_revision, onnxruntime, python, script);
        json record;
        {
          py::gil_scoped_release release;
          std::lock_guard<std::mutex> lock(g_run_mutex);
          record = nnx::run_profile(profile, root, options);
        }
        return dump(record);
      },
      py::arg("profile"), py::arg("root"), py::arg("source_revision"), py::arg("onnxruntime"), py::arg("python"),
      py::arg("script"));
  m.def(
      "run_profiles",
      [](const std::string& profiles_text, const std::filesystem::path& root,
         const std::optional<std::string>& source_revision, bool force,
         const std::optional<std::filesystem::path>& onnxruntime, const std::string& python, const std::string& script) {
        const json items = parse(profiles_text, "the profiles");
        if (!items.is_array()) throw nnx::ConformanceError("profiles must be a list of names or profiles");
        std::vector<nnx::Profile> profiles;
        for (const auto& item : items) profiles.push_back(profile_or_name(item));
        const auto options = run_options(source_revision, onnxruntime, python, script);
        std::vector<json> records;
        {
          py::gil_scoped_release release;
          std::lock_guard<std::mutex> lock(g_run_mutex);
          nnx::check_artifact_root(root, force);        // before the lock creates its file in the root
          const nnx::ArtifactRootLock root_lock(root);  // as the command line: one run per artifacts root
          records = nnx::run_profiles(profiles, root, options, force);
        }
        return dump(json(records));
      },
      py::arg("profiles"), py::arg("root"), py::arg("source_revision"), py::arg("force"), py::arg("onnxruntime"),
      py::arg("python"), py::arg("script"));
  m.def(
      "tested_names",
      [](const std::vector<std::string>& names) {
        std::vector<std::string> out;
        for (const auto& p : nnx::tested_profiles_named(names)) out.push_back(p.name);
        return out;
      },
      "Tested names in the given order, each once (none given: every tested profile); unknown → UsageError.");
  m.def(
      "execute",
      [](const std::string& record_text, const std::filesystem::path& root,
         const std::optional<std::filesystem::path>& onnxruntime) {
        const json record = parse(record_text, "the record");
        nnx::ExecuteOptions options;
        options.onnxruntime_library = onnxruntime;
        json result;
        {
          py::gil_scoped_release release;
          std::lock_guard<std::mutex> lock(g_run_mutex);
          result = nnx::execute_record(record, root, options);
        }
        return dump(result);
      },
      py::arg("record"), py::arg("root"), py::arg("onnxruntime"));

  // Checking records.
  m.def(
      "verify_artifacts",
      [](const std::string& record_text, const std::filesystem::path& root) {
        const json record = parse(record_text, "the record");
        std::vector<std::string> problems;
        {
          py::gil_scoped_release release;
          problems = nnx::verify_artifacts(record, root).problems;
        }
        return problems;
      },
      "Every problem with the record's artifacts under root (empty: all verify).");
  m.def("validate_record", [](const std::string& record_text) {
    const json record = parse(record_text, "the record");
    const auto problems = nnx::record_problems(record);
    if (problems.empty()) return;
    try {
      nnx::validate_record(record);
    } catch (const nnx::ConformanceError& e) {
      throw Problems{e.what(), problems};
    }
  });

  // Reports.
  m.def("exit_code", [](const std::string& text) { return nnx::exit_code_for(records_from(parse(text, "the records"))); });
  m.def("summary_lines", [](const std::string& text) { return nnx::summary_lines(records_from(parse(text, "the records"))); });
  m.def("make_report", [](const std::string& text) { return dump(nnx::make_report(records_from(parse(text, "the records")))); });
  m.def(
      "save_report",
      [](const std::string& text, const std::filesystem::path& path) {
        const json value = parse(text, "the report");
        json report;
        if (value.is_array()) {
          report = nnx::make_report(value.get<std::vector<json>>());
        } else {
          if (!nnx::is_report(value)) throw nnx::ConformanceError("save_report takes a list of records or a report");
          report = nnx::make_report(nnx::records_of(value));  // records_of refuses a malformed report
        }
        try {
          nnx::save_report(report, path);
        } catch (const nnx::ConformanceError&) {
          throw;
        } catch (const std::runtime_error& e) {  // the file could not be written: the OS error
          PyErr_SetString(PyExc_OSError, e.what());
          throw py::error_already_set();
        }
      },
      "Writes a list of records (or a report) atomically after validating every record.");
}
