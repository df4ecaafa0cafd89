// The feed-forward net's side of the parity stage (parity_kind.h; doc/record-format.md §4 parity, §7): its
// hooks on the one path. Each case's input is drawn from its shape and seed (model/input_draw.h draw_randn, the float32 draw of every kind) and
// fed under the exporter's input name; the reference is computed ahead for the cases expected to match
// (stages/feedfwd_reference.h: PyTorch through the worker, or the native C++ forward) and named as the
// exporter's output; a compared case is triangulated on its leading rows (stages/triangulation.h) against the
// C++ float64 oracle and the native forward. Its own detail keys say whether model.onnx stores the net's
// weights (the load stage's check, stages/weights_check.h).
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "stages/parity_kind.h"
#include "stages/feedfwd_reference.h"
#include "stages/triangulation.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace detail_key = rf::detail_key;

std::string exporter_name(const Record& record, const char* option) {
  return record.exporter.options[option][0].get<std::string>();
}

class FeedFwdParity final : public ParityKind {
 public:
  explicit FeedFwdParity(StageContext& context) : context_(context) {}

  void prepare() override {
    PreparedParity prepared;
    std::vector<ReferenceInput> wanted;
    for (const auto& c : context_.record.input_cases) {
      prepared.inputs.push_back(draw_randn(c.shape(), c.seed));
      if (c.expect == rf::kExpectMatch) wanted.push_back({c.name, {c.shape(), prepared.inputs.back()}});
    }
    try {
      prepared.references = reference_outputs(context_.reference, *context_.model, context_.exporter.get(), wanted);
    } catch (const WorkerError& e) {
      prepared.missing =
          "the " + std::string(reference_name(context_.reference)) + " reference could not be computed: " + e.what();
      if (context_.exporter) context_.exporter->stop();
    }
    context_.prepared_parity = std::move(prepared);
  }

  std::vector<Tensor> inputs(std::size_t index, const RecordCase& c) override {
    const std::string name = exporter_name(context_.record, rf::exporter_key::kOptionInputNames);
    return {Tensor::float32(name, c.shape(), prepared().inputs.at(index))};
  }

  std::optional<std::string> frozen_dimension(const RecordCase&) const override { return std::nullopt; }

  CaseTruth truth(std::size_t index, const RecordCase& c, std::vector<Tensor>&, CaseEvidence&) override {
    std::size_t match_cases_before = 0;  // the references are the match cases', in order
    for (std::size_t i = 0; i < index; ++i) {
      match_cases_before += context_.record.input_cases[i].expect == rf::kExpectMatch ? 1 : 0;
    }
    const PreparedParity& prepared = this->prepared();
    if (match_cases_before >= prepared.references.size()) throw ConformanceError("not compared: " + prepared.missing);
    const std::string name = exporter_name(context_.record, rf::exporter_key::kOptionOutputNames);
    const std::vector<std::int64_t> shape{c.shape()[0], context_.model->output_width()};
    return CaseTruth{{Tensor::float32(name, shape, prepared.references[match_cases_before])}, {}, ""};
  }

  // The record's errors against the reference, and the runtime, the reference and the native forward each
  // against the float64 oracle over the leading rows the oracle can afford (the margin over every row).
  void triangulate(std::size_t index, const RecordCase& c, const std::vector<Tensor>& outputs, const CaseTruth& truth,
                   const ComparedCase& compared, CaseEvidence& evidence) override {
    const Record& record = context_.record;
    const double rtol = record.tolerances.rtol.value();
    const double atol = record.tolerances.atol.value();
    const ReferenceModel& model = *context_.model;
    const std::int64_t rows = triangulation_rows(c.shape()[0], model.config().weight_count());
    const auto width = static_cast<std::size_t>(model.output_width());
    const std::span<const float> input = prepared().inputs.at(index);
    const std::span<const float> sample = input.first(static_cast<std::size_t>(rows * c.shape()[1]));
    const std::vector<double> oracle = model.forward_oracle(sample, rows);
    const Tensor& reference = truth.references.front();
    const auto runtime = std::find_if(outputs.begin(), outputs.end(), [&](const Tensor& t) { return t.name == reference.name; });
    const std::vector<double> runtime64 = widen(runtime->float32_values().first(rows * width));
    const std::vector<double> reference64 = widen(reference.float32_values().first(rows * width));
    const std::vector<float> native = model.forward(sample, rows);
    CaseTriangulation t{c.name,
                        rows,
                        departure_of(compared.worst),
                        departure(runtime64, oracle, rtol, atol),
                        departure(reference64, oracle, rtol, atol),
                        departure(widen(native), reference64, rtol, atol)};
    evidence.runtime_departs = evidence.runtime_departs || t.runtime_vs_oracle.beyond_tolerance();
    evidence.reference_departs = evidence.reference_departs || t.reference_vs_oracle.beyond_tolerance();
    evidence.triangulation.push_back(t.to_json());
  }

  KindParityDetail detail() const override {
    const WeightsVerdict& weights = context_.weights;
    KindParityDetail own{{{detail_key::kWeightsInModel, weights.match ? json(*weights.match) : json()}},
                         weights.match == false};
    if (!weights.problem.empty()) own.keys[detail_key::kWeightsProblem] = weights.problem;
    return own;
  }

 private:
  const PreparedParity& prepared() const { return *context_.prepared_parity; }
  StageContext& context_;
};

}  // namespace

std::unique_ptr<ParityKind> feedfwd_parity(StageContext& context) { return std::make_unique<FeedFwdParity>(context); }

}  // namespace nnx
