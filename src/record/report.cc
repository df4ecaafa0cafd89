#include "record/report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "base/failure.h"
#include "base/json_python.h"
#include "record/validate_record.h"

namespace nnx {

json make_report(const std::vector<json>& records) {
  bool passed = !records.empty();
  for (const auto& r : records) passed = passed && r.value("status", "") == "passed";
  return json{{"format", kFormat}, {"status", passed ? "passed" : "failed"}, {"profiles", records}};
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto parent = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw std::runtime_error("cannot create " + parent.string() + ": " + ec.message());
  if (std::filesystem::is_directory(path, ec)) {
    throw std::runtime_error(path.string() + " is a folder, not a report file");
  }
  std::string tmpl = (parent / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw std::runtime_error("cannot write in " + parent.string() + ": " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw std::runtime_error(what + ": " + std::strerror(err));
  };
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write " + tmpl);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) fail("cannot set the mode of " + tmpl);
  if (::fsync(fd) != 0) fail("cannot flush " + tmpl);
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw std::runtime_error("cannot close " + tmpl + ": " + std::strerror(errno));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw std::runtime_error("cannot replace " + path.string() + ": " + std::strerror(err));
  }
  const int dir_fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void save_report(const json& report, const std::filesystem::path& path) {
  if (!report.is_object() || !report.contains("profiles") || !report["profiles"].is_array()) {
    throw ConformanceError("a report needs a list of profiles");
  }
  std::string problems;
  for (std::size_t i = 0; i < report["profiles"].size(); ++i) {
    for (const auto& p : record_problems(report["profiles"][i])) {
      problems += "\n  profiles[" + std::to_string(i) + "]: " + p;
    }
  }
  if (!problems.empty()) throw ConformanceError("refusing to write an invalid report:" + problems);
  write_file_atomically(path, dumps_pretty(report) + "\n");
}

std::vector<std::string> summary_lines(const std::vector<json>& records) {
  std::vector<std::string> lines;
  for (const auto& r : records) {
    std::string line = r.value("profile", "?") + ": " + r.value("status", "?");
    if (r.contains("failure") && r["failure"].is_string()) line += " (" + r["failure"].get<std::string>() + ")";
    line += "; level=" + r.value("level", "?");
    if (r.contains("exporter") && r["exporter"].is_object()) {
      line += "; exporter=" + r["exporter"].value("name", "?");
    }
    if (r.contains("runtime") && r["runtime"].is_object() && r["runtime"].contains("version") &&
        r["runtime"]["version"].is_string()) {
      line += "; onnxruntime=" + r["runtime"]["version"].get<std::string>();
    }
    double worst = -1;
    std::size_t passed = 0, total = 0;
    if (r.contains("input_cases") && r["input_cases"].is_array()) {
      for (const auto& c : r["input_cases"]) {
        ++total;
        if (c.value("passed", false)) ++passed;
        if (c.contains("max_abs_error") && c["max_abs_error"].is_number()) {
          worst = std::max(worst, c["max_abs_error"].get<double>());
        }
      }
    }
    if (worst >= 0) line += "; max_abs_error=" + python_float_repr(worst);
    line += "; " + std::to_string(passed) + "/" + std::to_string(total) + " input cases passed";
    lines.push_back(line);
  }
  return lines;
}

int exit_code_for(const std::vector<json>& records) {
  if (records.empty()) return kExitError;
  for (const auto& r : records) {
    if (r.value("status", "") == "passed") continue;
    if (!r.contains("failure") || !r["failure"].is_string()) return kExitError;
    auto f = parse_failure(r["failure"].get<std::string>());
    return f ? exit_code(*f) : kExitError;
  }
  return kExitPassed;
}

}  // namespace nnx
