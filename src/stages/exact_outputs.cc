// The parity of integer and bool outputs and of a dtype that is not PyTorch's (exact_outputs.h).
#include "stages/exact_outputs.h"

#include "base/module_record_vocabulary.h"

namespace nnx {

namespace ek = rf::exact_key;

ExactVerdict judge_exact_output(const std::string& case_name, const Tensor& actual, const Tensor& reference,
                                const std::optional<Tensor>& scores, const Tolerance& tolerance) {
  ExactVerdict verdict{compare_exactly(actual, reference, scores ? &*scores : nullptr, tolerance), {}};
  const ExactComparison& c = verdict.comparison;
  verdict.entry = nlohmann::json{{ek::kCase, case_name},
                                 {ek::kOutput, reference.name},
                                 {ek::kDtype, std::string(dtype_name(reference.dtype))},
                                 {ek::kElements, c.elements},
                                 {ek::kDiffering, c.differing},
                                 {ek::kNearTies, c.near_ties ? nlohmann::json(*c.near_ties) : nlohmann::json()}};
  return verdict;
}

nlohmann::json dtype_finding(const std::string& case_name, const std::string& output, DType actual, DType reference) {
  return nlohmann::json{{ek::kCase, case_name},
                        {ek::kOutput, output},
                        {ek::kRuntime, std::string(dtype_name(actual))},
                        {ek::kReference, std::string(dtype_name(reference))}};
}

}  // namespace nnx
