// The parity stage (doc/record-format.md §4 parity, §10, §11), one path for every model kind over named, typed
// tensors (parity_kind.h says what a kind answers): each case of the record is run on the inputs its kind
// gives; a refusal as an invalid argument is `rejected`, any other runtime failure `error` (case_outcome.h;
// where the graph fixes one of the case's dimensions at another size, `rejected` naming it); a case that had
// to be refused but ran is `accepted`; a case that ran has its outputs compared by name with the kind's
// truth (stages/case_comparison.h: |runtime - reference| <= atol + rtol * |reference|, exact for integer
// outputs), then triangulated by its kind. The detail gathers the reference's name, the triangulation, the
// comparison's findings (exact outputs, dtypes, tolerances, a vacuous tolerance, don't-care counts) and the
// kind's own keys; the stage fails with the first of runtime-error, mismatch, input-contract among failing
// cases, with the blame of stages/triangulation.h. With `kept_cases` set, each compared case's outputs, truth
// and oracle are kept there as they were compared (stages/kept_outputs.h: re-judged later without a run). With
// more than one intra-op thread each case runs twice and the detail's `deterministic` says whether the two
// runs' outputs were the same bytes (the cases that differ named).
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/module_record_vocabulary.h"
#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/case_outcome.h"
#include "stages/kind_hooks.h"
#include "stages/parity_kind.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace detail_key = rf::detail_key;

// More than one intra-op thread may split a reduction differently from run to run: each case runs twice and
// the detail says whether the two runs gave the same bytes (issue "Every way it is run").
bool runs_twice(const StageContext& context) { return context.record.runtime.session.intra_op_num_threads > 1; }

// A precision other than float32 (base/precision.h) judges by its own tolerance; the same comparison under the
// record's float32 rtol and atol says whether the case would have passed those too (the detail's `precision`).
void judge_under_float32(const RecordCase& c, const std::vector<Tensor>& outputs, const CaseTruth& truth,
                         const Record::Tolerances& tolerances, CaseEvidence& evidence) {
  RecordCase scratch = c;
  CaseEvidence unused;
  const Tolerance float32{tolerances.rtol.value(), tolerances.atol.value()};
  const bool within = compare_case_outputs(scratch, outputs, truth.references, truth.oracle, float32, unused) &&
                      scratch.passed && scratch.outcome == rf::kOutcomeMatch;
  (within ? evidence.within_float32 : evidence.beyond_float32).push_back(c.name);
}

// The parity detail's `precision`: the precision, the float32 tolerance and which compared cases it passes.
json precision_detail(const Record::Tolerances& tolerances, const CaseEvidence& evidence) {
  namespace pk = rf::precision_key;
  return json{{pk::kName, std::string(precision_name(*tolerances.precision))},
              {pk::kFloat32Tolerance, {{pk::kRtol, tolerances.rtol.to_json()}, {pk::kAtol, tolerances.atol.to_json()}}},
              {pk::kWithinFloat32, evidence.within_float32},
              {pk::kBeyondFloat32, evidence.beyond_float32}};
}

void run_case(std::size_t index, RecordCase& c, StageContext& context, ParityKind& kind, CaseEvidence& evidence) {
  std::vector<Tensor> outputs;
  try {
    const std::vector<Tensor> inputs = kind.inputs(index, c);
    outputs = context.session->run(inputs);
    if (runs_twice(context) && outputs != context.session->run(inputs)) {
      evidence.differing_runs.push_back(c.name);
    }
  } catch (const RuntimeFailure& e) {
    const auto frozen = kind.frozen_dimension(c);
    const bool departs = frozen ? record_frozen_size_failure(c, e, *frozen) : record_runtime_failure(c, e);
    evidence.runtime_departs = departs || evidence.runtime_departs;
    return;
  }
  if (c.expect == rf::kExpectRejected) {
    std::string shapes;
    for (const auto& o : outputs) shapes += (shapes.empty() ? "" : ", ") + o.name + " " + shape_text(o.shape);
    evidence.runtime_departs = record_unexpected_run(c, shapes);
    return;
  }
  const CaseTruth truth = kind.truth(index, c, outputs, evidence);
  if (!truth.incomparable.empty()) {
    return set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, truth.incomparable);
  }
  const Record::Tolerances& tolerances = context.record.tolerances;
  const auto compared = compare_case_outputs(c, outputs, truth.references, truth.oracle, tolerances.judging(), evidence);
  if (context.kept_cases) context.kept_cases->push_back({c.name, outputs, truth.references, truth.oracle});
  if (c.max_abs_error && tolerances.precision) judge_under_float32(c, outputs, truth, tolerances, evidence);
  if (compared) kind.triangulate(index, c, outputs, truth, *compared, evidence);
}

// The stage's outcome from its cases (case_outcome.h) with the detail: what every kind's comparison found,
// then the kind's own keys.
bool record_outcome(StageContext& context, const ParityKind& kind, CaseEvidence& evidence) {
  json detail{{detail_key::kReference, reference_name(context.reference)}, {detail_key::kTriangulation, evidence.triangulation}};
  if (!evidence.exact_outputs.empty()) detail[rf::exact_key::kExactOutputs] = evidence.exact_outputs;
  if (!evidence.dtype_differs.empty()) detail[rf::exact_key::kDtypeDiffers] = evidence.dtype_differs;
  if (!evidence.dont_care.empty()) detail[rf::dont_care_key::kDontCare] = evidence.dont_care;
  if (!evidence.dtype_tolerances.empty()) detail[rf::dtype_tolerance_key::kDtypeTolerances] = evidence.dtype_tolerances;
  if (json vacuous = evidence.vacuous.to_json(); !vacuous.is_null()) {
    detail[rf::vacuous_key::kVacuousTolerance] = std::move(vacuous);
  }
  if (runs_twice(context)) {
    detail[detail_key::kDeterministic] = json{{"threads", context.record.runtime.session.intra_op_num_threads},
                                              {"runs", 2},
                                              {"identical", evidence.differing_runs.empty()},
                                              {"cases_differing", evidence.differing_runs}};
  }
  if (context.record.tolerances.precision) {
    detail[rf::precision_key::kPrecision] = precision_detail(context.record.tolerances, evidence);
  }
  const KindParityDetail own = kind.detail();
  detail.update(own.keys);
  return record_parity_stage(context.record, std::move(detail), evidence.triangulation.size(),
                             {own.weights_differ, evidence.runtime_departs, evidence.reference_departs});
}

}  // namespace

void prepare_parity(StageContext& context) { kind_stages(context.record.kind()).parity_hooks(context)->prepare(); }

bool run_parity_stage(StageContext& context) {
  const std::unique_ptr<ParityKind> kind = kind_stages(context.record.kind()).parity_hooks(context);
  if (!context.prepared_parity) kind->prepare();
  Record& record = context.record;
  record.reset_input_cases();
  CaseEvidence evidence;
  for (std::size_t i = 0; i < record.input_cases.size(); ++i) {
    RecordCase& c = record.input_cases[i];
    try {
      run_case(i, c, context, *kind, evidence);
    } catch (const ConformanceError& e) {  // a stored tensor that is not the record's, a reference not computed
      evidence.reference_departs = true;
      set_case_outcome(c, rf::kOutcomeMismatch, FailureClass::mismatch, e.what());
    }
  }
  return record_outcome(context, *kind, evidence);
}

}  // namespace nnx
