#include "runtime/library_search.h"

#include <cstdlib>
#include <system_error>

namespace nnx {

LibrarySearch library_search(const std::optional<std::filesystem::path>& explicit_path, const std::string& bundled) {
  LibrarySearch search;
  if (explicit_path) {
    search.step = LibraryStep::caller;
    search.candidates.push_back(explicit_path->string());
    search.origin = "the caller";
  } else if (const char* env = std::getenv("NNX_ONNXRUNTIME_LIBRARY"); env && *env) {
    search.step = LibraryStep::environment;
    search.candidates.push_back(env);
    search.origin = "NNX_ONNXRUNTIME_LIBRARY";
  } else {
    std::error_code ec;
    if (std::filesystem::exists(bundled, ec)) {
      search.step = LibraryStep::bundled;
      search.candidates.push_back(bundled);
    }
    search.candidates.push_back(kLoaderLibraryName);
  }
  return search;
}

}  // namespace nnx
