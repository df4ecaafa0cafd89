#include "base/model_kind.h"

#include <array>
#include <stdexcept>

#include "base/model_record_vocabulary.h"
#include "base/module_record_vocabulary.h"
#include "base/record_vocabulary.h"

namespace nnx {
namespace {

constexpr ModelKindFacts kFeedForward{
    .format = kFormat, .form = RecordForm::brief, .record_keys = rf::kRecordKeys, .profile_class = "built-in",
    .record_noun = "a record", .record_note = "", .exported = true, .native_net = true, .users_model = false,
    .model_member = "", .model_label = "", .model_label_key = "",
    .stored_reference_words = "the PyTorch outputs stored with its artifacts"};
constexpr ModelKindFacts kModule{
    .format = kModuleFormat, .form = RecordForm::named_tensors, .record_keys = rf::kModuleRecordKeys,
    .profile_class = "module", .record_noun = "a module record", .record_note = "", .exported = true,
    .native_net = false, .users_model = true, .model_member = rf::kModule, .model_label = "module",
    .model_label_key = rf::module_key::kFactory,
    .stored_reference_words = "the PyTorch outputs stored with its artifacts"};
constexpr ModelKindFacts kOnnxFile{
    .format = kModelFormat, .form = RecordForm::named_tensors, .record_keys = rf::kModelRecordKeys,
    .profile_class = rf::kKindOnnxFile, .record_noun = "a model record", .record_note = "an imported ONNX file",
    .exported = false, .native_net = false, .users_model = true, .model_member = rf::kModel,
    .model_label = "ONNX file", .model_label_key = rf::model_key::kOnnx,
    .stored_reference_words = "the outputs of its own data sets, stored with its artifacts"};

constexpr std::array<ModelKind, 3> kModelKinds = {ModelKind::feed_forward, ModelKind::module, ModelKind::onnx_file};

}  // namespace

const ModelKindFacts& model_kind_facts(ModelKind kind) {
  switch (kind) {
    case ModelKind::feed_forward: return kFeedForward;
    case ModelKind::module: return kModule;
    case ModelKind::onnx_file: return kOnnxFile;
  }
  throw std::logic_error("model_kind_facts: a model kind without its facts");
}

std::optional<ModelKind> model_kind_of_format(std::string_view format) {
  for (const ModelKind kind : kModelKinds) {
    if (model_kind_facts(kind).format == format) return kind;
  }
  return std::nullopt;
}

const ModelKindFacts& record_kind_facts(std::string_view format) {
  return model_kind_facts(model_kind_of_format(format).value_or(ModelKind::feed_forward));
}

}  // namespace nnx
