// One optimisation level of a localisation (localisation_levels.h).
#include "stages/localisation_levels.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <unordered_map>

#include "base/error.h"
#include "base/file_bytes.h"
#include "base/tolerance_compare.h"

namespace nnx::localisation {
namespace {

using nlohmann::json;

// The plain session's outputs at `level` and the values its optimised graph still writes (read from the file
// the runtime wrote; at ORT_DISABLE_ALL nothing is optimised: nullopt, every value survives).
std::pair<std::vector<Tensor>, std::optional<std::set<std::string>>> plain_run(const Subject& subject,
                                                                             const std::string& level) {
  SessionSettings settings = subject.settings;
  settings.graph_optimization_level = level;
  if (level != "ORT_DISABLE_ALL") settings.optimized_model_path = subject.scratch / ("optimised-" + level + ".onnx");
  std::vector<Tensor> outputs =
      subject.runtime->create_session(subject.model, *subject.external, settings)->run(subject.inputs);
  if (!settings.optimized_model_path) return {std::move(outputs), std::nullopt};
  const std::string bytes = read_file_bytes(*settings.optimized_model_path, std::size_t{4} << 30,
                                            "an optimised model", ErrorKind::refused);
  std::filesystem::remove(*settings.optimized_model_path);
  const GraphOutline optimised =
      read_graph_outline({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()});
  std::set<std::string> values;
  for (const auto& node : optimised.nodes) values.insert(node.outputs.begin(), node.outputs.end());
  return {std::move(outputs), std::move(values)};
}

// Whether every output is within the record's tolerance of its reference, and the largest error.
std::pair<bool, double> judge_outputs(const std::vector<Tensor>& outputs, const std::vector<Tensor>& references,
                                      const Tolerance& tol) {
  bool within = true;
  double largest = 0.0;
  for (const Tensor& ref : references) {
    const auto it = std::find_if(outputs.begin(), outputs.end(), [&](const Tensor& t) { return t.name == ref.name; });
    if (it == outputs.end() || it->shape != ref.shape) return {false, INFINITY};
    const std::vector<double> a = it->as_doubles(), e = ref.as_doubles();
    const ToleranceComparison c = compare_to_tolerance(a, e, tol);
    within = within && c.within;
    largest = std::max(largest, c.max_abs);
  }
  return {within, largest};
}

// The largest change of the final outputs between the plain run and a marked one (0: bit for bit alike).
double outputs_change(const std::vector<Tensor>& plain, const std::vector<Tensor>& marked) {
  double change = 0.0;
  for (const Tensor& p : plain) {
    const auto it = std::find_if(marked.begin(), marked.end(), [&](const Tensor& t) { return t.name == p.name; });
    if (it == marked.end() || it->bytes == p.bytes) continue;
    const std::vector<double> a = p.as_doubles(), b = it->as_doubles();
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
      const double d = std::fabs(a[i] - b[i]);
      change = std::max(change, std::isnan(d) ? INFINITY : d);
    }
  }
  return change;
}

}  // namespace

std::optional<std::size_t> LevelOutcome::first_departing() const {
  for (std::size_t i = 0; i < compared.size(); ++i) {
    if (compared[i].departure.departs) return i;
  }
  return std::nullopt;
}

