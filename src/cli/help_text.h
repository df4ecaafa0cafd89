// What the command line says about itself (doc/cli.md, "Command line"; doc/record-format.md §1): the
// `--version` line, the `--help` footer (every exit code, from base/failure.h and base/error.h, and the
// tested profiles, from profile/profile.h, so neither list is written twice) and the nearest flag or command
// to a mistyped one.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nnx::cli {

// "nnx-conformance <version> (records nnx.export-conformance/1, nnx.module-conformance/1; runtime matrices
// nnx.runtime-matrix/1)": every record format (base/record_vocabulary.h kRecordFormats), then the matrix's.
std::string version_line();

// The --help footer: the exit codes and the tested profiles.
std::string help_footer();

// The known flag or command nearest to `typed` (its part before any '='; e.g. "--outptu" -> "--output",
// "rnu" -> "run"), when one is close enough to be what was meant: the one rule of base/nearest_name.h.
std::optional<std::string> nearest_name(const std::string& typed, const std::vector<std::string>& known);

}  // namespace nnx::cli
