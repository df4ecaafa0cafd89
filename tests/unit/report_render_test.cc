// The renderings (src/report/render.h) show the record's numbers at 3 significant digits (exactly on the
// HTML's hover and in JUnit) and cannot be broken out of by what a record holds (a detail is text written
// by exporters and runtimes).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/document.h"
#include "report/markup.h"
#include "report/render.h"
#include "support/module_record.h"

namespace nnx::report {
namespace {

using json = nlohmann::json;

const std::string kJoiner = "\xE2\x81\xA0";  // U+2060 WORD JOINER

json record_with(const json& case_entry, const json& parity) {
  json stages = json::object();
  for (const char* stage : kStageNames) {
    stages[stage] = {{"status", "passed"}, {"failure", nullptr}, {"detail", nullptr}};
  }
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

TEST(ReportRender, PagesShowThreeSignificantDigits) {
  EXPECT_EQ(shown_text(json(2.980232238769531e-07)), "2.98e-07");
  EXPECT_EQ(shown_text(json(0.30000000000000004)), "0.3");
  EXPECT_EQ(shown_text(json(1e-05)), "1e-05");
  EXPECT_EQ(shown_text(json(0.0001)), "0.0001");
  EXPECT_EQ(shown_text(json(5000.0)), "5e+03");
  EXPECT_EQ(shown_text(json(0.0)), "0");
  EXPECT_EQ(shown_text(json(7)), "7");  // an integer (bytes, ulps) is exact already
  EXPECT_EQ(shown_text(json()), "null");
}

TEST(ReportRender, TheHtmlShowsThreeDigitsAndTheExactValueOnHover) {
  const json c{{"name", "c"}, {"passed", false}, {"failure", "mismatch"}, {"outcome", "mismatch"},
               {"max_abs_error", 0.0012345678901234567}, {"max_rel_error", 2.0}, {"detail", nullptr}};
  const json parity{{"status", "failed"}, {"failure", "mismatch"}, {"detail", nullptr}};
  const std::string html = render_html(record_with(c, parity));
  EXPECT_NE(html.find("<span class=\"number\" title=\"0.0012345678901234567\">0.00123</span>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"rel\"><code><span class=\"number\" title=\"2.0\">2</span>"), std::string::npos);
  const std::string markdown = render_markdown(record_with(c, parity));
  EXPECT_NE(markdown.find("max abs error 0.00123, max rel error 2"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("0.0012345678901234567"), std::string::npos);
  // JUnit is read by machines: the record writer's exact text.
  EXPECT_NE(render_junit(record_with(c, parity)).find("max_abs_error 0.0012345678901234567"), std::string::npos);
}

TEST(ReportRender, ACaseNeverComparedIsNotRunNotFailed) {
  // export failed: check, load and parity did not run, and the case was never compared.
  const json blank{{"name", "batch-1"}, {"passed", false}, {"failure", nullptr}, {"outcome", nullptr},
                   {"max_abs_error", nullptr}, {"max_rel_error", nullptr}, {"detail", nullptr}};
  json record = record_with(blank, {{"status", "not_run"}, {"failure", nullptr}, {"detail", nullptr}});
  record["failure"] = "export-error";
  record["stages"]["export"] = {{"status", "failed"}, {"failure", "export-error"}, {"detail", "boom"}};
  for (const char* stage : {"check", "load"}) record["stages"][stage]["status"] = "not_run";
  const std::string html = render_html(record);
  EXPECT_NE(html.find("<tr class=\"case case-not-run\" data-case=\"batch-1\">"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"outcome\"><span class=\"badge status-not_run\">not run</span></td>"),
            std::string::npos);
  EXPECT_NE(html.find("data-stage=\"parity\" data-status=\"not_run\">parity: not run</li>"), std::string::npos);
  EXPECT_EQ(html.find("case case-failed"), std::string::npos);
  EXPECT_EQ(html.find("status-failed\">failed</span></td>"), std::string::npos);
  EXPECT_EQ(html.find("not_run</"), std::string::npos);  // the label is words, the class the record's status
  const std::string markdown = render_markdown(record);
  EXPECT_NE(markdown.find("| ❌ failed | ⚪ not run | ⚪ not run | ⚪ not run | 0/1 |"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("| case batch-1"), std::string::npos);  // not listed among the failures
  const std::string xml = render_junit(record);
  EXPECT_NE(xml.find("name=\"batch-1\">\n      <skipped message=\"not run\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("failures=\"1\" errors=\"0\" skipped=\"4\""), std::string::npos) << xml;
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

TEST(ReportRender, ALinkOrImageInADetailIsNotLiveInMarkdown) {
  const json c{{"name", "c"}, {"passed", false}, {"failure", "mismatch"}, {"max_abs_error", 0.5},
               {"max_rel_error", nullptr}, {"detail", "see [the fix](https://evil.example/x)"}};
  const json parity{{"status", "failed"}, {"failure", "mismatch"}, {"detail", "![pixel](https://evil.example/p.png)"}};
  const std::string markdown = render_markdown(record_with(c, parity));
  EXPECT_EQ(markdown.find("[the fix]("), std::string::npos);
  EXPECT_EQ(markdown.find("![pixel]("), std::string::npos);
  EXPECT_NE(markdown.find("see \\[the fix\\](https:" + kJoiner + "//evil.example/x)"), std::string::npos);
  EXPECT_NE(markdown.find("!\\[pixel\\](https:" + kJoiner + "//evil.example/p.png)"), std::string::npos);
  EXPECT_EQ(markdown_cell("a[b]c"), "a\\[b\\]c");
}

TEST(ReportRender, NoOtherMarkupInADetailIsLiveInMarkdown) {
  // A backslash cannot undo an escape; emphasis, strike and code are text.
  EXPECT_EQ(markdown_cell("\\[x](y)"), "\\\\\\[x\\](y)");
  EXPECT_EQ(markdown_cell("*a* _b_ ~~c~~ `d`"), "\\*a\\* \\_b\\_ \\~\\~c\\~\\~ \\`d\\`");
  // No bare autolink, mail link, mention or issue reference: a word joiner breaks each.
  EXPECT_EQ(markdown_cell("http://e.example"), "http:" + kJoiner + "//e.example");
  EXPECT_EQ(markdown_cell("WWW.e.example"), "WWW" + kJoiner + ".e.example");
  EXPECT_EQ(markdown_cell("ping @octocat on #12, a@b.example"),
            "ping @" + kJoiner + "octocat on #" + kJoiner + "12, a@" + kJoiner + "b.example");
  EXPECT_EQ(markdown_cell("<b>&</b>"), "&lt;b&gt;&amp;&lt;/b&gt;");
  const json c{{"name", "c"}, {"passed", false}, {"failure", "mismatch"}, {"max_abs_error", 0.5},
               {"max_rel_error", nullptr}, {"detail", "cc @octocat, see https://evil.example *now*"}};
  const std::string markdown = render_markdown(record_with(c, {{"status", "failed"}, {"failure", "mismatch"},
                                                               {"detail", "www.evil.example"}}));
  EXPECT_EQ(markdown.find("@octocat"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("https://"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("www.evil"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("*now*"), std::string::npos) << markdown;
}

TEST(ReportRender, ANameInACodeSpanIsFencedPastEveryBacktickItHolds) {
  EXPECT_EQ(markdown_code("p<1>"), "`p<1>`");  // a code span shows its text as is
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("``x"), "``` ``x ```");
  EXPECT_EQ(markdown_code("a|b\nc"), "`a\\|b c`");  // a table's cell ends at a bare '|' even in code
  EXPECT_EQ(markdown_code("m.py:conv_bn"), "`m.py:conv_bn`");  // nothing escaped inside: shown as written
}

TEST(ReportRender, AMatrixShowsItsDriftAndNamesARuntimeBeyondTolerance) {
  const json c{{"name", "batch-1"}, {"passed", true}, {"failure", nullptr}, {"max_abs_error", 1e-07},
               {"max_rel_error", 1e-07}, {"detail", nullptr}};
  const json record = record_with(c, {{"status", "passed"}, {"failure", nullptr}, {"detail", nullptr}});
  const json runtime_a{{"version", "1.20.1"}, {"library_sha256", "a"}, {"status", "passed"}, {"records", {record}}};
  const json runtime_b{{"version", "1.32.0"}, {"library_sha256", "b"}, {"status", "passed"}, {"records", {record}}};
  const json drift{
      {"cases", {{{"profile", "p<1>"}, {"case", "batch-1"}, {"runtimes", {"1.20.1", "1.32.0"}},
                  {"max_abs_difference", 0.30000000000000004}, {"max_ulps", 12}, {"pair", {"1.20.1", "1.32.0"}}}}},
      {"beyond_tolerance", {{{"version", "1.20.1"}, {"newest", "1.32.0"}, {"profile", "p<1>"}, {"case", "batch-1"}}}}};
  const json matrix{{"format", std::string(kMatrixFormat)}, {"status", "passed"},
                    {"runtimes", {runtime_a, runtime_b}}, {"drift", drift}};
  const std::string markdown = render_markdown(matrix);
  EXPECT_NE(markdown.find("| `p<1>` | batch-1 | 2 | 0.3 | 12 | 1.20.1 ↔ 1.32.0 | ⚠️ 1.20.1 |"),
            std::string::npos)
      << markdown;
  const std::string html = render_html(matrix);
  EXPECT_NE(html.find("Drift between runtimes"), std::string::npos);
  EXPECT_NE(html.find("<td>p&lt;1&gt;</td><td>batch-1</td><td>2</td><td><span class=\"number\" "
                      "title=\"0.30000000000000004\">0.3</span></td><td>12</td>"),
            std::string::npos);
  // A matrix without drift (a report's pages) has no drift table.
  json bare = matrix;
  bare.erase("drift");
  EXPECT_EQ(render_markdown(bare).find("**Drift**"), std::string::npos);
}

TEST(ReportRender, ThePageHeaderNamesEachRecordFormatItHoldsAndTheReportsOwn) {
  const json v1 = record_with({{"name", "batch-1"}, {"passed", true}, {"failure", nullptr}, {"max_abs_error", 0.0},
                               {"max_rel_error", 0.0}, {"detail", nullptr}},
                              {{"status", "passed"}, {"failure", nullptr}, {"detail", nullptr}});
  const json module = test_support::module_record_json();
  const json report{{"format", std::string(kFormat)}, {"status", "failed"}, {"profiles", {module, v1, module}}};
  const std::string html = render_html(report);
  EXPECT_NE(html.find("<p>3 record(s): 1 of format <code>nnx.export-conformance/1</code>, 2 of format "
                      "<code>nnx.module-conformance/1</code> (report format <code>nnx.export-conformance/1</code>)"
                      "</p>"),
            std::string::npos)
      << html.substr(0, 2000);
  EXPECT_NE(render_html(module).find("<p>1 record(s): 1 of format <code>nnx.module-conformance/1</code></p>"),
            std::string::npos);
}

TEST(ReportRender, WhatIsNoDocumentIsRefused) {
  EXPECT_THROW(render_html(json::array()), std::exception);
  EXPECT_THROW(render_junit(json{{"profiles", 1}}), std::exception);
  EXPECT_THROW(render_markdown(json{{"format", std::string(kMatrixFormat)}}), std::exception);
}

}  // namespace
}  // namespace nnx::report
