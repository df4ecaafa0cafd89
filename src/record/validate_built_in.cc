// The rules of §11's kind "built-in" (doc/record-format.md §11, base/built_in_model_record.h): a tested or
// built-in network profile's record run with other settings than the brief's. It is valid exactly when
//   - it has §11's 19 keys and `model` is exactly {kind, config, dtype};
//   - every key is what its v1 view encodes into under its own runtime section (so `inputs`, `dims`,
//     `outputs` and each case's dims, inputs and outputs are the ones its config, exporter options and case
//     shapes give, number for number);
//   - that view is a valid v1 record (§6, every rule: the stages, the case table, the artifacts, the settings
//     rule of a tested profile), its problems named at their place in this record (`model.config`, a case's
//     `inputs[0].shape`);
//   - its session is within §11's settings, its provider a name and its provider options (where given) §11's.
#include <string>
#include <vector>

#include "base/built_in_model_record.h"
#include "base/json_fields.h"
#include "base/json_tape.h"
#include "base/model_record_vocabulary.h"
#include "record/validate_internal.h"
#include "record/validate_record.h"

namespace nnx {
namespace {

using validation::Problems;

// A problem of the v1 view named where this record holds it.
std::string at_its_place(std::string problem) {
  const auto replace_prefix = [&problem](const std::string& from, const std::string& to) {
    for (const std::string& lead : {std::string(), std::string("record.")}) {
      if (problem.rfind(lead + from, 0) == 0) {
        problem = (lead.empty() ? "" : lead) + to + problem.substr(lead.size() + from.size());
        return true;
      }
    }
    return false;
  };
  if (replace_prefix(std::string(rf::kConfig), std::string(rf::kModel) + "." + rf::model_key::kConfig)) return problem;
  if (replace_prefix(std::string(rf::kDtype), std::string(rf::kModel) + "." + rf::model_key::kDtype)) return problem;
  // input_cases[i] (name).shape -> input_cases[i] (name).inputs[0].shape
  if (problem.rfind(std::string(rf::kInputCases) + "[", 0) != 0) return problem;
  std::size_t end = problem.find(']');
  if (end != std::string::npos && problem.compare(end + 1, 2, " (") == 0) end = problem.find(')', end);
  const std::string shape = std::string(".") + rf::case_key::kShape;
  if (end != std::string::npos && problem.compare(end + 1, shape.size(), shape) == 0) {
    problem.insert(end + 1, std::string(".") + rf::module_case_key::kInputs + "[0]");
  }
  return problem;
}

// Whether two values are the same JSON text (17 and 17.0 differ: the encoding keeps numbers as given).
bool same_text(const json& a, const json& b) { return a.dump() == b.dump(); }

// Every key that is not what the record's v1 view encodes into.
void check_encoding(const json& record, const json& view, Problems& out) {
  json as_run = view;
  as_run[rf::kRuntime] = json_member(record, rf::kRuntime);
  const json expected = built_in_model_record(as_run);
  for (const char* key : rf::kModelRecordKeys) {
    if (key == std::string(rf::kModel)) continue;  // its keys named by exact_keys, its config and dtype the view's
    if (!record.contains(key) || same_text(record[key], expected[key])) continue;
    const json& cases = record[key];
    if (std::string(key) == rf::kInputCases && cases.is_array() && cases.size() == expected[key].size()) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        if (same_text(cases[i], expected[key][i])) continue;
        out.push_back(std::string(key) + "[" + std::to_string(i) + "]: its dims, inputs and outputs are not those its "
                      "inputs[0].shape and model.config give (" + validation::text_of(expected[key][i]) + ")");
      }
      continue;
    }
    out.push_back(std::string(key) + ": " + validation::text_of(record[key]) + " is not what model.config, the "
                  "exporter options and the cases' shapes give (" + validation::text_of(expected[key]) + ")");
  }
}

void check_runtime_as_run(const json& record, Problems& out) {
  const json runtime = record.value(rf::kRuntime, json());
  if (!runtime.is_object()) return;  // the view's rules name it
  const json provider = runtime.value(rf::runtime_key::kProvider, json());
  if (!provider.is_string() || provider.get<std::string>().empty()) {
    out.push_back(validation::at(rf::kRuntime, rf::runtime_key::kProvider) + ": must be the name of an execution "
                  "provider, not " + validation::text_of(provider));
  }
  const JsonTape whole = JsonTape::from_json(runtime);
  if (runtime.contains(rf::runtime_key::kProviderOptions)) validation::check_provider_options(JsonView(whole), out);
  if (!runtime.contains(rf::runtime_key::kSession)) return;
  const JsonTape session = JsonTape::from_json(runtime[rf::runtime_key::kSession]);
  validation::check_settings(JsonView(session), out);
}

}  // namespace

namespace validation {

Problems built_in_record_problems(const json& record) {
  Problems out;
  validation::exact_keys(JsonView(JsonTape::from_json(record)), "record", rf::kModelRecordKeys, out);
  const json model = record.value(rf::kModel, json());
  validation::exact_keys(JsonView(JsonTape::from_json(model)), rf::kModel, rf::model_key::kBuiltInKeys, out);
  const json view = brief_view(record);
  check_encoding(record, view, out);
  check_runtime_as_run(record, out);
  for (const auto& problem : record_problems(view)) out.push_back(at_its_place(problem));
  return out;
}

}  // namespace validation
}  // namespace nnx
