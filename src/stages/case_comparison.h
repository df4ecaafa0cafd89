// One case's outputs compared with its reference and the float64 oracle, whatever the model kind
// (doc/record-format.md §4 parity, §10; the parity stage, parity.cc, runs the cases and writes the detail). Outputs are matched by name and
// compared by structure and shape first: an output the runtime does not return, or returns in another dtype
// or shape (a detector's boxes), makes the case a mismatch naming each such output with both shapes (and the
// oracle's), the others still compared and what they showed said. A floating output is within
// |runtime - reference| <= atol + rtol * |reference| (base/tolerance_compare.h; a half output under its dtype's
// tolerance, base/dtype_tolerance.h, stated once); the case's errors are the largest over its outputs; values
// that are not finite make it a mismatch. An integer or bool output compares exactly, near ties judged by the
// oracle's scores, and a dtype that is not PyTorch's is a finding of its own (exact_outputs.h). The runtime and
// the reference are measured against the oracle where it was stored and fits the output's shape (the float64
// copy may find other boxes; an oracle value that is not finite is not measured against either): each
// triangulation entry gives the departures, or null ones with the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "base/tolerance_compare.h"
#include "record/record.h"
#include "stages/triangulation.h"
#include "stages/vacuous_tolerance.h"

namespace nnx {

// What the cases showed, for the parity detail and the blame (triangulation.h).
struct CaseEvidence {
  bool runtime_departs = false;
  bool reference_departs = false;
  nlohmann::json triangulation = nlohmann::json::array();
  nlohmann::json exact_outputs = nlohmann::json::array();  // integer and bool outputs (exact_outputs.h)
  nlohmann::json dtype_differs = nlohmann::json::array();
  VacuousTolerance vacuous;  // floating outputs an all-zero output would pass in every case
  nlohmann::json dtype_tolerances = nlohmann::json::array();  // the tolerance each half-precision output was judged by
  nlohmann::json dont_care = nlohmann::json::array();  // positions excluded from the comparison (dont_care.h)
  // With more than one intra-op thread each case runs twice (parity.cc): the cases whose two runs differ.
  nlohmann::json differing_runs = nlohmann::json::array();
  // A precision other than float32 (parity.cc): the compared cases within the record's float32 tolerance, and beyond it.
  nlohmann::json within_float32 = nlohmann::json::array();
  nlohmann::json beyond_float32 = nlohmann::json::array();
};

// What comparing a case's outputs showed when every output could be compared: the worst comparison over its
// outputs (the case's errors) and the departures from the oracle given (measured when `triangulated`; else
// `oracle_unusable` says why, or is "" when no oracle was given).
struct ComparedCase {
  ToleranceComparison worst;
  Departure runtime_vs_oracle;
  Departure reference_vs_oracle;
  bool triangulated = false;
  std::string oracle_unusable;
};

// Compares the runtime's `outputs` with `references` (and `oracle`, one per reference or empty) and fills the
// case's outcome, errors and detail, and the findings of `evidence` (exact outputs, dtypes, tolerances). An
// output that cannot be compared, or values that are not finite, make the case a mismatch saying why: nullopt
// (the side that departs is in `evidence`). Otherwise what the comparison showed, for the kind's
// triangulation entry (parity_kind.h).
std::optional<ComparedCase> compare_case_outputs(RecordCase& c, const std::vector<Tensor>& outputs,
                                                 const std::vector<Tensor>& references,
                                                 const std::vector<std::optional<Tensor>>& oracle,
                                                 const Tolerance& profile_tolerance, CaseEvidence& evidence);

// The triangulation entry of a case measured against a stored float64 oracle (a module's or an ONNX file's:
// case, margin, runtime_vs_oracle, reference_vs_oracle, null departures with the reason where not measured),
// appended to `evidence` with the sides that depart (either, when nothing could tell and the case failed).
void triangulate_against_stored_oracle(const RecordCase& c, const ComparedCase& compared, CaseEvidence& evidence);

}  // namespace nnx
