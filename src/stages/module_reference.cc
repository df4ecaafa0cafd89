// A module record's torch reference under execute --reference torch (module_reference.h).
#include "stages/module_reference.h"

#include <iostream>

#include "artifacts/factory_copy.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/model_record_vocabulary.h"
#include "base/module_record_vocabulary.h"
#include "base/sha256.h"
#include "profile/module_spec.h"
#include "stages/module_tensors.h"
#include "worker/tensor_wire.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;
namespace module_key = rf::module_key;

// What the torch reference rebuilds: a module record's own keys (§10), or an imported ONNX file's model variant
// (§11), whose graph inputs go to the forward parameters its `bind` names (the others to their own names).
struct ReferenceIdentity {
  std::string factory;  // "" for a file checked against its data sets alone
  json source_sha256;
  json state_sha256;
  json bind;  // one forward parameter per input, or null
};

ReferenceIdentity reference_identity(const Record& record) {
  const Record::Module& module = *record.module();
  const json& variant = module.variant;  // null exactly for a module record (record.h)
  if (variant.is_null()) return {module.factory, module.source_sha256, module.state_sha256, json()};
  const json factory = variant.value(rf::model_key::kFactory, json());
  const json bound = variant.value(rf::model_key::kBind, json::object());
  json bind = json::array();
  for (const auto& input : module.inputs) {
    const std::string name = input.value(rf::input_key::kName, std::string());
    bind.push_back(bound.is_object() ? bound.value(name, name) : name);
  }
  return {factory.is_string() ? factory.get<std::string>() : std::string(),
          variant.value(module_key::kSourceSha256, json()), variant.value(module_key::kStateSha256, json()), bind};
}

std::string recorded_source(const Record& record) {
  const json recorded = reference_identity(record).source_sha256;
  return recorded.is_string() ? recorded.get<std::string>() : std::string("null");
}

}  // namespace

json rebuild_request(const Record& record, const FactoryToRun& factory, const char* op) {
  const ReferenceIdentity identity = reference_identity(record);
  return json{{wire::kOp, op},
              {wire::kFactory, identity.factory},
              {wire::kBind, identity.bind},
              {wire::kFactoryPath, factory.file ? json(factory.file->string()) : json()},
              {wire::kSourceSha256, factory.file ? json(factory.sha256) : json()},
              {wire::kInputs, record.module()->inputs},
              {wire::kOutputNames, record.module()->outputs}};
}

json case_frames(const StageContext& context, const RecordCase& c, OutgoingFrames& frames) {
  json inputs = json::array();
  for (const auto& in : c.module()->inputs) inputs.push_back(frames.own(stored_tensor(context.stored, in, in.file)));
  return {{wire::kName, c.name}, {wire::kInputs, inputs}};
}

namespace {

json reference_request(const StageContext& context, const FactoryToRun& factory, OutgoingFrames& frames) {
  json cases = json::array();
  for (const auto& c : context.record.input_cases) {
    if (c.expect == rf::kExpectMatch) cases.push_back(case_frames(context, c, frames));
  }
  json request = rebuild_request(context.record, factory, wire::kOpModuleReference);
  request[wire::kCases] = std::move(cases);
  return request;
}

// Throws for what refuses the execution: the factory does not import (RuntimeUnavailable), the worker
// imported other bytes than the record's (ConformanceError). Otherwise why no case can be compared, or "".
std::string refusal_of(const Record& record, const json& answer) {
  const ReferenceIdentity recorded = reference_identity(record);
  const json identity = answer.value(wire::kModuleIdentity, json());
  const json source = identity.is_object() ? identity.value(module_key::kSourceSha256, json()) : json();
  if (source.is_string() && source != recorded.source_sha256) {
    throw ConformanceError("the torch reference of \"" + record.profile + "\" would run other code than the record's: " +
                           recorded.factory + " has source_sha256 " + source.get<std::string>() +
                           ", the record says " + recorded_source(record));
  }
  if (const json e = answer.value(wire::kImportError, json()); e.is_string()) {
    throw RuntimeUnavailable(std::string(failure_name(FailureClass::missing_dependency)) +
                             ": the torch reference is unavailable: the module " + recorded.factory +
                             " does not import: " + e.get<std::string>());
  }
  if (const json e = answer.value(wire::kException, json()); e.is_string()) return e.get<std::string>();
  const json state = identity.is_object() ? identity.value(module_key::kStateSha256, json()) : json();
  if (state != recorded.state_sha256) {
    return "the factory now builds a module whose state_sha256 is " + state.dump() + ", not the record's " +
           recorded.state_sha256.dump();
  }
  return "";
}

}  // namespace

