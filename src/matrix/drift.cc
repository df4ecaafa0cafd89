#include "matrix/drift.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <set>

#include "base/json_python.h"
#include "base/matrix_vocabulary.h"
#include "base/record_vocabulary.h"
#include "base/tolerance_compare.h"
#include "matrix/cell_plan.h"

namespace nnx::matrix {
namespace {

namespace drift_key = rf::drift_key;

// float32 bits mapped onto a line where neighbouring floats are neighbouring integers (-0 and +0 meet at 0).
std::int64_t ordered(float value) {
  const auto bits = static_cast<std::int64_t>(std::bit_cast<std::int32_t>(value));
  return bits < 0 ? -(bits & 0x7fffffff) : bits;
}

const CaseOutput* find_case(const RuntimeOutputs& runtime, const std::string& profile, const std::string& name) {
  const auto it = runtime.profiles.find(profile);
  if (it == runtime.profiles.end()) return nullptr;
  for (const auto& c : it->second) {
    if (c.case_name == name) return &c;
  }
  return nullptr;
}

json number_or_null(const Difference& d, double value) { return d.comparable ? json(value) : json(); }

const std::string& release_of(const RuntimeOutputs& runtime) {
  return runtime.release.empty() ? runtime.version : runtime.release;
}

std::string ulps_text(std::uint64_t ulps) { return std::to_string(ulps) + (ulps == 1 ? " ulp" : " ulps"); }

// Each cell of other settings against the cell of its release with the brief's settings, per profile: the
// case that differs most, and whether every case stays within the profile's tolerance of it.
json axes_drift(const std::vector<RuntimeOutputs>& runtimes, const ProfileTolerances& profiles) {
  json axes = json::array();
  for (const auto& cell : runtimes) {
    if (cell.tested) continue;
    const auto base = std::find_if(runtimes.begin(), runtimes.end(), [&cell](const RuntimeOutputs& r) {
      return r.tested && release_of(r) == release_of(cell);
    });
    if (base == runtimes.end()) continue;  // no cell of its release with the brief's settings to set it against
    for (const auto& [profile, tolerance] : profiles) {
      const auto it = cell.profiles.find(profile);
      if (it == cell.profiles.end()) continue;
      std::optional<std::pair<Difference, std::string>> worst;
      bool within = true;
      std::size_t compared = 0;
      for (const auto& c : it->second) {
        const CaseOutput* reference = find_case(*base, profile, c.case_name);
        if (reference == nullptr) continue;
        const Difference d = difference(*reference, c, tolerance);
        ++compared;
        within = within && d.comparable && d.within_tolerance;
        if (!d.comparable) continue;
        if (!worst || d.max_abs > worst->first.max_abs ||
            (d.max_abs == worst->first.max_abs && d.max_ulps > worst->first.max_ulps)) {
          worst.emplace(d, c.case_name);
        }
      }
      if (compared == 0) continue;
      axes.push_back({{drift_key::kVersion, cell.version},
                      {drift_key::kAgainst, base->version},
                      {drift_key::kProfile, profile},
                      {drift_key::kCase, worst ? json(worst->second) : json()},
                      {drift_key::kCasesCompared, compared},
                      {drift_key::kMaxAbsDifference, worst ? json(worst->first.max_abs) : json()},
                      {drift_key::kMaxUlps, worst ? json(worst->first.max_ulps) : json()},
                      {drift_key::kWithinTolerance, within},
                      {drift_key::kTolerance,
                       {{rf::tolerance_key::kRtol, tolerance.rtol}, {rf::tolerance_key::kAtol, tolerance.atol}}}});
    }
  }
  return axes;
}

}  // namespace

std::uint64_t float32_ulps(float a, float b) {
  const std::int64_t d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

Difference difference(const CaseOutput& newest, const CaseOutput& other, const Tolerance& tolerance) {
  Difference d;
  if (newest.shape != other.shape || newest.values.size() != other.values.size()) return d;
  const auto finite = [](float v) { return std::isfinite(v); };
  if (!std::all_of(newest.values.begin(), newest.values.end(), finite) ||
      !std::all_of(other.values.begin(), other.values.end(), finite)) {
    return d;
  }
  for (std::size_t i = 0; i < newest.values.size(); ++i) {
    d.max_ulps = std::max(d.max_ulps, float32_ulps(newest.values[i], other.values[i]));
  }
  const ToleranceComparison comparison = compare_to_tolerance(other.values, newest.values, tolerance);
  d.max_abs = comparison.max_abs;
  d.within_tolerance = comparison.within;
  d.comparable = true;
  return d;
}

json compute_drift(const std::vector<RuntimeOutputs>& runtimes, const ProfileTolerances& profiles) {
  // Every (profile, case) any runtime computed: profiles in the given order, cases in first-seen order.
  std::vector<std::pair<std::string, std::string>> keys;
  std::set<std::pair<std::string, std::string>> seen;
  std::map<std::string, Tolerance> tolerances;
  for (const auto& [profile, tolerance] : profiles) {
    tolerances[profile] = tolerance;
    for (const auto& runtime : runtimes) {
      const auto it = runtime.profiles.find(profile);
      if (it == runtime.profiles.end()) continue;
      for (const auto& c : it->second) {
        if (seen.insert({profile, c.case_name}).second) keys.emplace_back(profile, c.case_name);
      }
    }
  }
  json cases = json::array();
  json beyond = json::array();
  for (const auto& [profile, name] : keys) {
    const auto tol_it = tolerances.find(profile);
    const Tolerance tolerance = tol_it == tolerances.end() ? Tolerance{} : tol_it->second;
    std::vector<std::pair<const RuntimeOutputs*, const CaseOutput*>> computed;
    for (const auto& runtime : runtimes) {
      if (const CaseOutput* c = find_case(runtime, profile, name)) computed.emplace_back(&runtime, c);
    }
    json entry{{drift_key::kProfile, profile}, {drift_key::kCase, name}, {drift_key::kRuntimes, json::array()}};
    for (const auto& [runtime, _] : computed) entry[drift_key::kRuntimes].push_back(runtime->version);
    // The largest pairwise difference.
    std::optional<Difference> largest;
    json pair;
    for (std::size_t i = 0; i < computed.size(); ++i) {
      for (std::size_t j = i + 1; j < computed.size(); ++j) {
        const Difference d = difference(*computed[i].second, *computed[j].second, tolerance);
        if (!d.comparable) continue;
        if (!largest || d.max_abs > largest->max_abs ||
            (d.max_abs == largest->max_abs && d.max_ulps > largest->max_ulps)) {
          largest = d;
          pair = json::array({computed[i].first->version, computed[j].first->version});
        }
      }
    }
    entry[drift_key::kMaxAbsDifference] = largest ? json(largest->max_abs) : json();
    entry[drift_key::kMaxUlps] = largest ? json(largest->max_ulps) : json();
    entry[drift_key::kPair] = pair;
    // Every runtime against the newest that computed the case.
    // The reference cell: a cell with the brief's settings before any other, then the newest release; among
    // equals the first in matrix order.
    const auto newest = std::max_element(computed.begin(), computed.end(), [](const auto& a, const auto& b) {
      if (a.first->tested != b.first->tested) return !a.first->tested;
      return compare_versions(release_of(*a.first), release_of(*b.first)) < 0;
    });
    entry[drift_key::kNewest] = newest == computed.end() ? json() : json(newest->first->version);
    json versus = json::array();
    for (const auto& [runtime, output] : computed) {
      if (runtime == newest->first) continue;
      const Difference d = difference(*newest->second, *output, tolerance);
      versus.push_back({{drift_key::kVersion, runtime->version},
                        {drift_key::kMaxAbsDifference, number_or_null(d, d.max_abs)},
                        {drift_key::kMaxUlps, d.comparable ? json(d.max_ulps) : json()},
                        {drift_key::kWithinTolerance, d.comparable && d.within_tolerance}});
      if (!(d.comparable && d.within_tolerance)) {
        beyond.push_back({{drift_key::kVersion, runtime->version},
                          {drift_key::kNewest, newest->first->version},
                          {drift_key::kProfile, profile},
                          {drift_key::kCase, name},
                          {drift_key::kMaxAbsDifference, number_or_null(d, d.max_abs)},
                          {drift_key::kMaxUlps, d.comparable ? json(d.max_ulps) : json()}});
      }
    }
    entry[drift_key::kVersusNewest] = std::move(versus);
    cases.push_back(std::move(entry));
  }
  json out{{drift_key::kCases, std::move(cases)}, {drift_key::kBeyondTolerance, std::move(beyond)}};
  if (std::any_of(runtimes.begin(), runtimes.end(), [](const RuntimeOutputs& r) { return !r.tested; })) {
    out[drift_key::kAxes] = axes_drift(runtimes, profiles);
  }
  return out;
}

std::vector<std::string> drift_summary_lines(const json& drift, const std::vector<std::string>& profiles) {
  std::vector<std::string> lines;
  // Per profile: the case with the largest absolute difference.
  std::map<std::string, const json*> worst;
  const auto value = [](const json& e) {
    const json& difference = e.at(drift_key::kMaxAbsDifference);
    return difference.is_null() ? -1.0 : difference.get<double>();
  };
  for (const auto& c : drift.at(drift_key::kCases)) {
    const std::string profile = c.at(drift_key::kProfile).get<std::string>();
    if (!worst.count(profile) || value(c) > value(*worst[profile])) worst[profile] = &c;
  }
  for (const auto& profile : profiles) {
    if (!worst.count(profile) || worst[profile]->at(drift_key::kPair).is_null()) {
      lines.push_back("drift " + profile + ": fewer than two runtimes computed comparable outputs");
      continue;
    }
    const json& c = *worst[profile];
    if (c.at(drift_key::kMaxAbsDifference).get<double>() == 0.0 &&
        c.at(drift_key::kMaxUlps).get<std::uint64_t>() == 0) {
      lines.push_back("drift " + profile + ": none: " + std::to_string(c.at(drift_key::kRuntimes).size()) +
                      " runtimes computed bit-identical float32 outputs for every case");
      continue;
    }
    lines.push_back("drift " + profile + ": largest |difference| " +
                    python_float_repr(c.at(drift_key::kMaxAbsDifference).get<double>()) + " (" +
                    ulps_text(c.at(drift_key::kMaxUlps).get<std::uint64_t>()) + ") between " +
                    c.at(drift_key::kPair)[0].get<std::string>() + " and " +
                    c.at(drift_key::kPair)[1].get<std::string>() + " (case " +
                    c.at(drift_key::kCase).get<std::string>() + ")");
  }
  for (const auto& a : drift.value(drift_key::kAxes, json::array())) {
    const json& abs = a.at(drift_key::kMaxAbsDifference);
    std::string how = abs.is_null() ? std::string("not comparable")
                      : abs.get<double>() == 0.0 && a.at(drift_key::kMaxUlps).get<std::uint64_t>() == 0
                          ? std::string("bit-identical")
                          : "largest |difference| " + python_float_repr(abs.get<double>()) + " (" +
                                ulps_text(a.at(drift_key::kMaxUlps).get<std::uint64_t>()) + ", case " +
                                a.at(drift_key::kCase).get<std::string>() + ")";
    lines.push_back("axis " + a.at(drift_key::kVersion).get<std::string>() + " against " +
                    a.at(drift_key::kAgainst).get<std::string>() + " on " + a.at(drift_key::kProfile).get<std::string>() +
                    ": " + how + (a.at(drift_key::kWithinTolerance).get<bool>() ? ", within the tolerance"
                                                                                 : ", BEYOND the tolerance"));
  }
  if (drift.at(drift_key::kBeyondTolerance).empty()) {
    lines.push_back("drift: every runtime is within each profile's tolerance of the newest");
  }
  for (const auto& b : drift.at(drift_key::kBeyondTolerance)) {
    const json& abs = b.at(drift_key::kMaxAbsDifference);
    lines.push_back("drift: " + b.at(drift_key::kVersion).get<std::string>() + " differs from " +
                    b.at(drift_key::kNewest).get<std::string>() + " beyond the tolerance of " +
                    b.at(drift_key::kProfile).get<std::string>() +
                    " (case " + b.at(drift_key::kCase).get<std::string>() + ", |difference| " +
                    (abs.is_null() ? std::string("not comparable") : python_float_repr(abs.get<double>())) + ")");
  }
  return lines;
}

}  // namespace nnx::matrix
