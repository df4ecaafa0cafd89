// The top of the HTML page (render_html.cc) and its words (doc/reading-a-failure.md, "The page"):
// `profiles_overview` is a table of every profile, failures first (then the document's order), each linking to
// its section (`profile_anchor`), with its status, class, level and, for a failed module or successor-format
// record, its first cause; `diagnosis_html` is that record's diagnosis (base/failure_diagnosis.h) as a list, shown at
// the top of the page and in its section; `detail_sentences` is a stage's detail as sentences ("<key>: <value
// in words>", one per key, nested objects as "a, b and c"), never raw JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/document.h"

namespace nnx::report {

// The id of a profile's section: "profile-" and its name with every character but [A-Za-z0-9_-] as '_',
// then its index in the page (two profiles of one name in a matrix stay apart).
std::string profile_anchor(const std::string& profile, std::size_t index);

// `records`: the page's records (report/document.h page_records), each one's index its place on the page.
std::string profiles_overview(const std::vector<PageRecord>& records);

// A failed stage's detail: parity's as sentences (detail_sentences), any other stage's as it is (<pre>).
std::string detail_html(const char* stage, const nlohmann::json& detail);

// "" for a record without a diagnosis.
std::string diagnosis_html(const nlohmann::json& record, const std::vector<nlohmann::json>& siblings);

std::string detail_sentences(const nlohmann::json& detail);

}  // namespace nnx::report
