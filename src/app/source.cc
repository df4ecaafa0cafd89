#include "app/source.h"

#include <cstdio>
#include <filesystem>

#include "base/build_info.h"
#include "base/record_vocabulary.h"

namespace nnx {

SourceInfo detect_source(const std::optional<std::string>& given_revision) {
  SourceInfo s;
  if (given_revision) {
    s.origin = rf::kOriginGiven;
    s.revision = given_revision->empty() ? json(nullptr) : json(*given_revision);
    return s;
  }
  const std::string dir = build_checkout_dir();
  auto capture = [](const std::string& command, std::string& out) {
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return false;
    char buffer[4096];
    out.clear();
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    return ::pclose(pipe) == 0;
  };
  std::string head, status;
  const std::string quoted = "'" + dir + "'";
  // An installed copy is built with no checkout directory: it belongs to no checkout (origin unknown).
  if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / ".git") &&
      capture("git -C " + quoted + " rev-parse HEAD 2>/dev/null", head) && head.size() >= 40 &&
      capture("git -C " + quoted + " status --porcelain --untracked-files=no 2>/dev/null", status)) {
    s.origin = rf::kOriginGit;
    s.revision = head.substr(0, head.find_first_of("\r\n"));
    s.dirty = !status.empty();
  }
  return s;
}

}  // namespace nnx
