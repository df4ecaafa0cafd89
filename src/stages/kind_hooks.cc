#include "stages/kind_hooks.h"

#include <stdexcept>

#include "stages/onnx_file_stages.h"
#include "stages/stages.h"

namespace nnx {
namespace {

constexpr KindStages kFeedForward{export_with_worker, check_with_worker, feedfwd_export, feedfwd_parity};
constexpr KindStages kModule{export_with_worker, check_with_worker, module_export, module_parity};
constexpr KindStages kOnnxFile{run_onnx_import_stage, run_onnx_file_check_stage, imported_file_export, module_parity};

}  // namespace

const KindStages& kind_stages(ModelKind kind) {
  switch (kind) {
    case ModelKind::feed_forward: return kFeedForward;
    case ModelKind::module: return kModule;
    case ModelKind::onnx_file: return kOnnxFile;
  }
  throw std::logic_error("kind_stages: a model kind without its stages");
}

}  // namespace nnx
