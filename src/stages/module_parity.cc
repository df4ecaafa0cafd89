// A module's and an ONNX file's side of the parity stage (parity_kind.h; doc/record-format.md §10, §11): their
// hooks on the one path. A case runs on the stored inputs it names (the verified bytes the load stage kept:
// stages/module_tensors.h) that the graph takes, fed by name (an input the exporter dropped is not fed, and
// the detail's `unused_inputs` says so); a refusal or failure where the graph fixes one of the case's
// dimensions at another size says which (the export detail's dims_in_graph). Its outputs are compared with the
// stored reference outputs (or, for `execute --reference torch`, PyTorch's recomputed ones:
// context.module_references) and the stored float64 oracle, after the positions its mask inputs hide
// (`hides`) are excluded from both and counted (stages/dont_care.h). Its own detail keys: the unused inputs,
// the state-dict entries nothing in the graph explains (`missing_weights`, the `weights` blame) and what the
// torch reference ran.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/module_record_vocabulary.h"
#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/dont_care.h"
#include "stages/module_reference.h"
#include "stages/module_tensors.h"
#include "stages/parity_kind.h"

namespace nnx {
namespace {

using nlohmann::json;

CaseTruth truth_of(const StageContext& context, const RecordCase& c) {
  CaseTruth truth;
  if (context.module_references) {
    const auto it = context.module_references->find(c.name);
    if (it == context.module_references->end()) {
      throw ConformanceError("not compared: " + (context.module_reference_missing.empty()
                                                     ? std::string("the torch reference has no outputs for it")
                                                     : context.module_reference_missing));
    }
    truth.references = it->second;
    return truth;
  }
  bool any_oracle = false;
  for (const auto& out : *c.module()->outputs) {
    truth.references.push_back(stored_tensor(context.stored, out, out.file));  // ConformanceError: not the record's
    if (out.oracle_file) {
      truth.oracle.push_back(stored_oracle(context.stored, out, *out.oracle_file));
      any_oracle = true;
    } else {
      truth.oracle.push_back(std::nullopt);
    }
  }
  if (!any_oracle) truth.oracle.clear();
  return truth;
}

// The case's stored inputs the graph takes, by name; the names it does not take go to `unused`.
std::vector<Tensor> graph_inputs(const StageContext& context, const RecordCase& c, std::vector<std::string>& unused) {
  std::vector<Tensor> inputs;
  for (const auto& in : c.module()->inputs) {
    const auto& names = context.graph_input_names;
    if (std::find(names.begin(), names.end(), in.name) == names.end()) {
      if (std::find(unused.begin(), unused.end(), in.name) == unused.end()) unused.push_back(in.name);
      continue;
    }
    inputs.push_back(stored_tensor(context.stored, in, in.file));
  }
  return inputs;
}

// For a match case, the first of its dimensions the export detail's dims_in_graph says the graph fixes
// (frozen, or static) at a size other than the case's: "the graph fixes <dim> at <size>[ (<op> '<node>')]".
std::optional<std::string> frozen_dimension(const Record& record, const RecordCase& c) {
  const json& detail = record.stage(Stage::export_model).detail;
  if (c.expect != rf::kExpectMatch || !c.module() || !record.module() || !detail.is_object()) return std::nullopt;
  const json dims = detail.value(rf::graph_dims_key::kDimsInGraph, json());
  for (const auto& [name, size] : c.module()->dims) {
    const json state = dims.is_object() && dims.contains(name) ? dims[name] : json();
    const json declared = record.module()->dims.is_object() ? record.module()->dims.value(name, json()) : json();
    if (!declared.is_array() || declared.empty() || !declared[0].is_number_integer()) continue;
    const std::int64_t exported = declared[0].get<std::int64_t>();
    if (size == exported) continue;
    const std::string fixed = "the graph fixes " + name + " at " + std::to_string(exported);
    if (state.is_string() && state.get<std::string>() == rf::graph_dims_key::kStatic) return fixed;
    if (state.is_object()) {
      return fixed + " (" + state.value(rf::graph_dims_key::kOp, std::string()) + " '" +
             state.value(rf::graph_dims_key::kNode, std::string()) + "')";
    }
  }
  return std::nullopt;
}

// Excludes the positions the case's mask inputs hide (dont_care.h) from its outputs, reference and oracle
// alike; "" when done, else why an output cannot be hidden so (the case's mismatch).
std::string hide_dont_care(const StageContext& context, const RecordCase& c, std::vector<Tensor>& outputs,
                           CaseTruth& truth, CaseEvidence& evidence) {
  namespace dk = rf::dont_care_key;
  std::map<std::string, Tensor> masks;  // each mask input read once per case, however many outputs it hides
  for (const HiddenOutput& h : hidden_outputs(context.record.module()->inputs)) {
    const auto in = std::find_if(c.module()->inputs.begin(), c.module()->inputs.end(),
                                 [&](const CaseTensor& t) { return t.name == h.input; });
    const auto ref = std::find_if(truth.references.begin(), truth.references.end(),
                                  [&](const Tensor& t) { return t.name == h.output; });
    if (in == c.module()->inputs.end() || ref == truth.references.end()) continue;  // a missing output is named later
    auto read = masks.find(h.input);
    if (read == masks.end()) read = masks.emplace(h.input, stored_tensor(context.stored, *in, in->file)).first;
    const Tensor& mask = read->second;
    const auto hidden = hide_positions(*ref, mask);
    if (!hidden) {
      return "output " + h.output + " " + shape_text(ref->shape) + " does not begin with the shape of " + h.input + " " +
             shape_text(mask.shape) + ", whose zeros `hides` says hide its positions";
    }
    const std::size_t j = static_cast<std::size_t>(ref - truth.references.begin());
    for (Tensor& actual : outputs) {
      if (actual.name == h.output && actual.shape == ref->shape) hide_positions(actual, mask);
    }
    if (j < truth.oracle.size() && truth.oracle[j]) hide_positions(*truth.oracle[j], mask);
    evidence.dont_care.push_back({{dk::kCase, c.name}, {dk::kOutput, h.output}, {dk::kInput, h.input}, {dk::kExcluded, *hidden}});
  }
  return "";
}

// Whether the export found state-dict entries that nothing in the graph explains (worker/PROTOCOL.md).
bool weights_missing(const Record& record, json& missing) {
  const json& detail = record.stage(Stage::export_model).detail;
  if (!detail.is_object() || !detail.contains(rf::detail_key::kWeights)) return false;
  const json& weights = detail[rf::detail_key::kWeights];
  if (!weights.is_object() || !weights.contains("missing") || !weights["missing"].is_array()) return false;
  missing = weights["missing"];
  return !missing.empty();
}

// The module record's reference provider, by kind (reference_kind.h): a run's export stored PyTorch's
// outputs just now (torch, with a profile), execute compares with those stored outputs (stored) or rebuilds
// the module from its factory, checked first (torch, module_reference.h).
void provide_reference(StageContext& context) {
  switch (context.reference) {
    case ReferenceKind::torch:
      if (context.profile == nullptr) recompute_module_references(context);
      return;
    case ReferenceKind::native:  // reference_for gives a module record none: its reference without Python is
    case ReferenceKind::stored:  // its stored outputs, which truth_of reads
      return;
  }
}


class ModuleParity final : public ParityKind {
 public:
  explicit ModuleParity(StageContext& context) : context_(context) {}

