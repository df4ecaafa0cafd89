// nnx._core: the C++ core as the Python package nnx sees it. This file only wires the functions of
// bindings.h (which hold the logic) into the module; calls that run profiles, execute records or read
// artifacts release the GIL while they work.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "app/worker_pool.h"
#include "artifacts/layout.h"
#include "base/front_end.h"
#include "python/bindings.h"

namespace py = pybind11;
namespace b = nnx::python;

PYBIND11_MODULE(_core, m) {
  m.doc() = "The nnx-conformance C++ core (use nnx.export_conformance).";
  py::register_local_exception_translator(&b::translate_error);  // this module's functions only
  nnx::set_front_end(nnx::FrontEnd::python);  // the core's messages name Python's arguments (base/front_end.h)
  using released = py::call_guard<py::gil_scoped_release>;

  m.def("version", &b::version);
  m.def("bundled_onnxruntime", &b::bundled_onnxruntime, "The bootstrap's ONNX Runtime path ('' for a wheel).");
  m.def("checkout_dir", &b::checkout_dir, "The checkout this build belongs to ('' for a wheel).");

  m.def("format", &b::format);
  m.def("stages", &b::stages);
  m.def("levels", &b::levels);
  m.def("failures", &b::failures, "(failure class, stage, exit code) of nnx.export-conformance/1, in the core's order.");
  m.def("exit_passed", &b::exit_passed);
  m.def("exit_error", &b::exit_error);
  m.def("exit_usage", &b::exit_usage);

  m.def("default_model", &b::default_model);
  m.def("default_profile", &b::default_profile);
  m.def("tested_profiles", &b::tested_profiles);
  m.def("checked_profile", &b::checked_profile, "The profile as the core reads it, or ConformanceError.");
  m.def("profile_kind", &b::profile_kind, "A profile object's kind: built-in, module or onnx-file (the core's rule).");
  m.def("requirements", &b::requirements, "What a profile needs at run time.");
  m.def("tested_names", &b::tested_names, "Tested names in order, each once; unknown → UsageError.");
  m.def("profile_name_problem", &nnx::profile_name_problem, py::arg("name"),
        "Why a profile name is refused (artifacts/layout.h), or None.");
  m.def("onnxruntime_library", &b::onnxruntime_library, py::arg("explicit"), py::arg("bundled"),
        py::arg("wheel_library"), "The ONNX Runtime library to name, by the core's search order (or None).");
  m.def("default_artifacts_root", &b::default_artifacts_root, "<report folder>/<report stem>-artifacts.");

  m.def("run_profile", &b::run_profile, released(), py::arg("profile"), py::arg("root"),
        py::arg("source_revision"), py::arg("force"), py::arg("onnxruntime"), py::arg("python"), py::arg("script"),
        py::arg("localize") = py::none());
  // run_profiles and runtime_matrix read their `jobs` object first, then release the GIL themselves.
  m.def("run_profiles", &b::run_profiles, py::arg("profiles"), py::arg("root"),
        py::arg("source_revision"), py::arg("force"), py::arg("onnxruntime"), py::arg("python"), py::arg("script"),
        py::arg("jobs") = py::none(), py::arg("localize") = py::none());
  m.def("load_profiles", &b::load_profiles, py::arg("path"), "A profile file's profiles (JSON list text).");
  m.def("execute", &b::execute, released(), py::arg("record"), py::arg("record_file"), py::arg("root"),
        py::arg("onnxruntime"), py::arg("reference"), py::arg("python"), py::arg("script"),
        py::arg("localize") = py::none(), py::arg("output") = py::none(), py::arg("keep_outputs") = false,
        py::arg("optimization_level") = py::none(), py::arg("intra_op_threads") = py::none(),
        py::arg("session_config") = std::map<std::string, std::string>{}, py::arg("provider") = py::none(),
        py::arg("provider_options") = std::map<std::string, std::string>{});
  m.def("rejudge", &b::rejudge, released(), py::arg("document"), py::arg("rtol"), py::arg("atol"), py::arg("output"));

  // The process's warm exporter workers (app/worker_pool.h): the lifetime rule every front end shares.
  m.def("close_workers", &nnx::close_warm_workers, released(), "Stops every idle worker; a later call starts one.");
  m.def("set_worker_idle_seconds", &nnx::set_warm_worker_idle_seconds, py::arg("seconds"));
  m.def("worker_idle_seconds", &nnx::warm_worker_idle_seconds);
  m.def("idle_workers", &nnx::idle_warm_workers, "How many workers wait idle for the next call.");

  m.def("runtime_matrix", &b::runtime_matrix, py::arg("report"), py::arg("root"), py::arg("runtimes"),
        py::arg("jobs"), py::arg("child_command"), py::arg("output"), py::arg("optimization_levels"),
        py::arg("intra_op_threads"), py::arg("providers"), py::arg("session_config"), py::arg("provider_options"));
  m.def("matrix_cell", &b::matrix_cell, released(), py::arg("report"), py::arg("root"), py::arg("library"),
        py::arg("cell_dir"), py::arg("first"), py::arg("settings"));

  // These take Python objects: they release the GIL themselves once the objects are converted.
  m.def("verify_artifacts", &b::verify_artifacts, "Every problem with the record's artifacts.");
  m.def("verify_artifacts_many", &b::verify_artifacts_many, "verify_artifacts of each record, in order.");
  m.def("validate_record", &b::validate_record);
  m.def("validate_records", &b::validate_records, "Every problem of each record, in order.");

  m.def("exit_code", &b::exit_code);
  m.def("summary_lines", &b::summary_lines);
  m.def("make_report", &b::make_report);
  m.def("save_report", &b::save_report, "Writes records (or a report) atomically after validating each.");
  m.def("sign_document", &b::sign_document, released(), py::arg("document"), py::arg("key"));
  m.def("check_signature", &b::check_signature, released(), py::arg("document"), py::arg("public_key"));
  m.def("write_key_pair", &b::write_key_pair, py::arg("key"), py::arg("comment"));
  m.def("check_output_paths", &b::check_output_paths, py::arg("outputs"), py::arg("inputs"), py::arg("roots"),
        "The output-path rule over (label, path) pairs; UsageError when it is broken.");

  m.def("model_weights", &b::model_weights, py::arg("config"),
        "(parameters [(name, shape, little-endian float32 bytes)], weights_sha256, full config JSON).");
}
