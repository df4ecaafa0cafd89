// A module profile's case tensors: drawn, written and read back (module_tensors.h).
#include "stages/module_tensors.h"

#include <set>
#include <system_error>

#include "artifacts/artifact_folder.h"
#include "artifacts/layout.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "onnx_file/tensor_proto.h"
#include "profile/data_set_folder.h"

namespace nnx {

std::vector<Tensor> draw_case_inputs(const ModuleSpec& spec, const ModuleCase& c) {
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    const InputSpec& in = spec.inputs[i];
    inputs.push_back(draw_input(in.name, in.dtype, c.input_shapes[i], input_seed(c.seed, i), in.range));
  }
  if (c.data_set) {  // the inputs its data set gives, read again (a file that changed is refused)
    for (const GivenInput& given : spec.given.at(*c.data_set).inputs) {
      inputs[given.input] = reread_data_set_tensor(given.source, given.dtype, given.shape, spec.inputs[given.input].name);
    }
  }
  return inputs;
}

void write_stored_tensor(const std::filesystem::path& folder, const std::string& relative, const Tensor& tensor) {
  const auto path = folder / relative;
  std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, encode_tensor_proto(tensor));
}

void discard_unnamed_stored_tensors(const std::filesystem::path& folder,
                                    std::optional<std::reference_wrapper<const Record>> record) {
  std::set<std::string> named;
  if (record) {
    for (const RecordCase& c : record->get().input_cases) {
      if (!c.module()) continue;
      for (const CaseTensor& in : c.module()->inputs) named.insert(in.file);
      if (!c.module()->outputs) continue;
      for (const CaseTensor& out : *c.module()->outputs) {
        named.insert(out.file);
        if (out.oracle_file) named.insert(*out.oracle_file);
      }
    }
  }
  std::vector<FolderEntry> entries;
  try {
    entries = list_folder(folder);
  } catch (const std::exception&) {
    return;  // no folder (or none readable): nothing of ours to discard
  }
  std::error_code ec;
  for (const FolderEntry& e : entries) {
    if (e.kind == EntryKind::regular && stored_tensor_role(e.path) != nullptr && !named.count(e.path)) {
      std::filesystem::remove(folder / e.path, ec);
    }
  }
  for (auto e = entries.rbegin(); e != entries.rend(); ++e) {  // deepest first: a folder after what it holds
    if (e->kind == EntryKind::directory && is_stored_tensor_folder(e->path)) {
      std::filesystem::remove(folder / e->path, ec);  // only when left empty
    }
  }
}

namespace {

// `t`, read from `relative`, when it is what the record says (`expected`); ConformanceError otherwise.
Tensor as_recorded(Tensor t, const CaseTensor& expected, const std::string& relative) {
  if (t.name != expected.name || dtype_name(t.dtype) != expected.dtype || t.shape != expected.shape) {
    throw ConformanceError("the stored tensor " + relative + " is " + t.name + " " + std::string(dtype_name(t.dtype)) +
                           " " + shape_text(t.shape) + ", not the record's " + expected.name + " " + expected.dtype +
                           " " + shape_text(expected.shape));
  }
  return t;
}

Tensor read_stored(const StoredTensors& stored, const std::string& relative) {
  return decode_tensor_proto(stored.read(relative), relative, module_limits::kMaxTensorBytes);
}

}  // namespace

Tensor stored_oracle(const StoredTensors& stored, const CaseTensor& expected, const std::string& relative) {
  Tensor t = read_stored(stored, relative);
  CaseTensor as_oracle = expected;
  as_oracle.dtype = std::string(dtype_name(DType::float64));
  as_oracle.shape = t.shape;  // any shape: its parity decides whether it fits (a data-dependent shape need not)
  return as_recorded(std::move(t), as_oracle, relative);
}

Tensor stored_tensor(const StoredTensors& stored, const CaseTensor& expected, const std::string& relative) {
  return as_recorded(read_stored(stored, relative), expected, relative);
}

}  // namespace nnx
