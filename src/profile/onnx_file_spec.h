// An ONNX-file profile's model (doc/record-format.md §11; doc/profile-files.md, "Your own ONNX file"): a
// model file the user already holds, named by `"onnx": "path/model.onnx"` (its external data beside it), and
// `"data": FOLDER` holding ONNX Runtime's onnx_test_runner layout, `test_data_set_<N>/input_<j>.pb` and
// `output_<j>.pb` (TensorProto files: onnx_file/tensor_proto.h). Relative paths are resolved against the
// current folder; a profile file's reader has already made them absolute from the file's folder, as a module
// profile's factory file (profile/profile_file.h, the one path rule).
//
// `read_onnx_file_spec` reads the file's graph (its inputs, outputs, opsets and producer fields) and every data
// set when the profile is read, so that what does not fit is a profile problem (exit 2) before anything runs:
// a spec input the graph lacks or a graph input the spec leaves out (naming both lists), a data set whose
// tensors are not the graph's inputs and outputs (bound by their TensorProto name, or by position when a file
// names none), a .pb that does not parse or is over module_limits (hostile bytes are refused, never crash),
// no data set, more than module_limits::kMaxCases. The graph's inputs become the profile's ModuleSpec (a
// dimension the file names is a dim of that name, an unknown one `<input>.<axis>`; each dim's values are those
// the data sets give), and each data set one case expected to match, in N's order; its reference is the
// data set's outputs (ReferenceKind::stored). Import (stages/onnx_file_stages.h) copies the file, its
// external data and the data sets into the profile's folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "onnx_file/onnx_model_file.h"
#include "profile/data_set_folder.h"
#include "profile/module_spec.h"

namespace nnx {

// One tensor of a data set as the profile read it: the source file, and the graph value it is bound to.
struct DataSetTensor {
  std::string source;  // the .pb file, as found under the data folder
  std::string name;    // the graph's input or output it is bound to
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
};

struct OnnxDataSet {
  std::string folder;  // "test_data_set_<N>" as found
  std::vector<DataSetTensor> inputs;   // in the graph's input order
  std::vector<DataSetTensor> outputs;  // in the graph's output order
};

struct OnnxFileSpec {
  std::string onnx;  // as the profile names it
  std::string data;  // as the profile names it, or "": with a factory, its data sets give inputs (given_inputs.h)
  std::string factory;  // `"module"`: the factory the file is checked against (module_factory.h), or ""
  // `"bind"`: graph input -> the forward parameter it is given to, where the names differ (the others are
  // given to the parameter of their own name)
  std::vector<std::pair<std::string, std::string>> bind;
  std::int64_t opset = 0;  // the file's default-domain opset
  std::vector<std::string> graph_inputs;
  std::vector<std::string> graph_outputs;
  std::vector<OnnxDataSet> data_sets;  // in N's order
  std::vector<ModuleCase> cases;       // one per data set, expected to match

  // Each graph input's forward parameter, in graph input order (bind applied).
  std::vector<std::string> parameters() const;
  // The record's `model` (§11): {kind, onnx, data, factory, bind, class, source_sha256, state_sha256}, the
  // last three null here (the export fills them in the record).
  nlohmann::json variant() const;
};

// The file an external-data location of the model at `model` names: the location must follow the artifact path
// rule (relative, no `..` out of its folder, no '\\' or ':'; artifacts/artifact_path.h) and no component of it
// below the model's folder may be a symlink. ConformanceError naming the location and why otherwise.
std::filesystem::path imported_external_file(const std::filesystem::path& model, const std::string& location);

// The model file at `model` read from its `bytes`: its external data read from the files beside it
// (imported_external_file, which every location it references must pass, read or not), sizes checked
// (onnx_file/onnx_model_file.h, FloatValues::sizes_only). An unreadable file is an Error of `kind`.
OnnxModelFile read_imported_model(const std::filesystem::path& model, std::span<const std::byte> bytes, ErrorKind kind);

// The most bytes an imported model file (and each of its external-data files) may hold.
inline constexpr std::uint64_t kMaxImportedFileBytes = std::uint64_t{4} << 30;

// The model file at `model` read from disk (at most kMaxImportedFileBytes) by read_imported_model: the one
// reading of an imported file the profile check and the check stage share. An unreadable file is an Error of
// `kind`.
OnnxModelFile read_imported_model_file(const std::filesystem::path& model, ErrorKind kind);

// Reads `onnx` and, unless `data` is "", `data` (and checks the spec's `inputs` names when given) into a spec and the ModuleSpec of
// its graph; appends every problem.
OnnxFileSpec read_onnx_file_spec(const std::string& onnx, const std::string& data,
                                 const std::vector<std::string>* spec_inputs, ModuleSpec& signature,
                                 std::vector<std::string>& problems);

}  // namespace nnx
