// The top of the HTML page (render_html.cc) and its words (doc/reading-a-failure.md, "The page"):
// `profiles_overview` is a table of every profile, failures first (then the document's order), each linking to
// its section (`profile_anchor`), with its status, class, level and, for a failed module or successor-format
// record, its first cause; `diagnosis_html` is that record's diagnosis (report/diagnosis.h) as a list, shown at
// the top of the page and in its section; `detail_sentences` is a stage's detail as sentences ("<key>: <value
// in words>", one per key, nested objects as "a, b and c"), never raw JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx::report {

// The id of a profile's section: "profile-" and its name with every character but [A-Za-z0-9_-] as '_',
// then its index in the page (two profiles of one name in a matrix stay apart).
std::string profile_anchor(const std::string& profile, std::size_t index);

// `labelled`: each record with the prefix its section heading has, its index its place on the page;
// `siblings[i]`: the records labelled[i]'s other exporter is looked for in.
std::string profiles_overview(const std::vector<std::pair<std::string, nlohmann::json>>& labelled,
                              const std::vector<std::vector<nlohmann::json>>& siblings);

// "" for a record without a diagnosis.
std::string diagnosis_html(const nlohmann::json& record, const std::vector<nlohmann::json>& siblings);

std::string detail_sentences(const nlohmann::json& detail);

}  // namespace nnx::report
