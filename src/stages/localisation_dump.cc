// The reference side of a matrix's parting (localisation_dump.h).
#include "stages/localisation_dump.h"

#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "onnx_file/tensor_proto.h"
#include "stages/localisation_levels.h"
#include "stages/module_localisation.h"
#include "stages/stages.h"
#include "worker/worker_protocol.h"

namespace nnx {

using nlohmann::json;
using namespace localisation;
namespace wire = worker_protocol;

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
      index.push_back({{wire::kName, t.name}, {wire::kDType, std::string(dtype_name(t.dtype))}, {wire::kShape, t.shape},
                       {wire::kFile, file}});
      t = Tensor{};
    }
  }
  const json answer{{wire::kValues, index}, {wire::kGranularity, "value"}, {wire::kSkipped, json::array()},
                    {wire::kOracleMissing, "the reference cell's values are ONNX Runtime's own float32 values: no "
                                           "float64 copy"}};
  write_file_atomically(folder / kDumpIndex, answer.dump() + "\n");
}

}  // namespace nnx
