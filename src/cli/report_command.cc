// `nnx-conformance report FILE [--html OUT] [--markdown OUT] [--junit OUT]` (doc/cli.md, "Looking at the
// evidence"): the human forms of a report, a record or a runtime matrix (report/render.h). With no flag the
// Markdown summary goes to stdout. A document holding an invalid record is refused, nothing rendered.
// run, execute, matrix and matrix-merge take the same three flags (add_render_options).
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/check_document.h"
#include "base/error.h"
#include "base/failure.h"
#include "base/json_strict.h"
#include "cli/commands.h"
#include "record/validate_record.h"
#include "report/document.h"
#include "report/render.h"
#include "report/renderings.h"

namespace nnx::cli {
namespace {

report::RenderTargets targets_of(const RenderArgs& args) {
  report::RenderTargets targets;
  if (!args.html.empty()) targets.html = args.html;
  if (!args.markdown.empty()) targets.markdown = args.markdown;
  if (!args.junit.empty()) targets.junit = args.junit;
  return targets;
}

}  // namespace

void add_render_options(CLI::App& command, RenderArgs& args) {
  command.add_option("--html", args.html, "also write a self-contained HTML page here");
  command.add_option("--markdown", args.markdown, "also write a Markdown summary here");
  command.add_option("--junit", args.junit, "also write JUnit XML here");
}

void add_report_command(CLI::App& app, ReportArgs& args) {
  auto* report = app.add_subcommand("report", "render a report, record or runtime matrix as HTML, Markdown or JUnit "
                                              "XML (no flag: Markdown on stdout)");
  report->add_option("FILE", args.file, "report, record or runtime matrix (JSON)")->required();
  add_render_options(*report, args.render);
}

void check_outputs(PathUse use, const RenderArgs& args) {
  const std::pair<const char*, const std::string*> renderings[] = {
      {"--html", &args.html}, {"--markdown", &args.markdown}, {"--junit", &args.junit}};
  for (const auto& [flag, path] : renderings) {
    if (!path->empty()) use.outputs.push_back({flag, *path});
  }
  check_output_paths(use);
  report::require_writable_targets(targets_of(args));
}

std::vector<std::string> write_render_targets(const nlohmann::json& document, const RenderArgs& args) {
  const report::RenderTargets targets = targets_of(args);
  if (!targets.any()) return {};
  report::write_renderings(document, targets);
  std::vector<std::string> file_lines;
  if (targets.html) file_lines.push_back("html: " + targets.html->string());
  if (targets.markdown) file_lines.push_back("markdown: " + targets.markdown->string());
  if (targets.junit) file_lines.push_back("junit: " + targets.junit->string());
  return file_lines;
}

namespace {

// A document holding a record that breaks the format's rules is not rendered: its page would show what the
// record's own numbers contradict (a ✅ over a margin of 5000). ConformanceError naming the record and its
// first problem; `validate` names every one.
void require_valid_records(const nlohmann::json& document, const std::string& file) {
  std::size_t i = 0;
  for (const auto& record : report::document_records(document)) {
    const std::vector<std::string> problems = record_problems(record);
    if (!problems.empty()) {
      throw ConformanceError(file + ": " + record_label(record, i) + " is not a valid record, so nothing is "
                             "rendered (" + std::to_string(problems.size()) + " problem(s); `nnx-conformance "
                             "validate " + file + "` names each): " + problems.front());
    }
    ++i;
  }
}

}  // namespace

int report_command(const ReportArgs& args) {
  const nlohmann::json document = read_strict_json_file(args.file);
  require_valid_records(document, args.file);
  if (!targets_of(args.render).any()) {
    std::cout << report::render_markdown(document);
    return kExitPassed;
  }
  check_outputs({{}, {{"FILE", args.file}}, {}}, args.render);
  for (const auto& line : write_render_targets(document, args.render)) std::cout << line << "\n";
  return kExitPassed;
}

}  // namespace nnx::cli
