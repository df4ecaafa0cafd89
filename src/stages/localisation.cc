// Localisation of a parity failure (localisation.h): the case, the levels and the verdict.
#include "stages/localisation.h"

#include <stdlib.h>

#include <iostream>

#include "artifacts/layout.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/interrupt.h"
#include "base/sha256.h"
#include "stages/localisation_alignment.h"
#include "stages/localisation_dump.h"
#include "stages/localisation_levels.h"
#include "stages/localisation_repro.h"
#include "stages/localisation_values.h"
#include "stages/module_localisation.h"
#include "stages/module_tensors.h"
#include "stages/stages.h"
#include "worker/worker_error.h"

namespace nnx {
namespace {

using nlohmann::json;
using namespace localisation;

constexpr const char* kValuesFolder = "localisation-values";

// Removes the scratch folder however the localisation ends.
// Under run, a folder of the profile folder run is writing; otherwise (execute, a matrix's parting, which must
// leave the record's folder as it was) a fresh folder of the system's temporary folder.
struct Scratch {
  std::filesystem::path folder;
  explicit Scratch(const std::optional<std::filesystem::path>& in_profile) {
    std::error_code ec;
    if (in_profile) {
      folder = *in_profile;
      std::filesystem::remove_all(folder, ec);
      std::filesystem::create_directories(folder);
      return;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "nnx-localisation-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw ConformanceError("cannot make a temporary folder for the localisation");
    folder = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
  }
};

json not_localised(const std::string& why) { return json{{"status", "not-localised"}, {"why", why}}; }

// The departing value's node and where PyTorch computed it.
json node_json(const Subject& subject, const ReferenceValues& torch, const AlignedValue& a, const ValueDeparture& d,
               const std::string& level) {
  const GraphNode& node = subject.outline.nodes[a.node];
  const ReferenceValue& value = torch.values[a.torch];
  return json{{"value", a.value},
              {"node", node.name},
              {"op_type", node.domain.empty() ? node.op_type : node.domain + "." + node.op_type},
              {"module", value.module.empty() ? json() : json(value.module)},
              {"source", value.source.empty() ? json() : json(value.source)},
              {"level", level},
              {"errors", d.to_json()}};
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

std::string sentence(const json& first, const json& rerun, const std::string& by) {
  const std::string own_inputs = by == kPyTorch ? "PyTorch's own inputs" : "the inputs " + by + " gave it";
  std::string where = first["op_type"].get<std::string>() + " node '" + first["node"].get<std::string>() +
                      "' (value " + first["value"].get<std::string>();
  if (first["module"].is_string()) where += ", module " + first["module"].get<std::string>();
  if (first["source"].is_string()) where += ", " + first["source"].get<std::string>();
  where += ")";
  const json& e = first["errors"];
  std::string text = "ONNX Runtime first departs from " + by + " at " + where + " at " + first["level"].get<std::string>() +
                     ": error " + (e["runtime_error"].is_number() ? number(e["runtime_error"].get<double>()) : "inf") +
                     " where " + number(e["allowed"].get<double>()) + " is allowed";
  std::string cut;
  if (rerun["op_types"].size() > 1) {
    for (const auto& op : rerun["op_types"]) cut += (cut.empty() ? "" : ", ") + op.get<std::string>();
    cut = " (with the nodes it needs: " + cut + ")";
  }
  if (rerun["verdict"] == "introduces") {
    text += "; run alone on " + own_inputs + cut + " it still departs: this node introduces the error";
  } else if (rerun["verdict"] == "carries") {
    text += "; run alone on " + own_inputs + cut + " it agrees: it carries an error from above";
  }
  return text;
}

// "; the outputs are within ...: the divergence disappears without optimisation" when they are, else "".
std::string optimisation_clause(const std::vector<LevelOutcome>& levels) {
  if (levels.size() != 2 || !levels[0].failure.empty() || !levels[1].failure.empty() || levels[0].outputs_within ||
      !levels[1].outputs_within) {
    return "";
  }
  return "; the outputs are within the tolerance at " + levels[1].level + " and not at " + levels[0].level +
         ": the divergence disappears without optimisation";
}

std::string no_departure_sentence(const std::vector<LevelOutcome>& levels, const std::string& by) {
  std::size_t compared = 0;
  for (const auto& l : levels) compared += l.compared.size();
  std::string text = "no value departs from " + by + " by the test (" + std::to_string(compared) + " values compared)";
  if (by == kEvaluator) {
    text += ": ONNX Runtime computes what the graph specifies, so a mismatch with the expected outputs lies in the "
            "graph or in those outputs, not in the runtime";
  } else if (by != kPyTorch) {  // another release's unoptimised values (a matrix's parting)
    text += ": the difference builds up over many values, or comes from the reference release's own optimised graph";
  }
  return text + optimisation_clause(levels);
}

json coverage_json(const ReferenceValues& torch, const Alignment& alignment) {
  json left = alignment.left_out;
  for (const auto& s : torch.skipped) left.push_back(s);
  const char* note = torch.granularity == "module" ? "a TorchScript export keeps no value names: values are aligned per submodule"
                     : torch.granularity == "value" ? "the reference computes the graph's own values: aligned by name"
                                                     : "values are aligned per FX node by the name the dynamo exporter gives them";
  return json{{"reference", torch.computed_by},
              {"granularity", torch.granularity},
              {"note", note},
              {"reference_values", torch.values.size() + torch.skipped.size()},
              {"aligned", alignment.aligned.size()},
              {"left_out", left},
              {"onnx_values", alignment.onnx_values},
              {"onnx_values_without_counterpart", alignment.onnx_without_counterpart},
              {"oracle_missing", torch.oracle_missing}};
}

}  // namespace

Subject localisation::subject_of(StageContext& context, const RecordCase& c, const VerifiedModel& verified) {
  Subject subject;
  subject.runtime = context.runtime.get();
  subject.model = verified.model;
  subject.external = &verified.external;
  subject.settings = verified.settings;
  subject.outline = read_graph_outline(verified.model);
  case_tensors(context, c, subject.inputs, subject.references);
  return subject;
}

namespace {

// Steps 3 and 4 of localisation.h over aligned values; fills `out`.
void judge(const Subject& subject, const ReferenceValues& torch, const Alignment& alignment, const LocaliseLimits& limits,
           std::chrono::steady_clock::time_point deadline, const std::optional<std::filesystem::path>& repro, json& out) {
  std::vector<LevelOutcome> levels;
  levels.push_back(compare_at_level(subject, alignment, torch, subject.settings.graph_optimization_level, limits, deadline));
  if (subject.settings.graph_optimization_level != "ORT_DISABLE_ALL") {
    throw_if_interrupted();
    levels.push_back(compare_at_level(subject, alignment, torch, "ORT_DISABLE_ALL", limits, deadline));
  }
  out["levels"] = json::array();
  for (const auto& l : levels) out["levels"].push_back(l.to_json(alignment, subject.outline));
  for (const auto& l : levels) {
    const auto first = l.first_departing();
    if (!first) continue;
    const AlignedValue& a = alignment.aligned[l.compared[*first].aligned];
    json head = node_json(subject, torch, a, l.compared[*first].departure, l.level);
    Rerun rerun = rerun_on_torch_inputs(subject, alignment, torch, a, l.level);
    head["rerun"] = rerun.to_json(subject.outline);
    out["status"] = "departs";
    out["first_departing"] = head;
    out["summary"] = sentence(head, head["rerun"], torch.computed_by) + optimisation_clause(levels);
    out["next_departing"] = json();
    for (std::size_t j = *first + 1; j < l.compared.size(); ++j) {
      if (!l.compared[j].departure.departs) continue;
      const AlignedValue& b = alignment.aligned[l.compared[j].aligned];
      json next = node_json(subject, torch, b, l.compared[j].departure, l.level);
      next["rerun"] = rerun_on_torch_inputs(subject, alignment, torch, b, l.level).to_json(subject.outline);
      out["next_departing"] = next;
      break;
    }
    out["repro"] = json();
    if (rerun.failure.empty() && repro) {
      const auto files = write_repro(*repro, rerun);
      out["repro"] = json{{"folder", repro->string()}, {"files", files}, {"departs", rerun.departure.departs}};
    }
    return;
  }
  for (const auto& l : levels) {
    if (l.stopped.empty()) continue;  // a value not compared may depart: never "no-departure"
    out["status"] = "not-localised";
    out["why"] = l.stopped + " at " + l.level + " (the time cap is " + std::to_string(limits.time_cap.count()) +
                 " s): raise it with --localize-seconds";
    out["first_departing"] = json();
    out["summary"] = "not localised: " + out["why"].get<std::string>();
    return;
  }
  out["status"] = "no-departure";
  out["first_departing"] = json();
  out["summary"] = no_departure_sentence(levels, torch.computed_by);
}

}  // namespace

json localise(StageContext& context, const LocaliseLimits& limits, const std::optional<std::filesystem::path>& repro) {
  const auto started = std::chrono::steady_clock::now();
  const Record& record = context.record;
  if (!can_localise(record)) {
    return not_localised("nothing computes this record's reference values (module_localisation.h values_from)");
  }
  const RecordCase* c = context.localise_case ? &case_named(record, *context.localise_case) : case_to_localise(record);
  if (c == nullptr) return not_localised("no match case ran: nothing to localise");
  const std::filesystem::path folder = profile_folder(context.root, record.artifacts.directory);
  json out{{"case", c->name}};
  std::uint64_t values_bytes = 0, largest_value_bytes = 0;
  try {
    VerifiedModel verified = verified_model(context);
    Subject subject = localisation::subject_of(context, *c, verified);
    const Tolerance judging = record.tolerances.judging();
    subject.scale = {judging.rtol, judging.atol, 0.0};
    for (const Tensor& r : subject.references) {
      subject.scale.outputs_magnitude = std::max(subject.scale.outputs_magnitude, largest_magnitude(r));
    }
    Scratch scratch(context.profile ? std::optional(folder / kValuesFolder) : std::nullopt);
    subject.scratch = scratch.folder;
    const auto asked = std::chrono::steady_clock::now();
    const ReferenceValues torch = reference_values(context, *c, subject, scratch.folder);
    out["pytorch_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    const Alignment alignment = align(subject.outline, torch);
    out["coverage"] = coverage_json(torch, alignment);
    out["pytorch_step_seconds"] = torch.step_seconds;
    for (const auto& v : torch.values) {  // what holding every value at once would cost, and one value
      values_bytes += v.bytes();
      largest_value_bytes = std::max(largest_value_bytes, v.bytes());
    }
    judge(subject, torch, alignment, limits, started + limits.time_cap, repro, out);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    json failed = not_localised(e.what());
    failed["case"] = c->name;
    return failed;
  }
  out["limits"] = json{{"memory_bytes", limits.memory_bytes}, {"time_cap_seconds", limits.time_cap.count()},
                       {"values_bytes", values_bytes}, {"largest_value_bytes", largest_value_bytes}};
  out["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

namespace {

bool has_mismatch(const Record& record) {
  for (const auto& c : record.input_cases) {
    if (c.expect == rf::kExpectMatch && c.outcome == rf::kOutcomeMismatch) return true;
  }
  return false;
}

bool wanted(const Record& record, LocaliseWhen when) {
  if (!can_localise(record) || record.stage(Stage::load).status != StageStatus::passed) return false;
  switch (when) {
    case LocaliseWhen::parity_failed: return has_mismatch(record);
    case LocaliseWhen::always: return true;
    case LocaliseWhen::never: return false;
  }
  return false;
}

}  // namespace

std::optional<std::filesystem::path> localise_after_parity(StageContext& context, LocaliseWhen when,
                                                           const LocaliseLimits& limits,
                                                           const std::optional<std::filesystem::path>& repro_beside) {
  if (!wanted(context.record, when)) return std::nullopt;
  json& detail = context.record.stage(Stage::parity).detail;
  if (!detail.is_object()) return std::nullopt;
  if (!context.other_runtime_values && (!context.exporter || !context.exporter->running())) {
    try {
      context.exporter = std::make_unique<ExporterClient>(context.worker_command, context.worker_timeout);
    } catch (const WorkerError& e) {
      detail["localisation"] = not_localised(std::string("the worker did not start: ") + e.what());
      return std::nullopt;
    }
  }
  std::cerr << "nnx-conformance: localising \"" << context.record.profile << "\"\n";
  const std::filesystem::path folder = profile_folder(context.root, context.record.artifacts.directory);
  // run: where the record's kind keeps its repro (module_localisation.h repro_place); execute: beside the
  // output it names
  const ReproPlace place = repro_place(context, folder);
  const std::optional<std::filesystem::path> repro = context.profile ? std::optional(place.folder) : repro_beside;
  detail["localisation"] = localise(context, limits, repro);
  if (!detail["localisation"].value("repro", json()).is_object()) return std::nullopt;
  if (context.profile) {
    json& named = detail["localisation"]["repro"];
    named["folder"] = place.named;  // relative to the profile folder (inside the record) or to the root (beside it)
    if (!place.listed) named["beside_the_record"] = true;
  }
  return repro;
}

void list_repro_files(Record& record, const std::filesystem::path& profile_folder) {
  const std::filesystem::path repro = profile_folder / rf::kReproFolder;
  std::vector<std::string> paths;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(repro, ec); !ec && it != decltype(it)(); it.increment(ec)) {
    if (it->is_regular_file() && !it->is_symlink()) {
      paths.push_back(it->path().lexically_relative(profile_folder).generic_string());
    }
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    const std::string bytes = read_file_bytes(profile_folder / path, std::size_t{4} << 30, "a repro file", ErrorKind::io);
    record.artifacts.files.push_back({path, rf::kRoleRepro, bytes.size(), sha256_hex(bytes)});
  }
}

}  // namespace nnx
