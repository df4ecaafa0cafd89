#include "matrix/cell_settings.h"

#include <algorithm>
#include <set>

#include "base/error.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "record/run_name.h"

namespace nnx::matrix {
namespace {

namespace key = rf::session_key;

std::size_t level_index(const std::string& level) {
  const auto& levels = key::kOptimizationLevels;
  return static_cast<std::size_t>(std::find(levels.begin(), levels.end(), level) - levels.begin());
}

bool known_level(const std::string& level) { return level_index(level) < key::kOptimizationLevels.size(); }

template <typename T>
void refuse_twice(const std::vector<T>& values, const std::string& flag) {
  std::set<T> seen;
  for (const auto& v : values) {
    if (!seen.insert(v).second) {
      if constexpr (std::is_same_v<T, std::string>) {
        throw UsageError(flag + " " + v + " is named twice: each value of an axis once");
      } else {
        throw UsageError(flag + " " + std::to_string(v) + " is named twice: each value of an axis once");
      }
    }
  }
}

}  // namespace

bool CellSettings::tested() const { return settings_label(session, provider, provider_options).empty(); }

SessionOverride CellSettings::as_override() const {
  return {session.graph_optimization_level, session.intra_op_num_threads, session.config, provider, provider_options};
}

nlohmann::json CellSettings::to_json() const {
  nlohmann::json out = session.to_json();
  out[rf::runtime_key::kProvider] = provider;
  if (!provider_options.empty()) out[rf::runtime_key::kProviderOptions] = provider_options;
  return out;
}

CellSettings CellSettings::from_json(const nlohmann::json& value, const std::string& where) {
  const auto refuse = [&where](const std::string& what) { throw ConformanceError(where + ": " + what); };
  if (!value.is_object()) refuse("must be an object");
  for (const auto& [k, _] : value.items()) {
    const bool known = k == key::kIntraOpThreads || k == key::kInterOpThreads || k == key::kOptimizationLevel ||
                       k == key::kConfig || k == rf::runtime_key::kProvider || k == rf::runtime_key::kProviderOptions;
    if (!known) refuse("unknown key " + k);
  }
  for (const char* k : {key::kIntraOpThreads, key::kInterOpThreads, key::kOptimizationLevel, rf::runtime_key::kProvider}) {
    if (!value.contains(k)) refuse("missing key " + std::string(k));
  }
  CellSettings out;
  const auto& level = value[key::kOptimizationLevel];
  if (!level.is_string() || !known_level(level.get<std::string>())) refuse("graph_optimization_level must be one of ONNX Runtime's levels");
  out.session.graph_optimization_level = level.get<std::string>();
  const auto& threads = value[key::kIntraOpThreads];
  if (!threads.is_number_integer() || threads.get<std::int64_t>() < 1 || threads.get<std::int64_t>() > key::kMaxIntraOpThreads) {
    refuse("intra_op_num_threads must be an integer from 1 to " + std::to_string(key::kMaxIntraOpThreads));
  }
  out.session.intra_op_num_threads = threads.get<std::int64_t>();
  if (value[key::kInterOpThreads] != key::kRequiredInterOpThreads) refuse("inter_op_num_threads must be 1");
  if (value.contains(key::kConfig)) {
    const auto& config = value[key::kConfig];
    if (!config.is_object() || config.empty()) refuse("config must be a non-empty object of strings");
    for (const auto& [k, v] : config.items()) {
      if (k.empty() || !v.is_string()) refuse("config must be a non-empty object of strings");
      out.session.config[k] = v.get<std::string>();
    }
  }
  const auto& provider = value[rf::runtime_key::kProvider];
  if (!provider.is_string() || provider.get<std::string>().empty()) refuse("provider must be a non-empty string");
  out.provider = provider.get<std::string>();
  if (value.contains(rf::runtime_key::kProviderOptions)) {
    const auto& options = value[rf::runtime_key::kProviderOptions];
    if (!options.is_object() || options.empty()) refuse("provider_options must be a non-empty object of strings");
    for (const auto& [k, v] : options.items()) {
      if (k.empty() || !v.is_string()) refuse("provider_options must be a non-empty object of strings");
      out.provider_options[k] = v.get<std::string>();
    }
    if (out.provider == rf::runtime_key::kRequiredProvider) refuse("provider_options: CPUExecutionProvider takes none");
  }
  if (out.tested()) refuse("holds the brief's settings, which a cell states by holding none");
  return out;
}

int compare_settings(const CellSettings& a, const CellSettings& b) {
  const auto rank = [](const CellSettings& s) {
    return std::make_tuple(level_index(s.session.graph_optimization_level), s.session.intra_op_num_threads,
                           s.provider != rf::runtime_key::kRequiredProvider, s.provider, s.session.config,
                           s.provider_options);
  };
  const auto ra = rank(a);
  const auto rb = rank(b);
  return ra < rb ? -1 : rb < ra ? 1 : 0;
}

std::vector<CellSettings> settings_product(const std::vector<std::string>& levels,
                                           const std::vector<std::int64_t>& threads,
                                           const std::vector<std::string>& providers,
                                           const std::map<std::string, std::string>& config,
                                           const std::map<std::string, std::string>& provider_options) {
  for (const auto& level : levels) {
    if (!known_level(level)) {
      throw UsageError("--optimization-level " + level + " is not one of ORT_DISABLE_ALL, ORT_ENABLE_BASIC, "
                       "ORT_ENABLE_EXTENDED, ORT_ENABLE_LAYOUT, ORT_ENABLE_ALL");
    }
  }
  for (const auto t : threads) {
    if (t < 1 || t > key::kMaxIntraOpThreads) {
      throw UsageError("--intra-op-threads " + std::to_string(t) + " is not from 1 to " + std::to_string(key::kMaxIntraOpThreads));
    }
  }
  for (const auto& p : providers) {
    if (p.empty()) throw UsageError("--provider needs a name (e.g. CPUExecutionProvider)");
  }
  for (const auto& [k, v] : provider_options) {
    if (k.empty()) throw UsageError("--provider-option takes KEY=VALUE, not =" + v);
  }
  const bool cpu_cell = providers.empty() || std::find(providers.begin(), providers.end(),
                                                       rf::runtime_key::kRequiredProvider) != providers.end();
  if (!provider_options.empty() && cpu_cell) {
    throw UsageError("--provider-option " + provider_options.begin()->first + "=" + provider_options.begin()->second +
                     " is given to every cell's provider, and CPUExecutionProvider takes no options: name the provider "
                     "they are for with --provider (e.g. OpenVINOExecutionProvider), without CPUExecutionProvider");
  }
  refuse_twice(levels, "--optimization-level");
  refuse_twice(threads, "--intra-op-threads");
  refuse_twice(providers, "--provider");
  const SessionOptions brief;
  const std::vector<std::string> level_values = levels.empty() ? std::vector<std::string>{brief.graph_optimization_level} : levels;
  const std::vector<std::int64_t> thread_values = threads.empty() ? std::vector<std::int64_t>{brief.intra_op_num_threads} : threads;
  const std::vector<std::string> provider_values =
      providers.empty() ? std::vector<std::string>{rf::runtime_key::kRequiredProvider} : providers;
  std::vector<CellSettings> product;
  for (const auto& level : level_values) {
    for (const auto t : thread_values) {
      for (const auto& provider : provider_values) {
        CellSettings s;
        s.session.graph_optimization_level = level;
        s.session.intra_op_num_threads = t;
        s.session.config = config;
        s.provider = provider;
        s.provider_options = provider_options;
        product.push_back(std::move(s));
      }
    }
  }
  return product;
}

nlohmann::json record_with_settings(const nlohmann::json& record, const CellSettings& settings) {
  if (settings.tested()) return record;
  Record out = Record::from_json(record);
  out.runtime.session = settings.session;
  out.runtime.provider = settings.provider;
  out.runtime.provider_options = settings.provider_options;
  out.settle_format_for_settings();  // a tested profile's record: §11's kind "built-in", as the cell writes it
  return out.to_json();
}

CellSettings settings_from_argument(const std::string& text) {
  if (text.empty()) return {};
  return CellSettings::from_json(parse_strict_json(text), "the cell's --settings");
}

std::string cell_name(const std::string& version, const CellSettings& settings) {
  return run_name(version, settings.session, settings.provider, settings.provider_options);
}

}  // namespace nnx::matrix
