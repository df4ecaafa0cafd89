// The three human forms of a report, a record or a runtime matrix (doc/cli.md, "Looking at the evidence";
// report/document.h says what is read). Every number is the record's, nothing recomputed: the HTML and the
// Markdown show it at 3 significant digits (shown_text, report/document.h), the HTML with the exact value
// on hover; JUnit carries it exactly as the record writer prints it (base/json_python.h). The HTML and the
// Markdown open with what was compared with what (report/comparison.h); a case never compared, or a stage
// that did not run, is "not run" (neutral), never "failed".
//   render_html      one self-contained page: inline CSS and SVG, no script, no font or image fetched (a
//                    Content-Security-Policy forbids every fetch); it wraps long values instead of scrolling
//                    sideways (none at a 700 px viewport) and never splits a badge. Per profile: the five stages as a pipeline coloured by status with each
//                    failure's class and detail; per case its errors and a margin bar (error ÷ allowed error,
//                    log scale, tolerance line at 1, the triangulation's margins when present); the artifacts
//                    with role, size and sha256; versions, runtime and source. A matrix adds a cases × runtimes
//                    heatmap of margins (a row per case, a column per runtime).
//   render_markdown  a compact summary for a pull-request comment or a CI job summary.
//   render_junit     JUnit XML: one testsuite per profile (per runtime and profile for a matrix), one testcase
//                    per stage and per input case; a failure carries its class (type) and detail.
// Each throws ConformanceError for a document that is none of the three.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnx::report {

std::string render_html(const nlohmann::json& document);
std::string render_markdown(const nlohmann::json& document);
std::string render_junit(const nlohmann::json& document);

}  // namespace nnx::report
