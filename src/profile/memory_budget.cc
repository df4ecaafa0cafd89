// The memory of a run's input cases; contract in memory_budget.h.
#include "profile/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace nnx {
namespace {

std::string mib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

std::uint64_t values_of(const std::vector<std::int64_t>& shape) {
  std::uint64_t n = 1;
  for (const std::int64_t d : shape) n *= static_cast<std::uint64_t>(std::max<std::int64_t>(d, 0));
  return n;
}

}  // namespace

std::uint64_t machine_memory_limit() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024 / 2;
  }
  return static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) /
         2;
}

std::uint64_t case_memory_bytes(const Profile& profile, const InputCase& c) {
  std::uint64_t values = 0;
  if (const ModuleCase* module_case = c.module()) {
    for (const auto& shape : module_case->input_shapes) values += values_of(shape);
  } else {
    const CaseShape& shape = c.shape();
    const std::int64_t widest = std::max(profile.feed_forward().model.widest_layer(), shape.empty() ? 0 : shape.back());
    values = values_of({shape.empty() ? 0 : shape.front(), widest});
  }
  return values * kReferenceBytesPerValue;
}

std::vector<std::string> memory_problems(const std::vector<Profile>& profiles, std::uint64_t limit,
                                         const std::string& limit_source) {
  std::vector<std::string> problems;
  const std::uint64_t per_case = limit / kCasesPerMemoryLimit;
  const std::string limits = " (memory limit " + mib_text(limit) + ": " + limit_source + "; a case may take a quarter)";
  std::uint64_t total = 0;
  for (const Profile& p : profiles) {
    for (const InputCase& c : p.input_cases()) {
      const std::uint64_t bytes = case_memory_bytes(p, c);
      total += bytes;
      if (bytes > per_case) {
        problems.push_back("profile \"" + p.name + "\", input case " + c.name + ": its torch reference needs about " +
                           mib_text(bytes) + ", over the per-case limit of " + mib_text(per_case) + limits);
      }
    }
  }
  if (total > limit) {
    problems.push_back("the run's input cases together need about " + mib_text(total) +
                       " for the torch reference, over the memory limit of " + mib_text(limit) + limits);
  }
  return problems;
}

}  // namespace nnx
