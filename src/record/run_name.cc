#include "record/run_name.h"

#include "base/record_vocabulary.h"

namespace nnx {

std::string settings_label(const SessionOptions& session, const std::string& provider, const ProviderOptions& options) {
  namespace key = rf::session_key;
  std::string label;
  const auto add = [&label](const std::string& part) { label += (label.empty() ? "" : ", ") + part; };
  if (session.graph_optimization_level != key::kRequiredOptimizationLevel) add(session.graph_optimization_level);
  if (session.intra_op_num_threads != key::kRequiredIntraOpThreads) {
    add(std::to_string(session.intra_op_num_threads) + " threads");
  }
  if (session.inter_op_num_threads != key::kRequiredInterOpThreads) {
    add(std::to_string(session.inter_op_num_threads) + " inter-op threads");
  }
  for (const auto& [k, v] : session.config) add(k + "=" + v);
  std::string provider_part = provider != rf::runtime_key::kRequiredProvider ? provider : "";
  for (const auto& [k, v] : options) provider_part += (provider_part.empty() ? "" : " ") + k + "=" + v;
  if (!provider_part.empty()) add(provider_part);
  return label;
}

std::string run_name(const std::string& version, const SessionOptions& session, const std::string& provider,
                     const ProviderOptions& options) {
  const std::string label = settings_label(session, provider, options);
  return label.empty() ? version : version + " (" + label + ")";
}

std::string run_name_of(const Record& record) {
  const std::string version = record.runtime.version.is_string() ? record.runtime.version.get<std::string>() : "";
  return run_name(version, record.runtime.session, record.runtime.provider, record.runtime.provider_options);
}

}  // namespace nnx
