#include "report/comparison.h"

#include <algorithm>
#include <vector>

#include "report/document.h"

namespace nnx::report {
namespace {

// What one record compared (report/comparison.h), each as the sentence words it.
struct Facts {
  std::string profile;
  std::string runtime;    // "ONNX Runtime 1.30.0 (CPUExecutionProvider)"
  std::string release;    // "ONNX Runtime 1.30.0"
  std::string name;       // "ONNX Runtime"
  std::string version;    // "1.30.0" ("" when not recorded)
  std::string provider;   // " (CPUExecutionProvider)" ("" when not recorded)
  std::string reference;  // "PyTorch 2.13.0 in eval mode"
  std::string model;      // "feed_fwd 4→8→2 (relu, float32)" or "module m.py:make"
  std::string exporter;   // "torchscript at opset 17"
  std::string tolerance;  // "atol 1e-05 and rtol 0.0001"
  bool compared = false;  // parity ran
};

const char* const kParity = kStageNames[stage_index(Stage::parity)];

const json& object_at(const json& record, const char* key) {
  static const json empty = json::object();
  if (!record.is_object()) return empty;
  const auto it = record.find(key);
  return it != record.end() && it->is_object() ? *it : empty;
}

std::string runtime_name(const json& runtime) {
  const std::string name = text_of(runtime, rf::runtime_key::kName);
  return name == "onnxruntime" ? "ONNX Runtime" : name.empty() ? "the runtime" : name;
}

// The parity detail's reference; else an execute's versions.reference; else a run's (PyTorch).
std::string reference_words(const json& record) {
  const json& versions = object_at(record, rf::kVersions);
  std::string reference = text_of(object_at(stage_of(record, kParity), stage_key::kDetail), rf::detail_key::kReference);
  if (reference.empty()) reference = text_of(versions, rf::versions_key::kReference);
  if (reference.empty() || reference == rf::kReferenceTorch) {
    const std::string torch = text_of(versions, rf::versions_key::kTorch);
    return "PyTorch" + (torch.empty() ? std::string() : " " + torch) + " in eval mode";
  }
  if (reference == rf::kReferenceNative) return "the native C++ float32 forward (no PyTorch)";
  if (reference == rf::kReferenceStored) {
    return std::string(record_kind_facts(record).stored_reference_words);
  }
  return reference;
}

std::string model_words(const json& record) {
  if (const auto named = named_model(record)) return named->word + " " + named->name;
  const json keys = built_in_keys(record);
  const json& config = object_at(keys, rf::kConfig);
  std::string widths = text_of(config, rf::config_key::kInputDim);
  const json hidden = config.value(rf::config_key::kHiddenDims, json::array());
  for (const auto& width : hidden.is_array() ? hidden : json::array()) widths += "→" + value_text(width);
  widths += "→" + text_of(config, rf::config_key::kOutputDim);
  const std::string net = text_of(config, rf::config_key::kNet);
  return (net.empty() ? "the model" : net) + " " + widths + " (" + text_of(config, rf::config_key::kActivation) +
         ", " + text_of(keys, rf::kDtype) + ")";
}

Facts facts_of(const json& record) {
  Facts facts;
  facts.profile = text_of(record, rf::kProfile);
  const json& runtime = object_at(record, rf::kRuntime);
  const std::string provider = text_of(runtime, rf::runtime_key::kProvider);
  facts.name = runtime_name(runtime);
  facts.version = text_of(runtime, rf::runtime_key::kVersion);
  facts.provider = provider.empty() ? "" : " (" + provider + ")";
  facts.release = facts.name + (facts.version.empty() ? " (release not recorded)" : " " + facts.version);
  facts.runtime = facts.release + facts.provider;
  facts.reference = reference_words(record);
  facts.model = model_words(record);
  const std::string exporter = text_of(object_at(record, rf::kExporter), rf::exporter_key::kName);
  const std::string opset = text_of(object_at(record, rf::kOpset), rf::opset_key::kRequested);
  facts.exporter = (exporter.empty() ? "an unnamed exporter" : exporter) + (opset.empty() ? "" : " at opset " + opset);
  const json& tolerances = object_at(record, rf::kTolerances);
  facts.tolerance = "atol " + shown_text(tolerances.value(tolerance_key::kAtol, json())) + " and rtol " +
                    shown_text(tolerances.value(tolerance_key::kRtol, json()));
  facts.compared = stage_status(record, kParity) != rf::kNotRun;
  return facts;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  }
  return out;
}

void add_unique(std::vector<std::string>& items, const std::string& item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}

// One fact over every record: said once when all share it, else each value with the profiles it holds for
// (none named when it holds for every profile, as a matrix's runtimes do).
std::string covering(const std::vector<Facts>& all, std::string Facts::*fact) {
  std::vector<std::string> profiles, values;
  for (const auto& facts : all) {
    add_unique(profiles, facts.profile);
    add_unique(values, facts.*fact);
  }
  if (values.size() == 1) return values.front();
  std::vector<std::string> parts;
  for (const auto& value : values) {
    std::vector<std::string> holding;
    for (const auto& facts : all) {
      if (facts.*fact == value) add_unique(holding, facts.profile);
    }
    parts.push_back(holding.size() == profiles.size() ? value : value + " (" + joined(holding) + ")");
  }
  return joined(parts);
}

// The runtimes: a matrix's releases of one runtime and provider, each run on every profile, as one list
// ("ONNX Runtime 1.20.1 and 1.30.0 (CPUExecutionProvider)"); otherwise as `covering` says them.
std::string runtimes_words(const std::vector<Facts>& all) {
  std::vector<std::string> profiles, versions;
  for (const auto& facts : all) {
    add_unique(profiles, facts.profile);
    add_unique(versions, facts.version);
  }
  bool one_list = versions.size() > 1;
  for (const auto& facts : all) {
    one_list = one_list && !facts.version.empty() && facts.name == all.front().name &&
               facts.provider == all.front().provider;
  }
  for (const auto& version : versions) {
    std::vector<std::string> holding;
    for (const auto& facts : all) {
      if (facts.version == version) add_unique(holding, facts.profile);
    }
    one_list = one_list && holding.size() == profiles.size();
  }
  if (!one_list) return covering(all, &Facts::runtime);
  return all.front().name + " " + joined(versions) + all.front().provider;
}

}  // namespace

std::string comparison_sentence(const json& document) {
  std::vector<Facts> all;
  for (const auto& record : document_records(document)) all.push_back(facts_of(record));
  if (all.empty()) return "No profile was run, so nothing was compared.";
  std::vector<std::string> not_run;
  std::vector<std::string> runtimes;
  for (const auto& facts : all) add_unique(runtimes, facts.runtime);
  for (const auto& facts : all) {
    if (!facts.compared) add_unique(not_run, facts.profile + (runtimes.size() > 1 ? " on " + facts.release : ""));
  }
  const bool none = not_run.size() == all.size();
  const std::string verb = runtimes.size() > 1 ? " were" : " was";
  std::string out = runtimes_words(all) + verb + (none ? " to be compared with " : " compared with ") +
                    covering(all, &Facts::reference) + " on " + covering(all, &Facts::model) + " exported by " +
                    covering(all, &Facts::exporter) + ", within " + covering(all, &Facts::tolerance);
  if (none) return out + " (parity did not run).";
  return out + (not_run.empty() ? "" : " (parity did not run for " + joined(not_run) + ")") + ".";
}

}  // namespace nnx::report
