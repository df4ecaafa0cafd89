// A tolerance that cannot fail (doc/record-format.md §10, "A tolerance that cannot fail"): a floating output
// whose reference values are so small that an all-zero output would pass every compared case, i.e. in every
// case max|reference| <= atol + rtol * max|reference| (base/tolerance_compare.h's one rule with actual = 0).
// `observe` is called once per compared case and floating output, in the cases' order; `to_json` gives the
// parity detail's `vacuous_tolerance`: one {output, max_abs_reference, allowed} per such output (the largest
// |reference| over its cases and atol + rtol times it), in the order the outputs were first seen; null when
// no output is vacuous (then the detail has no such key).
#pragma once
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tolerance_compare.h"

namespace nnx {

class VacuousTolerance {
 public:
  void observe(const std::string& output, std::span<const double> reference, const Tolerance& tolerance);
  nlohmann::json to_json() const;

 private:
  struct Seen {
    std::string output;
    bool vacuous = true;
    double largest = 0.0;
    Tolerance tolerance;
  };
  std::vector<Seen> seen_;
};

}  // namespace nnx
