// The `model` of an nnx.model-conformance/1 record (doc/record-format.md §11; validate_module.h): the kind's
// variant. The one kind written today is "onnx-file": exactly {kind, onnx, data, factory, bind, class,
// source_sha256, state_sha256}, onnx a non-empty string, data (a string) or factory (a non-empty
// string) or both set (both: the data sets gave inputs, the factory the reference), bind {graph input: parameter}, the identity null without a factory or an export. Once the export (the import) passed, its detail's `imported` names the
// same source and states the sha256 of the bytes it copied; once check passed, that is the sha256 the
// manifest lists for the model file (the copy is the file named, byte for byte).
#include "base/model_record_vocabulary.h"
#include "base/sha256.h"
#include "record/validate_module.h"

namespace nnx::validation {
namespace {

namespace model_key = rf::model_key;
namespace imported = rf::imported_key;

// The manifest's sha256 of the model file, or "".
std::string listed_model_sha256(const JsonView& record) {
  const JsonView artifacts = record[rf::kArtifacts];
  const JsonView model = artifacts[rf::artifacts_key::kModel];
  for (const JsonView file : artifacts[rf::artifacts_key::kFiles].items()) {
    if (model.is_string() && file[rf::file_key::kPath].is_text(model.string()) && file[rf::file_key::kSha256].is_string()) {
      return std::string(file[rf::file_key::kSha256].string());
    }
  }
  return "";
}

void check_imported(const JsonView& record, const JsonView& variant, const Stages& view, Problems& out) {
  if (stage(view, Stage::export_model).status != StageStatus::passed) return;
  const std::string where = at(at(at(rf::kStages, "export"), rf::stage_key::kDetail), imported::kImported);
  const JsonView detail = record[rf::kStages]["export"][rf::stage_key::kDetail][imported::kImported];
  if (!is_object_or_report(detail, where, out)) return;
  if (!(detail[imported::kSource] == variant[model_key::kOnnx])) {
    out.push_back(at(where, imported::kSource) + ": " + text_of(detail[imported::kSource]) + " is not " +
                  at(rf::kModel, model_key::kOnnx) + " " + text_of(variant[model_key::kOnnx]));
  }
  const JsonView sha = detail[imported::kSha256];
  if (!sha.is_string() || !is_sha256_hex(sha.string())) {
    out.push_back(at(where, imported::kSha256) + ": " + text_of(sha) + " is not 64 lowercase hex digits");
    return;
  }
  if (stage(view, Stage::check).status != StageStatus::passed) return;
  if (const std::string listed = listed_model_sha256(record); listed != sha.string()) {
    out.push_back(at(where, imported::kSha256) + ": " + text_of(sha) + " is not the sha256 artifacts.files lists for " +
                  "the model file (" + (listed.empty() ? std::string("none") : listed) + ")");
  }
}

// class and the digests: null without a factory and while the export did not run, else §10's module rule.
void check_identity(const JsonView& m, bool no_factory, const Stages& view, Problems& out) {
  const bool not_exported = stage(view, Stage::export_model).status == StageStatus::not_run;
  for (const char* k : {rf::module_key::kClass, rf::module_key::kSourceSha256, rf::module_key::kStateSha256}) {
    const JsonView v = m[k];
    if (!v.exists() || v.is_null()) continue;
    if (no_factory || not_exported) {
      out.push_back(at(rf::kModel, k) + ": must be null " + (no_factory ? "without a factory" : "while the export did not run"));
    } else if (!v.is_string() || (k != rf::module_key::kClass && !is_sha256_hex(v.string()))) {
      out.push_back(at(rf::kModel, k) + ": " + text_of(v) + " is neither null nor " +
                    (k == rf::module_key::kClass ? "a string" : "64 lowercase hex digits"));
    }
  }
}

}  // namespace

void check_model_variant(const JsonView& record, const Stages& view, Problems& out) {
  const JsonView m = record[rf::kModel];
  if (!m.exists() || !is_object_or_report(m, rf::kModel, out)) return;
  if (!m[model_key::kKind].is_text(rf::kKindOnnxFile)) {
    out.push_back(at(rf::kModel, model_key::kKind) + ": must be \"" + rf::kKindOnnxFile + "\" or \"" + rf::kKindBuiltIn +
                  "\", not " + text_of(m[model_key::kKind]));
    return;
  }
  exact_keys(m, rf::kModel, model_key::kOnnxFileKeys, out);
  if (const JsonView onnx = m[model_key::kOnnx]; onnx.exists() && (!onnx.is_string() || onnx.string().empty())) {
    out.push_back(at(rf::kModel, model_key::kOnnx) + ": must be a non-empty string, not " + text_of(onnx));
  }
  if (const JsonView data = m[model_key::kData]; data.exists() && !data.is_null() && !data.is_string()) {
    out.push_back(at(rf::kModel, model_key::kData) + ": must be null or a string, not " + text_of(data));
  }
  const JsonView factory = m[model_key::kFactory];
  if (factory.exists() && !factory.is_null() && (!factory.is_string() || factory.string().empty())) {
    out.push_back(at(rf::kModel, model_key::kFactory) + ": must be null or a non-empty string, not " +
                  text_of(factory));
  }
  if (factory.is_null() && m[model_key::kData].is_null()) {
    out.push_back(std::string(rf::kModel) + ": names neither data nor factory; one is what the file is compared with");
  }
  if (const JsonView bind = m[model_key::kBind]; bind.exists() && is_object_or_report(bind, at(rf::kModel, model_key::kBind), out)) {
    for (const auto& [graph, parameter] : bind.members()) {
      if (!parameter.is_string() || parameter.string().empty()) {
        out.push_back(at(at(rf::kModel, model_key::kBind), graph) + ": must be a parameter's name, not " + text_of(parameter));
      }
    }
  }
  check_identity(m, factory.is_null(), view, out);
  check_imported(record, m, view, out);
}

}  // namespace nnx::validation
