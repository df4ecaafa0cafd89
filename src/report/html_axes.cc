// A runtime matrix's axes on the HTML page (html_axes.h).
#include "report/html_axes.h"

#include "base/record_vocabulary.h"
#include "report/document.h"
#include "report/markup.h"

namespace nnx::report {

std::string axes_html(const nlohmann::json& matrix) {
  const auto rows = matrix_axes(matrix);
  if (rows.empty()) return "";
  std::string out = "<h2>Axes: which setting moves which outputs</h2><p>Each cell run with other settings (level, "
                    "threads, provider) against the cell of its release with the brief's settings: the largest "
                    "difference of its outputs (absolute, and in float32 ulps; 0 ulps means bit-identical), in which "
                    "case, and whether every case stays within the profile's tolerance.</p>"
                    "<table class=\"axes\"><thead><tr><th>cell</th><th>against</th><th>profile</th>"
                    "<th>max abs difference</th><th>max ulps</th><th>worst case</th><th>within tolerance</th></tr>"
                    "</thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr><td>" + escape_html(row.cell) + "</td><td>" + escape_html(row.against) + "</td><td>" +
           escape_html(row.profile) + "</td><td>" + number_html(row.max_abs_difference) + "</td><td>" +
           number_html(row.max_ulps) + "</td><td>" + escape_html(row.case_name) + "</td><td>" +
           (row.within_tolerance ? std::string("yes") : status_badge(rf::kFailed) + " beyond") + "</td></tr>";
  }
  return out + "</tbody></table>";
}

}  // namespace nnx::report