json FactoryToRun::detail() const {
  return json{{module_key::kFactory, factory},
              {"file", file ? json(file->string()) : json()},
              {"sha256", file ? json(sha256) : json()}};
}

namespace {

// The record's copy of its factory in the profile's artifacts (artifacts/factory_copy.h), when it lists one.
std::optional<std::filesystem::path> listed_copy(const Record& record, const std::string& named,
                                                 const std::filesystem::path& root) {
  const std::string copy = factory_copy_path(named);
  for (const auto& f : record.artifacts.files) {
    if (f.path == copy) return std::filesystem::absolute(root / record.artifacts.directory / copy).lexically_normal();
  }
  return std::nullopt;
}

// The recorded path, absolute as recorded or resolved against the record's folder; nullopt without one.
std::optional<std::filesystem::path> recorded_file(const std::string& named,
                                                   const std::optional<std::filesystem::path>& record_folder) {
  std::filesystem::path file(named);
  if (file.is_relative()) {
    if (!record_folder) return std::nullopt;
    file = *record_folder / file;
  }
  return std::filesystem::absolute(file).lexically_normal();
}

}  // namespace

FactoryToRun factory_to_run(const Record& record, const std::optional<std::filesystem::path>& record_folder,
                            const std::filesystem::path& root) {
  const ReferenceIdentity identity = reference_identity(record);
  if (identity.factory.empty()) {  // §11: a file checked against its data sets alone
    throw UsageError("the record of \"" + record.profile + "\" is an ONNX file checked against its data sets, with no "
                     "module to rebuild: its reference is its stored outputs; execute it without --reference torch");
  }
  ModuleSpec spec;
  spec.factory = identity.factory;
  FactoryToRun out;
  out.factory = spec.factory;
  const std::optional<std::string> named = spec.factory_file();
  if (!named) return out;  // package.module:FACTORY: the worker's answer is compared after its import
  const auto recorded = recorded_file(*named, record_folder);
  std::error_code ec;
  const bool there = recorded && std::filesystem::exists(*recorded, ec);
  const auto copy = there ? std::nullopt : listed_copy(record, *named, root);
  if (!there && !copy && !recorded) {
    throw UsageError("the record of \"" + record.profile + "\" names its factory " + *named +
                     " relative to the record's file, was handed over without one, and lists no copy of it in its "
                     "artifacts: execute the record or report file itself, so that " + *named + " is found beside it");
  }
  out.file = there || !copy ? *recorded : *copy;
  std::string bytes;
  try {
    bytes = read_file_bytes(*out.file, kMaxFactoryFileBytes, "a factory file", ErrorKind::usage);
  } catch (const Error& e) {
    throw UsageError("the factory file of \"" + record.profile + "\" cannot be read: " + e.what() +
                     " (a relative factory is resolved against the folder of the record or report file; a record "
                     "that lists a copy of it in its artifacts uses that when nothing is there)");
  }
  out.sha256 = sha256_hex(bytes);
  if (out.sha256 != identity.source_sha256) {
    throw ConformanceError("the factory file " + out.file->string() + " of \"" + record.profile +
                           "\" has sha256 " + out.sha256 + ", the record says " + recorded_source(record) +
                           ": it is not the code that was run, so it is not imported. Restore the file the "
                           "record was made from, or run the profile again to make a new record; the stored "
                           "outputs are the reference without --reference torch");
  }
  return out;
}

void recompute_module_references(StageContext& context) {
  const Record& record = context.record;
  const FactoryToRun factory = factory_to_run(record, context.record_folder, context.root);  // checked again, just before
  json request;
  OutgoingFrames sent;
  try {
    request = reference_request(context, factory, sent);
  } catch (const ConformanceError& e) {
    context.module_reference_missing = std::string("the stored inputs cannot be read: ") + e.what();
    context.module_references.emplace();
    return;
  }
  std::cerr << "nnx-conformance: execute: \"" << record.profile << "\": importing "
            << (factory.file ? factory.file->string() + " (sha256 " + factory.sha256 + ")"
                             : "the package module of " + factory.factory)
            << " to compute the torch reference\n";
  context.module_reference_ran = factory.detail();
  std::map<std::string, std::vector<Tensor>> references;
  try {
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
  }
  context.module_references = std::move(references);
}

}  // namespace nnx
