// A record of nnx.export-conformance/1 (doc/record-format.md §5): exactly 17 keys; or, its `own` keys a
// `Module` rather than v1's `Brief`, a module record of nnx.module-conformance/1 (§10) or a model record of
// nnx.model-conformance/1 (§11): 19 keys, config and dtype replaced by module (or model), inputs, dims and
// outputs. Its spelling is record_format.h's; this header is the record as the engine writes and
// reads it.
//
// `Record` is the typed record, like LevelDB's VersionEdit with EncodeTo/DecodeFrom: `to_json` writes its
// 17 keys (a module record's 19); `from_json` reads a record that passes validate_record (§6) and refuses
// any other, naming every problem. For every valid record j, `Record::from_json(j).to_json()` is j again,
// number for number (17 stays 17, 17.0 stays 17.0): the free-form parts (source, config, exporter options,
// opset.model, versions, model_state, stage details, runtime.version) are kept as given, and numbers a rule
// leaves open (tolerances, case errors) are JsonNumber.
//
// The free functions below work on a record as JSON (the engine's stages pass one around) and keep the
// signatures the stages and the app call; each typed member function does the same on a Record.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "base/failure.h"
#include "profile/profile.h"
#include "base/model_kind.h"
#include "base/model_record_vocabulary.h"
#include "base/precision.h"
#include "record/record_format.h"

namespace nnx {

using json = nlohmann::json;

struct SourceInfo {
  json revision;   // string or null
  std::string origin = rf::kOriginUnknown;  // "given" | "git" | "unknown"
  json dirty;      // bool when detected from git, else null
};

// A JSON number kept exactly as a record states it (an integer stays an integer, 2^64-1 stays exact);
// `value()` is the number as a double. Made from a double, it is that float.
class JsonNumber {
 public:
  JsonNumber() = default;
  JsonNumber(double value) : number_(value) {}  // NOLINT(google-explicit-constructor): a number is a number
  // Throws ConformanceError unless `number` is a JSON number (never a boolean).
  static JsonNumber from_json(const json& number);
  double value() const;
  const json& to_json() const { return number_; }

 private:
  json number_ = 0.0;
};

// One entry of artifacts.files (§4 check, §5 artifact paths): the manifest's own entry type.
using ArtifactFile = ArtifactEntry;

// runtime.session: the fixed session options of §4 load.
struct SessionOptions {
  std::int64_t intra_op_num_threads = rf::session_key::kRequiredIntraOpThreads;
  std::int64_t inter_op_num_threads = rf::session_key::kRequiredInterOpThreads;
  std::string graph_optimization_level = rf::session_key::kRequiredOptimizationLevel;
  // Session config entries (a module or successor-format record's only; written only when one is set).
  std::map<std::string, std::string> config;
  json to_json() const;
  bool operator==(const SessionOptions&) const = default;
};

// A module record's stored tensor (§10): one input or output of a case, and the file holding it (layout.h).
struct CaseTensor {
  std::string name;
  std::string dtype;                 // base/tensor.h dtype_name
  std::vector<std::int64_t> shape;
  std::string file;                  // relative to the profile folder
  std::optional<std::string> oracle_file;  // outputs only: the float64 oracle's file, when it was computed
  std::optional<std::string> given;        // inputs only: "test_data_set_<N>/input_<j>.pb", the data-set file that
                                           // gave it (profile/given_inputs.h), written only when given
  json to_json(bool output) const;
};

// What a module record's case holds instead of v1's `shape` (§10).
struct ModuleCaseFields {
  std::vector<std::pair<std::string, std::int64_t>> dims;  // every symbolic dim's value, in dims order
  std::vector<CaseTensor> inputs;
  std::optional<std::vector<CaseTensor>> outputs;          // known once the reference was computed (export)
};

// One of input_cases (§5). A blank case (§4 parity, "reset") has no outcome, passed false and no failure,
// errors or detail. Its inputs are the alternative its record's form holds: v1's [batch, width] shape, or a
// named-tensors record's dims, inputs and outputs (§10), which to_json writes where v1's case writes `shape`.
struct RecordCase {
  std::string name;
  std::uint64_t seed = 0;
  std::string expect;                 // rf::kExpectMatch | rf::kExpectRejected
  std::optional<std::string> outcome;  // one of rf::kOutcomes, or none (blank)
  bool passed = false;
  std::optional<FailureClass> failure;  // a parity class, per the case table (case_rule)
  std::optional<JsonNumber> max_abs_error;
  std::optional<JsonNumber> max_rel_error;
  std::optional<std::string> detail;
  std::variant<CaseShape, ModuleCaseFields> inputs;

