// The cause of a failed profile in words (failure_diagnosis.h).
#include "base/failure_diagnosis.h"

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/built_in_model_record.h"
#include "base/model_kind.h"
#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"

namespace nnx {
namespace {

using nlohmann::json;

namespace graph_dims_key = rf::graph_dims_key;
namespace case_key = rf::case_key;
namespace stage_key = rf::stage_key;

// `object[key]` as text: a string as it is, "" when absent or null, any other value as JSON.
std::string text_of(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || object[key].is_null()) return "";
  return object[key].is_string() ? object[key].get<std::string>() : object[key].dump();
}

// An error as the pages show it: 3 significant digits.
std::string shown_text(const json& value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value.get<double>());
  return text;
}

// The module or file a record's model is (its factory, else its ONNX file), nullopt for a tested profile's
// record or an unknown format: the records a diagnosis is for.
std::optional<std::string> model_name(const json& record) {
  const auto kind = model_kind_of_record(record);
  if (!kind) return std::nullopt;
  const ModelKindFacts& facts = model_kind_facts(*kind);
  if (facts.model_member.empty()) return std::nullopt;
  const json model = record.value(std::string(facts.model_member), json());
  const std::string factory = text_of(model, rf::module_key::kFactory);
  return factory.empty() ? text_of(model, std::string(facts.model_label_key).c_str()) : factory;
}

// The record's cases that are objects (a record of any shape is read safely).
std::vector<json> cases_of(const json& record) {
  std::vector<json> out;
  const json cases = json_member(record, rf::kInputCases);
  for (const auto& c : cases.is_array() ? cases : json::array()) {
    if (c.is_object()) out.push_back(c);
  }
  return out;
}

json export_detail(const json& record) {
  return json_member(json_member(json_member(record, rf::kStages), kStageNames[stage_index(Stage::export_model)]), stage_key::kDetail);
}

// The size of `dim` in a case, or nullopt.
std::optional<std::int64_t> size_in(const json& c, const std::string& dim) {
  const json size = json_member(json_member(c, rf::kDims), dim.c_str());
  if (!size.is_number_integer()) return std::nullopt;
  return size.get<std::int64_t>();
}

std::string dims_text(const json& c) {
  const json dims = json_member(c, rf::kDims);
  std::string text;
  if (!dims.is_object()) return text;
  for (const auto& [name, size] : dims.items()) text += (text.empty() ? "" : ", ") + name + "=" + size.dump();
  return text;
}

// "ONNX Runtime's node <Op> '<name>': <message>" from a runtime failure's detail, else the detail itself.
std::string runtime_words(const std::string& detail) {
  static constexpr std::string_view kRunning = "running ", kNode = " node. Name:'", kMessage = "' Status Message: ";
  const auto node = detail.find(kNode);
  const auto running = node == std::string::npos ? node : detail.rfind(kRunning, node);
  const auto message = node == std::string::npos ? node : detail.find(kMessage, node);
  if (running == std::string::npos || message == std::string::npos) return detail;
  const auto op_at = running + kRunning.size();
  const auto name_at = node + kNode.size();
  return "ONNX Runtime's node " + detail.substr(op_at, node - op_at) + " '" + detail.substr(name_at, message - name_at) +
         "' says: " + detail.substr(message + kMessage.size());
}

// `text` on one line: each run of whitespace (the runtime's messages span lines) as one space, trimmed.
std::string one_line(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const bool space = ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : ch;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool ran_nothing(const json& c) {  // the runtime refused or failed the case: nothing was compared
  const std::string outcome = text_of(c, case_key::kOutcome);
  return outcome == rf::kOutcomeRejected || outcome == rf::kOutcomeError;
}

// The declared dims (the record's `dims`, each with its sizes, the first the export's).
std::vector<std::pair<std::string, std::vector<std::int64_t>>> declared_dims(const json& record) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> out;
  const json dims = json_member(record, rf::kDims);
  if (!dims.is_object()) return out;
  for (const auto& [name, sizes] : dims.items()) {
    std::vector<std::int64_t> values;
    for (const auto& s : sizes.is_array() ? sizes : json::array()) {
      if (s.is_number_integer()) values.push_back(s.get<std::int64_t>());
    }
    if (values.size() > 1) out.emplace_back(name, std::move(values));
  }
  return out;
}