  void prepare() override {
    provide_reference(context_);
    context_.prepared_parity = PreparedParity{};  // its reference is stored, or was just recomputed
  }

  std::vector<Tensor> inputs(std::size_t, const RecordCase& c) override { return graph_inputs(context_, c, unused_); }

  std::optional<std::string> frozen_dimension(const RecordCase& c) const override {
    return nnx::frozen_dimension(context_.record, c);
  }

  CaseTruth truth(std::size_t, const RecordCase& c, std::vector<Tensor>& outputs, CaseEvidence& evidence) override {
    CaseTruth truth = truth_of(context_, c);
    truth.incomparable = hide_dont_care(context_, c, outputs, truth, evidence);
    return truth;
  }

  void triangulate(std::size_t, const RecordCase& c, const std::vector<Tensor>&, const CaseTruth&,
                   const ComparedCase& compared, CaseEvidence& evidence) override {
    triangulate_against_stored_oracle(c, compared, evidence);
  }

  KindParityDetail detail() const override {
    json missing = json::array();
    const bool weights_differ = weights_missing(context_.record, missing);
    KindParityDetail own{{{rf::detail_key::kUnusedInputs, unused_}, {rf::detail_key::kMissingWeights, missing}},
                         weights_differ};
    if (!context_.module_reference_ran.is_null()) own.keys[rf::detail_key::kFactoryRun] = context_.module_reference_ran;
    return own;
  }

 private:
  StageContext& context_;
  std::vector<std::string> unused_;
};

}  // namespace

std::unique_ptr<ParityKind> module_parity(StageContext& context) { return std::make_unique<ModuleParity>(context); }

}  // namespace nnx
