// Module records (doc/record-format.md §10): the writer's 19 keys, the exact round trip, the validator's
// rules (each refusal names where), v1 records unchanged, and the renderings of a module record.
//
// Each record starts from tests/support/module_record.h (a record as a run fills it) and breaks one rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "base/json_python.h"
#include "base/module_record_vocabulary.h"
#include "matrix/matrix_document.h"
#include "record/record.h"
#include "record/report.h"
#include "record/validate_record.h"
#include "report/render.h"
#include "support/engine_record.h"
#include "support/module_record.h"

namespace nnx {
namespace {

using test_support::joined;
using test_support::module_record_json;

void expect_valid(const json& r) {
  const auto problems = record_problems(r);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

void expect_refused(const json& r, const std::string& needle) {
  const auto problems = record_problems(r);
  const std::string all = joined(problems);
  EXPECT_NE(all.find(needle), std::string::npos) << "wanted: " << needle << "\ngot:" << all;
}

json changed(Stage last, const std::function<void(json&)>& change) {
  json r = module_record_json(last);
  change(r);
  return r;
}

json changed(const std::function<void(json&)>& change) { return changed(Stage::parity, change); }

TEST(ModuleRecord, ARunsRecordIsValidAfterEveryStage) {
  for (Stage last : kStages) {
    SCOPED_TRACE(std::string(stage_name(last)));
    expect_valid(module_record_json(last));
  }
}

// A record read back from its text holds its sizes as unsigned integers (the writer's are signed): the rules
// must take both, as `validate` of a written report does.
TEST(ModuleRecord, ARecordReadBackFromItsTextIsStillValid) {
  for (Stage last : kStages) {
    SCOPED_TRACE(std::string(stage_name(last)));
    expect_valid(json::parse(module_record_json(last).dump()));
  }
}

TEST(ModuleRecord, TheWriterEmitsTheNineteenKeysAndTheModuleCaseKeys) {
  const json r = module_record_json();
  std::vector<std::string> keys, want(rf::kModuleRecordKeys.begin(), rf::kModuleRecordKeys.end());
  for (auto it = r.begin(); it != r.end(); ++it) keys.push_back(it.key());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(keys, want);
  EXPECT_EQ(r["format"], "nnx.module-conformance/1");
  EXPECT_EQ(r["module"]["factory"], "tests/models/zoo.py:resnet18");
  const json& c = r["input_cases"][0];
  EXPECT_EQ(c.size(), 12u);
  EXPECT_FALSE(c.contains("shape"));
  EXPECT_EQ(c["dims"], json({{"batch", 2}}));
  EXPECT_EQ(c["inputs"][0]["file"], "test_data_set_0/input_0.pb");
  EXPECT_EQ(c["outputs"][0]["oracle_file"], "oracle_data_set_0/output_0.pb");
  EXPECT_EQ(r["input_cases"][3]["inputs"][0]["file"], "refusal_cases/image-axis1-4/input_0.pb");
  EXPECT_TRUE(r["input_cases"][3]["outputs"].is_null());
  EXPECT_TRUE(module_record_json(Stage::dependencies)["input_cases"][0]["outputs"].is_null());
}

TEST(ModuleRecord, RoundTripIsExact) {
  for (Stage last : kStages) {
    const json r = module_record_json(last);
    const Record typed = Record::from_json(r);
    ASSERT_TRUE(typed.module() != nullptr);
    EXPECT_EQ(typed.input_cases[0].module()->dims.size(), 1u);
    EXPECT_EQ(dumps_pretty(typed.to_json()), dumps_pretty(r));
  }
}

TEST(ModuleRecord, AV1RecordIsUnchanged) {
  const json v1 = test_support::engine_record(test_support::named_profile(kTorchscriptProfile), Stage::parity);
  EXPECT_EQ(v1.size(), 17u);
  EXPECT_TRUE(v1.contains("config") && v1["input_cases"][0].contains("shape"));
  const Record typed = Record::from_json(v1);
  EXPECT_EQ(typed.module(), nullptr);
  EXPECT_EQ(dumps_pretty(typed.to_json()), dumps_pretty(v1));
  json as_module = v1;
  as_module["format"] = "nnx.module-conformance/1";
  expect_refused(as_module, "record.module: missing");
  expect_refused(as_module, "record.config: unknown key");
  json with_stored = v1;
  with_stored["artifacts"]["files"].push_back(
      {{"path", "test_data_set_0/input_0.pb"}, {"role", "test-input"}, {"bytes", 1}, {"sha256", std::string(64, 'a')}});
  expect_refused(with_stored, "artifacts.files[1].role: unknown role \"test-input\" (model, external-data or sidecar)");
}

TEST(ModuleRecord, ProviderOptionsAreReadBackStrictlyAndNeverTheCpuProvidersOrAV1Records) {
  const json with_options = changed([](json& r) {
    r["runtime"]["provider"] = "OpenVINOExecutionProvider";
    r["runtime"]["provider_options"] = {{"precision", "FP32"}, {"num_of_threads", "2"}};
  });
  expect_valid(with_options);
  const Record typed = Record::from_json(with_options);
  EXPECT_EQ(typed.runtime.provider_options.at("precision"), "FP32");
  EXPECT_EQ(dumps_pretty(typed.to_json()), dumps_pretty(with_options));
  EXPECT_FALSE(Record::from_json(module_record_json(Stage::parity)).to_json()["runtime"].contains("provider_options"));
  const auto with = [&with_options](const json& options) {
    json r = with_options;
    r["runtime"]["provider_options"] = options;
    return r;
  };
  const char* const shape = "runtime.provider_options: must be a non-empty object of KEY: VALUE strings";
  expect_refused(with(json::object()), shape);
  expect_refused(with({{"precision", 32}}), shape);
  expect_refused(with({{"", "FP32"}}), shape);
  expect_refused(with(json::array({"precision=FP32"})), shape);
  json on_cpu = with_options;
  on_cpu["runtime"]["provider"] = "CPUExecutionProvider";
  expect_refused(on_cpu, "runtime.provider_options: CPUExecutionProvider takes no provider options");
  json v1 = test_support::engine_record(test_support::named_profile(kTorchscriptProfile), Stage::parity);
  v1["runtime"]["provider_options"] = {{"precision", "FP32"}};
  expect_refused(v1, "runtime.provider_options: unknown key");
}

TEST(ModuleRecord, AnUnknownFormatNamesEveryRecordFormat) {
  expect_refused(changed([](json& r) { r["format"] = "nnx.other/1"; }),
                 "format: must be \"nnx.export-conformance/1\", \"nnx.module-conformance/1\" or "
                 "\"nnx.model-conformance/1\", not \"nnx.other/1\"");
  EXPECT_THROW(Record::from_json(changed([](json& r) { r["format"] = "x"; })), ConformanceError);
}

TEST(ModuleRecord, TheModuleSectionIsChecked) {
  expect_refused(changed([](json& r) { r["module"]["factory"] = ""; }), "module.factory: must be a non-empty string");
  expect_refused(changed([](json& r) { r["module"].erase("class"); }), "module.class: missing");
  expect_refused(changed([](json& r) { r["module"]["source_sha256"] = "xyz"; }),
                 "module.source_sha256: \"xyz\" is neither null nor 64 lowercase hex digits");
  expect_refused(changed(Stage::dependencies, [](json& r) { r["module"]["state_sha256"] = std::string(64, 'd'); }),
                 "module.state_sha256: must be null while the export did not run");
  expect_refused(changed([](json& r) { r["dtype"] = "float32"; }), "record.dtype: unknown key");
}

TEST(ModuleRecord, TheInputSpecsAreChecked) {
  expect_refused(changed([](json& r) { r["inputs"][0]["dtype"] = "complex64"; }),
                 "inputs[0].dtype: must be one of float32, float64, float16, bfloat16, int64, int32, int8, uint8, "
                 "bool, not \"complex64\"");
  expect_refused(changed([](json& r) { r["inputs"][0]["range"] = {0, 10}; }),
                 "inputs[0].range: a range is for an integer input only, not \"float32\"");
  expect_refused(changed([](json& r) { r["inputs"][0]["range"] = {5, 5}; }),
                 "inputs[0].range: [5, 5] is not two integers low < high");
  expect_refused(changed([](json& r) { r["inputs"][0]["shape"][1] = 0; }), "inputs[0].shape[1]: must be a positive integer");
  expect_refused(changed([](json& r) { r["inputs"][0]["shape"][0] = "ba tch"; }), "inputs[0].shape[0]: must be");
  expect_refused(changed([](json& r) { r["inputs"] = json::array(); }), "inputs: must be a list of 1 to 16 inputs");
  expect_refused(changed([](json& r) { r["inputs"].push_back(r["inputs"][0]); }),
                 "inputs[1].name: \"image\" names an input before it");
  json renamed = changed([](json& r) { r["inputs"][0]["shape"][0] = "n"; });
  expect_refused(renamed, "inputs[0].shape[0]: \"n\" has no entry in dims");
  expect_refused(renamed, "dims.batch: no input's shape uses it");
}

TEST(ModuleRecord, DimsAndOutputsAreChecked) {
  expect_refused(changed([](json& r) { r["dims"]["batch"] = {2, 2}; }), "dims.batch: must be a plain name with");
  expect_refused(changed([](json& r) { r["dims"]["batch"] = {2, 0}; }), "dims.batch: must be");
  expect_refused(changed([](json& r) { r["dims"]["batch"] = json::array(); }), "dims.batch: must be");
  expect_refused(changed([](json& r) { r["outputs"] = {"a", "a"}; }),
                 "outputs: must be null or a non-empty list of distinct names");
  expect_valid(changed([](json& r) { r["outputs"] = nullptr; }));
}

TEST(ModuleRecord, TheExporterOptionsNameTheExporterAndTheOpset) {
  expect_refused(changed([](json& r) { r["exporter"]["options"]["exporter"] = "torchscript"; }),
                 "exporter.name: \"dynamo\" is unlike exporter.options.exporter \"torchscript\"");
  expect_refused(changed([](json& r) { r["exporter"]["options"]["opset_version"] = 17; }), "opset.requested: 18 is not");
  expect_refused(changed([](json& r) { r["exporter"]["options"] = 1; }), "exporter.options: must be an object");
  expect_valid(changed([](json& r) { r["exporter"]["options"]["anything"] = {{"free", "form"}}; }));
}

TEST(ModuleRecord, ACasesDimsAndInputsFollowTheSpecs) {
  const std::string c0 = "input_cases[0] (batch-2)";
  expect_refused(changed([](json& r) { r["input_cases"][0]["dims"]["batch"] = 5; }),
                 c0 + ".dims.batch: 5 is not one of dims.batch [2, 1, 3]");
  expect_refused(changed([](json& r) { r["input_cases"][0]["dims"] = json::object(); }),
                 c0 + ".dims: names [], not every dim of dims in its order ([\"batch\"])");
  expect_refused(changed([](json& r) { r["input_cases"][0]["inputs"][0]["shape"][3] = 63; }),
                 c0 + ".inputs[0].shape: [2, 3, 64, 63] is not inputs[0]'s shape at the case's dims ([2, 3, 64, 64])");
  expect_refused(changed([](json& r) { r["input_cases"][0]["inputs"][0]["name"] = "x"; }),
                 c0 + ".inputs[0].name: \"x\" is not \"image\"");
  expect_refused(changed([](json& r) { r["input_cases"][0]["inputs"][0]["dtype"] = "float64"; }),
                 c0 + ".inputs[0].dtype: \"float64\" is not \"float32\"");
  expect_refused(changed([](json& r) { r["input_cases"][1]["inputs"][0]["file"] = "test_data_set_0/input_0.pb"; }),
                 "input_cases[1] (batch-1).inputs[0].file: \"test_data_set_0/input_0.pb\" is not "
                 "\"test_data_set_1/input_0.pb\" (the stored-tensor layout)");
  expect_refused(changed([](json& r) { r["input_cases"][0]["inputs"] = json::array(); }),
                 c0 + ".inputs: must be a list of the 1 inputs of inputs");
  expect_refused(changed([](json& r) { r["input_cases"][0]["shape"] = {2, 3}; }), c0 + ".shape: unknown key");
  expect_refused(changed([](json& r) { r["input_cases"][0].erase("seed"); }), c0 + ".seed: missing");
  expect_refused(changed([](json& r) { r["input_cases"][1]["name"] = "batch-2"; }),
                 "input_cases[1] (batch-2).name: names the same case as input_cases[0] (batch-2)");
}

TEST(ModuleRecord, ARefusalCaseDiffersInExactlyOneFixedSize) {
  const std::string c3 = "input_cases[3] (image-axis1-4)";
  expect_refused(changed([](json& r) { r["input_cases"][3]["inputs"][0]["shape"][1] = 3; }),
                 c3 + ".inputs: a refusal case differs from inputs at its dims in exactly one fixed size, not 0");
  expect_refused(changed([](json& r) { r["input_cases"][3]["inputs"][0]["shape"][2] = 65; }),
                 c3 + ".inputs: a refusal case differs from inputs at its dims in exactly one fixed size, not 2");
  expect_refused(changed([](json& r) { r["input_cases"][3]["inputs"][0]["shape"][0] = 3; }),
                 c3 + ".inputs[0].shape: [3, 4, 64, 64] is not inputs[0]'s shape at the case's dims ([2, 3, 64, 64]) but for "
                      "one fixed size");
  expect_refused(changed([](json& r) { r["input_cases"][3]["outputs"] = r["input_cases"][0]["outputs"]; }),
                 c3 + ".outputs: must be null for a case expected to be rejected");
  expect_refused(changed([](json& r) { r["input_cases"][3]["name"] = "a/b"; }),
                 "input_cases[3] (a/b).name: \"a/b\" is not a plain name");
}

TEST(ModuleRecord, OutputsAppearOnceTheExportPassed) {
  const std::string c0 = "input_cases[0] (batch-2)";
  expect_refused(changed([](json& r) { r["input_cases"][0]["outputs"] = nullptr; }),
                 c0 + ".outputs: null although the export passed");
  const json outputs = module_record_json()["input_cases"][0]["outputs"];
  expect_refused(changed(Stage::dependencies, [&](json& r) { r["input_cases"][0]["outputs"] = outputs; }),
                 c0 + ".outputs: must be null until the export passed");
  expect_refused(changed([](json& r) { r["input_cases"][0]["outputs"][0]["file"] = "o.pb"; }),
                 c0 + ".outputs[0].file: \"o.pb\" is not \"test_data_set_0/output_0.pb\"");
  expect_refused(changed([](json& r) { r["input_cases"][0]["outputs"][0]["oracle_file"] = "o.pb"; }),
                 c0 + ".outputs[0].oracle_file: \"o.pb\" is not \"oracle_data_set_0/output_0.pb\"");
  expect_refused(changed([](json& r) { r["input_cases"][0]["outputs"][0]["name"] = "probs"; }),
                 c0 + ".outputs[0].name: \"probs\" is not \"logits\", outputs[0]");
  expect_refused(changed([](json& r) { r["input_cases"][0]["outputs"][0]["dtype"] = "float"; }),
                 c0 + ".outputs[0].dtype: \"float\" is not a tensor dtype");
  expect_refused(changed([](json& r) { r["input_cases"][0]["outputs"][0].erase("oracle_file"); }),
                 c0 + ".outputs[0].oracle_file: missing");
}

TEST(ModuleRecord, StoredTensorsAreListedAndNamed) {
  expect_refused(changed([](json& r) { r["artifacts"]["files"].erase(1); }),
                 "input_cases[0] (batch-2).inputs[0].file: \"test_data_set_0/input_0.pb\" is not listed in artifacts.files");
  expect_refused(changed([](json& r) {
                   r["artifacts"]["files"].push_back({{"path", "test_data_set_9/input_0.pb"}, {"role", "test-input"},
                                                      {"bytes", 1}, {"sha256", std::string(64, 'a')}});
                 }),
                 "artifacts.files[13]: stored tensor \"test_data_set_9/input_0.pb\" is named by no input case");
  expect_refused(changed([](json& r) { r["artifacts"]["files"][1]["role"] = "test-output"; }),
                 "artifacts.files[1].role: \"test-output\", but \"test_data_set_0/input_0.pb\" is a stored tensor of role "
                 "\"test-input\"");
  expect_refused(changed([](json& r) { r["artifacts"]["files"][1]["role"] = "weights"; }),
                 "unknown role \"weights\" (model, external-data, sidecar, test-input, test-output, oracle-output, "
                 "refusal-input or repro)");
}

TEST(ModuleRecord, AReproFileIsListedOnlyUnderTheReproFolder) {
  const auto listed = [](const char* path) {
    return changed([path](json& r) {
      r["artifacts"]["files"].push_back({{"path", path}, {"role", "repro"}, {"bytes", 1}, {"sha256", std::string(64, 'a')}});
    });
  };
  expect_refused(listed("elsewhere/model.onnx"), "artifacts.files[13]: role \"repro\" but path");
  expect_refused(listed("elsewhere/model.onnx"), "is not under \"repro/\"");
  expect_valid(listed("repro/model.onnx"));
}

TEST(ModuleRecord, TheSharedRulesHold) {
  expect_refused(changed([](json& r) { r["input_cases"][0]["outcome"] = "accepted"; }),
                 "input_cases[0] (batch-2): outcome \"accepted\" is not an outcome any run gives for expect \"match\"");
  expect_refused(changed([](json& r) { r["status"] = "failed"; }), "status: \"failed\" contradicts the stages");
  expect_refused(changed([](json& r) { r["model_state"] = nullptr; }), "model_state: null after a passed export");
  expect_refused(changed([](json& r) { r["tolerances"]["rtol"] = -1; }), "tolerances.rtol: must be a finite number >= 0");
  expect_refused(changed([](json& r) { r["opset"]["model"] = nullptr; }), "opset.model: a checked record must state");
  expect_refused(changed([](json& r) { r["stages"]["check"]["status"] = "not_run"; }), "stages.load: ran after check");
}

TEST(ModuleRecord, AReportHoldsBothFormatsAndRendersAModuleRecord) {
  const json v1 = test_support::engine_record(test_support::named_profile(kTorchscriptProfile), Stage::parity);
  json failing = module_record_json();
  failing["input_cases"][0]["outcome"] = "mismatch";
  failing["input_cases"][0]["passed"] = false;
  failing["input_cases"][0]["failure"] = "mismatch";
  failing["stages"]["parity"] = {{"status", "failed"}, {"failure", "mismatch"}, {"detail", {{"failed_cases", {"batch-2"}}}}};
  finalize_record(failing);
  expect_valid(failing);
  const json report = make_report({v1, module_record_json(), failing});
  EXPECT_EQ(report["format"], "nnx.export-conformance/1");
  EXPECT_EQ(summary_lines({module_record_json()})[0].rfind("resnet18-dynamo: passed; level=executed; exporter=dynamo", 0), 0u);
  const std::string html = report::render_html(report);
  EXPECT_NE(html.find("module <code>tests/models/zoo.py:resnet18</code>"), std::string::npos);
  EXPECT_NE(html.find("inputs <code>image float32 [&quot;batch&quot;, 3, 64, 64]</code>"), std::string::npos) << html;
  EXPECT_NE(html.find("<th>inputs</th>"), std::string::npos);
  EXPECT_NE(html.find("<code>image float32 [2, 4, 64, 64]</code>"), std::string::npos);
  EXPECT_NE(html.find("<th>shape</th>"), std::string::npos);  // the v1 record's table
  const std::string markdown = report::render_markdown(report);
  EXPECT_NE(markdown.find("`resnet18-dynamo` (module `tests/models/zoo.py:resnet18`)"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("case batch-2 (image float32 \\[2, 3, 64, 64\\])"), std::string::npos) << markdown;
  const std::string xml = report::render_junit(report);
  EXPECT_NE(xml.find("inputs image float32 [2, 3, 64, 64], expect match"), std::string::npos) << xml;
}

TEST(ModuleRecord, AMatrixHoldsAModuleRecordAndReadsItBack) {
  matrix::MatrixDocument doc;
  doc.report_path = "report.json";
  doc.report_sha256 = std::string(64, 'a');
  {
    matrix::MatrixCell cell;
    cell.version = "1.18.0";
    cell.library_sha256 = std::string(64, 'b');
    cell.records = {module_record_json()};
    doc.cells.push_back(std::move(cell));
  }
  const json written = matrix::matrix_to_json(doc);
  const matrix::MatrixDocument read = matrix::matrix_from_json(written);
  ASSERT_EQ(read.cells.size(), 1u);
  EXPECT_EQ(read.cells[0].records[0], module_record_json());
  EXPECT_EQ(matrix::matrix_exit_code(read), 0);
  EXPECT_FALSE(matrix::matrix_summary_lines(written).empty());
  EXPECT_NE(report::render_html(written).find("module <code>tests/models/zoo.py:resnet18</code>"), std::string::npos);
}

// A module record's own numbers against its verdicts (validate_triangulation.cc): an entry's margin is
// within the tolerance (margin_within) exactly when the case it names matched.
TEST(ModuleRecord, ATriangulationMarginThatContradictsItsCaseIsRefusedNamingTheCase) {
  const auto with_margin = [](const json& margin, const char* name = nullptr) {
    return changed([&](json& r) {
      const json& first = r["input_cases"][0];
      ASSERT_EQ(first["outcome"], "match");
      r["stages"]["parity"]["detail"]["triangulation"] =
          json::array({{{"case", name ? json(name) : first["name"]}, {"margin", margin}}});
    });
  };
  expect_valid(with_margin(0.5));
  expect_valid(with_margin(1.0));
  const std::string name = module_record_json(Stage::parity)["input_cases"][0]["name"].get<std::string>();
  const std::string label = "input_cases[0] (" + name + ")";
  expect_refused(with_margin(5000.0), label + ": passed (outcome \"match\") although its margin 5000.0 is not within");
  expect_refused(with_margin(json()), label + ": passed (outcome \"match\") although its margin null is not within");
  expect_refused(with_margin(-1.0), "stages.parity.detail.triangulation[0].margin: must be null or a finite number >= 0");
  expect_refused(with_margin(0.5, "nobody"), "triangulation[0].case: \"nobody\" names no input case of the record");
}

}  // namespace
}  // namespace nnx

namespace nnx {
namespace {

// A departure from the stored oracle that was not measured (§10) says why, and only such a one does
// (validate_triangulation.cc check_departures); an infinite margin (null) of a measured one needs no reason.
TEST(ModuleRecord, AnUnmeasuredDepartureMustSayWhyAndOnlyItHasAReason) {
  const auto with_departure = [](const json& departure) {
    return changed([&](json& r) {
      r["stages"]["parity"]["detail"]["triangulation"] = json::array(
          {{{"case", r["input_cases"][0]["name"]}, {"margin", 0.5}, {"runtime_vs_oracle", departure}}});
    });
  };
  const std::string where = "stages.parity.detail.triangulation[0].runtime_vs_oracle: ";
  expect_valid(with_departure({{"max_abs_error", nullptr}, {"margin", nullptr}, {"reason", "oracle holds NaN"}}));
  expect_valid(with_departure({{"max_abs_error", 0.25}, {"margin", nullptr}}));
  expect_valid(with_departure({{"max_abs_error", 0.25}, {"margin", 0.5}}));
  expect_refused(with_departure({{"max_abs_error", nullptr}, {"margin", nullptr}}),
                 where + "a departure not measured (max_abs_error null) must have margin null and a non-empty reason");
  expect_refused(with_departure({{"max_abs_error", nullptr}, {"margin", nullptr}, {"reason", ""}}),
                 where + "a departure not measured");
  expect_refused(with_departure({{"max_abs_error", nullptr}, {"margin", 0.5}, {"reason", "why"}}),
                 where + "a departure not measured");
  expect_refused(with_departure({{"max_abs_error", 0.25}, {"margin", 0.5}, {"reason", "why"}}),
                 where + "a reason is given only for a departure not measured");
}

}  // namespace
}  // namespace nnx
