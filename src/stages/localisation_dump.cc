// The reference side of a matrix's parting (localisation_dump.h).
#include "stages/localisation_dump.h"

#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/json_strict.h"
#include "onnx_file/tensor_proto.h"
#include "stages/localisation_levels.h"
#include "stages/module_localisation.h"
#include "stages/stages.h"

namespace nnx {

using nlohmann::json;
using namespace localisation;

const RecordCase& case_named(const Record& record, const std::string& name) {
  for (const auto& c : record.input_cases) {
    if (c.name == name) return c;
  }
  throw ConformanceError("the record holds no case named " + name);
}

void dump_runtime_values(StageContext& context, const std::string& case_name, const std::filesystem::path& folder) {
  const RecordCase& c = case_named(context.record, case_name);
  VerifiedModel verified = verified_model(context);
  const Subject subject = subject_of(context, c, verified);
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& node : subject.outline.nodes) {
    for (const auto& out : node.outputs) {
      if (!out.empty() && seen.insert(out).second) names.push_back(out);
    }
  }
  std::filesystem::create_directories(folder / "values");
  json index = json::array();
  for (std::size_t start = 0; start < names.size(); start += kDumpGroup) {
    const std::vector<std::string> group(names.begin() + start,
                                         names.begin() + std::min(names.size(), start + kDumpGroup));
    std::vector<Tensor> outputs = run_marked(subject, "ORT_DISABLE_ALL", group);
    const std::set<std::string> wanted(group.begin(), group.end());
    for (Tensor& t : outputs) {
      if (!wanted.count(t.name)) continue;
      const std::string file = "values/" + std::to_string(index.size()) + ".pb";
      write_file_atomically(folder / file, encode_tensor_proto(t));
      index.push_back({{"name", t.name}, {"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}, {"file", file}});
      t = Tensor{};
    }
  }
  write_file_atomically(folder / "index.json", json{{"values", index}}.dump() + "\n");
}

ReferenceValues read_runtime_values(const std::filesystem::path& folder, const std::string& label) {
  const json index = parse_strict_json(
      read_file_bytes(folder / "index.json", std::size_t{64} << 20, "a parting's value index", ErrorKind::refused));
  ReferenceValues out;
  out.folder = folder;
  out.computed_by = label;
  out.granularity = "value";
  out.oracle_missing = "the reference cell's values are ONNX Runtime's own float32 values: no float64 copy";
  out.skipped = json::array();
  out.step_seconds = json::array();
  for (const auto& entry : index.at("values")) {
    ReferenceValue v;
    v.name = entry.at("name").get<std::string>();
    const auto dtype = parse_dtype(entry.at("dtype").get<std::string>());
    if (!dtype) throw ConformanceError("value " + v.name + ": a dtype the core does not know");
    v.dtype = *dtype;
    v.shape = entry.at("shape").get<std::vector<std::int64_t>>();
    v.file = entry.at("file").get<std::string>();
    if (v.file.rfind("values/", 0) != 0 || v.file.find("..") != std::string::npos) {
      throw ConformanceError("value " + v.name + ": a file outside the values folder");
    }
    out.values.push_back(std::move(v));
  }
  return out;
}

}  // namespace nnx