// Whether the failing match cases are exactly those for which `failing(size)` holds.
template <class Predicate>
bool failures_are_exactly(const json& record, const std::string& dim, Predicate failing) {
  bool any = false;
  for (const auto& c : cases_of(record)) {
    if (text_of(c, case_key::kExpect) != rf::kExpectMatch) continue;
    const auto size = size_in(c, dim);
    if (!size) return false;
    const bool failed = c.value(case_key::kPassed, true) == false;
    if (failed != failing(*size)) return false;
    any = any || failed;
  }
  return any;
}

std::string frozen_hint() {
  return "a size read as a Python int (int(x.shape[i]), .item(), a shape kept in a list) or a size fixed inside a "
         "layer is a constant of the traced graph: keep sizes as tensors (x.shape[i] without int(), -1 in "
         "reshape/view), or export with dynamo and read torch.export's guards, which name the dimension";
}

std::optional<Cause> frozen_cause(const json& record, const std::string& dim, const std::vector<std::int64_t>& sizes) {
  const std::int64_t exported = sizes.front();
  const json in_graph = json_member(json_member(export_detail(record), graph_dims_key::kDimsInGraph), dim.c_str());
  std::string where;
  if (in_graph.is_object() && in_graph.value(graph_dims_key::kNode, json()).is_string()) {
    where = " (" + text_of(in_graph, graph_dims_key::kOp) + " node '" +
            in_graph[graph_dims_key::kNode].get<std::string>() + "' holds it as the constant " +
            in_graph.value(graph_dims_key::kSize, json(exported)).dump() + ")";
  }
  const bool static_in_graph =
      (in_graph.is_string() && in_graph.get<std::string>() == graph_dims_key::kStatic) || in_graph.is_object();
  // the runtime ran none of the failing cases, and they are exactly those of another size than the export's
  bool failing_ran_nothing = true;
  for (const auto& c : cases_of(record)) {
    if (c.value(case_key::kPassed, true) == false && text_of(c, case_key::kExpect) == rf::kExpectMatch) {
      failing_ran_nothing = failing_ran_nothing && ran_nothing(c);
    }
  }
  const bool runtime_refuses_others =
      failing_ran_nothing && failures_are_exactly(record, dim, [&](std::int64_t s) { return s != exported; });
  if (!static_in_graph && !runtime_refuses_others) return std::nullopt;
  std::string sentence = "the dimension " + dim + " is declared dynamic (sizes";
  for (auto s : sizes) sentence += " " + std::to_string(s);
  sentence += ") but the graph fixes it to its export size " + std::to_string(exported) + where;
  if (runtime_refuses_others) sentence += ": every case with " + dim + " != " + std::to_string(exported) + " fails";
  return Cause{sentence, frozen_hint()};
}

std::optional<Cause> threshold_cause(const json& record, const std::string& dim, const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> sorted = sizes;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {
    const std::int64_t low = sorted[i], high = sorted[i + 1];
    const bool above = failures_are_exactly(record, dim, [&](std::int64_t s) { return s > low; });
    const bool below = failures_are_exactly(record, dim, [&](std::int64_t s) { return s < high; });
    if (!above && !below) continue;
    const std::string past = above ? dim + " > " + std::to_string(low) : dim + " < " + std::to_string(high);
    const std::string kept = above ? dim + " <= " + std::to_string(low) : dim + " >= " + std::to_string(high);
    return Cause{"a branch taken on a shape: the cases that fail are exactly those with " + past +
                     ", those with " + kept + " pass (the export took one side of a threshold on " + dim + ")",
                 "a Python `if` on a shape is decided once at export and the graph keeps only that side: use "
                 "torch.where or torch.cond, or export with dynamo and read torch.export's guards"};
  }
  return std::nullopt;
}

bool names_no_implementation(const std::string& text) {
  return text.find("NOT_IMPLEMENTED") != std::string::npos ||
         text.find("Could not find an implementation") != std::string::npos;
}

