// Every artifact path and folder rule, in one place (like LevelDB's db/filename.h; doc/record-format.md §1,
// §5 artifact path rule, §7, §8).
//
//   <root>/                    the artifacts root a run is given (default: next to the report, see below);
//                              locked by the run that writes into it (root_lock.h), never holding a file of
//                              ours besides the profile folders and check_module's folder below
//   <root>/<name>/             a profile's folder: <name> is a profile name (profile_name_problem below)
//   <root>/.nnx-modules/<name>/  Python's check_module keeps a module's module.pt and factory.py here
//                              (python/nnx/_module_check.py), so no profile may be named .nnx-modules
//   <root>/<name>/model.onnx   the model file; every other file the exporter wrote is listed in the record
//                              by its '/'-separated path relative to the profile folder (artifact_path.h)
//   a module profile's stored tensors (doc/record-format.md §10), ONNX's own test-data layout:
//   <root>/<name>/test_data_set_<k>/input_<j>.pb    input j of the k-th case expected to match (TensorProto)
//   <root>/<name>/test_data_set_<k>/output_<j>.pb   PyTorch's output j for it (the reference)
//   <root>/<name>/oracle_data_set_<k>/output_<j>.pb the float64 oracle's output j for it
//   <root>/<name>/refusal_cases/<case>/input_<j>.pb input j of a case the runtime must refuse (no outputs)
//   <root>/<name>/factory/<file>                    a copy of the module's factory file (factory_copy.h)
//
// A run refuses, before anything is written, a profile folder that exists as a file or holds files (unless
// it may clear it); clearing refuses a symlinked root or profile folder (it would act on the target). The
// checks never follow a link. Messages state the problem; front ends add how to allow clearing.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace nnx {

inline constexpr const char* kModelFile = "model.onnx";

// A plain name matches [A-Za-z0-9._-]+ and is neither "." nor "..".
bool is_plain_name(const std::string& name);
// The longest name one folder may have (Linux's NAME_MAX): a profile's name is its folder's.
inline constexpr std::size_t kMaxFolderNameBytes = 255;
inline constexpr const char* kModulesFolder = ".nnx-modules";

// The one rule for a profile's name, which is its folder's under the root (and check_module's module folder's):
// a plain name of at most kMaxFolderNameBytes bytes, not kModulesFolder. The problem in words, or nullopt.
std::optional<std::string> profile_name_problem(const std::string& name);

// A module profile's stored tensors, relative to its profile folder ('/'-separated), and their roles in the
// artifact manifest (rf::kRoleTestInput, ...; nullptr for any other path).
std::string test_input_path(std::size_t match_case, std::size_t input);
// The folders of a match case's outputs and of their float64 oracle copies: the worker writes output_<j>.pb
// in each (worker/TENSORS.md, "Case tensors as files"), the paths below.
std::string test_data_set_folder(std::size_t match_case);
std::string oracle_data_set_folder(std::size_t match_case);
std::string test_output_path(std::size_t match_case, std::size_t output);
std::string oracle_output_path(std::size_t match_case, std::size_t output);
std::string refusal_input_path(const std::string& case_name, std::size_t input);
const char* stored_tensor_role(const std::string& relative_path);
// Whether a folder of the profile folder is one the stored tensors lie in (test_data_set_<k>, oracle_data_set_<k>,
// refusal_cases and refusal_cases/<case>).
bool is_stored_tensor_folder(const std::string& relative_folder);

// <root>/<name> for a plain name (the caller has checked it).
std::filesystem::path profile_folder(const std::filesystem::path& root, const std::string& name);

// The default artifacts root of a report: <report folder>/<report stem>-artifacts.
std::filesystem::path default_artifacts_root(const std::filesystem::path& report_path);

// Refuses an artifacts root that exists but is not a folder (UsageError) and, when it is to be cleared, a
// symlinked root (UsageError).
void check_artifact_root(const std::filesystem::path& root, bool clearing);

// Before a record's artifacts are read (verify, execute, a runtime matrix): an artifacts root that is not an
// existing folder, or a profile folder <root>/<name> that does not exist, is a mistyped path, not a tampered
// file: UsageError (exit 2) naming the path. A profile folder that exists as a symlink or a file is left to
// verify_artifacts (its problem `<name>: a symlink`, a hash-mismatch). doc/record-format.md §7.
void require_profile_folder_exists(const std::filesystem::path& root, const std::string& name);

// Refuses a profile folder that exists as a file or a non-empty folder (FolderInUse).
void require_free_profile_folder(const std::filesystem::path& root, const std::string& name);

// Removes <root>/<name> (a missing folder is fine); refuses a symlinked root or profile folder (UsageError).
void clear_profile_folder(const std::filesystem::path& root, const std::string& name);

}  // namespace nnx
