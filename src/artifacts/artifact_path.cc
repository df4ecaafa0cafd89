#include "artifacts/artifact_path.h"

#include <vector>

namespace nnx {

std::optional<std::string> normalize_artifact_path(std::string_view path, std::string* why) {
  auto refuse = [&](const char* reason) -> std::optional<std::string> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (path.empty()) return refuse("empty path");
  if (path.find('\\') != std::string_view::npos) return refuse("contains '\\'");
  if (path.find(':') != std::string_view::npos) return refuse("contains ':'");
  if (path.find('\0') != std::string_view::npos) return refuse("contains a NUL byte");
  if (path.front() == '/') return refuse("absolute path");
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == ".") {
      // collapsed
    } else if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else {
        parts.push_back(part);
      }
    } else {
      parts.push_back(part);
    }
    start = end + 1;
  }
  if (parts.empty()) return refuse("names the folder itself");
  if (parts.front() == "..") return refuse("leaves the profile folder");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out;
}

}  // namespace nnx
