// render_markdown (report/render.h): one table of profiles and stages, then every failure with its detail, then
// each failed module or successor-format record's diagnosis (base/failure_diagnosis.h).
#include "base/json_python.h"
#include "base/module_record_vocabulary.h"
#include "report/comparison.h"
#include "base/failure_diagnosis.h"
#include "report/document.h"
#include "report/markup.h"
#include "report/render.h"

namespace nnx::report {
namespace {

std::string status_mark(const std::string& status) {
  if (status == rf::kPassed) return "✅ passed";
  if (status == rf::kFailed) return "❌ failed";
  return "⚪ " + status_label(status);
}

// The worst margin among the record's triangulated cases, as the record prints it ("" when none).
std::string worst_margin(const json& record) {
  const json cases = record.value(rf::kInputCases, json::array());
  json worst;
  bool infinite = false;
  if (!cases.is_array()) return "";
  for (const auto& c : cases) {
    const std::string name = text_of(c, case_key::kName);
    if (!triangulation_of(record, name).is_object()) continue;
    const json& margin = case_margin(record, name);
    if (!margin.is_number()) infinite = true;
    else if (worst.is_null() || margin.get<double>() > worst.get<double>()) worst = margin;
  }
  if (infinite) return "∞";
  return worst.is_null() ? "" : shown_text(worst);
}

std::string profile_rows(const json& record, const std::string& prefix) {
  const json cases = record.value(rf::kInputCases, json::array());
  std::size_t passed = 0, total = 0;
  if (cases.is_array()) {
    for (const auto& c : cases) {
      ++total;
      if (c.value(case_key::kPassed, false) == true) ++passed;
    }
  }
  // A module record (doc/record-format.md §10) names its module's factory beside its profile.
  const auto named = named_model(record);
  const std::string module = named ? " (" + named->word + " " + markdown_code(named->name) + ")" : std::string();
  std::string row = "| " + markdown_cell(prefix) + markdown_code(text_of(record, rf::kProfile)) + module + " | " +
                    status_mark(text_of(record, rf::kStatus)) + " | " + markdown_cell(text_of(record, rf::kFailure)) +
                    " | " + markdown_cell(text_of(record, rf::kLevel)) + " |";
  for (const char* stage : kStageNames) row += " " + status_mark(stage_status(record, stage)) + " |";
  return row + " " + std::to_string(passed) + "/" + std::to_string(total) + " | " + worst_margin(record) + " |\n";
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end) + " …";
}

std::string failure_rows(const json& record, const std::string& prefix) {
  std::string out;
  const std::string profile = prefix + text_of(record, rf::kProfile);
  for (const char* stage : kStageNames) {
    if (stage_status(record, stage) != rf::kFailed) continue;
    const json& entry = stage_of(record, stage);
    json detail = entry.value(stage_key::kDetail, json());
    // The triangulation's margins are the table's "worst margin".
    if (detail.is_object()) detail.erase(rf::detail_key::kTriangulation);
    out += "| " + markdown_code(profile) + " | stage " + stage + " | " +
           markdown_cell(text_of(entry, stage_key::kFailure)) +
           " | " + markdown_cell(detail.is_string() ? first_line(detail.get<std::string>()) : dumps_canonical(detail)) +
           " |\n";
  }
  const json cases = record.value(rf::kInputCases, json::array());
  if (!cases.is_array()) return out;
  for (const auto& c : cases) {
    if (c.value(case_key::kPassed, false) == true) continue;
    if (case_not_run(c)) continue;
    const std::string detail = text_of(c, case_key::kDetail);
    const auto case_inputs = case_inputs_text(record, c);
    const std::string inputs = case_inputs ? " (" + markdown_cell(*case_inputs) + ")" : std::string();
    out += "| " + markdown_code(profile) + " | case " + markdown_cell(text_of(c, case_key::kName)) + inputs + " | " +
           markdown_cell(text_of(c, case_key::kFailure)) + " | max abs error " +
           shown_text(c.value(case_key::kMaxAbsError, json())) +
           ", max rel error " + shown_text(c.value(case_key::kMaxRelError, json())) +
           (detail.empty() ? "" : "; " + markdown_cell(first_line(detail))) + " |\n";
  }
  return out;
}

// Each failed module or successor-format record's diagnosis (base/failure_diagnosis.h): a bullet list under its name.
std::string diagnosis_blocks(const json& document) {
  std::string out;
  for (const auto& [prefix, record, siblings] : page_records(document, [](const std::string& v) { return v + " / "; })) {
    const auto lines = diagnosis_lines(diagnose(record, siblings));
    if (lines.empty()) continue;
    out += "\n**Why " + markdown_code(prefix + text_of(record, rf::kProfile)) + " failed**\n\n";
    for (const auto& line : lines) out += "- " + markdown_cell(line) + "\n";
  }
  return out;
}

std::string drift_rows(const json& matrix) {
  std::string out;
  for (const auto& row : matrix_drift(matrix)) {
    std::string beyond;
    for (const auto& version : row.beyond) beyond += (beyond.empty() ? "" : ", ") + version;
    out += "| " + markdown_code(row.profile) + " | " + markdown_cell(row.case_name) + " | " +
           std::to_string(row.runtimes) + " | " + shown_text(row.max_abs_difference) + " | " +
           shown_text(row.max_ulps) + " | " + markdown_cell(row.pair) + " | " +
           (beyond.empty() ? "none" : "⚠️ " + markdown_cell(beyond)) + " |\n";
  }
  if (out.empty()) return out;
  return "\n**Drift** (largest difference between any two runtimes; float32 ulps)\n\n"
         "| profile | case | runtimes | max abs difference | max ulps | pair | beyond tolerance of the newest |\n"
         "|---|---|---|---|---|---|---|\n" + out;
}

std::string axes_rows(const json& matrix) {
  std::string out;
  for (const auto& row : matrix_axes(matrix)) {
    out += "| " + markdown_cell(row.cell) + " | " + markdown_cell(row.against) + " | " + markdown_code(row.profile) +
           " | " + shown_text(row.max_abs_difference) + " | " + shown_text(row.max_ulps) + " | " +
           markdown_cell(row.case_name) + " | " + (row.within_tolerance ? "yes" : "⚠️ no") + " |\n";
  }
  if (out.empty()) return out;
  return "\n**Axes** (each cell of other settings against its release with the brief's settings; float32 ulps)\n\n"
         "| cell | against | profile | max abs difference | max ulps | worst case | within tolerance |\n"
         "|---|---|---|---|---|---|---|\n" + out;
}

}  // namespace

