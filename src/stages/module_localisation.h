// What localisation (localisation.h) reads of a record: the model kind's own part, each a switch over the kind.
// `values_from`: who computes the values ONNX Runtime's are compared with: PyTorch for a module record, an
// imported file checked against a factory (the module rebuilt) and the built-in network (rebuilt from its
// config and weights, feedfwd_localisation.h); ONNX's reference evaluator for an imported file without a
// factory (a data-only record: no code of its author runs). `can_localise`: anything computes them.
// `case_to_localise`: the first match case that failed as a mismatch, else the first match case run (a
// module case only when it stores its outputs). `case_tensors`: its graph inputs and its reference outputs.
// `intermediates_request`: the worker's request for PyTorch's values of that case (module_intermediates, the
// factory as run's profile gave it or as execute's torch reference checks it; reference_intermediates for
// the built-in network), without `values_to`. `repro_place`: where run writes the repro: inside a module or
// successor record's profile folder (`repro/`, listed with role repro), beside a v1 record's (the sibling
// folder `<profile>-repro`, named in the report and never in its artifact list).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "stages/stage_context.h"
#include "worker/tensor_wire.h"

namespace nnx {

enum class ValuesFrom { nothing, pytorch, reference_evaluator };

ValuesFrom values_from(const Record& record);
inline bool can_localise(const Record& record) { return values_from(record) != ValuesFrom::nothing; }

const RecordCase* case_to_localise(const Record& record);

void case_tensors(StageContext& context, const RecordCase& c, std::vector<Tensor>& inputs,
                  std::vector<Tensor>& references);

nlohmann::json intermediates_request(const StageContext& context, const RecordCase& c,
                                     const std::vector<Tensor>& inputs, const std::string& exporter,
                                     OutgoingFrames& frames);

struct ReproPlace {
  std::filesystem::path folder;  // where the repro is written
  std::string named;             // how the record names it: relative to the profile folder, or to the root
  bool listed = false;           // its files listed in the record's artifacts (role repro)
};
ReproPlace repro_place(const StageContext& context, const std::filesystem::path& profile_folder);

}  // namespace nnx
