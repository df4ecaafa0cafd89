// Test support: the module record builder (module_record.h).
#include "support/module_record.h"

#include <string>
#include <utility>
#include <vector>

#include "artifacts/layout.h"
#include "base/build_info.h"

namespace nnx::test_support {
namespace {

using json = nlohmann::json;

struct CaseSpec {
  const char* name;
  std::int64_t batch;
  std::vector<std::int64_t> shape;
  std::uint64_t seed;
  bool match;
};

const std::vector<CaseSpec>& case_specs() {
  static const std::vector<CaseSpec> specs = {
      {"batch-2", 2, {2, 3, 64, 64}, 1000, true},          {"batch-1", 1, {1, 3, 64, 64}, 1001, true},
      {"batch-3", 3, {3, 3, 64, 64}, 1002, true},          {"image-axis1-4", 2, {2, 4, 64, 64}, 2000, false},
      {"image-axis2-65", 2, {2, 3, 65, 64}, 2001, false}, {"image-axis3-65", 2, {2, 3, 64, 65}, 2002, false}};
  return specs;
}

Record blank_module_record() {
  Record r;
  r.format = std::string(kModuleFormat);
  r.profile = "resnet18-dynamo";
  r.source = json{{"revision", "0123456789abcdef0123456789abcdef01234567"}, {"origin", "given"}, {"dirty", nullptr},
                  {"version", build_version()}};
  r.own = Record::Module{"tests/models/zoo.py:resnet18", nullptr, nullptr, nullptr,
                            json::array({{{"name", "image"}, {"shape", {"batch", 3, 64, 64}}, {"dtype", "float32"},
                                          {"range", nullptr}}}),
                            json{{"batch", {2, 1, 3}}}, json::array({"logits"}), nullptr};
  const json dynamic_dims = {{"batch", json::array({json::array({"image", 0})})}};
  r.exporter = {"dynamo", json{{"exporter", "dynamo"}, {"opset_version", 18}, {"input_names", {"image"}},
                               {"output_names", {"logits"}}, {"dynamic_dims", dynamic_dims}}};
  r.opset = {18, nullptr};
  r.artifacts = {r.profile, kModelFile, {}};
  r.versions = json{{"nnx", build_version()}, {"python", "3.11.9"}, {"torch", "2.4.1"}};
  r.runtime = {"onnxruntime", nullptr, "CPUExecutionProvider", SessionOptions{}, {}};
  r.tolerances = {1e-4, 1e-5, std::nullopt};
  std::size_t k = 0;
  for (const CaseSpec& spec : case_specs()) {
    RecordCase c;
    c.name = spec.name;
    c.seed = spec.seed;
    c.expect = spec.match ? rf::kExpectMatch : rf::kExpectRejected;
    ModuleCaseFields fields;
    fields.dims = {{"batch", spec.batch}};
    fields.inputs = {{"image", "float32", spec.shape, spec.match ? test_input_path(k++, 0) : refusal_input_path(spec.name, 0),
                      std::nullopt, std::nullopt}};
    c.inputs = std::move(fields);
    r.input_cases.push_back(std::move(c));
  }
  return r;
}

// Export: the module's class and digests, every match case's outputs.
void fill_export(Record& r) {
  r.module()->class_name = "torchvision.models.resnet.ResNet";
  r.module()->source_sha256 = std::string(64, 'c');
  r.module()->state_sha256 = std::string(64, 'd');
  std::size_t k = 0;
  for (RecordCase& c : r.input_cases) {
    if (c.expect != rf::kExpectMatch) continue;
    c.module()->outputs = std::vector<CaseTensor>{
        {"logits", "float32", {c.module()->dims[0].second, 1000}, test_output_path(k, 0), oracle_output_path(k, 0),
         std::nullopt}};
    ++k;
  }
}

// Check: the model and every stored tensor in the manifest, the model's opset.
void fill_check(Record& r) {
  r.opset.model = json{{"ai.onnx", 18}};
  r.artifacts.files.push_back({kModelFile, rf::kRoleModel, 46800000, std::string(64, 'b')});
  for (const RecordCase& c : r.input_cases) {
    for (const CaseTensor& t : c.module()->inputs) {
      r.artifacts.files.push_back({t.file, stored_tensor_role(t.file), 98318, std::string(64, 'e')});
    }
    if (!c.module()->outputs) continue;
    for (const CaseTensor& t : *c.module()->outputs) {
      r.artifacts.files.push_back({t.file, stored_tensor_role(t.file), 8014, std::string(64, 'f')});
      r.artifacts.files.push_back({*t.oracle_file, stored_tensor_role(*t.oracle_file), 16014, std::string(64, '0')});
    }
  }
}

void fill_parity(Record& r) {
  for (RecordCase& c : r.input_cases) {
    const bool match = c.expect == rf::kExpectMatch;
    c.outcome = match ? rf::kOutcomeMatch : rf::kOutcomeRejected;
    c.passed = true;
    if (match) {
      c.max_abs_error = 2.384185791015625e-06;
      c.max_rel_error = 1.2e-05;
    } else {
      c.detail = "refused as an invalid argument: Got invalid dimensions for input: image";
    }
  }
  r.set_stage_passed(Stage::parity, json{{"cases", r.input_cases.size()}, {"compared", 3}});
}

}  // namespace

Record module_record(Stage last) {
  Record r = blank_module_record();
  const auto runs = [&](Stage s) { return stage_index(s) <= stage_index(last); };
  r.set_stage_passed(Stage::dependencies, json{{"onnx", "1.16.0"}, {"onnxruntime", "1.18.0"}});
  if (runs(Stage::export_model)) {
    r.model_state = json{{"parameters", true}, {"gradients", true}, {"modes", true}};
    fill_export(r);
    r.set_stage_passed(Stage::export_model, json{{"warnings", json::array()}});
  }
  if (runs(Stage::check)) {
    fill_check(r);
    r.set_stage_passed(Stage::check, json{{"opset", {{"ai.onnx", 18}}}, {"ir_version", 9}});
  }
  if (runs(Stage::load)) {
    r.runtime.version = "1.18.0";
    r.set_stage_passed(Stage::load, json{{"providers", {"CPUExecutionProvider"}}});
  }
  if (runs(Stage::parity)) fill_parity(r);
  r.finalize();
  return r;
}

json module_record_json(Stage last) { return module_record(last).to_json(); }

}  // namespace nnx::test_support
