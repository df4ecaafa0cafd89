// The top of the HTML page and its words (html_overview.h).
#include "report/html_overview.h"

#include <algorithm>

#include "base/json_python.h"
#include "base/module_record_vocabulary.h"
#include "base/failure_diagnosis.h"
#include "report/document.h"
#include "report/markup.h"

namespace nnx::report {
namespace {

using nlohmann::json;

std::string overview_row(const std::string& prefix, const json& record, std::size_t index,
                         const std::vector<json>& siblings) {
  const std::string profile = text_of(record, rf::kProfile);
  const std::string status = text_of(record, rf::kStatus);
  const Diagnosis diagnosis = diagnose(record, siblings);
  const std::string cause = diagnosis.causes.empty() ? "" : diagnosis.causes.front().sentence;
  return "<tr class=\"overview-" + escape_html(status) + "\" data-profile=\"" + escape_html(profile) +
         "\"><td><a href=\"#" + profile_anchor(profile, index) + "\">" + escape_html(prefix + profile) +
         "</a></td><td>" + escape_html(status_label(status)) + "</td><td><code>" +
         escape_html(text_of(record, rf::kFailure)) + "</code></td><td>" + escape_html(text_of(record, rf::kLevel)) +
         "</td><td>" + escape_html(cause) + "</td></tr>";
}

// A value in words: a string as it is, a list as "a, b and c", an object as "key value" pairs, numbers exact.
std::string words_of(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
      out += (i == 0 ? "" : i + 1 == value.size() ? " and " : ", ") + words_of(value[i]);
    }
    return value.empty() ? "none" : out;
  }
  if (value.is_object()) {
    std::string out;
    for (const auto& [key, inner] : value.items()) out += (out.empty() ? "" : "; ") + key + " " + words_of(inner);
    return out.empty() ? "nothing" : out;
  }
  return value_text(value);
}

}  // namespace

std::string profile_anchor(const std::string& profile, std::size_t index) {
  std::string id = "profile-";
  for (char ch : profile) {
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                       ch == '-';
    id += plain ? ch : '_';
  }
  return id + "-" + std::to_string(index);
}

std::string profiles_overview(const std::vector<PageRecord>& records) {
  std::vector<std::size_t> order(records.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (text_of(records[a].record, rf::kStatus) == rf::kFailed) >
           (text_of(records[b].record, rf::kStatus) == rf::kFailed);
  });
  std::string rows;
  for (std::size_t i : order) rows += overview_row(records[i].prefix, records[i].record, i, records[i].siblings);
  std::string out = "<table class=\"overview\"><thead><tr><th>profile</th><th>status</th><th>class</th><th>level</th>"
                    "<th>cause</th></tr></thead><tbody>" + rows + "</tbody></table>";
  for (std::size_t i : order) {
    const std::string said = diagnosis_html(records[i].record, records[i].siblings);
    if (said.empty()) continue;
    out += "<h3>Why " + escape_html(records[i].prefix + text_of(records[i].record, rf::kProfile)) + " failed</h3>" +
           said;
  }
  return out;
}

std::string diagnosis_html(const json& record, const std::vector<json>& siblings) {
  const auto lines = diagnosis_lines(diagnose(record, siblings));
  if (lines.empty()) return "";
  std::string out = "<ul class=\"diagnosis\" data-profile=\"" + escape_html(text_of(record, rf::kProfile)) + "\">";
  for (const auto& line : lines) out += "<li>" + escape_html(line) + "</li>";
  return out + "</ul>";
}

std::string detail_html(const char* stage, const json& detail) {
  if (std::string(stage) == kStageNames[stage_index(Stage::parity)]) {
    return "<p class=\"detail-sentences\">" + escape_html(detail_sentences(detail)) + "</p>";
  }
  return "<pre>" + escape_html(detail.is_string() ? detail.get<std::string>() : detail.is_null() ? "" : dumps_pretty(detail)) +
         "</pre>";
}

std::string detail_sentences(const json& detail) {
  if (detail.is_null()) return "";
  if (!detail.is_object()) return words_of(detail);
  std::string out;
  for (const auto& [key, value] : detail.items()) {
    std::string name = key;
    std::replace(name.begin(), name.end(), '_', ' ');
    out += name + ": " + words_of(value) + ".\n";
  }
  return out;
}

}  // namespace nnx::report
