#include "report/renderings.h"

#include <string>

#include "base/atomic_file.h"
#include "report/render.h"

namespace nnx::report {

void require_writable_targets(const RenderTargets& targets) {
  for (const auto& target : {targets.html, targets.markdown, targets.junit}) {
    if (target) require_writable_file_path(*target);
  }
}

void write_renderings(const nlohmann::json& document, const RenderTargets& targets) {
  const std::string html = targets.html ? render_html(document) : "";
  const std::string markdown = targets.markdown ? render_markdown(document) : "";
  const std::string junit = targets.junit ? render_junit(document) : "";
  if (targets.html) write_file_atomically(*targets.html, html);
  if (targets.markdown) write_file_atomically(*targets.markdown, markdown);
  if (targets.junit) write_file_atomically(*targets.junit, junit);
}

}  // namespace nnx::report