Cause rejected_operator(const std::string& said) {
  return Cause{"an operator the runtime rejects: " + one_line(runtime_words(said)),
               "ONNX Runtime has no kernel for this operator with these types: export it as other operators "
               "(another opset or exporter), or cast its inputs to a type the runtime implements"};
}

// A session the runtime would not create (the load stage's `code` NOT_IMPLEMENTED), or a case it failed so.
std::optional<Cause> operator_cause(const json& record) {
  const json load = json_member(json_member(record, rf::kStages), kStageNames[stage_index(Stage::load)]);
  const json detail = json_member(load, stage_key::kDetail);
  if (text_of(detail, rf::detail_key::kCode) == "NOT_IMPLEMENTED") {
    return rejected_operator(text_of(detail, rf::detail_key::kError));
  }
  for (const auto& c : cases_of(record)) {
    const std::string said = text_of(c, case_key::kDetail);
    if (names_no_implementation(said)) return rejected_operator(said);
  }
  return std::nullopt;
}

// A session ONNX Runtime would not create under the record's settings (load-error, but for a missing kernel:
// operator_cause), in its own words, with the way out for a provider or level the release lacks.
std::optional<Cause> session_cause(const json& record) {
  if (text_of(record, rf::kFailure) != failure_name(FailureClass::load_error)) return std::nullopt;
  const json load = json_member(json_member(record, rf::kStages), kStageNames[stage_index(Stage::load)]);
  const json detail = json_member(load, stage_key::kDetail);
  const std::string error = text_of(detail, rf::detail_key::kError);
  if (error.empty() || text_of(detail, rf::detail_key::kCode) == "NOT_IMPLEMENTED") return std::nullopt;
  std::string hint = "the runtime refused the model under these settings (its words: stages.load.detail): another "
                     "release, optimisation level or provider may load it";
  if (error.find("is not available in ONNX Runtime") != std::string::npos) {
    hint = "this release has no such execution provider: name a release that has it (OpenVINOExecutionProvider: "
           "an onnxruntime-openvino release, doc/runtime-matrix.md) or leave --provider out";
  } else if (error.find("graph_optimization_level is not valid") != std::string::npos) {
    hint = "this release does not know the optimisation level: name another level, or a newer release";
  }
  return Cause{"ONNX Runtime would not create the session: " + one_line(runtime_words(error)), hint};
}

