// A record's localisation on the HTML page (doc/localisation.md; render_html.cc): the summary, the path
// through the graph at the level where a value first departs (every compared value in graph order, the first
// departing one marked, the others that depart flagged), each level's comparison and the coverage (values
// aligned, each one left out with its reason). "" for a record without a localisation.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnx::report {

std::string localisation_html(const nlohmann::json& record);

}  // namespace nnx::report
