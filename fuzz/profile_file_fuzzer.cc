// libFuzzer target: the `--profile-file` reader (src/profile/profile_file.h, profiles_from_file), on any
// bytes written to a real file.
//
// For every input:
//  * profiles_from_file returns profiles or throws UsageError (exit 2) with a message (anything else, an
//    exception of another type or kind, is a finding);
//  * what it returns may run: no profile has a problem, and no name is given twice;
//  * each profile's own JSON form (Profile::to_json, what the Python package hands back) is read back by
//    profiles_from_json to the same name and the same canonical settings text.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "base/error.h"
#include "profile/profile_file.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "profile_file_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

// One scratch file for the whole run, removed at exit.
const std::filesystem::path& scratch_file() {
  static const std::filesystem::path path = [] {
    std::string name = (std::filesystem::temp_directory_path() / "nnx-profile-fuzz.XXXXXX").string();
    const int fd = mkstemp(name.data());
    if (fd < 0) finding("cannot make a scratch file");
    close(fd);
    std::atexit([] { std::filesystem::remove(scratch_file()); });
    return std::filesystem::path(name);
  }();
  return path;
}

void check_round_trip(const nnx::Profile& profile) {
  std::vector<nnx::Profile> again;
  try {
    again = nnx::profiles_from_json(nlohmann::json::array({profile.to_json()}));
  } catch (const nnx::UsageError& e) {
    finding("a profile's own JSON form is refused", e.what());
  }
  if (again.size() != 1 || again[0].name != profile.name ||
      again[0].canonical_settings_text() != profile.canonical_settings_text()) {
    finding("a profile's own JSON form reads back to other settings", profile.name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& file = scratch_file();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) finding("cannot write the scratch file");
  }
  std::vector<nnx::Profile> profiles;
  try {
    profiles = nnx::profiles_from_file(file);
  } catch (const nnx::UsageError& e) {
    if (e.kind() != nnx::ErrorKind::usage) finding("a refusal is not a usage error", e.what());
    if (std::string(e.what()).empty()) finding("a refusal without a message");
    return 0;
  }
  std::set<std::string> names;
  for (const auto& profile : profiles) {
    if (!profile.problems().empty()) finding("an accepted profile has a problem", profile.problems().front());
    if (!names.insert(profile.name).second) finding("a name accepted twice", profile.name);
    check_round_trip(profile);
  }
  return 0;
}
