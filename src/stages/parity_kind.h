// What the parity stage asks of a model kind (doc/record-format.md §4 parity, §10, §11; doc/architecture.md,
// "Adding a model kind"): the stage itself (parity.cc) is one path for every kind over named, typed tensors
// (run each case, read a refusal or a failure, compare the outputs by name with case_comparison.h, write the
// detail and the blame); a kind answers only where its reference, its inputs and its triangulation come from:
//   feed-forward  inputs drawn from each case's shape and seed, the reference PyTorch's or the native C++
//                 forward computed ahead (prepare), triangulated on the leading rows against the C++ float64
//                 oracle and the native forward (stages/feedfwd_parity.cc);
//   module, ONNX file
//                 the stored inputs the graph takes, by name; the stored reference outputs (or PyTorch's,
//                 recomputed from the factory when execute asks for it) and the stored float64 oracle; mask
//                 inputs' don't-care positions hidden (stages/module_parity.cc).
// stages/kind_hooks.h chooses a record's.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "record/record.h"
#include "stages/case_comparison.h"
#include "stages/stage_context.h"

namespace nnx {

// What one case is compared with: the reference's outputs (named as the graph's) and, per output, the float64
// oracle where the kind stores one (empty when it has none). `incomparable`, when not empty, says why the
// case's outputs cannot be compared (its mismatch).
struct CaseTruth {
  std::vector<Tensor> references;
  std::vector<std::optional<Tensor>> oracle;
  std::string incomparable;
};

// The kind's own keys of the parity detail, and whether the weights in model.onnx differ from the model's
// (the `weights` blame).
struct KindParityDetail {
  nlohmann::json keys = nlohmann::json::object();
  bool weights_differ = false;
};

class ParityKind {
 public:
  virtual ~ParityKind() = default;
  // Makes the reference's outputs available: what may ask the exporter worker (a run calls it before load,
  // while the profile still has the worker: stages.h prepare_parity; else parity does). Sets
  // context.prepared_parity.
  virtual void prepare() = 0;
  // The case's inputs the graph takes, named as its inputs (ConformanceError: a stored tensor that is not the
  // record's). `index` is the case's position in the record.
  virtual std::vector<Tensor> inputs(std::size_t index, const RecordCase& c) = 0;
  // When the runtime refused or failed a case: the dimension the graph fixes at another size, said, or nullopt.
  virtual std::optional<std::string> frozen_dimension(const RecordCase& c) const = 0;
  // What the case's `outputs` are compared with (ConformanceError: not computed, or not the record's); may
  // exclude don't-care positions from the outputs and the truth alike, counted in `evidence`.
  virtual CaseTruth truth(std::size_t index, const RecordCase& c, std::vector<Tensor>& outputs,
                          CaseEvidence& evidence) = 0;
  // The case's triangulation entry, once its outputs compared (`compared`), with the sides that depart.
  virtual void triangulate(std::size_t index, const RecordCase& c, const std::vector<Tensor>& outputs,
                           const CaseTruth& truth, const ComparedCase& compared, CaseEvidence& evidence) = 0;
  // The kind's own keys of the parity detail, once every case ran.
  virtual KindParityDetail detail() const = 0;
};

// Each kind's parity hooks, over `context` (they must not outlive it); which kind answers is kind_hooks.h's.
std::unique_ptr<ParityKind> feedfwd_parity(StageContext& context);  // stages/feedfwd_parity.cc
std::unique_ptr<ParityKind> module_parity(StageContext& context);   // stages/module_parity.cc

}  // namespace nnx
