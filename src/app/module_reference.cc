// PyTorch's outputs recomputed for a module record's stored inputs (module_reference.h).
#include "app/module_reference.h"

#include <filesystem>

#include "stages/module_tensors.h"
#include "worker/tensor_wire.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;

json reference_request(const Record& record, const StageContext& context, OutgoingFrames& frames) {
  ModuleSpec spec;
  spec.factory = record.module->factory;
  const auto file = spec.factory_file();
  json cases = json::array();
  for (const auto& c : record.input_cases) {
    if (c.expect != rf::kExpectMatch) continue;
    json inputs = json::array();
    for (const auto& in : c.module->inputs) inputs.push_back(frames.own(stored_tensor(context.stored, in, in.file)));
    cases.push_back({{wire::kName, c.name}, {wire::kInputs, inputs}});
  }
  return json{{wire::kOp, wire::kOpModuleReference},
              {wire::kFactory, spec.factory},
              {wire::kFactoryPath, file ? json(std::filesystem::absolute(*file).string()) : json()},
              {wire::kInputs, record.module->inputs},
              {wire::kOutputNames, record.module->outputs},
              {wire::kCases, cases}};
}

std::string refusal_of(const Record& record, const json& answer) {
  if (const json e = answer.value(wire::kImportError, json()); e.is_string()) {
    return "the module " + record.module->factory + " does not import: " + e.get<std::string>();
  }
  if (const json e = answer.value(wire::kException, json()); e.is_string()) return e.get<std::string>();
  const json state = answer.value(wire::kModuleIdentity, json()).value("state_sha256", json());
  if (state != record.module->state_sha256) {
    return "the factory now builds a module whose state_sha256 is " + state.dump() + ", not the record's " +
           record.module->state_sha256.dump();
  }
  return "";
}

}  // namespace

void recompute_module_references(StageContext& context) {
  const Record& record = context.record;
  std::map<std::string, std::vector<Tensor>> references;
  try {
    OutgoingFrames sent;
    const json request = reference_request(record, context, sent);
    WorkerReply reply = context.exporter->reference(request, sent);
    const json& answer = reply.body;
    AnswerFrames frames(std::move(reply.frames));
    context.module_reference_missing = refusal_of(record, answer);
    if (context.module_reference_missing.empty()) {
      for (const auto& c : answer.at(wire::kReferences)) {
        std::vector<Tensor> outputs;
        for (const auto& t : c.at(wire::kOutputs)) {
          outputs.push_back(frames.take(t, "reference outputs"));
        }
        references[c.at(wire::kName).get<std::string>()] = std::move(outputs);
      }
    }
  } catch (const WorkerError& e) {
    context.module_reference_missing = std::string("the torch reference could not be computed: ") + e.what();
  } catch (const ConformanceError& e) {
    context.module_reference_missing = std::string("the stored inputs cannot be read: ") + e.what();
  }
  context.module_references = std::move(references);
}

}  // namespace nnx
