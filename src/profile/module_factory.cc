// module_factory.cc — a module profile's factory checked; contract in module_factory.h.
#include "profile/module_factory.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "artifacts/factory_copy.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/nearest_name.h"
#include "profile/python_names.h"

namespace nnx {
bool is_identifier(std::string_view word) {
  if (word.empty() || (word.front() >= '0' && word.front() <= '9')) return false;
  for (const char c : word) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

namespace {

bool is_dotted_name(std::string_view target) {
  for (std::size_t start = 0;;) {
    const std::size_t dot = target.find('.', start);
    if (!is_identifier(target.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// A factory name the file binds nowhere (python_names.h), with the nearest names it binds; a file that cannot
// be read is left to the worker.
void unbound_name_problems(const std::string& file, const std::string& name, std::vector<std::string>& out) {
  std::string source;
  try {
    source = read_file_bytes(file, kMaxFactoryFileBytes, "a factory file", ErrorKind::usage);
  } catch (const Error&) {
    return;
  }
  const PythonNames names = names_bound_in(source);
  if (names.dynamic || std::find(names.bound.begin(), names.bound.end(), name) != names.bound.end()) return;
  std::string nearest = did_you_mean(name, names.bound);
  if (nearest.empty() && !names.bound.empty()) {
    nearest = "; the names it binds:";
    for (std::size_t i = 0; i < names.bound.size() && i < 12; ++i) nearest += (i ? ", " : " ") + names.bound[i];
    if (names.bound.size() > 12) nearest += ", ...";
  }
  out.push_back("module: " + file + " binds no name \"" + name + "\" (no def, class, assignment or import of it, "
                "read without running the file)" + nearest);
}

void file_problems(const std::string& file, const std::string& name, std::vector<std::string>& out) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (std::filesystem::is_directory(status)) {
    out.push_back("module: " + file + " is a folder, not a Python file");
  } else if (std::filesystem::is_regular_file(status)) {
    if (is_identifier(name)) unbound_name_problems(file, name, out);
  } else {
    out.push_back("module: the file " + file + " does not exist (a path relative to the profile file's folder, "
                  "or absolute; a profile given in Python: relative to the current folder)");
  }
}

// The FILE.py of `factory` and its name, when it names a file.
bool split_file_factory(const std::string& factory, std::string& file, std::string& name) {
  const auto colon = factory.rfind(':');
  if (colon == std::string::npos || colon == 0 || !factory.substr(0, colon).ends_with(".py")) return false;
  file = factory.substr(0, colon);
  name = factory.substr(colon + 1);
  return true;
}

std::filesystem::path absolute_normal(const std::filesystem::path& path) {
  return std::filesystem::absolute(path).lexically_normal();
}

}  // namespace

std::string factory_resolved_against(const std::string& factory, const std::filesystem::path& folder) {
  std::string file;
  std::string name;
  if (!split_file_factory(factory, file, name) || std::filesystem::path(file).is_absolute()) return factory;
  return (absolute_normal(folder) / file).lexically_normal().string() + ":" + name;
}

std::string factory_relative_to(const std::string& factory, const std::filesystem::path& folder) {
  std::string file;
  std::string name;
  if (!split_file_factory(factory, file, name)) return factory;
  const std::filesystem::path relative = absolute_normal(file).lexically_relative(absolute_normal(folder));
  return (relative.empty() ? absolute_normal(file) : relative).generic_string() + ":" + name;
}

std::vector<std::string> factory_problems(const std::string& factory) {
  const auto colon = factory.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == factory.size()) {
    return {"module: \"" + factory + "\" is not FILE.py:FACTORY or package.module:FACTORY"};
  }
  if (factory.find('\0') != std::string::npos) {
    return {"module: the factory holds a NUL character, which no path or name can hold"};
  }
  std::vector<std::string> out;
  const std::string target = factory.substr(0, colon);
  const std::string name = factory.substr(colon + 1);
  if (!is_identifier(name)) {
    out.push_back("module: the factory's name \"" + name + "\" is not an ASCII Python identifier "
                  "([A-Za-z_][A-Za-z0-9_]*, no dots: the factory is a top-level name of its file or module)");
  }
  if (target.ends_with(".py")) {
    file_problems(target, name, out);
  } else if (!is_dotted_name(target)) {
    out.push_back("module: \"" + target + "\" is neither a FILE.py path nor a package.module name (ASCII "
                  "identifiers joined by dots)");
  }
  return out;
}

}  // namespace nnx
