// The host's facts, read from local files (host_facts.h).
#include "base/host_facts.h"

#include <gnu/libc-version.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/error.h"
#include "base/json_fields.h"

namespace nnx {
namespace {

using nlohmann::json;

constexpr const char* kCpu = "cpu";
constexpr const char* kCpuFlags = "cpu_flags";
constexpr const char* kOs = "os";
constexpr const char* kKernel = "kernel";
constexpr const char* kMachine = "machine";
constexpr const char* kLibc = "libc";
constexpr const char* kEnvironment = "environment";

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

// The value of the first "<key> : value" line of a cpuinfo text, "" when there is none.
std::string cpuinfo_value(std::string_view cpuinfo, std::string_view key) {
  std::istringstream lines{std::string(cpuinfo)};
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trimmed(std::string_view(line).substr(0, colon)) == key) {
      return trimmed(std::string_view(line).substr(colon + 1));
    }
  }
  return "";
}

// PRETTY_NAME of an os-release text, its quotes removed; "" when there is none.
std::string pretty_name(std::string_view os_release) {
  std::istringstream lines{std::string(os_release)};
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("PRETTY_NAME=")) continue;
    std::string value = trimmed(std::string_view(line).substr(12));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return "";
}

std::string file_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

json HostFacts::to_json() const {
  json out{{kCpu, cpu}, {kCpuFlags, cpu_flags}, {kOs, os}, {kKernel, kernel}, {kMachine, machine}, {kLibc, libc}};
  if (environment) out[kEnvironment] = *environment;
  return out;
}

HostFacts HostFacts::from_json(const json& value, const std::string& where) {
  std::vector<std::string> problems;
  FieldReader read(value, where, problems);
  HostFacts out;
  read.string(kCpu, out.cpu);
  read.string_list(kCpuFlags, out.cpu_flags);
  read.string(kOs, out.os);
  read.string(kKernel, out.kernel);
  read.string(kMachine, out.machine);
  read.string(kLibc, out.libc);
  read.may_hold({kEnvironment});
  if (value.is_object() && value.contains(kEnvironment)) {
    const json* environment = read.object(kEnvironment);
    if (environment != nullptr) {
      out.environment.emplace();
      for (const auto& [name, set] : environment->items()) {
        const std::string& variable = name;  // a structured binding is not captured by clang 14 (the fuzz build)
        const bool known = std::find_if(kNumericEnvironment.begin(), kNumericEnvironment.end(),
                                        [&variable](const char* k) { return variable == k; }) != kNumericEnvironment.end();
        if (!known || !set.is_string()) {
          problems.push_back(where + "." + kEnvironment + "." + name + ": is not a recorded variable with a string value");
          continue;
        }
        (*out.environment)[name] = set.get<std::string>();
      }
    }
  }
  read.finish();
  if (!problems.empty()) throw ConformanceError(problems.front());
  if (!std::is_sorted(out.cpu_flags.begin(), out.cpu_flags.end()) ||
      std::adjacent_find(out.cpu_flags.begin(), out.cpu_flags.end()) != out.cpu_flags.end()) {
    throw ConformanceError(where + "." + kCpuFlags + ": is not sorted with each flag once");
  }
  return out;
}

HostFacts host_from_texts(std::string_view cpuinfo, std::string_view os_release) {
  HostFacts host;
  host.cpu = cpuinfo_value(cpuinfo, "model name");
  std::istringstream flags(cpuinfo_value(cpuinfo, "flags"));
  host.cpu_flags.assign(std::istream_iterator<std::string>(flags), std::istream_iterator<std::string>());
  std::sort(host.cpu_flags.begin(), host.cpu_flags.end());
  host.cpu_flags.erase(std::unique(host.cpu_flags.begin(), host.cpu_flags.end()), host.cpu_flags.end());
  host.os = pretty_name(os_release);
  return host;
}

HostFacts this_host() {
  HostFacts host = host_from_texts(file_text("/proc/cpuinfo"), file_text("/etc/os-release"));
  struct utsname names {};
  if (::uname(&names) == 0) {
    host.kernel = names.release;
    host.machine = names.machine;
  }
  host.libc = std::string("glibc ") + gnu_get_libc_version();
  host.environment = numeric_environment([](const char* name) { return std::getenv(name); });
  return host;
}

std::map<std::string, std::string> numeric_environment(const std::function<const char*(const char*)>& environment) {
  std::map<std::string, std::string> set;
  for (const char* name : kNumericEnvironment) {
    if (const char* value = environment(name)) set[name] = value;
  }
  return set;
}

std::string host_differences(const HostFacts& a, const HostFacts& b) {
  std::string out;
  const auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  const auto fact = [&](const char* name, const std::string& x, const std::string& y) {
    if (x != y) add(std::string(name) + " " + json(x).dump() + " vs " + json(y).dump());
  };
  fact("cpu", a.cpu, b.cpu);
  std::vector<std::string> only_a, only_b;
  std::set_difference(a.cpu_flags.begin(), a.cpu_flags.end(), b.cpu_flags.begin(), b.cpu_flags.end(),
                      std::back_inserter(only_a));
  std::set_difference(b.cpu_flags.begin(), b.cpu_flags.end(), a.cpu_flags.begin(), a.cpu_flags.end(),
                      std::back_inserter(only_b));
  const auto listed = [](const std::vector<std::string>& flags) {
    std::string text;
    for (const auto& f : flags) text += (text.empty() ? "" : " ") + f;
    return text;
  };
  if (!only_a.empty()) add("cpu flags only the first has: " + listed(only_a));
  if (!only_b.empty()) add("cpu flags only the second has: " + listed(only_b));
  fact("os", a.os, b.os);
  fact("kernel", a.kernel, b.kernel);
  fact("machine", a.machine, b.machine);
  fact("libc", a.libc, b.libc);
  if (a.environment && b.environment && *a.environment != *b.environment) {
    add("environment " + json(*a.environment).dump() + " vs " + json(*b.environment).dump());
  }
  return out;
}

}  // namespace nnx
