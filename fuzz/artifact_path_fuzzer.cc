// libFuzzer target: the artifact path rule (record-format §5, src/artifact_path.h), on any bytes.
//
// Invariants checked for every input:
//  * a refusal always says why (non-empty reason);
//  * an accepted path is non-empty, never absolute, never `.`/`..`, never starts with `../`, holds no
//    `\`, `:` or NUL, and has no empty, `.` or `..` component (it cannot leave the profile folder);
//  * normalisation is idempotent: the result normalises to itself;
//  * it agrees with an independent reference (walk the components from the profile folder, `..` pops a
//    name and refuses when there is none): same acceptance, same normalised text;
//  * a path that is already normal (no empty, `.` or `..` component) is returned unchanged.
// A violated invariant calls __builtin_trap(), which libFuzzer reports as a crash with the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "artifacts/artifact_path.h"

namespace {

[[noreturn]] void finding(const char* what, std::string_view input) {
  std::string shown;
  for (unsigned char c : input.substr(0, 200)) {
    if (c >= 0x20 && c < 0x7f) {
      shown += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      shown += buf;
    }
  }
  std::fprintf(stderr, "artifact_path_fuzzer: %s: \"%s\"\n", what, shown.c_str());
  __builtin_trap();
}

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

// The reference: a walk from the profile folder that refuses any step above it.
std::optional<std::string> reference(std::string_view path) {
  if (path.empty() || path.front() == '/') return std::nullopt;
  for (char c : path) {
    if (c == '\\' || c == ':' || c == '\0') return std::nullopt;
  }
  std::vector<std::string_view> stack;
  for (std::string_view part : components(path)) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (stack.empty()) return std::nullopt;  // would leave the profile folder
      stack.pop_back();
      continue;
    }
    stack.push_back(part);
  }
  if (stack.empty()) return std::nullopt;  // names the folder itself
  std::string out;
  for (std::size_t i = 0; i < stack.size(); ++i) {
    if (i) out += '/';
    out += stack[i];
  }
  return out;
}

bool already_normal(std::string_view path) {
  if (path.empty()) return false;
  for (std::string_view part : components(path)) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string why;
  const std::optional<std::string> normal = nnx::normalize_artifact_path(input, &why);
  const std::optional<std::string> expected = reference(input);

  if (!normal) {
    if (why.empty()) finding("refused without a reason", input);
    if (expected) finding("refused a path the reference accepts", input);
    return 0;
  }
  const std::string& p = *normal;
  if (!expected) finding("accepted a path the reference refuses", input);
  if (p != *expected) finding("normalised differently from the reference", input);
  if (p.empty()) finding("accepted as an empty path", input);
  if (p.front() == '/') finding("normalised to an absolute path", input);
  if (p == "." || p == ".." || p.rfind("../", 0) == 0) finding("normalised path leaves the folder", input);
  if (p.find_first_of(std::string_view("\\:\0", 3)) != std::string::npos) finding("kept a forbidden byte", input);
  if (!already_normal(p)) finding("normalised path has an empty, '.' or '..' component", input);

  std::string why_again;
  const auto twice = nnx::normalize_artifact_path(p, &why_again);
  if (!twice || *twice != p) finding("normalisation is not idempotent", input);
  if (already_normal(input) && p != input) finding("an already normal path was changed", input);
  return 0;
}
