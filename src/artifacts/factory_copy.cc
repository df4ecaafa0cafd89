// A module profile's factory copied into its artifacts (factory_copy.h).
#include "artifacts/factory_copy.h"

#include <system_error>

#include "artifacts/layout.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/sha256.h"

namespace nnx {
namespace {

constexpr const char* kFactoryCopyFolder = "factory";
constexpr const char* kCheckModuleFactory = "factory.py";  // python/nnx/_module_check.py writes these two
constexpr const char* kCheckModuleModule = "module.pt";

bool written_by_check_module(const std::filesystem::path& factory_file) {
  return factory_file.filename() == kCheckModuleFactory &&
         factory_file.parent_path().parent_path().filename() == kModulesFolder;
}

}  // namespace

std::string factory_copy_path(const std::filesystem::path& factory_file) {
  const std::string name = factory_file.filename().string();
  return std::string(kFactoryCopyFolder) + "/" + (is_plain_name(name) ? name : std::string(kCheckModuleFactory));
}

void copy_factory(const std::filesystem::path& factory_file, const std::filesystem::path& profile_folder,
                  const std::optional<std::string>& source_sha256) {
  const std::string bytes = read_file_bytes(factory_file, kMaxFactoryFileBytes, "a factory file", ErrorKind::refused);
  if (source_sha256 && sha256_hex(bytes) != *source_sha256) {
    throw ConformanceError("the factory file " + factory_file.string() + " changed while the module was exported "
                           "(its sha256 is no longer the " + *source_sha256 + " the worker imported): run again "
                           "once nothing writes it");
  }
  write_file_atomically(profile_folder / factory_copy_path(factory_file), bytes);
  if (!written_by_check_module(factory_file)) return;
  std::error_code ec;
  const auto pickled = factory_file.parent_path() / kCheckModuleModule;
  std::filesystem::copy_file(pickled, profile_folder / kFactoryCopyFolder / kCheckModuleModule,
                             std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw ConformanceError("cannot copy check_module's " + pickled.string() + ": " + ec.message());
}

}  // namespace nnx
