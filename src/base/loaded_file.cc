#include "base/loaded_file.h"

#include <dlfcn.h>

#include <system_error>

namespace nnx {

std::filesystem::path executable_file() {
  std::error_code ec;
  std::filesystem::path file = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : file;
}

std::filesystem::path file_holding(const void* code) {
  Dl_info info{};
  if (::dladdr(code, &info) == 0 || info.dli_fname == nullptr) return executable_file();
  const std::filesystem::path file = info.dli_fname;
  return file.is_absolute() ? file : executable_file();
}

}  // namespace nnx
