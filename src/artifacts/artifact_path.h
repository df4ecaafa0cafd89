// The artifact path rule (doc/record-format.md §5): a non-empty relative '/'-separated path without '\' or ':',
// not absolute, and after normalisation (collapse '//' and '.', resolve 'x/..') not '.', '..' and not
// starting with '../'. The normalised path is the one used.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nnx {

// The normalised path, or nullopt with the reason in `why`.
std::optional<std::string> normalize_artifact_path(std::string_view path, std::string* why = nullptr);

}  // namespace nnx
