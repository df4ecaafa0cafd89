// A module profile's factory carried with its artifacts, so that a report moved to another folder still finds
// the code it was made from (doc/record-format.md §10, "The factory's file").
//
// After a module's export, the factory's FILE.py (the bytes the worker imported: `source_sha256`) is copied
// into the profile folder as `factory/<name>` (its own file name when that is a plain name, else
// `factory/factory.py`); a factory check_module wrote (`<root>/.nnx-modules/<name>/factory.py`) brings the
// module it loads, `factory/module.pt`. The check stage lists them as sidecars, so they are hashed and
// verified like every artifact. A package.module factory names no file: nothing is copied.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace nnx {

// A factory file is Python source: far below this; a bigger one is not read whole.
inline constexpr std::size_t kMaxFactoryFileBytes = std::size_t{64} << 20;

// The copy of `factory_file` relative to its profile folder ('/'-separated): factory/<name>.
std::string factory_copy_path(const std::filesystem::path& factory_file);

// Copies `factory_file` (and check_module's module.pt) into `profile_folder`. Throws ConformanceError when
// its bytes do not hash to `source_sha256` (the file changed after the worker imported it), Error when it
// cannot be read or a copy cannot be written.
void copy_factory(const std::filesystem::path& factory_file, const std::filesystem::path& profile_folder,
                  const std::optional<std::string>& source_sha256);

}  // namespace nnx
