// The renderings (src/report/render.h) print the record's numbers exactly and cannot be broken out of by
// what a record holds (a detail is text written by exporters and runtimes).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/document.h"
#include "report/render.h"

namespace nnx::report {
namespace {

using json = nlohmann::json;

json record_with(const json& case_entry, const json& parity) {
  json stages = json::object();
  for (const char* stage : kStageOrder) stages[stage] = {{"status", "passed"}, {"failure", nullptr}, {"detail", nullptr}};
  stages["parity"] = parity;
  return {{"format", "nnx.export-conformance/1"}, {"profile", "p<1>"}, {"status", "failed"}, {"failure", "mismatch"},
          {"stages", stages}, {"input_cases", json::array({case_entry})}};
}

TEST(ReportRender, NumbersArePrintedAsTheRecordWriterPrintsThem) {
  EXPECT_EQ(value_text(json(0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(value_text(json(1e-05)), "1e-05");
  EXPECT_EQ(value_text(json(2.0)), "2.0");
  EXPECT_EQ(value_text(json(7)), "7");
  EXPECT_EQ(value_text(json()), "null");
}

TEST(ReportRender, AHostileDetailIsTextInEveryForm) {
  const json c{{"name", "c<b>"}, {"passed", false}, {"failure", "mismatch"}, {"max_abs_error", 0.30000000000000004},
               {"max_rel_error", nullptr}, {"detail", "</pre><script>alert(1)</script>|x\x01"}};
  const json parity{{"status", "failed"}, {"failure", "mismatch"}, {"detail", "<img src=x onerror=1>"}};
  const json record = record_with(c, parity);
  const std::string html = render_html(record);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("0.30000000000000004"), std::string::npos);
  const std::string xml = render_junit(record);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_EQ(xml.find("<script"), std::string::npos);
  EXPECT_NE(xml.find("type=\"mismatch\""), std::string::npos);
  const std::string markdown = render_markdown(record);
  EXPECT_EQ(markdown.find("<script"), std::string::npos);
  EXPECT_NE(markdown.find("\\|x"), std::string::npos);
}

TEST(ReportRender, WhatIsNoDocumentIsRefused) {
  EXPECT_THROW(render_html(json::array()), std::exception);
  EXPECT_THROW(render_junit(json{{"profiles", 1}}), std::exception);
  EXPECT_THROW(render_markdown(json{{"format", std::string(kMatrixFormat)}}), std::exception);
}

}  // namespace
}  // namespace nnx::report
