// What the stages share while one record is produced (doc/record-format.md §4; doc/architecture.md,
// "Adding a stage"). Not every field is set: run gives the profile, the worker command and the runtime's
// opener (dependencies opens the runtime and starts the exporter, prepare_parity fills prepared_parity) and no
// record folder; execute has no profile, gives a runtime it opened itself, the reference reference_for chose,
// the record's folder, and an exporter only for the torch reference. `model` holds a feed-forward record's
// net and is null for a module record (§10), whose own fields are the last ones (load fills `stored` and
// `graph_input_names`; execute's torch reference `module_references` and what it ran). A field nobody set
// keeps its default.
//
// Each stage is one function `bool run_<stage>_stage(StageContext&)` (stages.h) that writes its outcome into
// the typed `record` (record/record.h: passed, or failed with its class and detail) and returns whether it
// passed; it never throws for
// a stage failure. Interrupted (SIGINT/SIGTERM) propagates and ends the run without a record.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/reference_model.h"
#include "profile/profile.h"
#include "stages/kept_outputs.h"
#include "record/record.h"
#include "runtime/run_watchdog.h"
#include "runtime/runtime.h"
#include "stages/reference_kind.h"
#include "stages/stored_tensors.h"
#include "stages/weights_check.h"
#include "worker/exporter_client.h"
#include "worker/worker_process.h"

namespace nnx {

// Wall times of one profile (run --timings reports them through the observer; nothing enters the record).
struct StageTimes {
  double runtime_open_seconds = 0.0;  // opening the runtime (dlopen, its environment)
  double load_seconds = 0.0;          // the load stage (verify, then the session)
  // The worker's import of each Python module in the dependencies request, in request order.
  std::vector<std::pair<std::string, double>> import_seconds;
  // A module export's steps, in order (the worker's child's, then "store": writing the case tensors).
  std::vector<std::pair<std::string, double>> export_step_seconds;
};

// Parity's worker part, computed ahead by prepare_parity (stages.h): for a feed-forward record each input
// case's tensor (drawn from its shape and seed) and the reference's outputs for the cases expected to match, in
// order (when the reference could not be computed, `references` is empty and `missing` says why); for a module
// or an ONNX file nothing (its reference is stored, or in module_references): set only to say it was prepared.
struct PreparedParity {
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<float>> references;
  std::string missing;
};

struct StageContext {
  StageContext(Record& record_, std::filesystem::path root_, const ReferenceModel* model_,
               const Profile* profile_ = nullptr)
      : record(record_), root(std::move(root_)), model(model_), profile(profile_) {}

  Record& record;
  std::filesystem::path root;             // the artifacts root; the profile folder is layout.h's rule
  const ReferenceModel* model;            // a feed-forward record's net (parity compares with it; its
                                          // parameters are exported); null for a module record (§10)
  const Profile* profile = nullptr;       // run only: what is exported and checked

  RuntimeOpener open_runtime;             // how the runtime is opened (runtime.h)
  std::optional<std::filesystem::path> runtime_library;
  std::shared_ptr<Runtime> runtime;       // opened by dependencies (run), given by execute
  std::unique_ptr<Session> session;       // created by load for parity
  std::chrono::milliseconds case_timeout{kDefaultRunTimeout};  // one run of the session (runtime/run_watchdog.h)
  WeightsVerdict weights;                 // load: whether model.onnx stores the model's weights (parity's blame)
  ReferenceKind reference = ReferenceKind::torch;  // what parity compares with (stages/reference_kind.h)
  std::optional<PreparedParity> prepared_parity;    // set by prepare_parity; parity computes it itself otherwise

  // A matrix's parting (doc/runtime-matrix.md, "Where two releases part"): the case localised and the folder
  // of the reference release's values it is compared with (localisation_dump.h wrote them), named `label`.
  std::optional<std::string> localise_case;
  std::optional<std::filesystem::path> other_runtime_values;
  std::string other_runtime_label;

  WorkerCommand worker_command;           // run, and execute --localize: the exporter worker
  std::chrono::milliseconds worker_timeout{0};
  std::unique_ptr<ExporterClient> exporter;  // started by dependencies (run), by execute for a torch reference

  StageTimes times;
  // A module record (§10): its stored tensors, verified by load and read again one at a time by parity
  // (stored_tensors.h); the graph's input names (load); PyTorch's recomputed outputs by case name when execute
  // asked for the torch reference.
  StoredTensors stored;
  std::vector<std::string> graph_input_names;
  std::optional<std::map<std::string, std::vector<Tensor>>> module_references;
  std::string module_reference_missing;  // why a case is not in module_references
  // execute --keep-outputs and a matrix's cells: each compared case's outputs and truth, as parity compared
  // them (stages/kept_outputs.h); null: nothing kept.
  std::vector<KeptCase>* kept_cases = nullptr;
  // execute only: the folder of the record or report file (a relative factory is resolved against it), and
  // what the torch reference ran (module_reference.h FactoryToRun::detail), stated in parity's detail.
  std::optional<std::filesystem::path> record_folder;
  nlohmann::json module_reference_ran;
};

}  // namespace nnx