  // v1's case shape (std::bad_variant_access for a named-tensors case).
  const CaseShape& shape() const { return std::get<CaseShape>(inputs); }
  // A named-tensors case's fields; null for v1's.
  const ModuleCaseFields* module() const { return std::get_if<ModuleCaseFields>(&inputs); }
  ModuleCaseFields* module() { return std::get_if<ModuleCaseFields>(&inputs); }

  static RecordCase blank(const InputCase& c);
  void reset();  // back to blank, keeping name, inputs, seed and expect
  json to_json() const;
};

// stages.<name> (§4): status, the class of a failed stage, and the stage's detail (free-form).
struct StageEntry {
  StageStatus status = StageStatus::not_run;
  std::optional<FailureClass> failure;
  json detail;
  json to_json() const;
};

struct Record {
  struct Exporter {
    std::string name;  // equal to options.exporter
    json options;      // the 7 exporter options of §3, kept as given (17 vs 17.0 differ)
  };
  struct Opset {
    std::int64_t requested = 0;  // options.opset_version
    json model;                   // null until check passed, then {domain: version}
  };
  struct Artifacts {
    std::string directory;  // the profile name
    std::string model = kModelFile;
    std::vector<ArtifactFile> files;
  };
  struct Runtime {
    std::string name;
    json version;  // the runtime's version string once known, else null (kept as given)
    std::string provider;
    SessionOptions session;
    // runtime.provider_options: given to `provider` when the session appends it (a module or successor-format
    // record's only, never the CPU provider's; written only when one is set).
    std::map<std::string, std::string> provider_options;
  };
  struct Tolerances {
    JsonNumber rtol;
    JsonNumber atol;
    // A module record's precision other than float32 (base/precision.h): written as tolerances.precision
    // {name, rtol, atol, why}, its tolerance the one parity judges by; nullopt writes today's record.
    std::optional<Precision> precision;
    // The tolerance the cases are judged by: the precision's, else rtol and atol.
    Tolerance judging() const;
  };
  // v1's own keys (§2, §5): the built-in net's config (plus weights_sha256, kept as given) and dtype.
  struct Brief {
    json config;
    std::string dtype;
  };
  // A named-tensors record's own keys (§10), instead of config and dtype.
  struct Module {
    std::string factory;
    json class_name;     // string once the factory ran, else null
    json source_sha256;  // string once the factory's file was read, else null
    json state_sha256;   // string once the module was built, else null
    json inputs;         // the profile's input specs (module_spec.h InputSpec::to_json), as given
    json dims;           // {name: [values]}
    json outputs;        // [names] or null
    // The record's `model` when it is an nnx.model-conformance/1 record (§11: {kind, ...}, the kind's
    // variant; then factory is "" and class and the digests null), else null (a module record).
    json variant;
  };

  std::string format = std::string(kFormat);
  std::string profile;
  RecordStatus status = RecordStatus::failed;
  std::optional<FailureClass> failure;
  Level level = Level::none;
  json source;  // {revision, origin, dirty, version}, free-form
  Exporter exporter;
  Opset opset;
  Artifacts artifacts;
  json versions;  // free-form
  Runtime runtime;
  std::vector<RecordCase> input_cases;
  Tolerances tolerances;
  json model_state;                   // null, or {parameters, gradients, modes} (§4 export)
  // The form's own keys, the alternative the format's form (RecordForm) says: v1's or a named-tensors record's.
  std::variant<Brief, Module> own;
  std::array<StageEntry, kStageCount> stages;  // by stage_index

