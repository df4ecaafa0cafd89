// A runtime matrix's axes on the HTML page (doc/runtime-matrix.md, "Axes"; render_html.cc): one row per cell of
// other settings and profile, set against its release's cell with the brief's settings — the largest
// difference, absolute and in float32 ulps, its worst case and whether it stays within the profile's tolerance
// (a cell beyond it badged). "" for a matrix without axes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnx::report {

std::string axes_html(const nlohmann::json& matrix);

}  // namespace nnx::report
