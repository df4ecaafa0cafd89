// A record's localisation on the HTML page (html_localisation.h).
#include "report/html_localisation.h"

#include <cstdio>

#include "report/markup.h"

namespace nnx::report {
namespace {

using nlohmann::json;

std::string field_text(const json& object, const char* key) {
  const json value = object.is_object() ? object.value(key, json()) : json();
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

std::string table_cell(const std::string& content) { return "<td>" + escape_html(content) + "</td>"; }

std::string margin_text(const json& margin) {
  if (!margin.is_number()) return "∞";
  char out[32];
  std::snprintf(out, sizeof out, "%.3g", margin.get<double>());
  return out;
}

// The path at `level`: each compared value in graph order, the first departing one marked.
std::string path_list(const json& level, const std::string& first) {
  std::string out = "<ol class=\"path\" data-level=\"" + escape_html(field_text(level, "level")) + "\">";
  for (const auto& step : level.value("path", json::array())) {
    const bool departs = step.value("departs", false);
    const bool is_first = field_text(step, "value") == first;
    out += std::string("<li") + (is_first ? " class=\"first-departing\"" : departs ? " class=\"departs\"" : "") +
           "><code>" + escape_html(field_text(step, "op_type")) + "</code> " + escape_html(field_text(step, "value")) +
           " · margin " + escape_html(margin_text(step.value("margin", json()))) +
           (is_first ? " <strong>← first departing node</strong>" : departs ? " (departs)" : "") + "</li>";
  }
  return out + "</ol>";
}

std::string levels_table(const json& levels) {
  std::string out = "<table class=\"levels\"><thead><tr><th>level</th><th>values compared</th><th>departing</th>"
                    "<th>first departing</th><th>fused</th><th>outputs within tolerance</th><th>marking changed the "
                    "outputs</th></tr></thead><tbody>";
  for (const auto& l : levels) {
    out += "<tr>" + table_cell(field_text(l, "level")) + table_cell(field_text(l, "values_compared")) + table_cell(field_text(l, "values_departing")) +
           table_cell(field_text(l, "first_departing")) + table_cell(std::to_string(l.value("fused", json::array()).size())) +
           table_cell(field_text(l, "outputs_within_tolerance")) + table_cell(field_text(l.value("observer", json::object()), "changed_outputs")) +
           "</tr>";
  }
  return out + "</tbody></table>";
}

std::string coverage_block(const json& coverage) {
  std::string out = "<p class=\"coverage\">coverage: " + escape_html(field_text(coverage, "aligned")) + " of " +
                    escape_html(field_text(coverage, "reference_values")) + " values from " +
                    escape_html(field_text(coverage, "reference")) + " aligned (" +
                    escape_html(field_text(coverage, "note")) + ")</p>";
  const json left = coverage.value("left_out", json::array());
  if (left.empty()) return out;
  out += "<ul class=\"left-out\">";
  for (const auto& l : left) out += "<li>" + escape_html(field_text(l, "name")) + ": " + escape_html(field_text(l, "why")) + "</li>";
  return out + "</ul>";
}

}  // namespace

std::string localisation_html(const json& record) {
  const json detail = record.value("stages", json::object()).value("parity", json::object()).value("detail", json());
  const json found = detail.is_object() ? detail.value("localisation", json()) : json();
  if (!found.is_object()) return "";
  std::string out = "<h3>Localisation</h3><p class=\"localisation\" data-status=\"" +
                    escape_html(field_text(found, "status")) + "\">" +
                    escape_html(found.contains("summary") ? field_text(found, "summary") : field_text(found, "why")) + "</p>";
  const json first = found.value("first_departing", json());
  const json levels = found.value("levels", json::array());
  for (const auto& l : levels) {
    if (first.is_object() && field_text(l, "level") == field_text(first, "level")) {
      out += path_list(l, field_text(first, "value"));
      break;
    }
  }
  if (!levels.empty()) out += levels_table(levels);
  if (found.contains("coverage")) out += coverage_block(found["coverage"]);
  return out;
}

}  // namespace nnx::report