  // The record's model kind: the built-in net's whenever its own keys are v1's (in either encoding: §5, or
  // §11's kind "built-in"), else read from its format (base: model_kind_of_format); the stages' table
  // (stages/kind_hooks.h) dispatches on it and shared code asks model_kind_facts(kind()). A format no kind
  // has reads as the built-in net's (a valid record has none).
  ModelKind kind() const {
    return std::holds_alternative<Brief>(own) ? ModelKind::feed_forward
                                              : model_kind_of_format(format).value_or(ModelKind::feed_forward);
  }
  // v1's keys (std::bad_variant_access for a named-tensors record).
  Brief& brief() { return std::get<Brief>(own); }
  const Brief& brief() const { return std::get<Brief>(own); }
  // A named-tensors record's keys; null for v1's.
  Module* module() { return std::get_if<Module>(&own); }
  const Module* module() const { return std::get_if<Module>(&own); }

  // §5: the 17 keys (§10, §11: a record whose `own` keys are a Module writes its format's 19; one whose own
  // keys are v1's but whose format is nnx.model-conformance/1 writes §11's kind "built-in",
  // base/built_in_model_record.h). `from_json` throws ConformanceError (validate_record's message) for an
  // invalid record.
  json to_json() const;
  static Record from_json(const json& record);

  StageEntry& stage(Stage s) { return stages[stage_index(s)]; }
  const StageEntry& stage(Stage s) const { return stages[stage_index(s)]; }
  // §4: one stage's outcome (set_stage_passed / set_stage_failed below), or back to not_run.
  void set_stage_passed(Stage s, json detail);
  void set_stage_failed(Stage s, FailureClass failure, json detail);
  void reset_stage(Stage s);
  // §4 parity, §7 execute: every case back to blank.
  void reset_input_cases();
  // §1, §5: status, failure and level from the stages (derive_outcome), written into the record.
  RecordOutcome derived_outcome() const;
  void finalize();
  // The one rule of the format a record is written in under its settings (§11, kind "built-in"): a record of
  // the brief's format run or executed with another session (level, threads, config entries), provider or
  // provider options than the brief's becomes an nnx.model-conformance/1 record of the same evidence; with the brief's
  // settings it stays as it is, byte for byte. Every other record keeps its format.
  void settle_format_for_settings();
};

// §5: the record a run starts from: the profile's settings, every stage not_run, blank input cases,
// status failed, failure null, level none, opset.model and model_state null, runtime.version null. A module
// record written to a report in `report_folder` states its factory's FILE.py relative to that folder (the one
// path rule, profile/module_factory.h); without one, as the profile gives it.
Record blank_record_of(const Profile& profile, const SourceInfo& source, const std::string& weights_sha256,
                       const std::optional<std::filesystem::path>& report_folder = std::nullopt);

// The same on JSON (each is the typed function's to_json).
json blank_record(const Profile& profile, const SourceInfo& source, const std::string& weights_sha256);
json blank_input_case(const InputCase& c);
json session_options_json();

// versions.host (doc/record-format.md §11, "session settings, precision and the host"): this machine's facts
// (base/host_facts.h) in a module or successor-format record, written by run and execute; a v1 record (the
// brief's format, which the published original validates) is left as it is.
void record_host_facts(Record& record);

// §4: stages.<stage> = {status passed, failure null, detail} / {status failed, failure, detail}.
void set_stage_passed(json& record, Stage stage, json detail);
void set_stage_failed(json& record, Stage stage, FailureClass failure, json detail);
// §1, §5: writes status, failure and level as derive_outcome gives them from the record's stages (a status
// other than passed/failed counts as not run).
void finalize_record(json& record);

}  // namespace nnx
