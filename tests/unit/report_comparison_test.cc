// The pages' opening sentence (report/comparison.h): what was compared with what, from the records' own
// fields, one sentence for one record and one that covers several.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/comparison.h"
#include "report/render.h"

namespace nnx::report {
namespace {

using json = nlohmann::json;

json record_of(const std::string& profile, const std::string& exporter, int opset, const json& parity_detail) {
  json stages = json::object();
  for (const char* stage : {"dependencies", "export", "check", "load", "parity"}) {
    stages[stage] = {{"status", "passed"}, {"failure", nullptr}, {"detail", nullptr}};
  }
  stages["parity"]["detail"] = parity_detail;
  return {{"format", "nnx.export-conformance/1"}, {"profile", profile}, {"status", "passed"}, {"dtype", "float32"},
          {"config", {{"net", "feed_fwd"}, {"input_dim", 4}, {"hidden_dims", {8}}, {"output_dim", 2},
                      {"activation", "relu"}}},
          {"exporter", {{"name", exporter}, {"options", {{"exporter", exporter}, {"opset_version", opset}}}}},
          {"opset", {{"requested", opset}, {"model", {{"ai.onnx", opset}}}}},
          {"runtime", {{"name", "onnxruntime"}, {"version", "1.30.0"}, {"provider", "CPUExecutionProvider"}}},
          {"versions", {{"torch", "2.13.0+cu130"}, {"nnx", "0.1.0"}}},
          {"tolerances", {{"atol", 1e-05}, {"rtol", 0.0001}}}, {"stages", stages}, {"input_cases", json::array()}};
}

TEST(ReportComparison, OneRecordSaysRuntimeReferenceModelOpsetAndTolerance) {
  const json record = record_of("ts", "torchscript", 17, {{"reference", "torch"}});
  EXPECT_EQ(comparison_sentence(record),
            "ONNX Runtime 1.30.0 (CPUExecutionProvider) was compared with PyTorch 2.13.0+cu130 in eval mode on "
            "feed_fwd 4→8→2 (relu, float32) exported by torchscript at opset 17, within atol 1e-05 and rtol 0.0001.");
}

TEST(ReportComparison, TheNativeReferenceOfAnExecuteIsNamed) {
  json record = record_of("ts", "torchscript", 17, {{"reference", "native"}});
  record["versions"] = {{"reference", "native"}, {"nnx", "0.1.0"}};
  EXPECT_NE(comparison_sentence(record).find("compared with the native C++ float32 forward (no PyTorch) on"),
            std::string::npos);
}

TEST(ReportComparison, AReportOfSeveralProfilesSaysWhatTheyShareOnceAndNamesWhatDiffers) {
  const json report{{"format", "nnx.export-conformance/1"}, {"status", "passed"},
                    {"profiles", {record_of("ts", "torchscript", 17, {{"reference", "torch"}}),
                                  record_of("dy", "dynamo", 18, {{"reference", "torch"}})}}};
  EXPECT_EQ(comparison_sentence(report),
            "ONNX Runtime 1.30.0 (CPUExecutionProvider) was compared with PyTorch 2.13.0+cu130 in eval mode on "
            "feed_fwd 4→8→2 (relu, float32) exported by torchscript at opset 17 (ts) and dynamo at opset 18 (dy), "
            "within atol 1e-05 and rtol 0.0001.");
  // Both renderings open with it: the HTML right under its title, the Markdown under its heading.
  const std::string html = render_html(report);
  EXPECT_NE(html.find("</h1><p class=\"compared\">ONNX Runtime 1.30.0 (CPUExecutionProvider) was compared with"),
            std::string::npos);
  const std::string markdown = render_markdown(report);
  EXPECT_EQ(markdown.substr(0, markdown.find("\n\n| profile")),
            "### nnx-conformance: report ✅ passed\n\nONNX Runtime 1.30.0 (CPUExecutionProvider) was compared with "
            "PyTorch 2.13.0+cu130 in eval mode on feed\\_fwd 4→8→2 (relu, float32) exported by torchscript at opset "
            "17 (ts) and dynamo at opset 18 (dy), within atol 1e-05 and rtol 0.0001.");
}

TEST(ReportComparison, AMatrixListsItsRuntimesAndAProfileThatDidNotRunIsSaid) {
  json stopped = record_of("ts", "torchscript", 17, nullptr);
  stopped["stages"]["parity"]["status"] = "not_run";
  stopped["runtime"]["version"] = "1.20.1";
  const json matrix{{"format", "nnx.runtime-matrix/1"}, {"status", "failed"},
                    {"runtimes", {{{"version", "1.20.1"}, {"library_sha256", "a"}, {"status", "failed"},
                                   {"records", {stopped}}},
                                  {{"version", "1.30.0"}, {"library_sha256", "b"}, {"status", "passed"},
                                   {"records", {record_of("ts", "torchscript", 17, {{"reference", "torch"}})}}}}}};
  EXPECT_EQ(comparison_sentence(matrix),
            "ONNX Runtime 1.20.1 and 1.30.0 (CPUExecutionProvider) were compared with PyTorch 2.13.0+cu130 in eval "
            "mode on feed_fwd 4→8→2 (relu, float32) exported by torchscript at opset 17, within atol 1e-05 and rtol "
            "0.0001 (parity did not run for ts on ONNX Runtime 1.20.1).");
  EXPECT_NE(comparison_sentence(stopped).find("was to be compared with PyTorch"), std::string::npos);
  EXPECT_NE(comparison_sentence(stopped).find("rtol 0.0001 (parity did not run)."), std::string::npos);
}

}  // namespace
}  // namespace nnx::report
