// The record's source block (doc/record-format.md §8): a given revision (origin "given"; an empty string
// records null), else the git checkout this software was built from (origin "git", dirty when tracked
// files changed), else origin "unknown" (an installed copy).
#pragma once

#include <optional>
#include <string>

#include "record/record.h"

namespace nnx {

SourceInfo detect_source(const std::optional<std::string>& given_revision);

}  // namespace nnx
