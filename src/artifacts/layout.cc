#include "artifacts/layout.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "base/error.h"
#include "base/record_vocabulary.h"

namespace nnx {
namespace fs = std::filesystem;
namespace {

// Clearing profile folders through a symlinked root would act on what it points to.
void refuse_symlinked_root(const fs::path& root) {
  std::error_code ec;
  if (fs::symlink_status(root, ec).type() == fs::file_type::symlink && !ec) {
    throw UsageError("refusing to clear profile folders in the symlinked artifacts folder " + root.string());
  }
}

}  // namespace

bool is_plain_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

std::optional<std::string> profile_name_problem(const std::string& name) {
  if (name.size() > kMaxFolderNameBytes) {
    return "profile name \"" + name.substr(0, 32) + "...\" is " + std::to_string(name.size()) +
           " bytes long; its folder's name may have at most " + std::to_string(kMaxFolderNameBytes) + ": shorten it";
  }
  if (!is_plain_name(name)) return "profile name \"" + name + "\" is not a plain name ([A-Za-z0-9._-]+, not . or ..)";
  if (name == kModulesFolder) {
    return "profile name \"" + name + "\" is the artifacts root's folder of check_module's saved modules: choose "
           "another name";
  }
  return std::nullopt;
}

std::string test_input_path(std::size_t match_case, std::size_t input) {
  return "test_data_set_" + std::to_string(match_case) + "/input_" + std::to_string(input) + ".pb";
}

std::string test_data_set_folder(std::size_t match_case) { return "test_data_set_" + std::to_string(match_case); }

std::string oracle_data_set_folder(std::size_t match_case) { return "oracle_data_set_" + std::to_string(match_case); }

std::string test_output_path(std::size_t match_case, std::size_t output) {
  return test_data_set_folder(match_case) + "/output_" + std::to_string(output) + ".pb";
}

std::string oracle_output_path(std::size_t match_case, std::size_t output) {
  return oracle_data_set_folder(match_case) + "/output_" + std::to_string(output) + ".pb";
}

std::string refusal_input_path(const std::string& case_name, std::size_t input) {
  return "refusal_cases/" + case_name + "/input_" + std::to_string(input) + ".pb";
}

namespace {

// Whether `text` is `<prefix><digits>` with no leading zero (or exactly "0").
bool numbered(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  const std::string_view digits = text.substr(prefix.size());
  if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) return false;
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool numbered_pb(std::string_view file, std::string_view prefix) {
  return file.ends_with(".pb") && numbered(file.substr(0, file.size() - 3), prefix);
}

}  // namespace

const char* stored_tensor_role(const std::string& relative_path) {
  const std::string_view path = relative_path;
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return nullptr;
  const std::string_view folder = path.substr(0, slash);
  const std::string_view file = path.substr(slash + 1);
  if (numbered(folder, "test_data_set_")) {
    if (numbered_pb(file, "input_")) return rf::kRoleTestInput;
    if (numbered_pb(file, "output_")) return rf::kRoleTestOutput;
    return nullptr;
  }
  if (numbered(folder, "oracle_data_set_")) return numbered_pb(file, "output_") ? rf::kRoleOracleOutput : nullptr;
  if (folder.starts_with("refusal_cases/")) {
    const std::string case_name(folder.substr(std::string_view("refusal_cases/").size()));
    return is_plain_name(case_name) && numbered_pb(file, "input_") ? rf::kRoleRefusalInput : nullptr;
  }
  return nullptr;
}

bool is_stored_tensor_folder(const std::string& relative_folder) {
  const std::string_view folder = relative_folder;
  if (numbered(folder, "test_data_set_") || numbered(folder, "oracle_data_set_") || folder == "refusal_cases") {
    return true;
  }
  return folder.starts_with("refusal_cases/") &&
         is_plain_name(std::string(folder.substr(std::string_view("refusal_cases/").size())));
}

fs::path profile_folder(const fs::path& root, const std::string& name) { return root / name; }

fs::path default_artifacts_root(const fs::path& report_path) {
  return report_path.parent_path() / (report_path.stem().string() + "-artifacts");
}

void check_artifact_root(const fs::path& root, bool clearing) {
  if (clearing) refuse_symlinked_root(root);
  std::error_code ec;
  if (fs::exists(root, ec) && !fs::is_directory(root, ec)) {
    throw UsageError("the artifacts folder " + root.string() + " exists and is not a folder");
  }
}

void require_profile_folder_exists(const fs::path& root, const std::string& name) {
  std::error_code ec;
  const auto root_status = fs::status(root, ec);
  if (root_status.type() == fs::file_type::not_found) {
    throw UsageError("the artifacts root " + root.string() + " does not exist: name the folder the run wrote "
                     "(its report's \"artifacts:\" line)");
  }
  if (!ec && root_status.type() != fs::file_type::directory) {
    throw UsageError("the artifacts root " + root.string() + " is not a folder: name the folder the run wrote");
  }
  const auto folder = profile_folder(root, name);
  if (!ec && fs::symlink_status(folder, ec).type() == fs::file_type::not_found) {
    throw UsageError("the artifacts root " + root.string() + " holds no profile folder " + name + " (" +
                     folder.string() + " does not exist): is it the root the run wrote?");
  }
}

void require_free_profile_folder(const fs::path& root, const std::string& name) {
  std::error_code ec;
  const auto folder = profile_folder(root, name);
  const auto st = fs::symlink_status(folder, ec);
  if (ec || st.type() == fs::file_type::not_found) return;
  if (st.type() != fs::file_type::directory) {
    throw FolderInUse("profile folder " + folder.string() + " exists and is not a folder");
  }
  if (!fs::is_empty(folder, ec) || ec) {
    throw FolderInUse("profile folder " + folder.string() + " already holds files");
  }
}

void clear_profile_folder(const fs::path& root, const std::string& name) {
  refuse_symlinked_root(root);
  std::error_code ec;
  const auto folder = profile_folder(root, name);
  const auto fst = fs::symlink_status(folder, ec);
  if (ec || fst.type() == fs::file_type::not_found) return;
  if (fst.type() == fs::file_type::symlink) {
    throw UsageError("refusing to clear the symlinked profile folder " + folder.string());
  }
  fs::remove_all(folder, ec);
  if (ec) throw std::runtime_error("cannot clear " + folder.string() + ": " + ec.message());
}

}  // namespace nnx