std::string render_markdown(const json& document) {
  const DocumentKind kind = document_kind(document);
  std::vector<std::pair<std::string, json>> labelled;  // (prefix, record)
  const std::string opening = markdown_cell(comparison_sentence(document));  // what was compared with what
  std::string out = "### nnx-conformance: ";
  if (kind == DocumentKind::matrix) {
    out += "runtime matrix " + status_mark(text_of(document, rf::kStatus)) + "\n\n" + opening + "\n\n";
    out += "| runtime | library sha256 | status |\n|---|---|---|\n";
    for (const auto& runtime : matrix_runtimes(document)) {
      out += "| " + markdown_cell(runtime.version) + " | " + markdown_code(runtime.library_sha256.substr(0, 12)) +
             " | " + status_mark(runtime.status) + " |\n";
      for (const auto& record : runtime.records) labelled.emplace_back(runtime.version + " / ", record);
    }
    out += "\n";
  } else {
    out += (kind == DocumentKind::report ? "report " : "record ") + status_mark(text_of(document, rf::kStatus)) +
           "\n\n" + opening + "\n\n";
    for (const auto& record : document_records(document)) labelled.emplace_back("", record);
  }
  out += "| profile | status | failure | level |";
  for (const char* stage : kStageNames) out += std::string(" ") + stage + " |";
  out += " cases passed | worst margin |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& [prefix, record] : labelled) out += profile_rows(record, prefix);
  std::string failures;
  for (const auto& [prefix, record] : labelled) failures += failure_rows(record, prefix);
  if (kind == DocumentKind::matrix) out += drift_rows(document) + axes_rows(document);
  if (!failures.empty()) {
    out += "\n**Failures**\n\n| profile | where | class | detail |\n|---|---|---|---|\n" + failures;
  }
  out += diagnosis_blocks(document);
  out += "\nMargin: error ÷ allowed error (≤ 1 is within the tolerance), from the parity triangulation.\n";
  return out;
}

}  // namespace nnx::report
