// render_html (report/render.h): one self-contained page, no script, no fetch. It opens with every profile in a
// table, failures first, each linking to its section, and each failed module or successor-format record's
// diagnosis (html_overview.h) and localisation (html_localisation.h); a failed parity stage's detail reads as sentences.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/json_python.h"
#include "base/module_record_vocabulary.h"
#include "report/comparison.h"
#include "report/document.h"
#include "report/html_axes.h"
#include "report/html_localisation.h"
#include "report/html_overview.h"
#include "report/markup.h"
#include "report/render.h"

namespace nnx::report {
namespace {

// The margin bar's log scale: 10^kLogMin .. 10^kLogMax across kBarWidth pixels; the tolerance line at 1.
constexpr double kLogMin = -4.0;
constexpr double kLogMax = 2.0;
constexpr double kBarWidth = 240.0;

const char* kStyle = R"(
body{font-family:sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#1b1b1b;overflow-wrap:anywhere}
h1{font-size:1.5em}h2{font-size:1.25em;margin-top:2em;border-bottom:2px solid #ccc}h3{font-size:1.05em}
table{border-collapse:collapse;width:100%;table-layout:auto;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .45em;text-align:left;vertical-align:top;font-size:.9em}
th{background:#f1f1f1;overflow-wrap:normal}
td{overflow-wrap:break-word}td code,.hash{overflow-wrap:anywhere}
code,pre,.hash{font-family:monospace;font-size:.85em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f7f7;padding:.5em;margin:.3em 0}
.status-passed{background:#2e7d32;color:#fff}.status-failed{background:#c62828;color:#fff}
.status-not_run{background:#9e9e9e;color:#fff}
.badge{display:inline-block;padding:.1em .5em;border-radius:.3em;font-weight:bold;white-space:nowrap}
.pipeline{display:flex;flex-wrap:wrap;gap:.3em;list-style:none;padding:0;margin:.5em 0}
.pipeline li{padding:.4em .8em;border-radius:.3em;font-weight:bold;white-space:nowrap}
.pipeline li+li:before{content:"\2192  "}
.failure{border-left:4px solid #c62828;padding-left:.6em;margin:.5em 0}
.case-failed td{background:#fdecea}
.compared{font-size:1.05em;line-height:1.4;overflow-wrap:break-word}
svg.margin-bar{width:100%;max-width:180px;min-width:60px;height:auto}
.heat td.cell{text-align:center;font-family:monospace}
)";

std::string detail_text(const json& detail) {
  if (detail.is_null()) return "";
  if (detail.is_string()) return detail.get<std::string>();
  return dumps_pretty(detail);
}

double bar_x(double margin) {
  if (!(margin > 0.0)) return 0.0;
  const double position = (std::log10(margin) - kLogMin) / (kLogMax - kLogMin);
  return std::clamp(position, 0.0, 1.0) * kBarWidth;
}

// The margin bar of one case: the runtime-vs-reference margin as a bar, the tolerance line at 1, and the
// triangulation's runtime-vs-oracle (circle) and reference-vs-oracle (diamond) margins as marks.
std::string margin_bar(const json& triangulation) {
  std::ostringstream svg;
  const double tolerance_x = bar_x(1.0);
  svg << "<svg class=\"margin-bar\" width=\"" << kBarWidth + 10 << "\" height=\"22\" viewBox=\"0 0 " << kBarWidth + 10
      << " 22\" role=\"img\" aria-label=\"margin\"><rect x=\"0\" y=\"6\" width=\"" << kBarWidth
      << "\" height=\"10\" fill=\"#eee\"/>";
  const json margin = triangulation.value(triangulation_key::kMargin, json());
  if (margin.is_number()) {
    const double value = margin.get<double>();
    svg << "<rect x=\"0\" y=\"6\" width=\"" << bar_x(value) << "\" height=\"10\" fill=\""
        << (value > 1.0 ? "#c62828" : "#2e7d32") << "\"/>";
  } else {
    svg << "<rect x=\"0\" y=\"6\" width=\"" << kBarWidth << "\" height=\"10\" fill=\"#c62828\"/>";
  }
  for (const char* side : {triangulation_key::kRuntimeVsOracle, triangulation_key::kReferenceVsOracle}) {
    const json& departure = triangulation.value(side, json::object());
    const json mark = departure.is_object() ? departure.value(triangulation_key::kMargin, json()) : json();
    if (!mark.is_number()) continue;
    const double x = bar_x(mark.get<double>());
    if (std::string(side) == triangulation_key::kRuntimeVsOracle) {
      svg << "<circle cx=\"" << x << "\" cy=\"11\" r=\"3.5\" fill=\"#1565c0\"><title>runtime vs oracle: "
          << escape_html(shown_text(mark)) << "</title></circle>";
    } else {
      svg << "<path d=\"M" << x << " 6 L" << x + 4 << " 11 L" << x << " 16 L" << x - 4
          << " 11 Z\" fill=\"#ef6c00\"><title>reference vs oracle: " << escape_html(shown_text(mark)) << "</title></path>";
    }
  }
  svg << "<line x1=\"" << tolerance_x << "\" y1=\"2\" x2=\"" << tolerance_x
      << "\" y2=\"20\" stroke=\"#000\" stroke-width=\"1.5\"><title>tolerance: margin 1</title></line></svg>";
  return svg.str();
}

std::string key_value_table(const json& object) {
  if (!object.is_object() || object.empty()) return "<p>none recorded</p>";
  std::string out = "<table><tbody>";
  for (const auto& [key, value] : object.items()) {
    out += "<tr><th>" + escape_html(key) + "</th><td><code>" + number_html(value) + "</code></td></tr>";
  }
  return out + "</tbody></table>";
}

std::string stage_section(const json& record) {
  std::string out = "<ol class=\"pipeline\" aria-label=\"stages\">";
  for (const char* stage : kStageNames) {
    const std::string status = stage_status(record, stage);
    out += "<li class=\"stage status-" + escape_html(status) + "\" data-stage=\"" + stage + "\" data-status=\"" +
           escape_html(status) + "\">" + stage + ": " + escape_html(status_label(status)) + "</li>";
  }
  out += "</ol>";
  for (const char* stage : kStageNames) {
    const json& entry = stage_of(record, stage);
    if (stage_status(record, stage) != rf::kFailed) continue;
    // The triangulation's margins are the cases' bars; its full numbers fold away under the detail.
    json detail = entry.value(stage_key::kDetail, json());
    json triangulation;
    if (detail.is_object() && detail.contains(rf::detail_key::kTriangulation)) {
      triangulation = detail[rf::detail_key::kTriangulation];
      detail.erase(rf::detail_key::kTriangulation);
    }
    out += "<div class=\"failure\" data-stage=\"" + std::string(stage) + "\"><h4>" + stage + " failed: " +
           escape_html(text_of(entry, stage_key::kFailure)) + "</h4>" + detail_html(stage, detail) +
           (triangulation.is_null() ? "" : "<details><summary>triangulation (every case's margins)</summary><pre>" +
                                               escape_html(detail_text(triangulation)) + "</pre></details>") +
           "</div>";
  }
  return out;
}

// A case's outcome cell: the outcome, with a "failed" badge for a case that failed and "not run" (neutral)
// for a case never compared (case_not_run).
std::string outcome_html(const json& c) {
  if (case_not_run(c)) return status_badge(rf::kNotRun);
  const bool passed = c.value(case_key::kPassed, false) == true;
  return escape_html(text_of(c, case_key::kOutcome)) + (passed ? "" : " " + status_badge(rf::kFailed));
}

std::string case_class(const json& c) {
  if (case_not_run(c)) return "case-not-run";
  return c.value(case_key::kPassed, false) == true ? "case-passed" : "case-failed";
}

std::string cases_section(const json& record) {
  const json cases = record.value(rf::kInputCases, json::array());
  if (!cases.is_array() || cases.empty()) return "<p>no input cases</p>";
  const json tolerances = record.value(rf::kTolerances, json::object());
  // A case that names its inputs shows them where v1's shows its shape.
  const bool named_inputs = case_inputs_text(record, cases.front()).has_value();
  std::string out = "<p>margin = error ÷ allowed error (atol " +
                    number_html(tolerances.value(tolerance_key::kAtol, json())) + ", rtol " +
                    number_html(tolerances.value(tolerance_key::kRtol, json())) +
                    "), log scale 10<sup>-4</sup> … 10<sup>2</sup>; the black line is the tolerance (1); "
                    "<span style=\"color:#1565c0\">●</span> runtime vs float64 oracle, "
                    "<span style=\"color:#ef6c00\">◆</span> reference vs oracle.</p>"
                    "<table class=\"cases\"><thead><tr><th>case</th><th>" +
                    (named_inputs ? "inputs" : "shape") + "</th><th>expect</th><th>outcome</th>"
                    "<th>max abs error</th><th>max rel error</th><th>margin</th><th></th></tr></thead><tbody>";
  for (const auto& c : cases) {
    const std::string name = text_of(c, case_key::kName);
    const std::string row_class = case_class(c);
    const json& triangulation = triangulation_of(record, name);
    out += "<tr class=\"case " + row_class + "\" data-case=\"" + escape_html(name) + "\"><td>" + escape_html(name) +
           "</td><td><code>" +
           escape_html(case_inputs_text(record, c).value_or(value_text(c.value(case_key::kShape, json())))) +
           "</code></td><td>" + escape_html(text_of(c, case_key::kExpect)) + "</td><td class=\"outcome\">" +
           outcome_html(c) + "</td><td class=\"abs\"><code>" + number_html(c.value(case_key::kMaxAbsError, json())) +
           "</code></td><td class=\"rel\"><code>" + number_html(c.value(case_key::kMaxRelError, json())) +
           "</code></td><td class=\"margin\"><code>" +
           (triangulation.is_object() ? number_html(triangulation.value(triangulation_key::kMargin, json())) : "") +
           "</code></td><td>" + (triangulation.is_object() ? margin_bar(triangulation) : "") + "</td></tr>";
    const std::string failure = text_of(c, case_key::kFailure);
    const std::string detail = text_of(c, case_key::kDetail);
    if (!failure.empty() || !detail.empty()) {
      out += "<tr class=\"case-detail" + (row_class == "case-failed" ? std::string(" case-failed") : "") +
             "\"><td colspan=\"8\">" + (failure.empty() ? "" : "<strong>" + escape_html(failure) + "</strong>") +
             (detail.empty() ? "" : "<pre>" + escape_html(detail) + "</pre>") + "</td></tr>";
    }
  }
  return out + "</tbody></table>";
}

std::string artifacts_section(const json& record) {
  const json artifacts = record.value(rf::kArtifacts, json::object());
  const json files = artifacts.is_object() ? artifacts.value(artifacts_key::kFiles, json::array()) : json::array();
  if (!files.is_array() || files.empty()) return "<p>no artifacts recorded</p>";
  std::string out = "<p>folder <code>" + escape_html(text_of(artifacts, artifacts_key::kDirectory)) +
                    "</code></p><table class=\"artifacts\"><thead><tr><th>path</th><th>role</th><th>bytes</th>"
                    "<th>sha256</th></tr></thead><tbody>";
  for (const auto& file : files) {
    out += "<tr><td><code>" + escape_html(text_of(file, file_key::kPath)) + "</code></td><td>" +
           escape_html(text_of(file, file_key::kRole)) + "</td><td>" + escape_html(text_of(file, file_key::kBytes)) +
           "</td><td class=\"hash\">" + escape_html(text_of(file, file_key::kSha256)) + "</td></tr>";
  }
  return out + "</tbody></table>";
}

// v1's dtype, or a module record's factory and input specs (doc/record-format.md §10).
std::string model_line(const json& record) {
  const auto named = named_model(record);
  if (!named) return " · dtype <code>" + escape_html(text_of(built_in_keys(record), rf::kDtype)) + "</code>";
  return " · " + named->word + " <code>" + escape_html(named->name) + "</code> · inputs <code>" +
         escape_html(inputs_text(record.value(rf::kInputs, json()))) + "</code>";
}

std::string record_section(const json& record, const std::string& heading_prefix, std::size_t index,
                           const std::vector<json>& siblings) {
  const std::string profile = text_of(record, rf::kProfile);
  const std::string status = text_of(record, rf::kStatus);
  const std::string failure = text_of(record, rf::kFailure);
  std::string out = "<section class=\"profile\" id=\"" + profile_anchor(profile, index) + "\" data-profile=\"" +
                    escape_html(profile) + "\" data-status=\"" +
                    escape_html(status) + "\"><h2>" + escape_html(heading_prefix + profile) + " " +
                    status_badge(status) + (failure.empty() ? "" : " <code>" + escape_html(failure) + "</code>") +
                    "</h2><p>level <code>" + escape_html(text_of(record, rf::kLevel)) + "</code> · exporter <code>" +
                    escape_html(text_of(record.value(rf::kExporter, json::object()), rf::exporter_key::kName)) +
                    "</code>" + model_line(record) + "</p>";
  out += diagnosis_html(record, siblings);
  out += localisation_html(record);
  out += "<h3>Stages</h3>" + stage_section(record);
  out += "<h3>Input cases</h3>" + cases_section(record);
  out += "<h3>Artifacts</h3>" + artifacts_section(record);
  out += "<h3>Runtime</h3>" + key_value_table(record.value(rf::kRuntime, json::object()));
  out += "<h3>Versions</h3>" + key_value_table(record.value(rf::kVersions, json::object()));
  out += "<h3>Source</h3>" + key_value_table(record.value(rf::kSource, json::object()));
  return out + "</section>";
}

std::string heat_colour(const json& margin, bool failed) {
  if (!margin.is_number()) return failed ? "#c62828" : "#e0e0e0";
  const double value = margin.get<double>();
  if (value > 1.0) return "#c62828";
  // green to amber as the margin approaches the tolerance
  const double t = bar_x(value) / bar_x(1.0);
  const int red = static_cast<int>(200 * t + 46 * (1 - t));
  const int green = static_cast<int>(150 * t + 125 * (1 - t));
  std::ostringstream colour;
  colour << "rgb(" << red << "," << green << ",50)";
  return colour.str();
}

// The drift between runtimes, one row per profile and case (doc/runtime-matrix.md, "Drift").
std::string drift_section(const json& matrix) {
  const auto rows = matrix_drift(matrix);
  if (rows.empty()) return "";
  std::string out = "<h2>Drift between runtimes</h2><p>Per case, the largest difference between any two runtimes' "
                    "outputs (absolute, and in float32 ulps) and the pair that gives it; 0 ulps means bit-identical. "
                    "A runtime beyond the profile's tolerance of the newest is named.</p>"
                    "<table class=\"drift\"><thead><tr><th>profile</th><th>case</th><th>runtimes</th>"
                    "<th>max abs difference</th><th>max ulps</th><th>pair</th><th>beyond tolerance</th></tr></thead><tbody>";
  for (const auto& row : rows) {
    std::string beyond;
    for (const auto& version : row.beyond) beyond += (beyond.empty() ? "" : ", ") + version;
    out += "<tr><td>" + escape_html(row.profile) + "</td><td>" + escape_html(row.case_name) + "</td><td>" +
           std::to_string(row.runtimes) + "</td><td>" + number_html(row.max_abs_difference) + "</td><td>" +
           number_html(row.max_ulps) + "</td><td>" + escape_html(row.pair) + "</td><td>" +
           (beyond.empty() ? std::string("none") : status_badge(rf::kFailed) + " " + escape_html(beyond)) +
           "</td></tr>";
  }
  return out + "</tbody></table>";
}

// The heatmap's cell of one case on one runtime: its margin, or a badge ("failed", "not run", the outcome of
// a case not triangulated), the outcome and exact margin on hover.
std::string heat_cell(const MatrixRuntime& runtime, const std::string& profile, const std::string& name) {
  const std::string where = " data-runtime=\"" + escape_html(runtime.version) + "\"";
  const json* found = nullptr;
  for (const auto& record : runtime.records) {
    if (text_of(record, rf::kProfile) == profile) found = &record;
  }
  json case_entry;
  if (found) {
    for (const auto& c : found->value(rf::kInputCases, json::array())) {
      if (text_of(c, case_key::kName) == name) case_entry = c;
    }
  }
  if (case_entry.is_null()) return "<td class=\"cell\"" + where + ">—</td>";
  const json& margin = case_margin(*found, name);
  const bool not_run = case_not_run(case_entry);
  const bool failed = !not_run && case_entry.value(case_key::kPassed, false) != true;
  const std::string outcome = not_run ? status_label(rf::kNotRun) : text_of(case_entry, case_key::kOutcome);
  const std::string hover =
      profile + " / " + name + ": " + outcome + (margin.is_number() ? ", margin " + value_text(margin) : "");
  const std::string shown = margin.is_number() ? escape_html(shown_text(margin))
                            : not_run          ? status_badge(rf::kNotRun)
                            : failed           ? status_badge(rf::kFailed)
                                               : escape_html(outcome);
  const bool dark = margin.is_number() || failed;  // white text on a colour, dark text on grey or white
  const std::string colour = (not_run ? std::string("#fff") : heat_colour(margin, failed)) +
                             (dark && !not_run ? ";color:#fff" : ";color:#1b1b1b");
  return "<td class=\"cell\"" + where + " style=\"background:" + colour + "\" title=\"" + escape_html(hover) + "\">" +
         shown + "</td>";
}

// The heatmap: one row per (profile, case) seen, in the order first met; one column per runtime, so that the
// page grows down with the cases and stays as wide as the runtimes (no sideways scroll at 700 px).
std::string matrix_section(const json& matrix) {
  const auto runtimes = matrix_runtimes(matrix);
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& runtime : runtimes) {
    for (const auto& record : runtime.records) {
      const json cases = record.value(rf::kInputCases, json::array());
      if (!cases.is_array()) continue;
      for (const auto& c : cases) {
        std::pair<std::string, std::string> row{text_of(record, rf::kProfile), text_of(c, case_key::kName)};
        if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
      }
    }
  }
  std::string out = "<h2>Cases × runtimes</h2><p>Each cell: the case's margin (error ÷ allowed error) on that "
                    "runtime; red beyond the tolerance or failed, grey not compared.</p>"
                    "<table class=\"heat\"><thead><tr><th>profile</th><th>case</th>";
  for (const auto& runtime : runtimes) {
    out += "<th data-runtime=\"" + escape_html(runtime.version) + "\">" + escape_html(runtime.version) +
           "<br><span class=\"hash\" title=\"" + escape_html(runtime.library_sha256) + "\">" +
           escape_html(runtime.library_sha256.substr(0, 12)) + "</span><br>" + status_badge(runtime.status) + "</th>";
  }
  out += "</tr></thead><tbody>";
  for (const auto& [profile, name] : rows) {
    out += "<tr data-profile=\"" + escape_html(profile) + "\" data-case=\"" + escape_html(name) + "\"><th>" +
           escape_html(profile) + "</th><th>" + escape_html(name) + "</th>";
    for (const auto& runtime : runtimes) out += heat_cell(runtime, profile, name);
    out += "</tr>";
  }
  return out + "</tbody></table>" + drift_section(matrix) + axes_html(matrix);
}

// The header's formats: the records' count, each record format they hold with its count (kRecordFormats'
// order, then any other as written), and the document's own format when it is a report or a matrix.
std::string formats_line(const json& document, const std::vector<json>& records) {
  std::vector<std::pair<std::string, std::size_t>> counts;
  for (std::string_view format : kRecordFormats) counts.emplace_back(format, 0);
  for (const auto& record : records) {
    const std::string format = text_of(record, rf::kFormat);
    auto known = std::find_if(counts.begin(), counts.end(), [&](const auto& count) { return count.first == format; });
    if (known == counts.end()) counts.emplace_back(format, 1);
    else ++known->second;
  }
  std::string out = std::to_string(records.size()) + " record(s)";
  const char* separator = ": ";
  for (const auto& [format, count] : counts) {
    if (count == 0) continue;
    out += separator + std::to_string(count) + " of format <code>" + escape_html(format) + "</code>";
    separator = ", ";
  }
  const DocumentKind kind = document_kind(document);
  if (kind == DocumentKind::record) return out;
  return out + " (" + (kind == DocumentKind::matrix ? "runtime matrix" : "report") + " format <code>" +
         escape_html(text_of(document, rf::kFormat)) + "</code>)";
}

}  // namespace

std::string render_html(const json& document) {
  const DocumentKind kind = document_kind(document);
  const std::vector<json> records = document_records(document);
  std::string title = "nnx-conformance: ";
  std::string status = text_of(document, rf::kStatus);
  if (kind == DocumentKind::matrix) title += "runtime matrix";
  else if (kind == DocumentKind::record) title += text_of(document, rf::kProfile);
  else title += "report";
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<link rel=\"icon\" href=\"data:,\"><title>" + escape_html(title) + "</title><style>" + kStyle +
      "</style></head><body><h1>" + escape_html(title) + " " + status_badge(status) + "</h1>";
  out += "<p class=\"compared\">" + escape_html(comparison_sentence(document)) + "</p>";
  out += "<p>" + formats_line(document, records) + "</p>";
  const auto page = page_records(document, [](const std::string& version) { return "runtime " + version + ": "; });
  out += profiles_overview(page);
  if (kind == DocumentKind::matrix) out += matrix_section(document);
  for (std::size_t i = 0; i < page.size(); ++i) out += record_section(page[i].record, page[i].prefix, i, page[i].siblings);
  return out + "</body></html>\n";
}

}  // namespace nnx::report
