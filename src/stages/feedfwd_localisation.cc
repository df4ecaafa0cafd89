// The built-in network's part of a localisation (feedfwd_localisation.h).
#include "stages/feedfwd_localisation.h"

#include "base/error.h"
#include "base/record_vocabulary.h"
#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "stages/feedfwd_reference.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;
namespace option = rf::exporter_key;

std::string first_name(const Record& record, const char* key) {
  return record.exporter.options.at(key).at(0).get<std::string>();
}

}  // namespace

void feedfwd_case_tensors(StageContext& context, const RecordCase& c, std::vector<Tensor>& inputs,
                          std::vector<Tensor>& references) {
  if (context.model == nullptr) throw ConformanceError("the record's network was not rebuilt");
  const std::vector<float> drawn = draw_randn(c.shape(), c.seed);
  inputs.push_back(Tensor::float32(first_name(context.record, option::kOptionInputNames), c.shape(), drawn));
  const ReferenceKind kind = context.reference == ReferenceKind::native ? ReferenceKind::native : ReferenceKind::torch;
  const auto outputs = reference_outputs(kind, *context.model, context.exporter.get(),
                                         {ReferenceInput{c.name, {c.shape(), drawn}}});
  const std::vector<std::int64_t> shape{c.shape().at(0), context.model->output_width()};
  references.push_back(Tensor::float32(first_name(context.record, option::kOptionOutputNames), shape, outputs.at(0)));
}

json feedfwd_intermediates_request(const StageContext& context, const std::vector<Tensor>& inputs,
                                   OutgoingFrames& frames) {
  const Record& record = context.record;
  json request = worker_network_fields(*context.model, frames);
  json given = json::array();
  for (const Tensor& t : inputs) given.push_back(frames.own(t));
  const json& options = record.exporter.options;
  request.update(json{{wire::kOp, wire::kOpReferenceIntermediates},
                      {wire::kExporter, record.exporter.name},
                      {wire::kOptions, {{option::kOptionOpsetVersion, record.opset.requested},
                                        {option::kOptionDynamicBatch, options.value(option::kOptionDynamicBatch, false)},
                                        {option::kOptionInputNames, options.at(option::kOptionInputNames)},
                                        {option::kOptionOutputNames, options.at(option::kOptionOutputNames)}}},
                      {wire::kInputs, given}});
  return request;
}

}  // namespace nnx