json LevelOutcome::to_json(const Alignment& alignment, const GraphOutline& outline) const {
  std::size_t departing = 0;
  json path = json::array();
  for (const auto& c : compared) {
    departing += c.departure.departs ? 1 : 0;
    const AlignedValue& a = alignment.aligned[c.aligned];
    path.push_back({{"value", a.value},
                    {"op_type", outline.nodes[a.node].op_type},
                    {"departs", c.departure.departs},
                    {"margin", c.departure.margin ? json(*c.departure.margin) : json()}});
  }
  const auto first = first_departing();
  return json{{"level", level},
              {"values_compared", compared.size()},
              {"values_departing", departing},
              {"first_departing", first ? json(alignment.aligned[compared[*first].aligned].value) : json()},
              {"fused", fused},
              {"outputs_within_tolerance", failure.empty() ? json(outputs_within) : json()},
              {"outputs_max_abs_error", failure.empty() && std::isfinite(outputs_max_abs_error)
                                            ? json(outputs_max_abs_error) : json()},
              {"observer", observer_max_abs ? json{{"changed_outputs", true}, {"max_abs_change", *observer_max_abs}}
                                            : json{{"changed_outputs", false}}},
              {"groups", groups},
              {"seconds", seconds},
              {"largest_group_bytes", largest_group_bytes},
              {"stopped", stopped.empty() ? json() : json(stopped)},
              {"failure", failure.empty() ? json() : json(failure)},
              {"path", path}};
}

std::vector<Tensor> run_marked(const Subject& subject, const std::string& level, const std::vector<std::string>& marked) {
  SessionSettings settings = subject.settings;
  settings.graph_optimization_level = level;
  const std::string bytes = model_with_outputs(subject.model, marked);
  return subject.runtime
      ->create_session({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, *subject.external, settings)
      ->run(subject.inputs);
}

LevelOutcome compare_at_level(const Subject& subject, const Alignment& alignment, const ReferenceValues& torch,
                              const std::string& level, const LocaliseLimits& limits,
                              std::chrono::steady_clock::time_point deadline) {
  LevelOutcome out;
  out.level = level;
  const auto started = std::chrono::steady_clock::now();
  std::vector<Tensor> plain;
  std::optional<std::set<std::string>> survivors;
  try {
    std::tie(plain, survivors) = plain_run(subject, level);
  } catch (const std::exception& e) {
    out.failure = e.what();
    return out;
  }
  std::tie(out.outputs_within, out.outputs_max_abs_error) =
      judge_outputs(plain, subject.references, Tolerance{subject.scale.rtol, subject.scale.atol});
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < alignment.aligned.size(); ++i) {
    if (!survivors || survivors->count(alignment.aligned[i].value)) {
      order.push_back(i);
    } else {
      out.fused.push_back(alignment.aligned[i].value);
    }
  }
  for (std::size_t start = 0; start < order.size();) {
    if (std::chrono::steady_clock::now() > deadline) {
      out.stopped = "the time cap was reached after " + std::to_string(out.compared.size()) + " of " +
                    std::to_string(order.size()) + " values";
      break;
    }
    std::vector<std::string> marked;
    std::uint64_t bytes = 0;
    std::size_t end = start;
    for (; end < order.size(); ++end) {
      const std::uint64_t size = torch.values[alignment.aligned[order[end]].torch].bytes();
      if (end > start && bytes + size > limits.memory_bytes) break;
      bytes += size;
      marked.push_back(alignment.aligned[order[end]].value);
    }
    ++out.groups;
    out.largest_group_bytes = std::max(out.largest_group_bytes, bytes);
    std::vector<Tensor> outputs;
    try {
      outputs = run_marked(subject, level, marked);
    } catch (const std::exception& e) {
      out.failure = std::string("a session marking ") + std::to_string(marked.size()) + " values failed: " + e.what();
      return out;
    }
    if (const double change = outputs_change(plain, outputs); change != 0.0) {
      out.observer_max_abs = std::max(out.observer_max_abs.value_or(0.0), change);
    }
    std::unordered_map<std::string, std::size_t> by_name;
    for (std::size_t k = 0; k < outputs.size(); ++k) by_name.emplace(outputs[k].name, k);
    for (std::size_t k = start; k < end; ++k) {
      const AlignedValue& a = alignment.aligned[order[k]];
      const ReferenceValue& value = torch.values[a.torch];
      Tensor& ran = outputs[by_name.at(a.value)];
      out.compared.push_back({order[k], value_departure(ran, torch.read(value), torch.read_oracle(value), subject.scale)});
      ran = Tensor{};  // let it go
    }
    start = end;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace nnx::localisation
