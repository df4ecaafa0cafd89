#include "matrix/cell_plan.h"

#include <cstdio>
#include <regex>
#include <tuple>

#include "base/error.h"
#include "runtime/runtime_cache.h"

namespace nnx::matrix {

RuntimeChoice RuntimeChoice::library_file(const std::string& path) {
  return {path, std::filesystem::absolute(path), std::nullopt};
}

RuntimeChoice RuntimeChoice::cached_release(const std::string& version) {
  return {version, cached_runtime_library(version), version};
}

RuntimeChoice RuntimeChoice::release_or_file(const std::string& given) {
  static const std::regex release(R"(\d+\.\d+\.\d+)");
  return std::regex_match(given, release) ? cached_release(given) : library_file(given);
}

std::vector<CellChoice> cell_choices(const std::vector<RuntimeChoice>& runtimes, const std::vector<CellSettings>& settings) {
  std::vector<CellChoice> cells;
  for (const auto& runtime : runtimes) {
    for (const auto& s : settings) cells.push_back({runtime, s});
  }
  return cells;
}

Shard parse_shard(const std::string& text) {
  static const std::regex form(R"((\d{1,6})/(\d{1,6}))");
  std::smatch m;
  if (std::regex_match(text, m, form)) {
    const Shard shard{std::stoul(m[1].str()), std::stoul(m[2].str())};
    if (shard.count > 0 && shard.index < shard.count) return shard;
  }
  throw UsageError("--shard \"" + text + "\" is not K/N with 0 <= K < N (e.g. 0/3, 1/3, 2/3)");
}

CiShard shard_from_ci(const std::function<const char*(const char*)>& environment) {
  struct Pair { const char* index; const char* total; std::size_t base; const char* ci; };
  static constexpr Pair kPairs[] = {{"CI_NODE_INDEX", "CI_NODE_TOTAL", 1, "GitLab"},
                                    {"CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0, "CircleCI"},
                                    {"BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0, "Buildkite"}};
  static const std::regex number(R"(\d{1,6})");
  for (const Pair& p : kPairs) {
    const char* index = environment(p.index);
    const char* total = environment(p.total);
    if (!index && !total) continue;
    const std::string from = std::string(p.index) + "=" + (index ? index : "(unset)") + " " + p.total + "=" +
                             (total ? total : "(unset)") + " (" + p.ci + ", index from " + std::to_string(p.base) + ")";
    if (index && total && std::regex_match(index, number) && std::regex_match(total, number)) {
      const std::size_t k = std::stoul(index), n = std::stoul(total);
      if (k >= p.base && n > 0 && k - p.base < n) return {Shard{k - p.base, n}, from};
    }
    throw UsageError("--shard ci: " + from + " is not a shard (an index within its total)");
  }
  throw UsageError("--shard ci: none of CI_NODE_INDEX/CI_NODE_TOTAL, CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL, "
                   "BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT is set: give --shard K/N");
}

std::string shard_text(const Shard& shard) { return std::to_string(shard.index) + "/" + std::to_string(shard.count); }

std::vector<std::size_t> shard_cells(std::size_t cells, const Shard& shard) {
  std::vector<std::size_t> out;
  for (std::size_t i = shard.index; i < cells; i += shard.count) out.push_back(i);
  return out;
}

namespace {

std::tuple<unsigned, unsigned, unsigned> numbers_of(const std::string& version) {
  unsigned major = 0, minor = 0, patch = 0;
  std::sscanf(version.c_str(), "%u.%u.%u", &major, &minor, &patch);
  return {major, minor, patch};
}

}  // namespace

int compare_versions(const std::string& a, const std::string& b) {
  const auto na = numbers_of(a), nb = numbers_of(b);
  if (na != nb) return na < nb ? -1 : 1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

std::optional<std::string> version_in_file_name(const std::filesystem::path& library) {
  static const std::regex name(R"(libonnxruntime\.so\.(\d+\.\d+\.\d+))");
  std::smatch m;
  const std::string file = library.filename().string();
  if (std::regex_match(file, m, name)) return m[1].str();
  return std::nullopt;
}

}  // namespace nnx::matrix
