// The one entry the verbs call (run, execute, report, matrix and matrix-merge, through cli/report_command.cc's
// write_render_targets): writes the renderings of a document (report/render.h) to the paths asked for, each
// atomically (base/atomic_file.h). All three are rendered before any is written, so a document the
// renderers refuse leaves no file behind.
#pragma once

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

namespace nnx::report {

struct RenderTargets {
  std::optional<std::filesystem::path> html;
  std::optional<std::filesystem::path> markdown;
  std::optional<std::filesystem::path> junit;
  bool any() const { return html || markdown || junit; }
};

// Checks, before a run or an execution starts, that each target could be written (atomic_file.h).
void require_writable_targets(const RenderTargets& targets);
void write_renderings(const nlohmann::json& document, const RenderTargets& targets);

}  // namespace nnx::report
