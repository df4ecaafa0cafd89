// Reading a file's bytes with one descriptor (open close-on-exec, fstat, read to the end), as every whole
// file the core reads is read: a report or record (json_strict.h), a profile file (profile/profile_file.h),
// the report a runtime matrix hashes (matrix/run_matrix.h) and the end of a matrix cell's stderr.
//
// `read_file_bytes` refuses a folder and more than `limit` bytes (a regular file's size is checked before
// reading; a file that grows, or a pipe, is never read more than one byte past the limit). `read_file_tail`
// reads at most the last `count` bytes of a regular file (all of anything else). Both throw Error of the
// caller's `kind`, naming the path and why: "cannot open P: No such file or directory", "cannot read P: it
// is a directory", "P holds N bytes, more than <limit_name> of L bytes".
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/error.h"

namespace nnx {

std::string read_file_bytes(const std::filesystem::path& path, std::size_t limit, std::string_view limit_name,
                            ErrorKind kind);

std::string read_file_tail(const std::filesystem::path& path, std::size_t count, ErrorKind kind);

}  // namespace nnx
