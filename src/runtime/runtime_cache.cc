#include "runtime/runtime_cache.h"

#include <cstdlib>
#include <regex>

#include "base/error.h"
#include "base/front_end.h"

namespace nnx {
namespace {

std::filesystem::path cache_folder() {
  if (const char* cache = std::getenv("NNX_CACHE"); cache && *cache) return cache;
  const char* home = std::getenv("HOME");
  if (!home || !*home) throw UsageError("no NNX_CACHE and no HOME: cannot find the runtime cache");
  return std::filesystem::path(home) / ".cache" / "nnx-conformance";
}

}  // namespace

std::filesystem::path cached_runtime_library(const std::string& version) {
  static const std::regex release(R"(\d{1,3}\.\d{1,3}\.\d{1,3})");
  if (!std::regex_match(version, release)) {
    throw UsageError(std::string(spelled(Argument::matrix_release)) + " \"" + version +
                     "\" is not a release number X.Y.Z");
  }
  const auto library = cache_folder() / "runtimes" / version / ("libonnxruntime.so." + version);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(library, ec)) {
    throw UsageError("ONNX Runtime " + version + " is not in the runtime cache (" + library.string() +
                     "): run `make runtimes ORT_VERSIONS=" + version + "` to fetch and check it");
  }
  return library;
}

}  // namespace nnx
