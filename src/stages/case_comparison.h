// One module case's outputs compared with its reference and the float64 oracle (doc/record-format.md §10;
// the parity stage, module_parity.cc, runs the cases and writes the detail). Outputs are matched by name and
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
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "base/tolerance_compare.h"
#include "record/record.h"
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
};

// Compares the runtime's `outputs` with `references` (and `oracle`, one per reference or empty); fills the
// case's outcome, errors and detail, and adds its triangulation entry (none when an output could not be
// compared) and findings to `evidence`.
void compare_case_outputs(RecordCase& c, const std::vector<Tensor>& outputs, const std::vector<Tensor>& references,
                          const std::vector<std::optional<Tensor>>& oracle, const Tolerance& profile_tolerance,
                          CaseEvidence& evidence);

}  // namespace nnx