std::vector<std::string> failed_cases(const json& record) {
  std::vector<std::string> out;
  for (const auto& c : cases_of(record)) {
    if (c.value(case_key::kPassed, true) != false || text_of(c, case_key::kOutcome).empty()) continue;  // passed or never run
    std::string line = text_of(c, case_key::kName) + " (" + dims_text(c) + "): " + text_of(c, case_key::kOutcome);
    const json error = c.value(case_key::kMaxAbsError, json());
    if (error.is_number()) line += ", max_abs_error " + shown_text(error);
    const std::string detail = text_of(c, case_key::kDetail);
    if (ran_nothing(c) && !detail.empty()) line += "; " + one_line(runtime_words(detail));
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> other_exporters(const json& record, const std::vector<json>& siblings) {
  std::vector<std::string> out;
  const auto named = model_name(record);
  if (!named) return out;
  const std::string exporter = text_of(json_member(record, rf::kExporter), rf::exporter_key::kName);
  for (const auto& other : siblings) {
    const auto other_named = model_name(other);
    if (!other_named || *other_named != *named) continue;
    const std::string other_exporter = text_of(json_member(other, rf::kExporter), rf::exporter_key::kName);
    if (other_exporter.empty() || other_exporter == exporter) continue;
    const std::string failure = text_of(other, rf::kFailure);
    out.push_back("the " + other_exporter + " export of the same module (profile " + text_of(other, rf::kProfile) +
                  ") " + (failure.empty() ? text_of(other, rf::kStatus) : "failed (" + failure + ")"));
  }
  return out;
}

// The parity detail's localisation (doc/localisation.md) as a cause: the first departing node and whether
// it introduces the error, or that none departs, or why it could not be localised.
std::optional<Cause> departure_cause(const json& record) {
  const json stage = json_member(json_member(record, rf::kStages), kStageNames[stage_index(Stage::parity)]);
  const json found = json_member(json_member(stage, stage_key::kDetail), "localisation");
  const std::string status = text_of(found, "status");
  if (status == "departs") {
    const json first = json_member(found, "first_departing");
    const std::string verdict = text_of(json_member(first, "rerun"), "verdict");
    const json repro = json_member(found, "repro");
    const std::string by = text_of(json_member(found, "coverage"), "reference");
    const bool evaluator = !by.empty() && by != "PyTorch";  // ONNX's reference evaluator (a data-only record)
    std::string hint =
        verdict != "introduces"
            ? "this node only carries an error from values before it that the reference's side does not name "
              "(see the localisation's coverage)"
        : evaluator ? "ONNX Runtime's " + text_of(first, "op_type") + " computes something else than " + by +
                          " on the same inputs: compare it with the operator's definition in the ONNX specification"
                    : "this node computes something else than PyTorch on PyTorch's own inputs: compare how the "
                      "exporter translated " + text_of(first, "op_type") + " with what PyTorch computes there";
    if (repro.is_object() && json_member(repro, "record").is_object()) {
      const bool own = text_of(repro, "folder") == rf::kReproFolder;  // run's: in the profile folder
      const bool beside = json_member(repro, "beside_the_record") == json(true);  // run's for a v1 record: beside it
      const std::string folder =
          own ? text_of(json_member(record, rf::kArtifacts), rf::artifacts_key::kDirectory) + "/" + rf::kReproFolder
              : text_of(repro, "folder");
      hint += std::string("; replay its repro with no Python") + (own || beside ? ", from the artifacts root" : "") +
              ": nnx-conformance execute " + folder + "/report.json " + folder + "/artifacts";
    }
    return Cause{text_of(found, "summary"), hint};
  }
  if (status == "no-departure") {
    return Cause{text_of(found, "summary"), "no single node departs: the difference builds up over many nodes; "
                                            "a tolerance that allows float32 rounding, or ORT_DISABLE_ALL where "
                                            "it is the optimised graph's, fits it"};
  }
  if (status == "not-localised") {
    return Cause{"the mismatch could not be localised: " + text_of(found, "why"),
                 "run again with --localize once that is fixed (doc/localisation.md)"};
  }
  return std::nullopt;
}

}  // namespace

Diagnosis diagnose(const json& record, const std::vector<json>& siblings) {
  Diagnosis out;
  if (text_of(record, rf::kStatus) != rf::kFailed) return out;
  if (text_of(record, rf::kFormat) != kFormat) {  // a v1 record prints what it always printed
    if (auto refused = session_cause(record)) out.causes.push_back(*refused);
  }
  if (!model_name(record)) {  // the built-in network's v1 record: only its localisation, when it has one
    if (auto departed = departure_cause(record)) out.causes.push_back(*departed);
    return out;
  }
  out.failed_cases = failed_cases(record);
  for (const auto& [dim, sizes] : declared_dims(record)) {
    if (auto frozen = frozen_cause(record, dim, sizes)) out.causes.push_back(*frozen);
    else if (auto threshold = threshold_cause(record, dim, sizes)) out.causes.push_back(*threshold);
  }
  if (auto rejected = operator_cause(record)) out.causes.push_back(*rejected);
  if (auto departed = departure_cause(record)) out.causes.push_back(*departed);
  const json warnings = json_member(export_detail(record), rf::detail_key::kWarnings);
  for (const auto& w : warnings.is_array() ? warnings : json::array()) {
    if (w.is_string()) out.warnings.push_back(w.get<std::string>());
  }
  out.other_exporters = other_exporters(record, siblings);
  return out;
}

std::vector<std::string> diagnosis_lines(const Diagnosis& diagnosis) {
  std::vector<std::string> lines;
  for (const auto& c : diagnosis.failed_cases) lines.push_back("failed case " + c);
  for (const auto& cause : diagnosis.causes) {
    lines.push_back("cause: " + cause.sentence);
    lines.push_back("hint: " + cause.hint);
  }
  for (const auto& other : diagnosis.other_exporters) lines.push_back("other exporter: " + other);
  for (const auto& w : diagnosis.warnings) lines.push_back("exporter warning: " + w);
  return lines;
}

}  // namespace nnx
