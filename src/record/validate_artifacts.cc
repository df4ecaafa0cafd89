// The artifacts and opset of a record (doc/record-format.md §4 check, §5 artifact paths, §6 artifacts); a
// module record's files may also have the stored tensors' roles (§10).
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>
#include <string>
#include <string_view>

#include "artifacts/artifact_path.h"
#include "artifacts/layout.h"
#include "base/json_fields.h"
#include "base/sha256.h"
#include "record/validate_internal.h"

namespace nnx::validation {
namespace {

bool is_role(const JsonView& role, bool module_roles) {
  for (const char* r : rf::kRoles) {
    if (is_text(role, r)) return true;
  }
  if (!module_roles) return false;
  for (const char* r : rf::kModuleRoles) {
    if (is_text(role, r)) return true;
  }
  return is_text(role, rf::kRoleRepro);
}

std::string role_list(bool module_roles) {
  if (!module_roles) return std::string(rf::kRoleModel) + ", " + rf::kRoleExternalData + " or " + rf::kRoleSidecar;
  std::string out = std::string(rf::kRoleModel) + ", " + rf::kRoleExternalData + ", " + rf::kRoleSidecar;
  for (const char* r : rf::kModuleRoles) out += ", " + std::string(r);
  return out + " or " + rf::kRoleRepro;
}

// What check_artifact_files is given besides the list.
struct FileRules {
  std::string model_path;
  bool checked = false;       // check passed: exactly one model entry
  bool module_roles = false;  // a module record (§10)
};

// One entry's path: valid under the §5 rule and not naming a file listed before (`seen`: normalised path ->
// first index). Returns the normalised path when valid.
std::optional<std::string> check_file_path(const JsonView& path, const std::string& where, std::size_t i,
                                           std::map<std::string, std::size_t>& seen, Problems& out) {
  const auto path_where = [&] { return at(where, rf::file_key::kPath); };
  if (!path.is_string()) {
    out.push_back(path_where() + ": must be a string, not " + json_type_name(path));
    return std::nullopt;
  }
  std::string why;
  std::optional<std::string> normal = normalize_artifact_path(path.string(), &why);
  if (!normal) {
    out.push_back(path_where() + ": " + text_of(path) + " is not a valid artifact path (" + why + ")");
  } else if (auto [it, fresh] = seen.emplace(*normal, i); !fresh) {
    out.push_back(path_where() + ": " + text_of(path) + " names the same file as " + std::string(rf::kArtifacts) + "." +
                  rf::artifacts_key::kFiles + "[" + std::to_string(it->second) + "] (" + quote(*normal) + ")");
  }
  return normal;
}

// One entry's role, size and hash; true when its role is `model`. A known role is appended to `listed`
// beside a valid path.
bool check_file_fields(const JsonView& f, const std::string& where, const std::optional<std::string>& normal,
                       const FileRules& rules, std::vector<ListedFile>& listed, Problems& out) {
  namespace key = rf::file_key;
  const std::string& model_path = rules.model_path;
  bool is_model = false;
  const JsonView role = member(f, key::kRole);
  if (!is_role(role, rules.module_roles)) {
    out.push_back(at(where, key::kRole) + ": unknown role " + text_of(role) + " (" + role_list(rules.module_roles) + ")");
  } else if (is_text(role, rf::kRoleModel)) {
    is_model = true;
    if (normal && *normal != model_path) {
      out.push_back(where + ": role " + quote(rf::kRoleModel) + " but path " + text_of(member(f, key::kPath)) +
                    " is not " + at(rf::kArtifacts, rf::artifacts_key::kModel) + " (" + quote(model_path) + ")");
    }
  } else if (is_text(role, rf::kRoleRepro) && normal &&
             normal->rfind(std::string(rf::kReproFolder) + "/", 0) != 0) {
    out.push_back(where + ": role " + quote(rf::kRoleRepro) + " but path " + text_of(member(f, key::kPath)) +
                  " is not under " + quote(std::string(rf::kReproFolder) + "/"));
  }
  if (normal && is_role(role, rules.module_roles)) listed.push_back({*normal, std::string(role.string()), where});
  const JsonView bytes = member(f, key::kBytes);
  if (!bytes.is_number_integer() || (!bytes.is_number_unsigned() && bytes.integer() < 0)) {
    out.push_back(at(where, key::kBytes) + ": must be a non-negative integer, not " + text_of(bytes));
  }
  const JsonView sha = member(f, key::kSha256);
  if (!sha.is_string() || !is_sha256_hex(sha.string())) {
    out.push_back(at(where, key::kSha256) + ": " + text_of(sha) + " is not 64 lowercase hex digits");
  }
  return is_model;
}

void check_artifact_files(const JsonView& files, const FileRules& rules, std::vector<ListedFile>& listed,
                          Problems& out) {
  const std::string files_where = at(rf::kArtifacts, rf::artifacts_key::kFiles);
  const std::string& model_path = rules.model_path;
  if (!files.is_array()) {
    out.push_back(files_where + ": must be a list, not " + json_type_name(files));
    return;
  }
  std::map<std::string, std::size_t> seen;  // normalised path -> first index
  std::size_t model_entries = 0;
  std::size_t i = 0;
  for (const JsonView f : files.items()) {
    const std::string where = files_where + "[" + std::to_string(i) + "]";
    ++i;
    if (!is_object_or_report(f, where, out)) continue;
    exact_keys(f, where, rf::file_key::kKeys, out);
    const auto normal = check_file_path(member(f, rf::file_key::kPath), where, i - 1, seen, out);
    if (check_file_fields(f, where, normal, rules, listed, out)) ++model_entries;
  }
  if (rules.checked && model_entries != 1) {
    out.push_back(files_where + ": a checked record must list exactly one " + rf::kRoleModel + " entry (" +
                  quote(model_path) + "), found " + std::to_string(model_entries));
  }
}

void check_model_opset(const JsonView& model, Problems& out) {
  const std::string where = at(rf::kOpset, rf::opset_key::kModel);
  if (!model.is_object() || model.empty()) {
    out.push_back(where + ": a checked record must state the model's opset (a non-empty object), not " + text_of(model));
    return;
  }
  std::vector<JsonView::Member> wrong;
  for (const auto& m : model.members()) {
    if (!m.value.is_number_integer()) wrong.push_back(m);
  }
  std::sort(wrong.begin(), wrong.end(), [](const auto& a, const auto& b) { return a.key < b.key; });  // key order
  for (const auto& [domain, version] : wrong) {
    out.push_back(at(where, domain) + ": must be an integer version, not " + text_of(version));
  }
}

}  // namespace

std::vector<ListedFile> check_artifacts(const JsonView& record, const Stages& view, bool module_roles, Problems& out) {
  namespace key = rf::artifacts_key;
  std::vector<ListedFile> listed;
  const JsonView artifacts = record[rf::kArtifacts];
  if (!artifacts.exists()) return listed;
  if (!is_object_or_report(artifacts, rf::kArtifacts, out)) return listed;
  exact_keys(artifacts, rf::kArtifacts, key::kKeys, out);
  const JsonView directory = artifacts[key::kDirectory];
  if (directory.exists() && !directory.is_string()) {
    out.push_back(at(rf::kArtifacts, key::kDirectory) + ": must be a string, not " + json_type_name(directory));
  }
  const JsonView model = artifacts[key::kModel];
  if (model.exists() && !model.is_text(kModelFile)) {
    out.push_back(at(rf::kArtifacts, key::kModel) + ": must be " + quote(kModelFile) + ", not " + text_of(model));
  }
  const FileRules rules{kModelFile, stage(view, Stage::check).status == StageStatus::passed, module_roles};
  const JsonView files = artifacts[key::kFiles];
  if (files.exists()) check_artifact_files(files, rules, listed, out);
  return listed;
}

void check_opset(const JsonView& record, const Stages& view, Problems& out) {
  namespace key = rf::opset_key;
  const JsonView opset = record[rf::kOpset];
  if (!opset.exists()) return;
  if (!is_object_or_report(opset, rf::kOpset, out)) return;
  exact_keys(opset, rf::kOpset, key::kKeys, out);
  if (const JsonView requested = opset[key::kRequested]; requested.exists()) {
    const auto where = [] { return at(rf::kOpset, key::kRequested); };
    const JsonView options = member(member(record, rf::kExporter), rf::exporter_key::kOptions);
    const JsonView wanted = member(options, rf::exporter_key::kOptionOpsetVersion);
    if (!requested.is_number_integer()) {
      out.push_back(where() + ": must be an integer, not " + text_of(requested));
    } else if (options.is_object() && (!wanted.is_number_integer() || !(requested == wanted))) {  // integers by value
      out.push_back(where() + ": " + text_of(requested) + " is not the options' integer " +
                    rf::exporter_key::kOptionOpsetVersion + " (" + text_of(wanted) + ")");
    }
  }
  const auto& check = stage(view, Stage::check);
  const JsonView model = opset[key::kModel];
  if (!model.exists() || !check.status) return;
  if (check.status != StageStatus::passed) {
    if (!model.is_null()) out.push_back(at(rf::kOpset, key::kModel) + ": must be null until check passed");
    return;
  }
  check_model_opset(model, out);
}

}  // namespace nnx::validation
